"""Exploration of worker sessions (``session.worker``, docs/spec/session.md "Scenarios"):
dispatch, reconciliation and compensation frames with scripted adapter outcomes, store
faults on persist, tampered frames, unexpected messages, restarts, lease takeovers and
writes under superseded leases.

A scenario must script exactly the adapter calls and store faults its steps use (anything
else is a malformed scenario, not an outcome). Generation is closed-loop: the strategy runs
the reference session while it draws, scripts one adapter outcome and the drawn fault, and
keeps each only when the reference used it. That run's outcomes are the reference's answer
to the finished scenario and are kept as its expectation (``Answers``); a test holds them
equal to a fresh ``session.worker`` run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from rescind.conformance.explore.engine import Answers, Area, keep_scenario_steps, scenario_steps
from rescind.conformance.fixtures.session_cases import (
    CANCEL,
    CLOSE,
    GRANT_ECHO_TEN_CALLS,
    INVOKE,
    SCOPE,
    SESSION,
    adapter_error,
    d,
    fault,
    r,
    status,
    text_ok,
)
from rescind.conformance.fixtures.worker import (
    CANCELLED,
    GRANT_ECHO,
    RUNNING,
    compensate,
    failed,
)
from rescind.conformance.interpreters.doubles import FAULT_KINDS
from rescind.conformance.interpreters.worker_scenario import (
    STEP_KINDS,
    ScenarioRun,
    error_outcome,
    outcome_arg,
)
from rescind.reference.errors import RescindError
from rescind.reference.grants import CapabilityGrant
from rescind.reference.worker.session_errors import ADAPTER_ERRORS

Step = dict[str, Any]

GRANTS = (GRANT_ECHO, GRANT_ECHO_TEN_CALLS)
KEYS = ("op-1", "op-2")
VALUES = ("release", "other")
OUTCOMES: tuple[dict[str, str], ...] = (
    text_ok("done"),
    status(RUNNING),
    status(failed("boom")),
    status(CANCELLED),
    text_ok("x" * 17),  # past the probe grant's 16 output bytes
    # the same bound in multi-byte text: 16 bytes in 8 and 4 characters are within it, one
    # more ASCII byte is past it with far fewer than 16 characters (max_output_bytes counts
    # UTF-8 bytes: ToolPayload::validate_for)
    text_ok("\u00e9" * 8),
    text_ok("\u00e9" * 8 + "x"),
    text_ok("\U0001f600" * 4),
    text_ok("\U0001f600" * 4 + "x"),
    *(adapter_error(kind) for kind in sorted(ADAPTER_ERRORS)),
)


def _setup(grant: str) -> dict[str, Any]:
    return {"session_id": SESSION, "scope": SCOPE, "grants": [grant]}


def _c(fingerprint: str, request_id: str, value: str, key: str, cmp_key: str) -> str:
    body = compensate(
        value,
        tool="text.echo",
        key=key,
        cmp_key=cmp_key,
        tenant=SCOPE,
        grant_fp=fingerprint,
        request_id=request_id,
        session=SESSION,
        fmt="text",
    )
    return f'{{"type":"compensate_operation","request":{body}}}'


def _sends(messages: list[str]) -> list[Step]:
    return [{"send": m, "adapter": [o]} for m in messages for o in OUTCOMES]


Group = Callable[[ScenarioRun, str], list[Step]]


def _groups(grant: str) -> tuple[Group, ...]:
    """Option lists by kind, simplest first; ``rid`` is a fresh request id (the last option of
    each frame kind reuses ``q0`` instead, so duplicate requests are reached too)."""
    fingerprint = _FINGERPRINTS[grant]

    def dispatches(_: ScenarioRun, rid: str) -> list[Step]:
        messages = [d(rid, value, key) for key in KEYS for value in VALUES]
        return _sends([*messages, d("q0")])

    def reconciles(_: ScenarioRun, rid: str) -> list[Step]:
        return _sends([r(rid, key) for key in (*KEYS, "op-unknown")] + [r("q0")])

    def compensations(_: ScenarioRun, rid: str) -> list[Step]:
        messages = [
            _c(fingerprint, rid, value, key, f"cmp-{key}")
            for key in KEYS
            for value in ("undo", "undo-2")
        ]
        messages += [_c(fingerprint, rid, "undo", "op-1", "cmp-other")]
        return _sends([*messages, _c(fingerprint, "q0", "undo", "op-1", "cmp-op-1")])

    def faulted(_: ScenarioRun, rid: str) -> list[Step]:
        messages = (d(rid), r(rid), _c(fingerprint, rid, "undo", "op-1", "cmp-op-1"))
        return [
            {"send": m, "adapter": [OUTCOMES[0]], "faults": [fault(kind)]}
            for m in messages
            for kind in FAULT_KINDS
        ]

    def others(_: ScenarioRun, rid: str) -> list[Step]:
        return [
            *({"send": m} for m in (CLOSE, CANCEL, INVOKE)),
            {"send": d(rid), "tamper": "flip_tag", "adapter": [OUTCOMES[0]]},
            {"send": _c(fingerprint, rid, "undo", "op-1", "cmp-op-1"), "tamper": "flip_tag"},
        ]

    def lifecycle(run: ScenarioRun, _: str) -> list[Step]:
        steps: list[Step] = [{"restart": {}}, {"takeover": {}}, {"open": {"replay": True}}]
        steps += [{"store_persist": {"lease": n}} for n in range(1, len(run.tokens) + 1)]
        return steps

    return (
        lambda _, __: [{"stored": {}}],
        dispatches,
        reconciles,
        compensations,
        faulted,
        others,
        lifecycle,
    )


_FINGERPRINTS = {
    grant: CapabilityGrant.from_json(grant).compensation_fingerprint() for grant in GRANTS
}
_SLOTS = 64
ANSWERS = Answers()


def _run(run: ScenarioRun, step: Step) -> tuple[Step, dict[str, Any]] | None:
    """Run one step on the live reference session, as ``ScenarioRun.step`` does, and give
    the step as it belongs in the scenario (scripts the reference did not use removed) with
    its outcome; ``None`` when it cannot be scripted (the adapter was called more often than
    scripted, or nothing is open to send to): the scenario ends before it."""
    if "send" in step and run.session is None:
        return None
    kind = next(kind for kind in STEP_KINDS if kind in step)
    run.adapter.clear()
    run.adapter.underflow = False
    run.adapter.push(*(outcome_arg(spec) for spec in step.get("adapter", [])))
    for spec in step.get("faults", []):
        run.faulty.arm(int(spec["persist"]), str(spec["kind"]))
    try:
        if kind == "send":
            outcome: dict[str, Any] = {"result": run.do_send(step)}
        else:
            outcome = {"result": getattr(run, f"do_{kind}")(step[kind])}
    except RescindError as error:
        outcome = error_outcome(error)
    except Exception:  # any other refusal means "not a well-formed step"
        return None
    if run.adapter.underflow:
        return None
    kept = dict(step)
    if run.adapter.pending_outcomes:
        del kept["adapter"]
    if run.faulty.armed:
        run.faulty.disarm()
        del kept["faults"]
    outcome["after"] = run.state()
    return kept, outcome


@st.composite
def worker_scenarios(draw: st.DrawFn) -> dict[str, Any]:
    grant = GRANTS[draw(st.integers(0, len(GRANTS) - 1))]
    groups = _groups(grant)
    setup = _setup(grant)
    run = ScenarioRun(setup)
    chosen: list[Step] = []
    outcomes: list[dict[str, Any]] = []
    for serial in range(draw(st.integers(8, 30))):
        index = draw(st.integers(0, len(groups) * _SLOTS - 1))
        group = groups[index // _SLOTS] if run.session is not None else groups[-1]
        options = group(run, f"q{serial}")
        ran = _run(run, options[(index % _SLOTS) % len(options)])
        if ran is None:
            break
        chosen.append(ran[0])
        outcomes.append(ran[1])
    scenario = {"scenario": {"setup": setup, "steps": chosen}}
    ANSWERS.remember(scenario, {"steps": outcomes, "final": run.final()})
    return scenario


SESSION_WORKER_AREA = Area(
    name="session-worker",
    op="session.worker",
    capability="session",
    rule="WS-8",
    description="random worker-session scenarios (adapter outcomes, store faults, restarts, "
    "takeovers, tampered and unexpected frames) agree with the reference",
    traces=worker_scenarios(),
    rebuild=keep_scenario_steps,
    steps_of=scenario_steps,
    answers=ANSWERS,
)
