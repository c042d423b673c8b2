"""Splash workflow tests of the operation ledger and compensation (``crates/splash-workflow/src/lib.rs``)
replayed as ledger traces (docs/spec/ledger.md, "Ledger traces").

Upstream's tests build one engine over plan step ``publish`` (``let release = true`` unless
named), the tool ``release.publish``, the grant ``CapabilityGrant::json("release.publish")``
with one compensation (the trace DSL's ``grant``), tenant ``tenant-release`` and the host and
worker authenticators of ``operation_reconciliation_authenticators`` (session ``worker-1``,
key 32 x 13: the DSL's ``host`` and ``worker``). Where upstream builds a reconciliation
request without a frame (``operation_reconcile_request``) and applies a verified result, the
trace prepares the request through the host session first: the same request, sealed.

Each port lists, per step, the outcome the upstream test asserts (``ok`` or an error code)
and, as named checks over the step results, the values it asserts; the build refuses a port
whose reference run differs (``PortDisagrees``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

import attrs

from rescind.conformance.fixtures.trace_dsl import (
    CTX,
    NONCE,
    TOOL,
    UNDO,
    UNDO_NONCE,
    VERSION,
    call,
    on,
    policy_and_target,
    session,
    setup,
)
from rescind.conformance.interpreters.host_trace import run_trace
from rescind.conformance.vectors.format import VectorTest
from rescind.conformance.vectors.retired import live_id
from rescind.conformance.vectors.sets._splash_port_support import (
    OK,
    WORKFLOW,
    PortDisagrees,
    cite,
    words,
)
from rescind.reference.digests import PlanStep, plan_fingerprint

Results = list[Any]
Check = tuple[str, Callable[[Results], bool]]

HOST_KEY = "release-2026-1"
PRIVATE_SOURCE = 'use mod.tool\ntool.start("release.publish", "private source").await()'
PUBLISHED = {"state": "succeeded", "payload": {"format": "json", "value": {"published": True}}}
UNDONE = {"state": "succeeded", "payload": {"format": "json", "value": {"undone": True}}}
OP_NONCE_0 = "release-42:publish:operation-0"
RESTARTED = {"engine": "restarted", "plan": "same", "ledger": "decoded"}
PRELUDE = {"sessions": {"prelude": session()}}


def _steps(items: Iterable[tuple[str, dict[str, Any]]]) -> tuple[tuple[str, dict[str, Any]], ...]:
    return tuple(items)


@attrs.frozen
class LedgerPort:
    test: str
    rule: str
    comment: str
    steps: tuple[tuple[str, dict[str, Any]], ...] = attrs.field(converter=_steps)
    """(the outcome upstream asserts, the trace step)."""
    checks: tuple[Check, ...] = ()
    """The values upstream asserts, each a description and a test of the step results."""
    setup: dict[str, Any] = attrs.field(factory=dict)

    def trace(self) -> dict[str, Any]:
        return {"setup": setup(**self.setup), "steps": [step for _, step in self.steps]}


def _ledger(text: Any) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(str(text))
    return document


def _first_operation(text: Any) -> dict[str, Any]:
    operation: dict[str, Any] = _ledger(text)["operations"][0]
    return operation


def _message(value: Any) -> dict[str, Any]:
    """A message or frame: ``worker_open`` answers an object, the others JSON text."""
    message: dict[str, Any] = value if isinstance(value, dict) else json.loads(str(value))
    return message


def _record_derived(name: str, nonce: str) -> dict[str, Any]:
    return on(
        "record_derived_operation",
        step_id="publish",
        tool=TOOL,
        input=VERSION,
        nonce=nonce,
        **{"as": name},
    )


def _record_host_key(input: Any, key: str = HOST_KEY, step: str = "publish") -> dict[str, Any]:
    return on("record_operation", step_id=step, tool=TOOL, operation_key=key, input=input)


def _verified_reconcile(tag: str, status: dict[str, Any]) -> dict[str, Any]:
    return on(
        "apply_verified_reconciliation",
        request={"of": tag},
        result={"reply_to": tag, "status": status},
    )


def _prepare_reconcile(
    op: str, input: Any, request_id: str, tag: str, session: str = "host"
) -> dict[str, Any]:
    return on(
        "prepare_reconciliation",
        operation_key=op,
        input=input,
        request_id=request_id,
        session=session,
        **{"as": tag},
    )


def _original_succeeded() -> list[tuple[str, dict[str, Any]]]:
    """Upstream's prelude: record the operation, then apply a verified succeeded status. The
    request is sealed by a host session of its own (``prelude``), so the frames the test
    seals later carry the sequence numbers they have upstream."""
    return [
        (OK, _record_derived("op", NONCE)),
        (OK, _prepare_reconcile("$op", VERSION, "original-status-1", "o1", "prelude")),
        (OK, _verified_reconcile("o1", PUBLISHED)),
    ]


def _prepare_compensation(
    name: str, approval: str, request_id: str, payload: Any = None
) -> dict[str, Any]:
    return on(
        "prepare_compensation",
        target="tgt",
        approval=approval,
        request_id=request_id,
        payload=UNDO if payload is None else payload,
        session="host",
        **{"as": name},
    )


def _approve(name: str, input: Any = None) -> dict[str, Any]:
    return on(
        "approve_compensation",
        target="tgt",
        input=UNDO if input is None else input,
        session="host",
        **{"as": name},
    )


def _record_intent() -> dict[str, Any]:
    return on(
        "record_derived_compensation_with_action_verifier",
        target="tgt",
        input=UNDO,
        nonce=UNDO_NONCE,
        **{"as": "cmp"},
    )


def _derive(name: str, input: Any, nonce: Any, plan: str = "plan") -> dict[str, Any]:
    return on(
        "derive_operation_key",
        {"engine": "engine", "plan": plan, "ledger": "ledger"},
        step_id="publish",
        tool=TOOL,
        input=input,
        nonce=nonce,
        **{"as": name},
    )


PLAN_FP = plan_fingerprint([PlanStep("publish", PRIVATE_SOURCE)])
SAME_PLAN = {"engine": "restarted", "steps": [["publish", PRIVATE_SOURCE]]}
CHANGED_PLAN = {"engine": "restarted", "steps": [["publish", "let release = false"]]}
CHANNEL = {"format": "json", "value": {"version": "1.2.3", "channel": "stable"}}
CHANNEL_2 = {"format": "json", "value": {"version": "1.2.4", "channel": "stable"}}
TEXT_RELEASE = {"format": "text", "value": "release-1.2.3"}
DONE_TEXT = {"state": "succeeded", "payload": {"format": "text", "value": "done"}}
PRIVATE_RESULT = {
    "state": "succeeded",
    "payload": {"format": "json", "value": {"output": "private result"}},
}
PRIVATE_OUTPUT = {"state": "succeeded", "payload": {"format": "text", "value": "private output"}}
PRIVATE_FAILURE = {"state": "failed", "message": "private worker error"}


PORTS = [
    LedgerPort(
        "operation_ledger_persists_metadata_without_raw_input_or_source",
        "HL-6",
        "upstream asserts: recording release-2026-1 gives a ledger whose encoding decodes to "
        "an equal ledger with the plan's fingerprint, revision 1 and one pending operation "
        "(step publish, tool release.publish) that matches its input and no other; the "
        "encoding has exactly format_version, revision, plan_fingerprint and operations and "
        "no raw input, source or approval; a restarted engine's same plan validates it, "
        "minimum revision 2 is stale_revision, other source is plan_mismatch; the last event "
        "is operation_recorded (publish, release.publish)",
        [
            (OK, _record_host_key("private request payload")),
            (OK, call("to_json", ledger="ledger")),
            (OK, call("load_ledger", **{"from": "ledger", "as": "decoded"})),
            (OK, call("to_json", ledger="decoded")),
            (OK, call("revision", ledger="decoded")),
            (
                OK,
                call(
                    "matches_input",
                    ledger="decoded",
                    operation_key=HOST_KEY,
                    input="private request payload",
                ),
            ),
            (
                OK,
                call(
                    "matches_input",
                    ledger="decoded",
                    operation_key=HOST_KEY,
                    input="another payload",
                ),
            ),
            (OK, on("validate", RESTARTED)),
            ("stale_revision", on("validate", RESTARTED, minimum_revision=2)),
            ("plan_mismatch", on("validate", {**RESTARTED, "plan": "changed"})),
            (OK, call("events", engine="engine")),
        ],
        (
            ("the decoded ledger encodes as the original", lambda r: r[3] == r[1]),
            (
                "its plan fingerprint is the plan's",
                lambda r: _ledger(r[1])["plan_fingerprint"] == PLAN_FP,
            ),
            ("revision 1", lambda r: r[4] == 1),
            ("one operation", lambda r: len(_ledger(r[1])["operations"]) == 1),
            (
                "step publish, tool release.publish, pending",
                lambda r: (
                    [_first_operation(r[1])[k] for k in ("step_id", "tool", "state")]
                    == ["publish", TOOL, "pending"]
                ),
            ),
            ("matches its input only", lambda r: r[5] is True and r[6] is False),
            (
                "exactly four members",
                lambda r: (
                    sorted(_ledger(r[1]))
                    == ["format_version", "operations", "plan_fingerprint", "revision"]
                ),
            ),
            (
                "no raw input, source or approval",
                lambda r: all(
                    word not in r[1]
                    for word in ("private request payload", "private source", "approval")
                ),
            ),
            (
                "the last event is operation_recorded",
                lambda r: (
                    r[10][-1]
                    == {
                        "type": "operation_recorded",
                        "plan_id": 1,
                        "step_id": "publish",
                        "tool": TOOL,
                    }
                ),
            ),
        ),
        {
            "engines": ("engine", "restarted"),
            "plans": {
                "plan": {"engine": "engine", "steps": [["publish", PRIVATE_SOURCE]]},
                "same": SAME_PLAN,
                "changed": CHANGED_PLAN,
            },
        },
    ),
    LedgerPort(
        "authenticated_storage_restores_a_durable_operation_ledger",
        "HL-13",
        "upstream asserts: a ledger with one derived operation, stored and loaded back, "
        "decodes equal and validates at or after revision 1 for a restarted engine's plan of "
        "the same steps. Not pinned: the authenticated store it passes through (the storage "
        "topic pins that store)",
        [
            (
                OK,
                on(
                    "record_derived_operation",
                    step_id="publish",
                    tool=TOOL,
                    input='{"version":"1.2.3"}',
                    nonce=NONCE,
                    **{"as": "op"},
                ),
            ),
            (OK, call("to_json", ledger="ledger")),
            (OK, call("load_ledger", **{"from": "ledger", "as": "decoded"})),
            (OK, on("validate", RESTARTED, minimum_revision=1)),
            (OK, call("to_json", ledger="decoded")),
        ],
        (("the restored ledger equals the stored one", lambda r: r[4] == r[1]),),
        {
            "engines": ("engine", "restarted"),
            "plans": {
                "same": {"engine": "restarted", "steps": [["publish", "let release = true"]]}
            },
        },
    ),
    LedgerPort(
        "workflow_operation_dispatch_requires_the_persisted_canonical_input",
        "HL-14",
        "upstream asserts: for an operation recorded with the canonical input of {version "
        "1.2.3, channel stable}, the dispatch request names release.publish and the key; the "
        "sealed dispatch opens at the worker as that dispatch_operation; a worker-role "
        "authenticator is operation_dispatch_requires_host_authenticator; version 1.2.4 is "
        "input_fingerprint_mismatch",
        [
            (
                OK,
                on(
                    "record_derived_operation",
                    step_id="publish",
                    tool=TOOL,
                    input=CHANNEL,
                    nonce=NONCE,
                    **{"as": "op"},
                ),
            ),
            (
                OK,
                on(
                    "operation_dispatch_request",
                    operation_key="$op",
                    payload=CHANNEL,
                    session_id="session-1",
                    request_id="operation-request-1",
                ),
            ),
            (
                OK,
                on(
                    "prepare_dispatch",
                    operation_key="$op",
                    payload=CHANNEL,
                    request_id="operation-request-2",
                    session="host",
                    **{"as": "d2"},
                ),
            ),
            (OK, call("worker_open", session="worker", frame="d2")),
            (
                "operation_dispatch_requires_host_authenticator",
                on(
                    "prepare_dispatch",
                    operation_key="$op",
                    payload=CHANNEL,
                    request_id="operation-request-3",
                    session="worker",
                    **{"as": "d3"},
                ),
            ),
            (
                "input_fingerprint_mismatch",
                on(
                    "operation_dispatch_request",
                    operation_key="$op",
                    payload=CHANNEL_2,
                    session_id="session-1",
                    request_id="operation-request-4",
                ),
            ),
        ],
        (
            (
                "the request names release.publish and the key",
                lambda r: [_message(r[1])[k] for k in ("tool", "operation_key")] == [TOOL, r[0]],
            ),
            (
                "the worker opens the sealed request",
                lambda r: (
                    _message(r[3])["type"] == "dispatch_operation"
                    and _message(r[3])["request"] == _message(r[2])["message"]["request"]
                ),
            ),
        ),
    ),
    LedgerPort(
        "authenticated_dispatch_result_rejects_a_wrong_message_before_ledger_mutation",
        "HL-20",
        "upstream asserts: a dispatch result delivered as reconciled_operation is "
        "unexpected_operation_dispatch_message; the ledger stays at revision 1 with the "
        "operation pending",
        [
            (
                OK,
                on(
                    "record_derived_operation",
                    step_id="publish",
                    tool=TOOL,
                    input=TEXT_RELEASE,
                    nonce=OP_NONCE_0,
                    **{"as": "op"},
                ),
            ),
            (
                OK,
                on(
                    "prepare_dispatch",
                    operation_key="$op",
                    payload=TEXT_RELEASE,
                    request_id="publish-dispatch-1",
                    session="host",
                    **{"as": "d1"},
                ),
            ),
            (OK, call("worker_open", session="worker", frame="d1")),
            (
                OK,
                call(
                    "worker_reply",
                    session="worker",
                    to="d1",
                    status=DONE_TEXT,
                    kind="reconciled_operation",
                    **{"as": "wrong"},
                ),
            ),
            (
                "unexpected_operation_dispatch_message",
                on("apply_dispatch_result", request="d1", session="host", frame="wrong"),
            ),
            (OK, call("revision", ledger="ledger")),
            (OK, call("to_json", ledger="ledger")),
        ],
        (
            (
                "the worker opened a dispatch",
                lambda r: _message(r[2])["type"] == "dispatch_operation",
            ),
            ("revision 1", lambda r: r[5] == 1),
            ("still pending", lambda r: _first_operation(r[6])["state"] == "pending"),
        ),
    ),
    LedgerPort(
        "terminal_external_operation_cannot_be_prepared_for_a_second_dispatch",
        "HL-26",
        "upstream asserts: once the prepared external operation is reconciled as succeeded, "
        "preparing it again with the same nonce is operation_already_terminal (succeeded). "
        "Upstream reaches the operation by running the plan to its suspended "
        "tool.start_json call; the trace prepares it from its step, tool and input",
        [
            (
                OK,
                on(
                    "prepare_external_operation",
                    step_id="publish",
                    tool=TOOL,
                    input=VERSION,
                    nonce=OP_NONCE_0,
                    **{"as": "op"},
                ),
            ),
            (OK, _prepare_reconcile("$op", VERSION, "reconcile-1", "r1")),
            (OK, _verified_reconcile("r1", PUBLISHED)),
            (
                "operation_already_terminal",
                on(
                    "prepare_external_operation",
                    step_id="publish",
                    tool=TOOL,
                    input=VERSION,
                    nonce=OP_NONCE_0,
                    **{"as": "again"},
                ),
            ),
        ],
        (("the reconciliation gives succeeded", lambda r: r[2] == "succeeded"),),
    ),
    LedgerPort(
        "suspended_external_workflow_operation_is_durable_before_exact_dispatch",
        "HL-26",
        "upstream asserts: preparing the suspended external operation records it (revision "
        "1, tool release.publish); preparing again gives the same key at revision 1; the "
        "encoding holds no input value; from the decoded ledger the exact dispatch opens at "
        "the worker, its succeeded result applies as succeeded at revision 2 and the "
        "encoding keeps no output. Not pinned: running the plan to its suspension, claiming "
        "the prepared operation and completing the workflow",
        [
            (
                OK,
                on(
                    "prepare_external_operation",
                    step_id="publish",
                    tool=TOOL,
                    input=VERSION,
                    nonce=OP_NONCE_0,
                    **{"as": "op"},
                ),
            ),
            (OK, call("revision", ledger="ledger")),
            (OK, call("to_json", ledger="ledger")),
            (
                OK,
                on(
                    "prepare_external_operation",
                    step_id="publish",
                    tool=TOOL,
                    input=VERSION,
                    nonce=OP_NONCE_0,
                    **{"as": "again"},
                ),
            ),
            (OK, call("revision", ledger="ledger")),
            (OK, call("load_ledger", **{"from": "ledger", "as": "restored"})),
            (
                OK,
                on(
                    "prepare_dispatch",
                    {**CTX, "ledger": "restored"},
                    operation_key="$op",
                    payload=VERSION,
                    request_id="publish-dispatch-1",
                    session="host",
                    **{"as": "d1"},
                ),
            ),
            (OK, call("worker_open", session="worker", frame="d1")),
            (
                OK,
                call(
                    "worker_reply",
                    session="worker",
                    to="d1",
                    status=PUBLISHED,
                    **{"as": "d1-reply"},
                ),
            ),
            (
                OK,
                on(
                    "apply_dispatch_result",
                    {**CTX, "ledger": "restored"},
                    request="d1",
                    session="host",
                    frame="d1-reply",
                ),
            ),
            (OK, call("revision", ledger="restored")),
            (OK, call("to_json", ledger="restored")),
        ],
        (
            ("revision 1 after preparing", lambda r: r[1] == 1),
            ("the operation's tool", lambda r: _first_operation(r[2])["tool"] == TOOL),
            ("the same key, still revision 1", lambda r: r[3] == r[0] and r[4] == 1),
            ("no input value stored", lambda r: "1.2.3" not in r[2]),
            (
                "the worker opens the dispatch",
                lambda r: _message(r[7])["type"] == "dispatch_operation",
            ),
            ("succeeded at revision 2", lambda r: r[9] == "succeeded" and r[10] == 2),
            ("no output stored", lambda r: "published" not in r[11]),
        ),
    ),
    LedgerPort(
        "compensation_is_host_approved_bound_and_applied_once",
        "HL-22",
        "upstream asserts: after the original succeeded, recording the compensation intent "
        "asks the action verifier once, each approval once more; a dispatch whose payload "
        "differs from the approved input is compensation_input_fingerprint_mismatch; the "
        "exact one is the 4th action check, every check seeing the plan, key, step, tool, "
        "tenant, grant tool and input; the worker receives the recorded compensation key; "
        "its succeeded result applies as succeeded, the compensation is succeeded and the "
        "last event is compensation_observed; a stored ledger whose original is edited to "
        "running is compensation_requires_succeeded_operation. Not pinned: that the "
        "action's debug text hides the input",
        [
            *_original_succeeded(),
            (OK, policy_and_target()[0]),
            (OK, policy_and_target()[1]),
            (OK, _record_intent()),
            (OK, call("verifier_calls", verifier="av")),
            (OK, _approve("drift")),
            (OK, call("verifier_calls", verifier="av")),
            (
                "compensation_input_fingerprint_mismatch",
                _prepare_compensation(
                    "c0",
                    "drift",
                    "compensation-request-drift",
                    {"format": "json", "value": {"undo": "different"}},
                ),
            ),
            (OK, _approve("a1")),
            (OK, call("verifier_calls", verifier="av")),
            (OK, _prepare_compensation("c1", "a1", "compensation-request-1")),
            (OK, call("verifier_calls", verifier="av")),
            (OK, call("worker_open", session="worker", frame="c1")),
            (
                OK,
                call(
                    "worker_reply", session="worker", to="c1", status=UNDONE, **{"as": "c1-reply"}
                ),
            ),
            (OK, on("apply_compensation", request="c1", session="host", frame="c1-reply")),
            (OK, call("to_json", ledger="ledger")),
            (OK, call("events", engine="engine")),
            (
                "compensation_requires_succeeded_operation",
                call(
                    "load_ledger",
                    **{
                        "from": "ledger",
                        "edits": [{"path": ["operations", 0, "state"], "value": "running"}],
                        "as": "edited",
                    },
                ),
            ),
        ],
        (
            (
                "action checks 1, 2, 3, 4",
                lambda r: [r[i]["action_calls"] for i in (6, 8, 11, 13)] == [1, 2, 3, 4],
            ),
            (
                "every check sees the bound action",
                lambda r: (
                    all(
                        action["operation_key"] == r[0]
                        and action["step_id"] == "publish"
                        and action["tool"] == TOOL
                        and action["tenant_scope"] == "tenant-release"
                        and action["grant_tool"] == TOOL
                        and action["plan_fingerprint"]
                        == plan_fingerprint([PlanStep("publish", "let release = true")])
                        for action in r[13]["actions"]
                    )
                    and len({action["compensation_input_hex"] for action in r[13]["actions"]}) == 1
                ),
            ),
            (
                "the worker gets the recorded compensation key",
                lambda r: _message(r[14])["request"]["compensation_key"] == r[5],
            ),
            ("applied as succeeded", lambda r: r[16] == "succeeded"),
            (
                "the compensation is succeeded",
                lambda r: _first_operation(r[17])["compensation"]["state"] == "succeeded",
            ),
            (
                "the last event is compensation_observed",
                lambda r: (
                    r[18][-1]
                    == {
                        "type": "compensation_observed",
                        "plan_id": 1,
                        "operation_key": r[0],
                        "compensation_key": r[5],
                        "state": "succeeded",
                    }
                ),
            ),
        ),
        PRELUDE,
    ),
    LedgerPort(
        "compensation_cannot_be_recorded_before_original_success",
        "HL-7",
        "upstream asserts: recording a compensation for a pending operation is "
        "compensation_requires_succeeded_operation (pending)",
        [
            (OK, _record_derived("op", NONCE)),
            (OK, policy_and_target()[0]),
            (
                "compensation_requires_succeeded_operation",
                on(
                    "record_derived_compensation",
                    operation_key="$op",
                    policy="pol",
                    input=UNDO,
                    nonce=UNDO_NONCE,
                    **{"as": "cmp"},
                ),
            ),
        ],
    ),
    LedgerPort(
        "compensation_rechecks_current_grant_policy_before_approval_and_dispatch",
        "HL-17",
        "upstream asserts: with a grant verifier that denies, approving a compensation of "
        "op-release-42 is compensation_grant_denied (release.publish, tenant-release), and "
        "so is preparing its dispatch under a plan approval",
        [
            (OK, call("policy", tenant_scope="tenant-release", grant="grant", **{"as": "pol"})),
            (
                OK,
                call(
                    "target",
                    operation_key="op-release-42",
                    policy="pol",
                    grant="grant",
                    grant_verifier="gv",
                    action_verifier="av",
                    **{"as": "tgt"},
                ),
            ),
            ("compensation_grant_denied", _approve("a1", "undo")),
            (OK, on("approve_plan", **{"as": "plan-approval"})),
            (
                "compensation_grant_denied",
                _prepare_compensation("c1", "plan-approval", "compensation-request-1"),
            ),
        ],
        setup={"verifiers": {"gv": False}},
    ),
    LedgerPort(
        "compensation_action_policy_blocks_recording_and_rechecks_before_frame_seal",
        "HL-18",
        "upstream asserts: a denying action verifier makes recording the intent "
        "compensation_action_denied with the revision unchanged, no compensation and one "
        "check; allowed, the intent records and one approval makes 3 checks; denied again, "
        "preparing the dispatch is compensation_action_denied (the 4th check) and the "
        "recorded compensation key stays",
        [
            *_original_succeeded(),
            (OK, policy_and_target()[0]),
            (OK, policy_and_target()[1]),
            (OK, call("set_verifier", verifier="av", allow=False)),
            (OK, call("revision", ledger="ledger")),
            ("compensation_action_denied", _record_intent()),
            (OK, call("revision", ledger="ledger")),
            (OK, call("to_json", ledger="ledger")),
            (OK, call("verifier_calls", verifier="av")),
            (OK, call("set_verifier", verifier="av", allow=True)),
            (OK, _record_intent()),
            (OK, _approve("a1")),
            (OK, call("verifier_calls", verifier="av")),
            (OK, call("set_verifier", verifier="av", allow=False)),
            (
                "compensation_action_denied",
                _prepare_compensation("c1", "a1", "compensation-request-1"),
            ),
            (OK, call("verifier_calls", verifier="av")),
            (OK, call("to_json", ledger="ledger")),
        ],
        (
            ("the revision is unchanged", lambda r: r[6] == r[8]),
            ("no compensation", lambda r: _first_operation(r[9])["compensation"] is None),
            (
                "checks 1, 3, 4",
                lambda r: [r[i]["action_calls"] for i in (10, 14, 17)] == [1, 3, 4],
            ),
            (
                "the recorded key stays",
                lambda r: _first_operation(r[18])["compensation"]["compensation_key"] == r[12],
            ),
        ),
        PRELUDE,
    ),
    LedgerPort(
        "derived_operation_keys_bind_plan_input_and_nonce",
        "HL-27",
        "upstream asserts: the derived key is op- and 64 hex digits and the same for the "
        "same plan, step, tool, input and nonce; another input, nonce or plan source gives "
        "another key; an empty nonce is empty_operation_nonce; 129 bytes is "
        "operation_nonce_too_large (maximum 128); recording derives the same key",
        [
            (OK, _derive("k", "request", "run-1:operation-1")),
            (OK, _derive("k-again", "request", "run-1:operation-1")),
            (OK, _derive("k-input", "different request", "run-1:operation-1")),
            (OK, _derive("k-nonce", "request", "run-1:operation-2")),
            (OK, _derive("k-plan", "request", "run-1:operation-1", plan="changed")),
            ("empty_operation_nonce", _derive("k-empty", "request", "")),
            ("operation_nonce_too_large", _derive("k-large", "request", {"hex": "00" * 129})),
            (
                OK,
                on(
                    "record_derived_operation",
                    step_id="publish",
                    tool=TOOL,
                    input="request",
                    nonce="run-1:operation-1",
                    **{"as": "recorded"},
                ),
            ),
            (OK, call("to_json", ledger="ledger")),
        ],
        (
            (
                "op- and 64 hex digits",
                lambda r: (
                    r[0].startswith("op-")
                    and len(r[0]) == 67
                    and all(ch in "0123456789abcdef" for ch in r[0][3:])
                ),
            ),
            ("deterministic", lambda r: r[1] == r[0]),
            ("input, nonce and plan bind", lambda r: r[0] not in (r[2], r[3], r[4])),
            (
                "recording derives it",
                lambda r: r[7] == r[0] and _first_operation(r[8])["operation_key"] == r[0],
            ),
        ),
        {"plans": {"changed": {"engine": "engine", "steps": [["publish", "let release = false"]]}}},
    ),
    LedgerPort(
        "operation_ledger_reconciles_bound_observations_without_retaining_output",
        "HL-15",
        "upstream asserts: a verified running reconciliation gives running at revision 2; "
        "succeeded gives succeeded, and again succeeded with the revision staying 3; the "
        "encoding keeps no output; a later failed is invalid_state_transition (succeeded to "
        "failed); the last event is operation_observed (publish, release.publish, succeeded)",
        [
            (OK, _record_host_key("request")),
            (OK, _prepare_reconcile(HOST_KEY, "request", "reconcile-1", "r1")),
            (OK, _verified_reconcile("r1", {"state": "running"})),
            (OK, call("revision", ledger="ledger")),
            (OK, _verified_reconcile("r1", PRIVATE_RESULT)),
            (OK, _verified_reconcile("r1", PRIVATE_RESULT)),
            (OK, call("to_json", ledger="ledger")),
            (OK, call("revision", ledger="ledger")),
            ("invalid_state_transition", _verified_reconcile("r1", PRIVATE_FAILURE)),
            (OK, call("events", engine="engine")),
        ],
        (
            ("running at revision 2", lambda r: r[2] == "running" and r[3] == 2),
            ("succeeded twice", lambda r: r[4] == "succeeded" and r[5] == "succeeded"),
            (
                "succeeded at revision 3",
                lambda r: _first_operation(r[6])["state"] == "succeeded" and r[7] == 3,
            ),
            ("no output stored", lambda r: "private result" not in r[6]),
            (
                "the last event is operation_observed succeeded",
                lambda r: (
                    r[9][-1]
                    == {
                        "type": "operation_observed",
                        "plan_id": 1,
                        "step_id": "publish",
                        "tool": TOOL,
                        "state": "succeeded",
                    }
                ),
            ),
        ),
    ),
    LedgerPort(
        "authenticated_operation_ledger_reconciliation_rejects_tampering",
        "HL-15",
        "upstream asserts: the sealed reconciliation opens at the worker as that request; "
        "its reply with one tag digit changed is invalid_authentication_tag and leaves the "
        "operation pending at revision 1; the genuine reply then applies as succeeded at "
        "revision 2 and the encoding keeps no output",
        [
            (OK, _record_host_key("request")),
            (OK, _prepare_reconcile(HOST_KEY, "request", "reconcile-1", "r1")),
            (OK, call("worker_open", session="worker", frame="r1")),
            (
                OK,
                call(
                    "worker_reply",
                    session="worker",
                    to="r1",
                    status=PRIVATE_OUTPUT,
                    **{"as": "reply"},
                ),
            ),
            (OK, call("tamper", frame="reply", how="flip_tag", **{"as": "tampered"})),
            (
                "invalid_authentication_tag",
                on("apply_reconciliation", request="r1", session="host", frame="tampered"),
            ),
            (OK, call("to_json", ledger="ledger")),
            (OK, call("revision", ledger="ledger")),
            (OK, on("apply_reconciliation", request="r1", session="host", frame="reply")),
            (OK, call("revision", ledger="ledger")),
            (OK, call("to_json", ledger="ledger")),
        ],
        (
            (
                "the worker opens the request",
                lambda r: (
                    _message(r[2])["type"] == "reconcile_operation"
                    and _message(r[2])["request"] == _message(r[1])["message"]["request"]
                ),
            ),
            (
                "pending at revision 1",
                lambda r: _first_operation(r[6])["state"] == "pending" and r[7] == 1,
            ),
            ("succeeded at revision 2", lambda r: r[8] == "succeeded" and r[9] == 2),
            ("no output stored", lambda r: "private output" not in r[10]),
        ),
    ),
    LedgerPort(
        "operation_ledger_rejects_mismatched_records_and_storage_bounds",
        "HL-6",
        "upstream asserts: key cmp-reserved is invalid_operation_key; step unknown is "
        "unknown_step; after recording release-2026-1, a reconciliation request with other "
        "input is input_fingerprint_mismatch and recording it again duplicate_operation_key; "
        "262,145 input bytes are InputTooLarge (Rescind's code host_input_too_large; upstream "
        "records through the ledger directly, here through the engine); a ledger whose tool is edited to 'bad tool' is "
        "invalid_tool. Not pinned: a 65,537-byte text is ledger_too_large (the ledger-codec "
        "topic pins it)",
        [
            ("invalid_operation_key", _record_host_key("request", key="cmp-reserved")),
            ("unknown_step", _record_host_key("request", step="unknown")),
            (OK, _record_host_key("request")),
            (
                "input_fingerprint_mismatch",
                on(
                    "operation_reconcile_request",
                    operation_key=HOST_KEY,
                    input="different request",
                    session_id="session-1",
                    request_id="reconcile-1",
                ),
            ),
            ("duplicate_operation_key", _record_host_key("request")),
            (
                "host_input_too_large",
                _record_host_key({"repeat": "\u0000", "count": 262_145}, key="large-input"),
            ),
            (
                "invalid_tool",
                call(
                    "load_ledger",
                    **{
                        "from": "ledger",
                        "edits": [{"path": ["operations", 0, "tool"], "value": "bad tool"}],
                        "as": "edited",
                    },
                ),
            ),
        ],
    ),
]


def _results(run: dict[str, Any]) -> Results:
    return [step.get("result") for step in run["steps"]]


def _check(port: LedgerPort, run: dict[str, Any]) -> None:
    outcomes = [OK if "result" in step else str(step["error"]) for step in run["steps"]]
    intended = [outcome for outcome, _ in port.steps]
    if outcomes != intended:
        raise PortDisagrees(f"{port.test}: upstream asserts {intended}, reference {outcomes}")
    results = _results(run)
    for description, holds in port.checks:
        if not holds(results):
            raise PortDisagrees(f"{port.test}: the reference breaks '{description}'")


def vectors(prefix: str) -> list[VectorTest]:
    built = []
    for port in PORTS:
        trace = port.trace()
        expected = run_trace(trace)
        _check(port, expected)
        built.append(
            VectorTest(
                live_id(f"{prefix}.{words(port.test)}"),
                port.rule,
                port.comment,
                trace,
                expected,
                "valid",
                provenance=cite(WORKFLOW, port.test),
            )
        )
    return built
