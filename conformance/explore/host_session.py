"""Exploration of host sessions (``session.host``, docs/spec/recovery.md "Scenarios"): host
ledger drivers over one authenticated store (start, fenced recovery with watermarks,
persist), real worker sessions behind host sessions (restarts, scripted adapter outcomes,
replies from the journal), dispatch, reconciliation and compensation exchanges and their
applies, intents and approvals made outside the driver, tampered and hand-made replies, and
store backups put back with or without their rollback floor.

Generation is closed-loop, as for worker sessions: the strategy runs the reference host
scenario while it draws, so each step only names drivers, keys, frames, replies, targets and
backups that exist at that point, and a delivered frame scripts the adapter outcome only when
the worker used it. That run's outcomes are the reference's answer to the finished scenario
and are kept as its expectation (``Answers``); a test holds them equal to a fresh
``session.host`` run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from hypothesis import strategies as st

from rescind.conformance.explore.engine import Answers, Area, keep_scenario_steps, scenario_steps
from rescind.conformance.fixtures.recovery_cases import (
    CANCELLED,
    FAILED,
    INDETERMINATE,
    INPUT,
    PLAN,
    PUBLISHED,
    RUNNING,
    TENANT,
    TOOL,
    UNDO,
    UNDO_DRIFT,
    UNDONE,
)
from rescind.conformance.fixtures.recovery_cases import SETUP as RECOVERY_SETUP
from rescind.conformance.interpreters.host_scenario import HostScenarioRun, run_host_scenario
from rescind.conformance.interpreters.worker_scenario import error_outcome, outcome_arg
from rescind.reference.errors import RescindError
from rescind.reference.frames import AuthenticatedFrame
from rescind.reference.host.approvals import Approval
from rescind.reference.host.host_frames import PreparedFrame
from rescind.reference.messages import (
    OperationCompensationRequest,
    OperationDispatchRequest,
)
from rescind.reference.worker_message import message_json

Step = dict[str, Any]

DRIVERS = {f"h{n}": {"engine": f"e{n}", "plan": f"p{n}", "ledger": f"l{n}"} for n in (1, 2, 3)}
HOST_SESSIONS = ("s1", "s2", "s3")
# Exchanges open the worker behind a session nothing was sealed on yet when the worker's
# current one has frames it never opened (its next sequence number is gone).
SPARE_SESSIONS = ("s4", "s5", "s6")


def _session(number: int, role: str) -> dict[str, str]:
    return {"session_id": f"host-{number}", "key": f"{0x20 + number:02x}" * 32, "role": role}


_SESSIONS: dict[str, dict[str, str]] = RECOVERY_SETUP["sessions"]
SETUP = {
    **RECOVERY_SETUP,
    "sessions": {
        **_SESSIONS,
        **{f"s{n}": _session(n, "host") for n in (4, 5, 6)},
        **{f"s{n}w": _session(n, "worker") for n in (4, 5, 6)},
    },
}
WORKERS = ("w1",)
KEYS = {"op1": "n1", "op2": "n2"}
INPUT_DRIFT = {"format": "json", "value": {"version": "1.2.4"}}
OUTCOMES = (PUBLISHED, RUNNING, FAILED, CANCELLED, INDETERMINATE, UNDONE, {"error": "failed"})
STATUSES: tuple[dict[str, Any], ...] = (
    {"state": "succeeded", "payload": {"format": "json", "value": {"url": "r/1.2.3"}}},
    {"state": "running"},
    {"state": "failed", "message": "boom"},
)
# Policies by name: the grant each is made from (a tool, budget or output drift each).
POLICIES = {"pol": "publish", "pol-2c": "publish-two-comp", "pol-v2": "publish-v2"}
WORKER_GRANTS = ("publish", "publish-two-comp", "publish-v2")
_APPLY = {
    OperationDispatchRequest: "driver_apply_dispatch",
    OperationCompensationRequest: "driver_apply_compensation",
}


def _h(call: str, **args: Any) -> Step:
    if "as_" in args:
        args["as"] = args.pop("as_")
    if "from_" in args:
        args["from"] = args.pop("from_")
    return {"call": call, "args": args}


PREFIX: tuple[Step, ...] = (
    _h("driver_start", driver="h1", steps=PLAN, **DRIVERS["h1"]),
    _h("worker_start", worker="w1", session="s1", grants=["publish"], scope=TENANT),
)


class _State:
    """The live reference run and what the generator knows about its names: which driver
    and session prepared each frame (a frame's own record does not say)."""

    def __init__(self) -> None:
        self.run = HostScenarioRun()
        self.run.setup(SETUP)
        self.sealed: dict[str, tuple[str, str]] = {}
        self.saved: list[str] = []
        self.worker_sessions: dict[str, str] = {}
        self.used: set[str] = set()
        self.unopened: dict[str, set[str]] = {}
        """Per host session, the frames sealed on it that its worker has not opened."""

    def bound(self, name: str, kind: type[Any] = object) -> bool:
        return name in self.run.names and isinstance(self.run.names[name], kind)

    @property
    def drivers(self) -> list[str]:
        return list(self.run.drivers)

    @property
    def keys(self) -> list[str]:
        return [key for key in KEYS if self.bound(key, str)]

    @property
    def frames(self) -> list[str]:
        return [rid for rid in self.sealed if self.bound(rid, PreparedFrame)]

    @property
    def targets(self) -> list[str]:
        return [f"t-{k}-{p}" for k in KEYS for p in POLICIES if self.bound(f"t-{k}-{p}")]

    @property
    def open_workers(self) -> list[str]:
        return [name for name, w in self.run.workers.items() if w.session is not None]


Group = Callable[[_State, str], list[Step]]


def _reads(state: _State, _: str) -> list[Step]:
    steps = [_h("stored"), _h("verifier_calls", verifier="allow")]
    steps += [_h("driver_state", driver=name) for name in state.drivers]
    for worker in state.run.workers:
        steps += [_h("worker_calls", worker=worker), _h("worker_journal", worker=worker)]
    return steps


def _records(state: _State, _: str) -> list[Step]:
    steps: list[Step] = []
    for driver in state.drivers:
        for key, nonce in KEYS.items():
            for value in (INPUT, INPUT_DRIFT):
                steps.append(
                    _h(
                        "driver_record_operation",
                        driver=driver,
                        step_id="publish",
                        tool=TOOL,
                        input=value,
                        nonce=nonce,
                        as_=key,
                    )
                )
            # Recorded behind the driver's back: only a persist makes it sendable.
            steps.append(
                _h(
                    "record_derived_operation",
                    step_id="publish",
                    tool=TOOL,
                    input=INPUT,
                    nonce=nonce,
                    as_=key,
                    **DRIVERS[driver],
                )
            )
        steps.append(_h("driver_persist", driver=driver))
    return steps


def _sends(state: _State, rid: str) -> list[Step]:
    steps: list[Step] = []
    for driver in state.drivers:
        for key in state.keys:
            for session in HOST_SESSIONS:
                steps.append(
                    _h(
                        "driver_dispatch",
                        driver=driver,
                        operation_key=f"${key}",
                        payload=INPUT,
                        request_id=f"d{rid}",
                        session=session,
                        as_=f"d{rid}",
                    )
                )
                steps.append(
                    _h(
                        "driver_reconcile",
                        driver=driver,
                        operation_key=f"${key}",
                        input=INPUT,
                        request_id=f"r{rid}",
                        session=session,
                        as_=f"r{rid}",
                    )
                )
    return steps


def _replies(state: _State, _: str) -> list[Step]:
    steps: list[Step] = []
    for frame in state.frames:
        for worker in state.open_workers:
            steps += [
                _h("deliver", worker=worker, frame=frame, adapter=[outcome], as_=f"{frame}-reply")
                for outcome in OUTCOMES
            ]
        session = state.sealed[frame][1]
        steps += [
            _h("worker_reply", session=f"{session}w", to=frame, status=s, as_=f"{frame}-reply")
            for s in STATUSES
        ]
        if state.bound(f"{frame}-reply", AuthenticatedFrame):
            steps.append(_h("tamper", frame=f"{frame}-reply", how="flip_tag", as_=f"{frame}-x"))
    return steps


def _apply_call(state: _State, frame: str) -> str:
    prepared: PreparedFrame[Any] = state.run.names[frame]  # type: ignore[assignment]
    return _APPLY.get(type(prepared.request), "driver_apply_reconciliation")


def _applies(state: _State, _: str) -> list[Step]:
    steps: list[Step] = []
    for frame in state.frames:
        sealer, session = state.sealed[frame]
        call = _apply_call(state, frame)
        for reply in (f"{frame}-reply", f"{frame}-x"):
            if not state.bound(reply, AuthenticatedFrame):
                continue
            for driver in dict.fromkeys((sealer, *state.drivers)):
                steps.append(_h(call, driver=driver, request=frame, session=session, frame=reply))
            steps.append(_h(call, driver=sealer, request=frame, session="s1", frame=reply))
    return steps


def _compensations(state: _State, rid: str) -> list[Step]:
    steps = [
        _h("policy", tenant_scope=TENANT, grant=grant, as_=name) for name, grant in POLICIES.items()
    ]
    for key in state.keys:
        for policy, grant in POLICIES.items():
            if state.bound(policy):
                steps.append(
                    _h(
                        "target",
                        operation_key=f"${key}",
                        policy=policy,
                        grant=grant,
                        grant_verifier="allow",
                        action_verifier="allow",
                        as_=f"t-{key}-{policy}",
                    )
                )
    for target in state.targets:
        for driver in state.drivers:
            steps.append(
                _h(
                    "driver_record_compensation",
                    driver=driver,
                    target=target,
                    input=UNDO,
                    nonce="c1",
                    as_=f"cmp-{target}",
                )
            )
            for payload in (UNDO, UNDO_DRIFT):
                for session in HOST_SESSIONS:
                    steps.append(
                        _h(
                            "driver_compensate",
                            driver=driver,
                            target=target,
                            payload=payload,
                            request_id=f"c{rid}",
                            session=session,
                            as_=f"c{rid}",
                        )
                    )
    return steps


def _outside(state: _State, rid: str) -> list[Step]:
    """Intents, approvals and seals through the engine rather than the driver."""
    steps: list[Step] = []
    for driver in state.drivers:
        names = DRIVERS[driver]
        for target in state.targets:
            steps.append(
                _h(
                    "record_derived_compensation_with_action_verifier",
                    target=target,
                    input=UNDO,
                    nonce="c1",
                    as_=f"cmp-{target}",
                    **names,
                )
            )
            steps.append(
                _h(
                    "approve_compensation",
                    target=target,
                    input=UNDO,
                    session="s1",
                    as_=f"a-{target}",
                    **names,
                )
            )
            if state.bound(f"a-{target}", Approval):
                steps.append(
                    _h(
                        "prepare_compensation",
                        target=target,
                        approval=f"a-{target}",
                        request_id=f"c{rid}",
                        payload=UNDO,
                        session="s1",
                        as_=f"c{rid}",
                        **names,
                    )
                )
        for frame in state.frames:
            if isinstance(state.run.names[frame], PreparedFrame) and _apply_call(
                state, frame
            ).endswith("compensation"):
                steps.append(
                    _h(
                        "apply_verified_compensation",
                        request={"of": frame},
                        result={"reply_to": frame, "status": STATUSES[0]},
                        **names,
                    )
                )
    return steps


def _lifecycle(state: _State, _: str) -> list[Step]:
    steps = [
        _h("driver_start", driver=d, steps=PLAN, **DRIVERS[d])
        for d in DRIVERS
        if d not in state.run.drivers
    ]
    steps += [
        _h("driver_recover", driver=d, steps=PLAN, watermark=w, **DRIVERS[d])
        for d in DRIVERS
        for w in (0, 2, 5)
    ]
    steps += [
        _h("worker_start", worker="w1", session=s, grants=[g], scope=TENANT)
        for s in HOST_SESSIONS
        for g in WORKER_GRANTS
    ]
    steps += [_h("save_store", as_=f"v{len(state.saved) % 2}"), _h("reserve_fence")]
    steps += [
        _h("restore_store", from_=saved, with_floor=floor)
        for saved in state.saved
        for floor in (False, True)
    ]
    return steps


def _exchanges(state: _State, rid: str) -> list[Step]:
    """Whole exchanges as one drawn step (macros), so succeeded operations, intents and
    compensations are reached in few draws rather than by chance."""
    steps: list[Step] = []
    driver = state.drivers[-1] if state.drivers else "h1"
    session = state.worker_sessions.get("w1", "s1")
    restart: list[Step] = []
    if state.unopened.get(session):
        spare = [name for name in SPARE_SESSIONS if name not in state.used]
        if spare:
            session = spare[0]
            restart = [
                _h("worker_start", worker="w1", session=session, grants=["publish"], scope=TENANT)
            ]
    for key, nonce in KEYS.items():
        record = _h(
            "driver_record_operation",
            driver=driver,
            step_id="publish",
            tool=TOOL,
            input=INPUT,
            nonce=nonce,
            as_=key,
        )
        target = f"t-{key}-pol"
        undo = [
            _h("policy", tenant_scope=TENANT, grant="publish", as_="pol"),
            _h(
                "target",
                operation_key=f"${key}",
                policy="pol",
                grant="publish",
                grant_verifier="allow",
                action_verifier="allow",
                as_=target,
            ),
            _h(
                "driver_record_compensation",
                driver=driver,
                target=target,
                input=UNDO,
                nonce="c1",
                as_=f"cmp-{target}",
            ),
        ]
        for outcome in (PUBLISHED, RUNNING, INDETERMINATE):
            dispatch = _round_trip(
                "driver_dispatch",
                driver,
                session,
                f"d{rid}",
                outcome,
                operation_key=f"${key}",
                payload=INPUT,
            )
            steps.append({"macro": [*restart, record, *dispatch]})
        for outcome in (UNDONE, FAILED, INDETERMINATE):
            compensation = _round_trip(
                "driver_compensate",
                driver,
                session,
                f"c{rid}",
                outcome,
                target=target,
                payload=UNDO,
            )
            if key in state.keys:
                steps.append({"macro": [*restart, *undo, *compensation]})
            # The whole saga of one step: done, then undone.
            done = _round_trip(
                "driver_dispatch",
                driver,
                session,
                f"d{rid}",
                PUBLISHED,
                operation_key=f"${key}",
                payload=INPUT,
            )
            steps.append({"macro": [*restart, record, *done, *undo, *compensation]})
    return steps


def _round_trip(
    call: str, driver: str, session: str, rid: str, outcome: Mapping[str, Any], **args: Any
) -> list[Step]:
    apply = "driver_apply_dispatch" if call == "driver_dispatch" else "driver_apply_compensation"
    return [
        _h(call, driver=driver, request_id=rid, session=session, as_=rid, **args),
        _h("deliver", worker="w1", frame=rid, adapter=[outcome], as_=f"{rid}-reply"),
        _h(apply, driver=driver, request=rid, session=session, frame=f"{rid}-reply"),
    ]


# Simplest kinds first: shrinking moves a drawn integer towards 0, that is, towards reads.
GROUPS: tuple[Group, ...] = (
    _reads,
    _records,
    _sends,
    _replies,
    _applies,
    _compensations,
    _outside,
    _lifecycle,
    _exchanges,
)
_SLOTS = 64
ANSWERS = Answers()
# Refusals an exchange goes on after: the key or intent recorded earlier is there to use.
_MAY_REPEAT = frozenset({"duplicate_operation_key", "compensation_already_recorded"})


def _deliver(state: _State, args: Mapping[str, Any]) -> tuple[Any, dict[str, Any]]:
    """``deliver`` as the host scenario runs it, except that the adapter outcome is kept in
    the step only when the worker called its adapter (a scenario scripts exactly what is
    used). Gives the result and the step's arguments as they belong in the scenario."""
    run = state.run
    worker = run.workers.get(str(args["worker"]))
    if worker is None or worker.session is None:
        raise TypeError("no open worker session")
    frame = run._frame(args["frame"])
    worker.adapter.clear()
    worker.adapter.push(*(outcome_arg(spec) for spec in args.get("adapter", [])))
    kept = dict(args)
    try:
        reply = worker.session.handle(frame, worker.bridge)
    except RescindError as error:
        refusal: RescindError | None = error
    else:
        refusal = None
    finally:
        if worker.adapter.pending_outcomes:
            kept.pop("adapter")
        worker.adapter.clear()
    if worker.adapter.underflow:
        raise LookupError("the adapter was called more often than scripted")
    if refusal is not None:
        raise _Outcome(error_outcome(refusal), kept)
    run.bind(args, reply)
    return message_json(reply.message), kept


class _Outcome(Exception):
    """A refused delivery, with the step's arguments as kept."""

    def __init__(self, outcome: dict[str, Any], kept: dict[str, Any]) -> None:
        super().__init__(outcome["error"])
        self.outcome = outcome
        self.kept = kept


def _run(state: _State, step: Step) -> tuple[Step, dict[str, Any]] | None:
    """Run one step on the live reference as ``run_host_scenario`` does and give the step as
    it belongs in the scenario with its outcome; ``None`` when the interpreter refuses it as
    malformed (the scenario ends before it; the live run may have changed on the way, so the
    scenario's answer is then computed afresh)."""
    run = state.run
    call = str(step["call"])
    args: Mapping[str, Any] = step["args"]
    kept = step
    try:
        if call == "deliver":
            result, kept_args = _deliver(state, args)
            kept = {"call": call, "args": kept_args}
        else:
            result = run.step(call, args)
        outcome: dict[str, Any] = {"result": result}
    except _Outcome as refused:
        kept = {"call": call, "args": refused.kept}
        outcome = refused.outcome
    except RescindError as error:
        outcome = error_outcome(error)
    except Exception:  # any other refusal means "not a well-formed step"
        return None
    run._sync()
    _note(state, kept, outcome)
    return kept, outcome


def _note(state: _State, step: Step, outcome: Mapping[str, Any]) -> None:
    call, args = step["call"], step["args"]
    if "session" in args:
        state.used.add(str(args["session"]))
    if call == "deliver":
        for frames in state.unopened.values():
            frames.discard(str(args["frame"]))
    if "result" not in outcome:
        return
    if call in ("driver_dispatch", "driver_reconcile", "driver_compensate", "prepare_compensation"):
        state.unopened.setdefault(str(args["session"]), set()).add(str(args["as"]))
    if call in ("driver_dispatch", "driver_reconcile", "driver_compensate"):
        state.sealed[str(args["as"])] = (str(args["driver"]), str(args["session"]))
    elif call == "prepare_compensation":
        driver = next(d for d, names in DRIVERS.items() if names["engine"] == args["engine"])
        state.sealed[str(args["as"])] = (driver, str(args["session"]))
    elif call == "save_store" and args["as"] not in state.saved:
        state.saved.append(str(args["as"]))
    elif call == "worker_start":
        state.worker_sessions[str(args["worker"])] = str(args["session"])
        state.unopened[str(args["session"])] = set()


@st.composite
def host_scenarios(draw: st.DrawFn) -> dict[str, Any]:
    state = _State()
    chosen: list[Step] = []
    outcomes: list[dict[str, Any]] = []
    intact = True
    for step in PREFIX:
        ran = _run(state, step)
        assert ran is not None, "the fixed prefix is well formed"
        chosen.append(ran[0])
        outcomes.append(ran[1])
    for serial in range(draw(st.integers(8, 30))):
        index = draw(st.integers(0, len(GROUPS) * _SLOTS - 1))
        options = GROUPS[index // _SLOTS](state, str(serial)) or _reads(state, "")
        picked = options[(index % _SLOTS) % len(options)]
        ended = False
        for step in picked.get("macro", [picked]):
            ran = _run(state, step)
            if ran is None:
                ended, intact = True, False
                break
            chosen.append(ran[0])
            outcomes.append(ran[1])
            if "error" in ran[1] and ran[1]["error"] not in _MAY_REPEAT:
                break  # an exchange ends where a step is refused, as a host's would
        if ended:
            break
    spec = {"setup": SETUP, "steps": chosen}
    scenario = {"scenario": spec}
    # A malformed step may have changed the live run before it was refused.
    answer = {"steps": outcomes, "final": state.run.final()} if intact else run_host_scenario(spec)
    ANSWERS.remember(scenario, answer)
    return scenario


HOST_SESSION_AREA = Area(
    name="session-host",
    op="session.host",
    capability="session",
    rule="RC-17",
    description="random host-session scenarios (host ledger drivers over one authenticated "
    "store, fenced recoveries, store rollbacks, real worker sessions, exchanges, intents and "
    "approvals) agree with the reference",
    traces=host_scenarios(),
    rebuild=keep_scenario_steps,
    steps_of=scenario_steps,
    answers=ANSWERS,
)
