"""Ledger traces for recording, validation, dispatch and reconciliation (docs/spec/ledger.md
HL-2 to HL-27; the upstream tests behind them are in its Evidence list)."""

from __future__ import annotations

from typing import Any

from rescind.conformance.fixtures.trace_dsl import (
    CANCELLED,
    FAILED,
    KEY_0E,
    NONCE,
    PLAN,
    RUNNING,
    SUCCEEDED,
    SUCCEEDED_EMPTY,
    TOOL,
    VERSION,
    VERSION_2,
    call,
    checkpoint,
    dispatch_and_observe,
    on,
    reconcile,
    record_op,
    revision,
    session,
    setup,
)
from rescind.conformance.vectors.sets._ledger_texts import (
    MAX_REVISION,
    ledger,
    max_field_operations,
    numbered_operations,
    operation,
    text,
)
from rescind.reference.digests import PlanStep, plan_fingerprint

Case = tuple[str, str, tuple[str, ...], str, dict[str, Any]]
"""(id, rule, flags, comment, trace)."""

HOST_KEY = "release-2026-1"
PLAN_FP = plan_fingerprint([PlanStep("publish", "let release = true")])
REORDERED = {"format": "json", "value": {"channel": "stable", "version": "1.2.3"}}
ORDERED = {"format": "json", "value": {"version": "1.2.3", "channel": "stable"}}


def _record_host_key(input: Any = None) -> dict[str, Any]:
    return on(
        "record_operation",
        step_id="publish",
        tool=TOOL,
        operation_key=HOST_KEY,
        input=VERSION if input is None else input,
    )


def _trace(steps: list[dict[str, Any]], **setup_args: Any) -> dict[str, Any]:
    return {"setup": setup(**setup_args), "steps": steps}


WIDE_STEPS = [[f"s{index:03d}".ljust(128, "x"), "wide"] for index in range(47)]
WIDE_FP = plan_fingerprint([PlanStep(step, source) for step, source in WIDE_STEPS])

# fmt: off
CASES: list[Case] = [
    ("ledger.trace.record-host-key", "HL-6", (), "Record one operation under a host-chosen key (edge 1): revision 1, state pending, exactly four top-level members, no raw input or source; the input check accepts only the original bytes.", _trace([
        _record_host_key(),
        checkpoint("after-record"),
        revision(),
        call("matches_input", ledger="ledger", operation_key=HOST_KEY, input=VERSION),
        call("matches_input", ledger="ledger", operation_key=HOST_KEY, input=VERSION_2),
        call("matches_input", ledger="ledger", operation_key=HOST_KEY, input={"hex": ""}),
        call("verify_input", ledger="ledger", operation_key=HOST_KEY, input=VERSION_2),
        call("verify_input", ledger="ledger", operation_key=HOST_KEY, input={"repeat": "a", "count": 262_145}),
    ])),
    ("ledger.trace.matches-input", "HL-29", (), "The accepting input check (upstream's public matches_input): the recorded bytes match, other bytes and input above 262,144 bytes do not, and a refusal needs no checking variant.", _trace([
        _record_host_key(),
        call("matches_input", ledger="ledger", operation_key=HOST_KEY, input=VERSION),
        call("matches_input", ledger="ledger", operation_key=HOST_KEY, input=VERSION_2),
        call("matches_input", ledger="ledger", operation_key=HOST_KEY, input={"repeat": "a", "count": 262_145}),
    ])),
    ("ledger.trace.plan-bound-validation-order", "HL-11", ("CheckOrder",), "Plan-bound validation of stored ledgers: an operation under a step the plan lacks is unknown_step; with the plan fingerprint changed too, plan_mismatch is reported first; the untouched ledger validates.", _trace([
        record_op(),
        call("validate", engine="engine", plan="plan", ledger="ledger"),
        call("load_ledger", edits=[{"path": ["operations", 0, "step_id"], "value": "ghost"}], **{"from": "ledger", "as": "ghost-step"}),
        call("validate", engine="engine", plan="plan", ledger="ghost-step"),
        call("load_ledger", edits=[{"path": ["operations", 0, "step_id"], "value": "ghost"}, {"path": ["plan_fingerprint"], "value": "1111111111111111111111111111111111111111111111111111111111111111"}], **{"from": "ledger", "as": "ghost-and-other-plan"}),
        call("validate", engine="engine", plan="plan", ledger="ghost-and-other-plan"),
    ])),
    ("ledger.trace.restart-validation", "HL-12", (), "After a restart the same steps give the same fingerprint and the stored ledger validates (edge 2); a watermark above the revision is stale; other plan source is a plan mismatch; another engine's plan is refused.", _trace([
        record_op(),
        call("load_ledger", **{"from": "ledger", "as": "reloaded"}),
        call("validate", engine="restarted", plan="same", ledger="reloaded"),
        call("validate", engine="restarted", plan="same", ledger="reloaded", minimum_revision=1),
        call("validate", engine="restarted", plan="same", ledger="reloaded", minimum_revision=2),
        call("validate", engine="restarted", plan="same", ledger="reloaded", minimum_revision=0),
        call("validate", engine="restarted", plan="changed", ledger="reloaded"),
        call("validate", engine="restarted", plan="plan", ledger="reloaded"),
    ], engines=("engine", "restarted"), plans={"same": {"engine": "restarted", "steps": [["publish", "let release = true"]]}, "changed": {"engine": "restarted", "steps": [["publish", "let release = false"]]}})),
    ("ledger.trace.persist-and-restore", "HL-2", (), "Encode, decode and validate at or after revision 1 (edge 3, without storage): the restored ledger encodes identically.", _trace([
        record_op(),
        call("to_json", ledger="ledger"),
        call("load_ledger", **{"from": "ledger", "as": "restored"}),
        call("validate", engine="engine", plan="plan", ledger="restored", minimum_revision=1),
        checkpoint("restored", "restored"),
    ])),
    ("ledger.trace.dispatch-input-drift", "HL-14", (), "A dispatch payload with another value is refused (edge 4); the same JSON with reordered keys is the same canonical input; payload validation comes before the input check.", _trace([
        _record_host_key(ORDERED),
        on("operation_dispatch_request", operation_key=HOST_KEY, payload=REORDERED, session_id="worker-1", request_id="dispatch-1"),
        on("operation_dispatch_request", operation_key=HOST_KEY, payload={"format": "json", "value": {"version": "1.2.4", "channel": "stable"}}, session_id="worker-1", request_id="dispatch-1"),
        on("operation_dispatch_request", operation_key=HOST_KEY, payload={"format": "text", "value": "release-1.2.3"}, session_id="worker-1", request_id="dispatch-1"),
        on("operation_dispatch_request", operation_key=HOST_KEY, payload={"format": "json", "value": 42}, session_id="worker-1", request_id="dispatch-1"),
        on("operation_dispatch_request", operation_key="op-missing", payload=ORDERED, session_id="worker-1", request_id="dispatch-1"),
        on("operation_dispatch_request", operation_key=HOST_KEY, payload=ORDERED, session_id="worker-1", request_id="Dispatch 1"),
    ])),
    ("ledger.trace.worker-role-refused", "HL-20", (), "A worker-role authenticator cannot prepare or apply dispatches or reconciliations (edges 5, 36).", _trace([
        record_op(),
        on("prepare_dispatch", operation_key="$op", payload=VERSION, request_id="dispatch-1", session="worker", **{"as": "d0"}),
        on("prepare_reconciliation", operation_key="$op", input=VERSION, request_id="reconcile-1", session="worker", **{"as": "r0"}),
        on("prepare_dispatch", operation_key="$op", payload=VERSION, request_id="dispatch-1", session="host", **{"as": "d1"}),
        call("worker_reply", session="worker", to="d1", status=RUNNING, **{"as": "d1-reply"}),
        on("apply_dispatch_result", request="d1", session="worker", frame="d1-reply"),
        on("prepare_reconciliation", operation_key="$op", input=VERSION, request_id="reconcile-1", session="host", **{"as": "r1"}),
        on("apply_reconciliation", request="r1", session="worker", frame="d1-reply"),
        revision(),
    ])),
    ("ledger.trace.dispatch-result-wrong-kind", "HL-20", ("WrongKindConsumesSequence",), "A dispatch result delivered as reconciled_operation is refused and the ledger is untouched, but its sequence is used (edge 6): the next genuine reply carries sequence 2; replaying any applied frame is refused (edge 11).", _trace([
        record_op(),
        on("prepare_dispatch", operation_key="$op", payload=VERSION, request_id="dispatch-1", session="host", **{"as": "d1"}),
        call("worker_reply", session="worker", to="d1", status=SUCCEEDED, kind="reconciled_operation", **{"as": "wrong"}),
        on("apply_dispatch_result", request="d1", session="host", frame="wrong"),
        revision(),
        checkpoint("after-wrong-kind"),
        on("apply_dispatch_result", request="d1", session="host", frame="wrong"),
        call("worker_reply", session="worker", to="d1", status=SUCCEEDED, **{"as": "genuine"}),
        on("apply_dispatch_result", request="d1", session="host", frame="genuine"),
        revision(),
        on("apply_dispatch_result", request="d1", session="host", frame="genuine"),
        revision(),
    ])),
    ("ledger.trace.dispatch-result-close-session-kind", "HL-20", ("WrongKindConsumesSequence",), "A close_session frame delivered as the reply to a dispatch is refused like any other wrong kind and the ledger is untouched; its sequence is used, so the genuine result carries sequence 2.", _trace([
        record_op(),
        on("prepare_dispatch", operation_key="$op", payload=VERSION, request_id="dispatch-1", session="host", **{"as": "d1"}),
        call("worker_reply", session="worker", to="d1", status=SUCCEEDED, kind="close_session", **{"as": "wrong"}),
        on("apply_dispatch_result", request="d1", session="host", frame="wrong"),
        revision(),
        call("worker_reply", session="worker", to="d1", status=SUCCEEDED, **{"as": "genuine"}),
        on("apply_dispatch_result", request="d1", session="host", frame="genuine"),
        revision(),
    ])),
    ("ledger.trace.external-prepare-idempotent", "HL-26", (), "Preparing an external operation twice with the same nonce gives the same key and records once (edge 7); after dispatch and a succeeded result the revision is 2 and no output is stored.", _trace([
        on("prepare_external_operation", step_id="publish", tool=TOOL, input=VERSION, nonce=NONCE, **{"as": "op"}),
        on("prepare_external_operation", step_id="publish", tool=TOOL, input=VERSION, nonce=NONCE),
        revision(),
        *dispatch_and_observe(),
        revision(),
        checkpoint("after-success"),
    ])),
    ("ledger.trace.external-prepare-terminal", "HL-26", (), "Re-preparing a running operation is a no-op; after a succeeded observation it is refused as already terminal (edge 8).", _trace([
        on("prepare_external_operation", step_id="publish", tool=TOOL, input=VERSION, nonce=NONCE, **{"as": "op"}),
        *reconcile("$op", RUNNING, "rc1"),
        on("prepare_external_operation", step_id="publish", tool=TOOL, input=VERSION, nonce=NONCE),
        revision(),
        *reconcile("$op", SUCCEEDED, "rc2"),
        on("prepare_external_operation", step_id="publish", tool=TOOL, input=VERSION, nonce=NONCE),
        revision(),
    ])),
    ("ledger.trace.external-prepare-step-drift", "HL-26", ("CheckOrder",), "The derived key of (publish, tool, input, nonce) is recorded under another plan step with the same tool and input: re-preparing it is a step drift alone, operation_binding_mismatch, and the revision stays 1.", _trace([
        on("derive_operation_key", step_id="publish", tool=TOOL, input=VERSION, nonce=NONCE, **{"as": "k"}),
        on("record_operation", step_id="verify", tool=TOOL, operation_key="$k", input=VERSION),
        on("prepare_external_operation", step_id="publish", tool=TOOL, input=VERSION, nonce=NONCE),
        revision(),
    ], plans={"plan": {"engine": "engine", "steps": [*PLAN, ["verify", "let verified = true"]]}})),
    ("ledger.trace.external-prepare-tool-drift", "HL-26", ("CheckOrder",), "The derived key is recorded under the same step with another tool and the same input: re-preparing it is a tool drift alone, operation_binding_mismatch, and the revision stays 1.", _trace([
        on("derive_operation_key", step_id="publish", tool=TOOL, input=VERSION, nonce=NONCE, **{"as": "k"}),
        on("record_operation", step_id="publish", tool="release.verify", operation_key="$k", input=VERSION),
        on("prepare_external_operation", step_id="publish", tool=TOOL, input=VERSION, nonce=NONCE),
        revision(),
    ])),
    ("ledger.trace.external-prepare-bad-nonce", "HL-26", (), "Preparing with a 129-byte or empty nonce fails and the revision stays 0 (edge 9).", _trace([
        on("prepare_external_operation", step_id="publish", tool=TOOL, input=VERSION, nonce={"repeat": "n", "count": 129}),
        on("prepare_external_operation", step_id="publish", tool=TOOL, input=VERSION, nonce=""),
        revision(),
    ])),
    ("ledger.trace.derived-key-recorded", "HL-27", ("KnownAnswer",), "The derived op- key is 67 characters, deterministic, and is the key that gets recorded (edge 12); bad nonces are refused.", _trace([
        on("derive_operation_key", step_id="publish", tool=TOOL, input=VERSION, nonce=NONCE, **{"as": "derived"}),
        record_op(),
        on("derive_operation_key", step_id="publish", tool=TOOL, input=VERSION, nonce=NONCE),
        on("derive_operation_key", step_id="publish", tool=TOOL, input=VERSION, nonce=""),
        on("derive_operation_key", step_id="publish", tool=TOOL, input=VERSION, nonce={"repeat": "n", "count": 129}),
        on("record_derived_operation", step_id="publish", tool=TOOL, input=VERSION, nonce=NONCE),
        revision(),
    ])),
    ("ledger.trace.reconcile-transitions", "HL-10", ("KindOnlyIdempotence",), "Reconciliation: running (revision 2), succeeded (3), succeeded again with another payload is idempotent (3), failed contradicts (edge 13).", _trace([
        _record_host_key(),
        *reconcile(HOST_KEY, RUNNING, "rc1"),
        revision(),
        *reconcile(HOST_KEY, RUNNING, "rc2"),
        revision(),
        *reconcile(HOST_KEY, SUCCEEDED, "rc3"),
        revision(),
        *reconcile(HOST_KEY, SUCCEEDED_EMPTY, "rc4"),
        revision(),
        *reconcile(HOST_KEY, FAILED, "rc5"),
        revision(),
        *reconcile(HOST_KEY, CANCELLED, "rc6"),
        checkpoint("final-state"),
    ])),
    ("ledger.trace.reconcile-running-then-cancelled", "HL-10", (), "Reconciliation: running (revision 2), then cancelled advances a running operation (3); cancelled again is a no-op (3).", _trace([
        _record_host_key(),
        *reconcile(HOST_KEY, RUNNING, "rc1"),
        revision(),
        *reconcile(HOST_KEY, CANCELLED, "rc2"),
        revision(),
        *reconcile(HOST_KEY, CANCELLED, "rc3"),
        revision(),
        checkpoint("final-state"),
    ])),
    ("ledger.trace.reconcile-wrong-kind-frame", "HL-20", ("WrongKindConsumesSequence",), "A reconciliation answered with an operation_result frame (the dispatch reply kind) is refused and the ledger is untouched; its sequence is used, so the genuine reconciled_operation carries sequence 2 and applies.", _trace([
        _record_host_key(),
        on("prepare_reconciliation", operation_key=HOST_KEY, input=VERSION, request_id="reconcile-1", session="host", **{"as": "rc1"}),
        call("worker_reply", session="worker", to="rc1", status=RUNNING, kind="operation_result", **{"as": "wrong"}),
        on("apply_reconciliation", request="rc1", session="host", frame="wrong"),
        revision(),
        call("worker_reply", session="worker", to="rc1", status=RUNNING, **{"as": "genuine"}),
        on("apply_reconciliation", request="rc1", session="host", frame="genuine"),
        revision(),
    ])),
    ("ledger.trace.reconcile-frame-attacks", "HL-20", (), "A flipped tag, a status edited under a valid tag, a reply sealed with another key and the host's own frame are all refused without using the sequence; the genuine frame then applies; a replay is refused (edges 11, 14, 41).", _trace([
        _record_host_key(),
        on("prepare_reconciliation", operation_key=HOST_KEY, input=VERSION, request_id="reconcile-1", session="host", **{"as": "rc1"}),
        call("worker_reply", session="worker", to="rc1", status=RUNNING, **{"as": "genuine"}),
        call("tamper", frame="genuine", how="flip_tag", **{"as": "flipped"}),
        on("apply_reconciliation", request="rc1", session="host", frame="flipped"),
        call("tamper", frame="genuine", how="status", status=SUCCEEDED, **{"as": "edited"}),
        on("apply_reconciliation", request="rc1", session="host", frame="edited"),
        call("worker_reply", session="stranger", to="rc1", status=SUCCEEDED, **{"as": "foreign"}),
        on("apply_reconciliation", request="rc1", session="host", frame="foreign"),
        on("apply_reconciliation", request="rc1", session="host", frame="rc1"),
        revision(),
        checkpoint("untouched"),
        on("apply_reconciliation", request="rc1", session="host", frame="genuine"),
        revision(),
        on("apply_reconciliation", request="rc1", session="host", frame="genuine"),
    ], sessions={"stranger": session(key=KEY_0E, role="worker")})),
    ("ledger.trace.record-refusals", "HL-6", ("CheckOrder",), "record_operation refuses a cmp- key, an unknown step (before the key), a duplicate key, an input of 262,145 bytes and a bad tool; none changes the revision (edge 15).", _trace([
        on("record_operation", step_id="publish", tool=TOOL, operation_key="cmp-reserved", input=VERSION),
        on("record_operation", step_id="deploy", tool=TOOL, operation_key=HOST_KEY, input=VERSION),
        on("record_operation", step_id="deploy", tool=TOOL, operation_key="cmp-reserved", input=VERSION),
        _record_host_key(),
        _record_host_key(),
        on("record_operation", step_id="publish", tool=TOOL, operation_key="release-2026-2", input={"repeat": "a", "count": 262_145}),
        on("record_operation", step_id="publish", tool="bad tool", operation_key="release-2026-2", input=VERSION),
        on("record_operation", step_id="publish", tool="bad tool", operation_key=HOST_KEY, input=VERSION),
        on("record_operation", step_id="publish", tool=TOOL, operation_key="Release", input={"repeat": "a", "count": 262_145}),
        revision(),
    ])),
    ("ledger.trace.reload-edited-tool", "HL-3", (), "A persisted ledger whose tool was edited to `bad tool` does not decode (edge 16).", _trace([
        record_op(),
        call("load_ledger", edits=[{"path": ["operations", 0, "tool"], "value": "bad tool"}], **{"from": "ledger", "as": "edited"}),
        call("load_ledger", edits=[{"path": ["format_version"], "value": 3}], **{"from": "ledger", "as": "edited"}),
    ])),
    ("ledger.trace.revision-exhausted", "HL-4", (), "At revision 2^64-1 every state change is refused, while idempotent observations still succeed (edge 37).", _trace([
        call("load_ledger", text=text(ledger([operation(key=HOST_KEY, state="running"), operation(key="release-2026-2", state="succeeded")], revision=MAX_REVISION, plan=PLAN_FP)), **{"as": "maxed"}),
        on("record_operation", {"engine": "engine", "plan": "plan", "ledger": "maxed"}, step_id="publish", tool=TOOL, operation_key="release-2026-3", input=VERSION),
        *reconcile(HOST_KEY, RUNNING, "rc1", context={"engine": "engine", "plan": "plan", "ledger": "maxed"}),
        *reconcile(HOST_KEY, SUCCEEDED, "rc2", context={"engine": "engine", "plan": "plan", "ledger": "maxed"}),
        call("policy", tenant_scope="tenant-release", grant="grant", **{"as": "pol"}),
        on("record_compensation", {"engine": "engine", "plan": "plan", "ledger": "maxed"}, operation_key="release-2026-2", policy="pol", compensation_key="cmp-undo-1", input=VERSION),
        revision("maxed"),
    ])),
    ("ledger.trace.sixty-four-operations", "HL-6", (), "The 64th operation is recorded, the 65th is refused (edge 38).", _trace([
        call("load_ledger", text=text(ledger(numbered_operations(63), revision=63, plan=PLAN_FP)), **{"as": "full"}),
        on("record_operation", {"engine": "engine", "plan": "plan", "ledger": "full"}, step_id="publish", tool=TOOL, operation_key="op-63", input=VERSION),
        on("record_operation", {"engine": "engine", "plan": "plan", "ledger": "full"}, step_id="publish", tool=TOOL, operation_key="op-64", input=VERSION),
        on("record_operation", {"engine": "engine", "plan": "plan", "ledger": "full"}, step_id="publish", tool=TOOL, operation_key="op-0", input={"repeat": "a", "count": 262_145}),
        revision("full"),
    ])),
    ("ledger.trace.estimate-quirk", "HL-9", ("EncoderEstimateQuirk",), "A ledger of 46 maximal compensated operations decodes (and encodes, see ledger-codec); recording one more maximal operation succeeds in memory (record never checks the encoded size) but then the ledger cannot be encoded (edge 39).", {
        "setup": {**setup(), "plans": {"plan": {"engine": "engine", "steps": [["publish", "let release = true"]]}, "wide": {"engine": "engine", "steps": WIDE_STEPS}}},
        "steps": [
            call("load_ledger", text=text(ledger(max_field_operations(46), revision=92, plan=WIDE_FP)), **{"as": "wide-ledger"}),
            revision("wide-ledger"),
            on("record_operation", {"engine": "engine", "plan": "wide", "ledger": "wide-ledger"}, step_id=WIDE_STEPS[46][0], tool="w" * 128, operation_key="k046".ljust(128, "y"), input=VERSION),
            revision("wide-ledger"),
            call("to_json", ledger="wide-ledger"),
        ],
    }),
    ("ledger.trace.dispatch-terminal-still-built", "HL-14", (), "operation_dispatch_request does not refuse a succeeded operation; neither does the authenticated preparer (edge 40).", _trace([
        record_op(),
        *dispatch_and_observe(),
        on("operation_dispatch_request", operation_key="$op", payload=VERSION, session_id="worker-1", request_id="dispatch-2"),
        on("prepare_dispatch", operation_key="$op", payload=VERSION, request_id="dispatch-2", session="host", **{"as": "d2"}),
        revision(),
    ])),
    ("ledger.trace.invalid-result-status", "HL-15", (), "A failed status with an empty message and a succeeded status whose JSON payload is a scalar are refused by result validation; nothing changes (edge 42).", _trace([
        _record_host_key(),
        on("prepare_reconciliation", operation_key=HOST_KEY, input=VERSION, request_id="reconcile-1", session="host", **{"as": "rc1"}),
        on("apply_verified_reconciliation", request={"of": "rc1"}, result={"reply_to": "rc1", "status": {"state": "failed", "message": ""}}),
        on("apply_verified_reconciliation", request={"of": "rc1"}, result={"reply_to": "rc1", "status": {"state": "succeeded", "payload": {"format": "json", "value": 42}}}),
        call("worker_reply", session="worker", to="rc1", status={"state": "failed", "message": ""}),
        revision(),
    ])),
    ("ledger.trace.result-correlation-drift", "HL-15", (), "A reply whose request id differs, a request/result pair whose tool differs from the record, and a dispatch result not matching its request are reconciliation mismatches; a repeated running changes nothing (edge 48, ledger part).", _trace([
        _record_host_key(),
        on("prepare_reconciliation", operation_key=HOST_KEY, input=VERSION, request_id="reconcile-1", session="host", **{"as": "rc1"}),
        call("worker_reply", session="worker", to="rc1", status=RUNNING, change={"request_id": "reconcile-2"}, **{"as": "drifted"}),
        on("apply_reconciliation", request="rc1", session="host", frame="drifted"),
        on("apply_verified_reconciliation", request={"of": "rc1", "change": {"tool": "release.promote"}}, result={"reply_to": "rc1", "status": RUNNING, "change": {"tool": "release.promote"}}),
        on("apply_verified_reconciliation", request={"of": "rc1"}, result={"reply_to": "rc1", "status": RUNNING}),
        on("apply_verified_reconciliation", request={"of": "rc1"}, result={"reply_to": "rc1", "status": RUNNING}),
        revision(),
        on("prepare_dispatch", operation_key=HOST_KEY, payload=VERSION, request_id="dispatch-1", session="host", **{"as": "d1"}),
        on("apply_verified_dispatch_result", request={"of": "d1"}, result={"reply_to": "d1", "status": SUCCEEDED, "change": {"request_id": "dispatch-2"}}),
        on("apply_verified_dispatch_result", request={"of": "d1", "change": {"payload": VERSION_2}}, result={"reply_to": "d1", "status": SUCCEEDED}),
        on("apply_verified_dispatch_result", request={"of": "d1", "change": {"tool": "release.promote"}}, result={"reply_to": "d1", "status": SUCCEEDED, "change": {"tool": "release.promote"}}),
        on("apply_verified_dispatch_result", request={"of": "d1"}, result={"reply_to": "d1", "status": SUCCEEDED}),
        revision(),
    ])),
    ("ledger.trace.reconcile-request-keys", "HL-15", (), "A reconcile request for a cmp- key passes the token check and is unknown; a non-token key is invalid; input drift and a bad request id are refused (edge 49).", _trace([
        _record_host_key(),
        on("operation_reconcile_request", operation_key="cmp-x", input=VERSION, session_id="worker-1", request_id="reconcile-1"),
        on("operation_reconcile_request", operation_key="Bad Key", input=VERSION, session_id="worker-1", request_id="reconcile-1"),
        on("operation_reconcile_request", operation_key="op-missing", input=VERSION, session_id="worker-1", request_id="reconcile-1"),
        on("operation_reconcile_request", operation_key=HOST_KEY, input=VERSION_2, session_id="worker-1", request_id="reconcile-1"),
        on("operation_reconcile_request", operation_key=HOST_KEY, input=VERSION, session_id="worker-1", request_id="Reconcile 1"),
        on("operation_reconcile_request", operation_key=HOST_KEY, input=VERSION, session_id="worker-1", request_id="reconcile-1"),
    ])),
    ("ledger.trace.frame-auth-known-answer", "HL-20", ("KnownAnswer",), "The reconcile frame of the known-answer table: key 32 x 0x0d, host sender, sequence 1, session worker-1, request reconcile-1 for release-2026-1.", _trace([
        _record_host_key(),
        on("prepare_reconciliation", operation_key=HOST_KEY, input=VERSION, request_id="reconcile-1", session="host", **{"as": "rc1"}),
        call("worker_open", session="worker", frame="rc1"),
    ])),
    ("ledger.trace.events", "HL-25", (), "Successful engine calls emit events (an idempotent observation too); failed calls emit none.", _trace([
        call("events", engine="engine"),
        record_op(),
        record_op(),
        *reconcile("$op", RUNNING, "rc1"),
        *reconcile("$op", RUNNING, "rc2"),
        *reconcile("$op", FAILED, "rc3"),
        *reconcile("$op", SUCCEEDED, "rc4"),
        call("events", engine="engine"),
        call("events", engine="engine"),
    ])),
]
# fmt: on
