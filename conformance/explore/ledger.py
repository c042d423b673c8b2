"""Exploration of the host engine through ledger traces (``ledger.trace``, docs/spec/ledger.md
"Ledger traces"): operations, derived and external keys, compensation intents under
verifiers, approvals, authenticated dispatch/reconciliation/compensation frames with worker
replies (tampered or not), verified applies, ledger round trips and validation.

Generation is closed-loop: the strategy runs the reference while it draws, so each step only
names frames, replies and approvals that exist at that point of the trace. That run's
outcomes are the reference's answer to the finished trace, so they are kept as its
expectation (``Answers``); a test holds them equal to a fresh ``ledger.trace`` run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs
from hypothesis import strategies as st

from rescind.conformance.explore.engine import Answers, Area
from rescind.conformance.fixtures.trace_dsl import (
    CANCELLED,
    FAILED,
    NONCE,
    RUNNING,
    SUCCEEDED,
    SUCCEEDED_EMPTY,
    TOOL,
    UNDO,
    UNDO_DRIFT,
    UNDO_NONCE,
    VERSION,
    VERSION_2,
    call,
    on,
    setup,
)
from rescind.conformance.harness.restrictions import (
    APPROVAL_CONSUMED_ON_USE,
    OPERATION_INPUT_CHECK_PRIVATE,
)
from rescind.conformance.interpreters.host_trace import TraceRun
from rescind.reference.errors import RescindError
from rescind.reference.frames import AuthenticatedFrame
from rescind.reference.host.approvals import Approval
from rescind.reference.host.host_frames import PreparedFrame

Step = dict[str, Any]

SETUP = setup()
NONCE_2 = "release-42:publish:2"
KEYS = {"k1": (VERSION, NONCE), "k2": (VERSION_2, NONCE_2)}
TARGETS = {"t1": "$k1", "t2": "$k2"}
STATUSES = (SUCCEEDED, RUNNING, FAILED, CANCELLED, SUCCEEDED_EMPTY)
UNDOS = (UNDO, UNDO_DRIFT)
_TAGS = {"d1": "dispatch", "d2": "dispatch", "r1": "reconciliation", "x1": "compensation"}
_APPLY = {
    "dispatch": "apply_dispatch_result",
    "reconciliation": "apply_reconciliation",
    "compensation": "apply_compensation",
}


def _prefix() -> list[Step]:
    """Keys, a policy and two targets, bound before any drawn step (these never fail)."""
    steps = [
        call(
            "derive_operation_key",
            engine="engine",
            plan="plan",
            step_id="publish",
            tool=TOOL,
            input=value,
            nonce=nonce,
            **{"as": name},
        )
        for name, (value, nonce) in KEYS.items()
    ]
    steps.append(call("policy", tenant_scope="tenant-release", grant="grant", **{"as": "pol"}))
    steps += [
        call(
            "target",
            operation_key=key,
            policy="pol",
            grant="grant",
            grant_verifier="gv",
            action_verifier="av",
            **{"as": name},
        )
        for name, key in TARGETS.items()
    ]
    return steps


PREFIX = _prefix()


def _bound(run: TraceRun, name: str, kind: type[Any]) -> bool:
    return isinstance(run.names.get(name), kind)


def _harmless(_: TraceRun) -> list[Step]:
    return [
        call("revision", ledger="ledger"),
        call("to_json", ledger="ledger"),
        call("events", engine="engine"),
        call("verifier_calls", verifier="gv"),
        call("verifier_calls", verifier="av"),
        on("validate"),
    ]


def _records(_: TraceRun) -> list[Step]:
    steps: list[Step] = []
    for name, (value, nonce) in KEYS.items():
        for kind in ("record_derived_operation", "prepare_external_operation"):
            args = {"step_id": "publish", "tool": TOOL, "input": value, "nonce": nonce}
            steps.append(on(kind, **args, **{"as": name}))
    for key in ("$k1", "$k2"):
        for value in (VERSION, VERSION_2):
            steps.append(
                on("record_operation", step_id="publish", tool=TOOL, operation_key=key, input=value)
            )
    steps.append(
        on("record_operation", step_id="unplanned", tool=TOOL, operation_key="$k1", input=VERSION)
    )
    return steps


def _prepare(_: TraceRun) -> list[Step]:
    steps: list[Step] = []
    for key in ("$k1", "$k2"):
        for value in (VERSION, VERSION_2):
            for tag in ("d1", "d2"):
                steps.append(
                    on(
                        "prepare_dispatch",
                        operation_key=key,
                        payload=value,
                        request_id=f"dispatch-{tag}",
                        session="host",
                        **{"as": tag},
                    )
                )
            steps.append(
                on(
                    "prepare_reconciliation",
                    operation_key=key,
                    input=value,
                    request_id="reconcile-r1",
                    session="host",
                    **{"as": "r1"},
                )
            )
    return steps


def _worker(run: TraceRun) -> list[Step]:
    steps: list[Step] = []
    for tag in _TAGS:
        if not _bound(run, tag, PreparedFrame):
            continue
        steps.append(call("worker_open", session="worker", frame=tag))
        for status in STATUSES:
            steps.append(
                call("worker_reply", session="worker", to=tag, status=status, **{"as": f"{tag}-r"})
            )
        if _bound(run, f"{tag}-r", AuthenticatedFrame):
            steps.append(call("tamper", frame=f"{tag}-r", how="flip_tag", **{"as": f"{tag}-r"}))
    return steps


def _apply(run: TraceRun) -> list[Step]:
    steps: list[Step] = []
    for tag, kind in _TAGS.items():
        if not _bound(run, tag, PreparedFrame):
            continue
        if _bound(run, f"{tag}-r", AuthenticatedFrame):
            steps.append(on(_APPLY[kind], request=tag, session="host", frame=f"{tag}-r"))
        verified = f"apply_verified_{kind}" + ("_result" if kind == "dispatch" else "")
        for status in STATUSES:
            steps.append(
                on(verified, request={"of": tag}, result={"reply_to": tag, "status": status})
            )
    return steps


def _intents(_: TraceRun) -> list[Step]:
    steps: list[Step] = []
    for target, key in TARGETS.items():
        for undo in UNDOS:
            steps.append(
                on(
                    "record_derived_compensation_with_action_verifier",
                    target=target,
                    input=undo,
                    nonce=UNDO_NONCE,
                    **{"as": f"c{target}"},
                )
            )
            steps.append(
                on(
                    "record_derived_compensation",
                    operation_key=key,
                    policy="pol",
                    input=undo,
                    nonce=UNDO_NONCE,
                    **{"as": f"c{target}"},
                )
            )
    steps += [
        call("set_verifier", verifier=verifier, allow=allow)
        for verifier in ("gv", "av")
        for allow in (False, True)
    ]
    return steps


def _approvals(run: TraceRun) -> list[Step]:
    steps: list[Step] = []
    for target in TARGETS:
        for undo in UNDOS:
            steps.append(
                on(
                    "approve_compensation",
                    target=target,
                    input=undo,
                    session="host",
                    **{"as": f"a{target}"},
                )
            )
            for approval in ("at1", "at2"):
                if _bound(run, approval, Approval):
                    steps.append(
                        on(
                            "prepare_compensation",
                            target=target,
                            approval=approval,
                            request_id="undo-x1",
                            payload=undo,
                            session="host",
                            **{"as": "x1"},
                        )
                    )
    return steps


def _ledger(_: TraceRun) -> list[Step]:
    steps = [
        call("load_ledger", **{"from": "ledger", "as": "ledger"}),
        call("checkpoint", ledger="ledger", name="cp"),
    ]
    for key in ("$k1", "$k2"):
        for value in (VERSION, VERSION_2):
            steps.append(call("matches_input", ledger="ledger", operation_key=key, input=value))
            steps.append(call("verify_input", ledger="ledger", operation_key=key, input=value))
    return steps


def _round_trips(_: TraceRun) -> list[Step]:
    """Whole exchanges as one drawn step (macros), so succeeded operations, compensations and
    their applies are reached in few traces rather than by chance."""
    steps: list[Step] = []
    for name, (value, nonce) in KEYS.items():
        record = on(
            "record_derived_operation",
            step_id="publish",
            tool=TOOL,
            input=value,
            nonce=nonce,
            **{"as": name},
        )
        for status in STATUSES[:3]:
            exchange = [
                on(
                    "prepare_dispatch",
                    operation_key=f"${name}",
                    payload=value,
                    request_id="dispatch-d1",
                    session="host",
                    **{"as": "d1"},
                ),
                call("worker_open", session="worker", frame="d1"),
                call("worker_reply", session="worker", to="d1", status=status, **{"as": "d1-r"}),
                on("apply_dispatch_result", request="d1", session="host", frame="d1-r"),
            ]
            steps.append({"macro": [record, *exchange]})
    for target in TARGETS:
        for undo in UNDOS:
            for status in STATUSES[:3]:
                exchange = [
                    on(
                        "record_derived_compensation_with_action_verifier",
                        target=target,
                        input=undo,
                        nonce=UNDO_NONCE,
                        **{"as": f"c{target}"},
                    ),
                    on(
                        "approve_compensation",
                        target=target,
                        input=undo,
                        session="host",
                        **{"as": f"a{target}"},
                    ),
                    on(
                        "prepare_compensation",
                        target=target,
                        approval=f"a{target}",
                        request_id="undo-x1",
                        payload=undo,
                        session="host",
                        **{"as": "x1"},
                    ),
                    call("worker_open", session="worker", frame="x1"),
                    call(
                        "worker_reply", session="worker", to="x1", status=status, **{"as": "x1-r"}
                    ),
                    on("apply_compensation", request="x1", session="host", frame="x1-r"),
                ]
                steps.append({"macro": exchange})
    return steps


# Simplest kinds first: shrinking moves a drawn integer towards 0, that is, towards the
# harmless reads.
GROUPS: tuple[Callable[[TraceRun], list[Step]], ...] = (
    _harmless,
    _records,
    _prepare,
    _worker,
    _apply,
    _intents,
    _approvals,
    _ledger,
    _round_trips,
)
_SLOTS = 64
ANSWERS = Answers()
# Steps an exchange goes on after even when refused: recording the operation or intent again
# (a duplicate) leaves the recorded one to use.
_MAY_REPEAT = frozenset(
    {"record_derived_operation", "record_derived_compensation_with_action_verifier"}
)


def _run(run: TraceRun, step: Mapping[str, Any]) -> dict[str, Any] | None:
    """Run one step on the live reference and give its outcome as ``ledger.trace`` reports
    it; ``None`` when the interpreter refuses it as malformed (the trace ends before it)."""
    try:
        return {"result": run.step(str(step["call"]), step["args"])}
    except RescindError as error:
        return {"error": error.code}
    except Exception:  # any other refusal means "not a well-formed step"
        return None


LEDGER_RESTRICTIONS = frozenset(
    {
        OPERATION_INPUT_CHECK_PRIVATE.name,
        APPROVAL_CONSUMED_ON_USE.name,
    }
)
"""The declared restrictions (conformance/harness/restrictions.py) this generator honours."""


def _expressible(step: Step, restricted: frozenset[str], used: set[str]) -> bool:
    """Whether a driver declaring ``restricted`` can run ``step`` (every step of a macro),
    given the approvals an earlier ``prepare_compensation`` already consumed (``used``)."""
    for inner in step.get("macro", [step]):
        call_name = inner["call"]
        refused = (
            call_name == "verify_input" and OPERATION_INPUT_CHECK_PRIVATE.name in restricted
        ) or (
            call_name == "prepare_compensation"
            and APPROVAL_CONSUMED_ON_USE.name in restricted
            and inner["args"]["approval"] in used
        )
        if refused:
            return False
    return True


def _track_approvals(step: Step, outcome: Mapping[str, Any], used: set[str]) -> None:
    """A prepare consumes its approval whatever its outcome; an approval that succeeds binds
    a fresh one to its name."""
    args = step["args"]
    if step["call"] == "prepare_compensation":
        used.add(str(args["approval"]))
    elif step["call"] in ("approve_compensation", "approve_plan") and "result" in outcome:
        used.discard(str(args.get("as", "")))


def ledger_traces(restricted: frozenset[str] = frozenset()) -> st.SearchStrategy[dict[str, Any]]:
    """Closed-loop ledger traces; with ``restricted`` (declared restriction names), only steps
    a driver declaring them can express are drawn."""

    @st.composite
    def draw_trace(draw: st.DrawFn) -> dict[str, Any]:
        run = TraceRun()
        run.setup(SETUP)
        outcomes = [_run(run, step) for step in PREFIX]
        chosen: list[Step] = []
        used: set[str] = set()
        for _ in range(draw(st.integers(12, 40))):
            index = draw(st.integers(0, len(GROUPS) * _SLOTS - 1))
            options = [
                step
                for step in GROUPS[index // _SLOTS](run)
                if _expressible(step, restricted, used)
            ] or _harmless(run)
            picked = options[(index % _SLOTS) % len(options)]
            for step in picked.get("macro", [picked]):
                outcome = _run(run, step)
                if outcome is None:
                    return _finished(run, chosen, outcomes)
                chosen.append(step)
                outcomes.append(outcome)
                _track_approvals(step, outcome, used)
                if "error" in outcome and step["call"] not in _MAY_REPEAT:
                    break  # an exchange ends where a step is refused, as a host's would
        return _finished(run, chosen, outcomes)

    return draw_trace()


def _finished(run: TraceRun, chosen: list[Step], outcomes: list[Any]) -> dict[str, Any]:
    run.finish()
    trace = {"setup": SETUP, "steps": [*PREFIX, *chosen]}
    ANSWERS.remember(trace, {"steps": outcomes, "checkpoints": run.checkpoints})
    return trace


def _under(area: Area, declared: frozenset[str]) -> Area:
    restricted = declared & LEDGER_RESTRICTIONS
    if not restricted:
        return area
    return attrs.evolve(
        area, traces=ledger_traces(restricted), variant="+".join(sorted(restricted))
    )


LEDGER_AREA = Area(
    name="ledger",
    op="ledger.trace",
    capability="ledger",
    rule="HL-1",
    description="random host-engine ledger traces (operations, compensation intents, "
    "approvals, authenticated frames, applies) agree with the reference",
    traces=ledger_traces(),
    answers=ANSWERS,
    variants=_under,
)
