"""Replay every ledger-traces vector, and check each trace's refusals against the outcomes
docs/spec/ledger.md and recovery.md state for that scenario (transcribed here, not computed)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from rescind.conformance.interpreters.host_trace import run_trace
from rescind.conformance.precedence import BY_NAME
from rescind.conformance.vectors.sets import ledger_traces

TRACES = {test.id: test for test in ledger_traces.build().tests}

_DISPATCH_ROLE = "operation_dispatch_requires_host_authenticator"
_RECONCILE_ROLE = "reconciliation_requires_host_authenticator"
_COMPENSATION_ROLE = "compensation_dispatch_requires_host_authenticator"
_NOT_SUCCEEDED = "compensation_requires_succeeded_operation"

# The refusals each trace must produce, in order (from the spec's scenario descriptions).
EXPECTED_ERRORS: dict[str, list[str]] = {
    "ledger.trace.record-host-key": ["input_fingerprint_mismatch", "host_input_too_large"],
    "ledger.trace.restart-validation": [
        "stale_revision",
        "plan_mismatch",
        "plan_ownership_mismatch",
    ],
    "ledger.trace.persist-and-restore": [],
    "ledger.trace.dispatch-input-drift": [
        "input_fingerprint_mismatch",
        "input_fingerprint_mismatch",
        "invalid_json_envelope",
        "unknown_operation",
        "invalid_token",
    ],
    "ledger.trace.worker-role-refused": [_DISPATCH_ROLE, _RECONCILE_ROLE] * 2,
    "ledger.trace.dispatch-result-wrong-kind": [
        "unexpected_operation_dispatch_message",
        "unexpected_sequence",
        "unexpected_sequence",
    ],
    # HL-20: a close_session frame is a wrong kind like any other; nothing else is refused.
    "ledger.trace.dispatch-result-close-session-kind": ["unexpected_operation_dispatch_message"],
    "ledger.trace.external-prepare-idempotent": [],
    "ledger.trace.external-prepare-terminal": ["operation_already_terminal"],
    "ledger.trace.external-prepare-bad-nonce": [
        "operation_nonce_too_large",
        "empty_operation_nonce",
    ],
    "ledger.trace.derived-key-recorded": [
        "empty_operation_nonce",
        "operation_nonce_too_large",
        "duplicate_operation_key",
    ],
    "ledger.trace.reconcile-transitions": ["invalid_state_transition"] * 2,
    # HL-11: a step the plan lacks; with another plan fingerprint too, the plan comes first.
    "ledger.trace.plan-bound-validation-order": ["unknown_step", "plan_mismatch"],
    # HL-10: running -> cancelled advances, cancelled again is a no-op: nothing refused.
    "ledger.trace.reconcile-running-then-cancelled": [],
    # HL-20: a reconciliation answered with another kind is refused once, then applies.
    "ledger.trace.reconcile-wrong-kind-frame": ["unexpected_reconciliation_message"],
    # HL-29: another input, then oversize input (size is checked before the fingerprint).
    "ledger.trace.matches-input": [],
    "ledger.trace.compensation-input-check": [
        "compensation_input_fingerprint_mismatch",
        "host_input_too_large",
    ],
    "ledger.trace.reconcile-frame-attacks": ["invalid_authentication_tag"] * 4
    + ["unexpected_sequence"],
    "ledger.trace.record-refusals": [
        "invalid_operation_key",
        "unknown_step",
        "unknown_step",
        "duplicate_operation_key",
        "host_input_too_large",
        "invalid_tool",
        "invalid_tool",
        "host_input_too_large",
    ],
    "ledger.trace.reload-edited-tool": ["invalid_tool", "ledger_unsupported_version"],
    "ledger.trace.revision-exhausted": ["ledger_revision_exhausted"] * 3,
    "ledger.trace.sixty-four-operations": ["too_many_operations", "host_input_too_large"],
    "ledger.trace.estimate-quirk": ["ledger_too_large"],
    "ledger.trace.dispatch-terminal-still-built": [],
    "ledger.trace.invalid-result-status": [
        "invalid_operation_failure",
        "invalid_json_envelope",
        "invalid_operation_failure",
    ],
    "ledger.trace.result-correlation-drift": [
        "reconciliation_mismatch",
        "reconciliation_mismatch",
        "reconciliation_mismatch",
        "input_fingerprint_mismatch",
        "reconciliation_mismatch",
    ],
    "ledger.trace.reconcile-request-keys": [
        "unknown_operation",
        "invalid_operation_key",
        "unknown_operation",
        "input_fingerprint_mismatch",
        "invalid_token",
    ],
    "ledger.trace.frame-auth-known-answer": [],
    "ledger.trace.events.planned-events": ["duplicate_operation_key", "invalid_state_transition"],
    "ledger.trace.compensation-happy-path.planned-events": [
        "compensation_input_fingerprint_mismatch",
        "approval_mismatch",
    ],
    "ledger.trace.reload-compensated-running": [_NOT_SUCCEEDED],
    "ledger.trace.grant-verifier-denies-first": [
        "compensation_grant_denied",
        "compensation_grant_denied",
        "approval_mismatch",
        "approval_mismatch",
    ],
    "ledger.trace.action-verifier-denies": ["compensation_action_denied"] * 2,
    "ledger.trace.second-intent-refused": ["compensation_already_recorded"] * 5,
    "ledger.trace.approval-revision-drift": ["approval_mismatch"] * 2,
    "ledger.trace.approval-session-drift": ["approval_mismatch"],
    "ledger.trace.approval-other-engine": ["approval_mismatch", "plan_ownership_mismatch"],
    "ledger.trace.approval-one-use": [
        "approval_mismatch",
        _COMPENSATION_ROLE,
        "approval_mismatch",
        "invalid_token",
        "approval_mismatch",
    ],
    "ledger.trace.compensation-result-tenant": ["compensation_request_mismatch"] * 2,
    "ledger.trace.compensation-result-input-first": [
        "compensation_input_fingerprint_mismatch",
        "compensation_request_mismatch",
        "compensation_request_mismatch",
    ],
    "ledger.trace.compensation-transitions.planned-events": [
        "invalid_compensation_state_transition"
    ]
    * 2,
    "ledger.trace.compensation-result-wrong-operation": [
        "unknown_compensation",
        "unknown_operation",
        "compensation_request_mismatch",
    ],
    "ledger.trace.compensation-wrong-kind-frame": ["unexpected_compensation_message"],
    # One trace per in-scope event variant, each with refused calls that record nothing (HL-25).
    "ledger.trace.event.planned": ["invalid_plan", "invalid_plan"],
    "ledger.trace.event.approved": ["plan_ownership_mismatch"],
    "ledger.trace.event.operation-ledger-created": ["plan_ownership_mismatch"],
    "ledger.trace.event.operation-recorded": ["duplicate_operation_key", "unknown_step"],
    "ledger.trace.event.operation-observed": ["invalid_state_transition"],
    "ledger.trace.event.compensation-recorded": ["compensation_already_recorded"],
    "ledger.trace.event.compensation-approved": ["compensation_input_fingerprint_mismatch"],
    "ledger.trace.event.compensation-observed": ["compensation_input_fingerprint_mismatch"],
    "ledger.trace.policy-creation": [
        "compensation_not_granted",
        "invalid_compensation_tenant_scope",
        "invalid_grant",
    ],
    "ledger.trace.grant-drift": ["compensation_policy_mismatch"] * 4
    + ["approval_mismatch", "compensation_not_granted"],
    "ledger.trace.tool-drift": ["compensation_policy_mismatch"] * 4,
    "ledger.trace.compensation-worker-role": [_COMPENSATION_ROLE] * 3 + [_RECONCILE_ROLE],
    "ledger.trace.plain-verified-record-calls-verifier": [_NOT_SUCCEEDED] * 2,
    "ledger.recovery.original-not-succeeded": [_NOT_SUCCEEDED] * 16,
    "ledger.recovery.record-persist-approve": [],
    "ledger.recovery.pending-after-crash": ["compensation_already_recorded"],
    "ledger.recovery.compensation-succeeded": [
        "compensation_already_recorded",
        "invalid_compensation_state_transition",
    ],
    "ledger.recovery.compensation-failed-or-cancelled": ["invalid_compensation_state_transition"]
    * 3
    + ["compensation_already_recorded"] * 2,
    "ledger.recovery.tenant-drift": ["compensation_policy_mismatch", "approval_mismatch"],
    "ledger.recovery.key-drift": ["approval_mismatch", "compensation_request_mismatch"],
    "ledger.recovery.input-drift": [
        "compensation_input_fingerprint_mismatch",
        "compensation_input_fingerprint_mismatch",
        "approval_mismatch",
        "compensation_input_fingerprint_mismatch",
        "host_input_too_large",
    ],
    "ledger.recovery.lost-response": ["unexpected_sequence"],
    "ledger.recovery.stale-ledger": ["stale_revision"],
    # HL-6: the revision before key, tool and duplicate checks, after step and input size;
    # HL-7: the revision after every other compensation check.
    "ledger.trace.revision-exhausted-among-other-checks": [
        "ledger_revision_exhausted",
        "ledger_revision_exhausted",
        "ledger_revision_exhausted",
        "unknown_step",
        "host_input_too_large",
        "ledger_revision_exhausted",
        "invalid_compensation_key",
        "unknown_operation",
        "ledger_revision_exhausted",
    ],
    # HL-26: a step or a tool drift alone, under the same derived key.
    "ledger.trace.external-prepare-step-drift": ["operation_binding_mismatch"],
    "ledger.trace.external-prepare-tool-drift": ["operation_binding_mismatch"],
    # HL-7: policy syntax (tool, then tenant, then grant fingerprint) before the operation.
    "ledger.trace.raw-policy.uppercase-grant-fingerprint": [
        "invalid_compensation_grant_fingerprint"
    ]
    * 3,
    "ledger.trace.raw-policy.short-grant-fingerprint": ["invalid_compensation_grant_fingerprint"]
    * 3,
    "ledger.trace.raw-policy.bad-tenant": ["invalid_compensation_tenant_scope"] * 3,
    "ledger.trace.raw-policy.tenant-before-fingerprint": ["invalid_compensation_tenant_scope"] * 3,
    "ledger.trace.raw-policy.tool-before-tenant": ["invalid_tool"] * 3,
}


# The error-precedence traces (docs/spec/precedence.md EP-18): the earlier check's refusal.
EXPECTED_ERRORS.update(
    {
        f"ledger.record.precedence.{pair.slug}": [pair.first.code]
        for pair in BY_NAME["ledger.record_operation"].covered_pairs()
    }
)
# EP-30 to EP-35, EP-52, EP-53: the last step breaks two checks and gets the earlier one's code
for _prefix, _operation in (
    ("ledger.record-compensation", "ledger.record_compensation"),
    ("ledger.reconcile-request", "ledger.reconcile_request"),
    ("ledger.prepare-external", "ledger.prepare_external_operation"),
    ("ledger.approve-compensation", "ledger.approve_compensation"),
    ("ledger.apply-reconciliation", "ledger.apply_reconciliation"),
    ("ledger.apply-compensation", "ledger.apply_compensation"),
    ("ledger.dispatch-request", "ledger.dispatch_request"),
    ("ledger.record-compensation-verified", "ledger.record_compensation_verified"),
):
    EXPECTED_ERRORS.update(
        {
            f"{_prefix}.precedence.{pair.slug}": [pair.first.code]
            for pair in BY_NAME[_operation].covered_pairs()
        }
    )


def _errors(expected: dict[str, Any]) -> list[str]:
    return [step["error"] for step in expected["steps"] if "error" in step]


def _results(test_id: str, call: str) -> list[Any]:
    test = TRACES[test_id]
    return [
        outcome.get("result", outcome.get("error"))
        for step, outcome in zip(test.input["steps"], test.expected["steps"], strict=True)
        if step["call"] == call
    ]


def test_every_trace_has_spec_expectations() -> None:
    assert set(TRACES) == set(EXPECTED_ERRORS)


@pytest.mark.parametrize("test_id", sorted(TRACES))
def test_trace_replays_to_its_vector(test_id: str) -> None:
    test = TRACES[test_id]
    assert run_trace(json.loads(json.dumps(test.input))) == dict(test.expected)


@pytest.mark.parametrize("test_id", sorted(EXPECTED_ERRORS))
def test_trace_refusals_are_the_specified_ones(test_id: str) -> None:
    assert _errors(dict(TRACES[test_id].expected)) == EXPECTED_ERRORS[test_id]


def test_revisions_follow_the_spec() -> None:
    # HL-4, HL-10 (upstream test operation_ledger_reconciles_bound_observations_without_retaining_output):
    # running -> 2, succeeded -> 3, succeeded again stays 3, failed refused.
    assert _results("ledger.trace.reconcile-transitions", "revision") == [2, 2, 3, 3, 3]
    # HL-4, HL-10 for a compensation: running +1, running no bump, succeeded +1, succeeded no bump.
    assert _results("ledger.trace.compensation-transitions.planned-events", "revision") == [
        4,
        4,
        5,
        5,
        5,
    ]
    # HL-20 (upstream test authenticated_dispatch_result_rejects_a_wrong_message_before_ledger_mutation):
    # untouched by the wrong kind and by the replay.
    assert _results("ledger.trace.dispatch-result-wrong-kind", "revision") == [1, 2, 2]
    # HL-20: the close_session frame leaves revision 1; the genuine result then gives 2.
    assert _results("ledger.trace.dispatch-result-close-session-kind", "revision") == [1, 2]
    # HL-20 (upstream test authenticated_operation_ledger_reconciliation_rejects_tampering): tampered
    # frames leave revision 1; the genuine frame gives 2.
    assert _results("ledger.trace.reconcile-frame-attacks", "revision") == [1, 2]
    # HL-26, HK-8, HL-4 (revision exhausted), HL-6 (64 operations).
    assert _results("ledger.trace.external-prepare-idempotent", "revision") == [1, 2]
    assert _results("ledger.trace.external-prepare-bad-nonce", "revision") == [0]
    assert _results("ledger.trace.revision-exhausted", "revision") == [2**64 - 1]
    assert _results("ledger.trace.sixty-four-operations", "revision") == [64]


def test_action_verifier_call_counts() -> None:
    # HL-22, HL-23 (upstream test compensation_is_host_approved_bound_and_applied_once): 1 after
    # record, 2 after approve, still 2 after the drifted prepare, 4 at end.
    calls = _results("ledger.trace.compensation-happy-path.planned-events", "verifier_calls")
    assert [entry["action_calls"] for entry in calls[1::2]] == [1, 2, 4]
    # HL-19: every call saw the same context and the exact compensation input bytes.
    undo = b"json" + (18).to_bytes(8, "big") + b'{"undo":"release"}'
    for action in calls[-1]["actions"]:
        assert action["step_id"] == "publish"
        assert action["tool"] == action["grant_tool"] == "release.publish"
        assert action["tenant_scope"] == "tenant-release"
        assert action["compensation_input_hex"] == undo.hex()
    # HL-18 (upstream test compensation_action_policy_blocks_recording_and_rechecks_before_frame_seal):
    # one call at the refused record, four in all.
    assert [
        e["action_calls"] for e in _results("ledger.trace.action-verifier-denies", "verifier_calls")
    ] == [1, 4]
    # HL-18: the plain-key verified record calls both verifiers once.
    counts = _results("ledger.trace.plain-verified-record-calls-verifier", "verifier_calls")
    assert [counts[0]["grant_calls"], counts[1]["action_calls"]] == [1, 1]
    assert [counts[2]["grant_calls"], counts[3]["action_calls"]] == [1, 1]


def test_recorded_keys_are_the_derived_keys() -> None:
    derived = _results("ledger.trace.derived-key-recorded", "derive_operation_key")[0]
    recorded = _results("ledger.trace.derived-key-recorded", "record_derived_operation")[0]
    assert derived == recorded and derived.startswith("op-") and len(derived) == 67
    first, second = _results(
        "ledger.trace.external-prepare-idempotent", "prepare_external_operation"
    )
    assert first == second


def test_recovery_reuses_the_compensation_key() -> None:
    trace = "ledger.recovery.pending-after-crash"
    keys = [entry["compensation_key"] for entry in _results(trace, "approve_compensation")]
    frames = [json.loads(text) for text in _results(trace, "prepare_compensation")]
    assert len(set(keys)) == 1
    assert {frame["message"]["request"]["compensation_key"] for frame in frames} == set(keys)
    assert [frame["message"]["request"]["session_id"] for frame in frames] == [
        "worker-1",
        "worker-2",
    ]


def test_ledgers_never_hold_payloads_outputs_or_failure_text() -> None:
    for test in TRACES.values():
        for text in test.expected["checkpoints"].values():
            if isinstance(text, str):
                for secret in (
                    "secret-output",
                    "secret-failure-text",
                    "let release",
                    "undo",
                    "1.2.3",
                ):
                    assert secret not in text, (test.id, secret)
                assert "approval" not in text
