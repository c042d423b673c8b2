"""Worker session scenarios (docs/spec/session.md): upstream's probe runs 1-7, worker edge
cases 42-54 (docs/spec/edge-cases.md), and crash/restart runs. Each step carries the outcome
its author expects from the spec ("ok" or an error code); ``session_scenarios`` refuses to export a case whose reference
outcome disagrees. The probe's own values are checked line by line by tests/sessions.

Probe setup (as tests/upstream/out_other.txt shows it): session ``worker-1``, journal scope
``tenant``, tool ``text.echo`` with the probe grant (3 calls, 16 output bytes, 1
compensation), key ``op-1`` with input ``release``, compensation ``cmp-op-1`` with ``undo``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import attrs

from rescind.conformance.vectors.format import string_tuple
from rescind.conformance.vectors.sets._worker_fixtures import (
    CANCELLED,
    GRANT_ECHO,
    GRANT_ECHO_FP,
    GRANT_ECHO_OUT_8,
    RUNNING,
    compensate,
    dispatch,
    failed,
    reconcile,
    succeeded,
)
from rescind.conformance.vectors.sets.grants import grant_text, manifest_text

OK = "ok"
SESSION = "worker-1"
SCOPE = "tenant"

GRANT_ECHO_TEN_CALLS = grant_text("text.echo", "text", 10, 16384, 16, 1, ())
GRANT_ECHO_NO_COMP = grant_text("text.echo", "text", 3, 16384, 16, 0, ())


def _message(kind: str, body: str) -> str:
    return f'{{"type":"{kind}","request":{body}}}'


def d(request_id: str, value: str = "release", key: str = "op-1") -> str:
    """A ``dispatch_operation`` message for the probe's echo tool."""
    return _message(
        "dispatch_operation",
        dispatch(
            value, tool="text.echo", key=key, request_id=request_id, session=SESSION, fmt="text"
        ),
    )


def r(request_id: str, key: str = "op-1") -> str:
    return _message(
        "reconcile_operation",
        reconcile(tool="text.echo", key=key, request_id=request_id, session=SESSION),
    )


def c(request_id: str, value: str = "undo", key: str = "op-1", cmp_key: str = "cmp-op-1") -> str:
    return _message(
        "compensate_operation",
        compensate(
            value,
            tool="text.echo",
            key=key,
            cmp_key=cmp_key,
            tenant=SCOPE,
            grant_fp=GRANT_ECHO_FP,
            request_id=request_id,
            session=SESSION,
            fmt="text",
        ),
    )


CANCEL = '{"type":"cancel","request":{"protocol_version":5,"session_id":"worker-1","cancellation_id":"c1","request_id":"x1","tool":"release.publish"}}'
CLOSE = '{"type":"close_session","protocol_version":5,"session_id":"worker-1"}'
OPEN_AGAIN = '{"type":"open_session","manifest":' + manifest_text(GRANT_ECHO, session=SESSION) + "}"
INVOKE = '{"type":"invoke","invocation":{"protocol_version":5,"session_id":"worker-1","request_id":"i1","tool":"text.echo","payload":{"format":"text","value":"hi"}}}'


def text_ok(value: str) -> dict[str, str]:
    return {"status": succeeded(value, "text")}


def status(text: str) -> dict[str, str]:
    return {"status": text}


def adapter_error(kind: str) -> dict[str, str]:
    return {"error": kind}


def fault(kind: str, persist: int = 1) -> dict[str, Any]:
    return {"persist": persist, "kind": kind}


@attrs.frozen
class Step:
    expect: str
    body: dict[str, Any]


def send(
    expect: str,
    message: str,
    *,
    adapter: list[Any] | None = None,
    faults: list[Any] | None = None,
    tamper: str | None = None,
) -> Step:
    body: dict[str, Any] = {"send": message}
    if adapter:
        body["adapter"] = adapter
    if faults:
        body["faults"] = faults
    if tamper:
        body["tamper"] = tamper
    return Step(expect, body)


def act(expect: str, kind: str, **args: Any) -> Step:
    """A non-frame step (``open``, ``restart``, ``takeover``, ``store_persist``, ``stored``)."""
    return Step(expect, {kind: args})


def _step_tuple(steps: Iterable[Step]) -> tuple[Step, ...]:
    return tuple(steps)


@attrs.frozen
class Case:
    id: str
    rule: str
    comment: str
    steps: tuple[Step, ...] = attrs.field(converter=_step_tuple)
    setup: dict[str, Any] = attrs.field(factory=dict)
    open_error: str | None = None
    flags: tuple[str, ...] = attrs.field(default=(), converter=string_tuple)

    def spec(self) -> dict[str, Any]:
        setup = {"session_id": SESSION, "scope": SCOPE, "grants": [GRANT_ECHO], **self.setup}
        return {"setup": setup, "steps": [step.body for step in self.steps]}


def _case(id: str, rule: str, comment: str, steps: list[Step], **kw: Any) -> Case:
    return Case(id, rule, comment, steps, **kw)


PROBE = [
    _case(
        "session.probe-1.adapter-failed-then-reconcile.r2",
        "WS-8",
        "probe 1: a Failed adapter error leaves the record pending; resends are pending and spend calls until the budget is gone; reconciliation persists every time, refuses unknown keys and oversized output, reports adapter errors; cancel and close are unexpected",
        [
            send("adapter_failed", d("d1"), adapter=[adapter_error("failed")]),
            send("pending_operation", d("d2")),
            send("pending_operation", d("d3")),
            send("call_budget_exhausted", d("d4")),
            send(OK, r("r1"), adapter=[status(RUNNING)]),
            send(OK, r("r2"), adapter=[status(RUNNING)]),
            send("unknown_operation", r("r3", key="nope")),
            send("output_too_large", r("r4"), adapter=[text_ok("x" * 17)]),
            send("adapter_failed", r("r5"), adapter=[adapter_error("indeterminate")]),
            send(OK, r("r6"), adapter=[text_ok("ok")]),
            send("unexpected_message", CANCEL),
            send("unexpected_message", CLOSE),
        ],
    ),
    _case(
        "session.probe-2.oversized-dispatch-output",
        "WS-10",
        "probe 2: a success over the grant's output limit is indeterminate, the record stays pending and the session stays usable",
        [
            send("indeterminate_operation", d("d1"), adapter=[text_ok("x" * 17)]),
            send("pending_operation", d("d2")),
        ],
    ),
    _case(
        "session.probe-3.running-replay-then-compensation",
        "WS-12",
        "probe 3: a running dispatch is replayed from the journal; compensation before success is refused but its budget is already spent; after reconciliation the same identity under a new id compensates once and replays",
        [
            send(OK, d("d1"), adapter=[status(RUNNING)]),
            send(OK, d("d2")),
            send("compensation_requires_succeeded_operation", c("c1")),
            send(OK, r("r1"), adapter=[text_ok("done")]),
            send(OK, c("c2"), adapter=[text_ok("undone")]),
            send(OK, c("c3")),
        ],
    ),
    _case(
        "session.probe-4.compensation-indeterminate",
        "WS-12",
        "probe 4: an Indeterminate compensation adapter leaves the compensation pending (persisted), the session usable, and a resend pending",
        [
            send(OK, d("d1"), adapter=[text_ok("done")]),
            send("indeterminate_compensation", c("c1"), adapter=[adapter_error("indeterminate")]),
            send("pending_compensation", c("c2")),
        ],
    ),
    _case(
        "session.probe-5.post-effect-persist-fails",
        "WS-11",
        "probe 5: the write after the effect fails: indeterminate, back to the persisted pending journal, poisoned; the next frame is refused unopened",
        [
            send(
                "indeterminate_operation",
                d("d1"),
                adapter=[text_ok("done")],
                faults=[fault("unavailable", 2)],
            ),
            send("session_poisoned", d("d2")),
        ],
    ),
    _case(
        "session.probe-6.reconcile-persist-fails",
        "WS-15",
        "probe 6: a failed reconciliation write poisons and keeps the last persisted state",
        [
            send(OK, d("d1"), adapter=[status(RUNNING)]),
            send(
                "journal_persistence_failed",
                r("r1"),
                adapter=[status(RUNNING)],
                faults=[fault("unavailable")],
            ),
        ],
    ),
    _case(
        "session.probe-7.replay-under-narrower-grant",
        "WS-6",
        "probe 7: a stored 16-byte success replayed to a fresh session whose grant allows 8 output bytes is refused",
        [
            send(OK, d("d1"), adapter=[text_ok("x" * 16)]),
            act(OK, "restart", grants=[GRANT_ECHO_OUT_8]),
            send("output_too_large", d("d1")),
        ],
    ),
]

EDGE = [
    _case(
        "session.edge-42.two-writes-one-effect",
        "WS-7",
        "edge case 42: a dispatch writes twice (pending, then the outcome) around one adapter call; a resend under a new id answers from the journal with no call and no write",
        [send(OK, d("d1"), adapter=[text_ok("done")]), send(OK, d("d2"))],
    ),
    *[
        _case(
            f"session.edge-43.admission-write-{name}",
            "WS-7",
            f"edge case 43: the admission write fails ({kind}): the key is not in memory, the adapter is never called, the session is poisoned",
            [send(code, d("d1"), faults=[fault(kind)]), send("session_poisoned", r("r1"))],
        )
        for name, kind, code in (
            ("unavailable", "unavailable", "journal_persistence_failed"),
            ("conflict", "conflict", "journal_persistence_failed"),
            ("expired-lease", "expired_lease", "journal_persistence_failed"),
            ("non-increasing-revision", "non_increasing", "invalid_journal_revision"),
        )
    ],
    _case(
        "session.edge-44.post-effect-write-fails",
        "WS-11",
        "edge case 44: after the effect the write fails: indeterminate (journal cause), pending again, one durable write, poisoned; even a reconciliation is then refused without an adapter call",
        [
            send(
                "indeterminate_operation",
                d("d1"),
                adapter=[text_ok("done")],
                faults=[fault("unavailable", 2)],
            ),
            send("session_poisoned", r("r1")),
        ],
    ),
    _case(
        "session.edge-44.post-effect-non-increasing-revision",
        "WS-11",
        "a post-effect write answered with a revision that is not greater is indeterminate too and poisons",
        [
            send(
                "indeterminate_operation",
                d("d1"),
                adapter=[text_ok("done")],
                faults=[fault("non_increasing", 2)],
            ),
            send("session_poisoned", d("d2")),
        ],
    ),
    _case(
        "session.edge-45.adapter-indeterminate",
        "WS-8",
        "edge case 45: the adapter cannot tell: indeterminate (adapter cause), pending and persisted once, not poisoned",
        [
            send("indeterminate_operation", d("d1"), adapter=[adapter_error("indeterminate")]),
            send("pending_operation", d("d2")),
        ],
    ),
    _case(
        "session.edge-46.adapter-failed-resends-spend-calls",
        "WS-5",
        "edge case 46: after an adapter Failed error resends are pending and still spend calls; the 4th dispatch under 3 calls is refused",
        [
            send("adapter_failed", d("d1"), adapter=[adapter_error("failed")]),
            send("pending_operation", d("d2")),
            send("pending_operation", d("d3")),
            send("call_budget_exhausted", d("d4")),
        ],
    ),
    _case(
        "session.edge-46.other-adapter-errors",
        "WS-8",
        "every adapter error other than indeterminate is adapter_failed with its kind and leaves the record pending",
        [
            send("adapter_failed", d("d1", key="op-1"), adapter=[adapter_error("unsupported")]),
            send(
                "adapter_failed", d("d2", key="op-2"), adapter=[adapter_error("invalid_json_input")]
            ),
            send(
                "adapter_failed",
                d("d3", key="op-3"),
                adapter=[adapter_error("invalid_json_output")],
            ),
        ],
        setup={"grants": [GRANT_ECHO_TEN_CALLS]},
    ),
    _case(
        "session.edge-47.oversized-success",
        "WS-10",
        "edge case 47: an oversized success is indeterminate with the protocol cause; pending, not poisoned",
        [send("indeterminate_operation", d("d1"), adapter=[text_ok("x" * 17)])],
    ),
    _case(
        "session.edge-47.failed-status-is-an-outcome",
        "WS-10",
        "a failed status (not an adapter error) is a terminal outcome: persisted and replayed",
        [send(OK, d("d1"), adapter=[status(failed("boom"))]), send(OK, d("d2"))],
    ),
    _case(
        "session.edge-48.per-tool-reconciliation-budget",
        "WS-14",
        "edge case 48: with a per-tool limit of 1 the second reconciliation is refused; the adapter is asked once",
        [
            send(OK, d("d1"), adapter=[status(RUNNING)]),
            send(OK, r("r1"), adapter=[status(RUNNING)]),
            send("reconciliation_budget_exhausted", r("r2")),
        ],
        setup={"limits": {"per_tool": 1, "per_session": 64}},
    ),
    _case(
        "session.edge-48.session-reconciliation-budget",
        "WS-14",
        "edge case 48: per tool 2 and per session 1: the second reconciliation hits the session limit first",
        [
            send(OK, d("d1"), adapter=[status(RUNNING)]),
            send(OK, r("r1"), adapter=[status(RUNNING)]),
            send("reconciliation_session_budget_exhausted", r("r2")),
        ],
        setup={"limits": {"per_tool": 2, "per_session": 1}},
    ),
    _case(
        "session.limits.zero-per-tool",
        "WS-14",
        "a per-tool reconciliation limit of 0 is refused when the session opens (checked before the session limit)",
        [],
        setup={"limits": {"per_tool": 0, "per_session": 0}},
        open_error="zero_per_tool_reconciliation_limit",
    ),
    _case(
        "session.limits.zero-per-session",
        "WS-14",
        "a session reconciliation limit of 0 is refused when the session opens",
        [],
        setup={"limits": {"per_tool": 1, "per_session": 0}},
        open_error="zero_session_reconciliation_limit",
    ),
    _case(
        "session.edge-49.unknown-key-spends-no-budget",
        "WS-13",
        "edge case 49: reconciling an unknown key is refused before the budget and the adapter; the one allowed reconciliation is still there",
        [
            send(OK, d("d1"), adapter=[status(RUNNING)]),
            send("unknown_operation", r("r1", key="nope")),
            send(OK, r("r2"), adapter=[status(RUNNING)]),
        ],
        setup={"limits": {"per_tool": 1, "per_session": 1}},
    ),
    _case(
        "session.edge-49.reconcile-writes-unchanged-state",
        "WS-13",
        "edge case 49: a reconciliation that changes nothing is still written (the revision moves)",
        [
            send(OK, d("d1"), adapter=[status(RUNNING)]),
            send(OK, r("r1"), adapter=[status(RUNNING)]),
            send(OK, r("r2"), adapter=[status(RUNNING)]),
        ],
    ),
    _case(
        "session.edge-49.reconcile-oversized-or-contradictory",
        "WS-13",
        "edge case 49: an oversized reconciliation result and a contradicting one are protocol refusals; nothing changes, nothing is written, no poison",
        [
            send(OK, d("d1"), adapter=[text_ok("done")]),
            send("output_too_large", r("r1"), adapter=[text_ok("x" * 17)]),
            send("invalid_worker_operation_transition", r("r2"), adapter=[status(CANCELLED)]),
            send(OK, r("r3"), adapter=[text_ok("done")]),
        ],
    ),
    _case(
        "session.edge-50.reconcile-write-fails",
        "WS-15",
        "edge case 50: a failed reconciliation write is a journal failure; poisoned; the prior state is kept",
        [
            send(OK, d("d1"), adapter=[status(RUNNING)]),
            send(
                "journal_persistence_failed",
                r("r1"),
                adapter=[text_ok("done")],
                faults=[fault("conflict")],
            ),
            send("session_poisoned", r("r2")),
        ],
    ),
    _case(
        "session.edge-51.missing-adapter",
        "WS-1",
        "edge case 51: every granted tool needs an adapter at open",
        [],
        setup={"missing_adapters": ["text.echo"]},
        open_error="missing_adapter",
    ),
    _case(
        "session.edge-51.zero-lease",
        "WS-2",
        "edge case 51: an admission answering token 0 gives no lease",
        [act("invalid_journal_lease", "open", admission="zero")],
        setup={"open": False},
    ),
    _case(
        "session.edge-51.replayed-open-session",
        "WS-2",
        "edge case 51: a replayed open_session frame is refused by the admission",
        [act(OK, "open"), act("admission_failed", "open", replay=True)],
        setup={"open": False},
    ),
    _case(
        "session.open.order",
        "WS-1",
        "open refuses a host-role authenticator before reading the frame, and a first frame that is not open_session",
        [
            act("requires_worker_authenticator", "open", role="host"),
            act("unexpected_opening_message", "open", message=CLOSE),
        ],
        setup={"open": False},
    ),
    _case(
        "session.edge-52.no-declarations",
        "WS-21",
        "edge case 52: an adapter with no declarations: invoke needs a safety declaration, dispatch a durable contract; nothing is journaled but the call is spent",
        [
            send("invocation_safety_not_declared", INVOKE),
            send("durable_operation_contract_not_declared", d("d1")),
            send("durable_operation_contract_not_declared", c("c1")),
        ],
        setup={"declarations": {"durable": False, "safety": False}},
    ),
    _case(
        "session.invoke.not-modelled",
        "WS-21",
        "an invoke to an adapter that declared its safety is outside what Rescind models",
        [send("invocation_not_modelled", INVOKE)],
    ),
    _case(
        "session.edge-53.unexpected-messages.r2",
        "WS-3",
        "edge case 53: cancel, close_session and a second open_session are not session requests",
        [
            send("unexpected_message", CANCEL),
            send("unexpected_message", CLOSE),
            send("unexpected_message", OPEN_AGAIN),
        ],
    ),
    _case(
        "session.edge-54.bridge-revisions-fences-scope",
        "WS-19",
        "edge case 54: after a dispatch the record is at revision 2; a newer lease writes revision 3; the older lease is then refused; a journal of another scope is refused by the bridge",
        [
            send(OK, d("d1"), adapter=[text_ok("done")]),
            act(OK, "stored"),
            act(OK, "takeover"),
            act(OK, "store_persist", lease=2),
            act("fencing_token_rejected", "store_persist", lease=1),
            act(
                "operation_journal_scope_mismatch",
                "store_persist",
                lease=2,
                journal='{"format_version":2,"scope":"tenant-other","records":[]}',
            ),
        ],
    ),
]

CRASH = [
    _case(
        "session.crash.restart-reconciles-never-redispatches",
        "WS-16",
        "the post-effect write fails; a new session over the stored journal answers a resend with pending (no second effect) and reconciliation records the outcome",
        [
            send(
                "indeterminate_operation",
                d("d1"),
                adapter=[text_ok("done")],
                faults=[fault("unavailable", 2)],
            ),
            act(OK, "restart"),
            send("pending_operation", d("d2")),
            send(OK, r("r1"), adapter=[text_ok("done")]),
            send(OK, d("d3")),
        ],
    ),
    _case(
        "session.crash.lost-admission-ack",
        "WS-22",
        "the admission is written but its answer is lost: the session poisons without calling the adapter; after a restart the stored admission makes every resend pending, and reconciliation decides",
        [
            send("journal_persistence_failed", d("d1"), faults=[fault("lost_ack")]),
            act(OK, "restart"),
            send("pending_operation", d("d2")),
            send(OK, r("r1"), adapter=[status(CANCELLED)]),
            send(OK, d("d3")),
        ],
    ),
    _case(
        "session.crash.takeover-fences-old-session",
        "WS-19",
        "another session is admitted for the same journal: the old session's next write is refused by the fence, it poisons, and the stored journal is untouched",
        [
            send(OK, d("d1"), adapter=[status(RUNNING)]),
            act(OK, "takeover"),
            send("journal_persistence_failed", r("r1"), adapter=[text_ok("done")]),
            send("session_poisoned", r("r2")),
            act(OK, "restart"),
            send(OK, r("r3"), adapter=[text_ok("done")]),
        ],
    ),
    _case(
        "session.crash.takeover-before-admission",
        "WS-19",
        "a superseded session cannot even admit: the fence refuses the first write, so the adapter never runs",
        [
            act(OK, "takeover"),
            send("journal_persistence_failed", d("d1")),
            act(OK, "restart"),
            send(OK, d("d2"), adapter=[text_ok("done")]),
        ],
    ),
    _case(
        "session.crash.compensation-write-fails-then-restart",
        "WS-16",
        "the compensation's post-effect write fails: indeterminate and poisoned; after a restart the resend is pending and the inverse never runs twice",
        [
            send(OK, d("d1"), adapter=[text_ok("done")]),
            send(
                "indeterminate_compensation",
                c("c1"),
                adapter=[text_ok("undone")],
                faults=[fault("unavailable", 2)],
            ),
            act(OK, "restart"),
            send("pending_compensation", c("c2")),
        ],
    ),
    _case(
        "session.frames.tampered-frame-does-not-poison",
        "WS-3",
        "a frame with a bad tag is a protocol refusal that neither poisons nor uses the sequence; the genuine frame then works",
        [
            send("invalid_authentication_tag", d("d1"), tamper="flip_tag"),
            send(OK, d("d1"), adapter=[text_ok("done")]),
        ],
    ),
    _case(
        "session.compensation.no-budget",
        "WS-12",
        "a compensation under a grant without compensation budget is refused by the authorizer before the journal",
        [send(OK, d("d1"), adapter=[text_ok("done")]), send("compensation_not_granted", c("c1"))],
        setup={"grants": [GRANT_ECHO_NO_COMP]},
    ),
]

CASES = [*PROBE, *EDGE, *CRASH]
