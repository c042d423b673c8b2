"""Exploration of Rescind's compensation reconciliation extension (``session.compensation-
reconcile``, docs/spec/compensation-reconcile.md, profile ``splash-v5+compensation-reconcile``):
Hypothesis writes scenarios of compensations with every inverse answer (lost included),
restarts, reconciliations with every lookup answer and with drifted requests, the same on
the wire, and resends, under the extension's profile or plain ``splash-v5``.

Generation is closed-loop: the strategy runs each drawn step on a live reference run and keeps
only steps whose scripted answers the worker uses (a scenario scripts exactly what is used:
a refused compensation keeps no inverse answer, so it becomes a resend; a refused
reconciliation keeps no lookup answer). The run's outcomes are kept as the scenario's
expectation (``Answers``); a test holds them equal to a fresh run. The check runs only for a
driver that declares the extension's profile.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hypothesis import strategies as st

from rescind.conformance.explore.engine import Answers, Area, keep_scenario_steps, scenario_steps
from rescind.conformance.interpreters.compensation_reconcile import (
    LOST,
    ReconcileRun,
    ReconcileScenarioError,
)
from rescind.reference.messages import OperationStatus
from rescind.reference.payload import ToolPayload

PROFILE = "splash-v5+compensation-reconcile"
UNDONE = OperationStatus.succeeded(ToolPayload.text("undone")).to_json()
ANSWERS_TEXT = (
    UNDONE,
    OperationStatus.running().to_json(),
    OperationStatus.failed("inverse failed").to_json(),
    OperationStatus.cancelled().to_json(),
)
DRIFTS: tuple[dict[str, str], ...] = (
    {},
    {"compensation_key": "cmp-other"},
    {"payload": "other"},
    {"operation_key": "op-2"},
)
Step = dict[str, Any]


def _options() -> list[Step]:
    options: list[Step] = [{"step": "restart"}, {"step": "resend"}]
    options += [{"step": "compensate", "inverse": answer} for answer in (*ANSWERS_TEXT, LOST)]
    for kind in ("reconcile", "reconcile_frame"):
        for lookup in (None, *ANSWERS_TEXT):
            for drift in DRIFTS:
                step: Step = {"step": kind, "lookup": lookup}
                if drift:
                    step["request"] = dict(drift)
                options.append(step)
    return options


# Whole moves as one drawn option, so that deep states are reached in few draws: an inverse
# whose answer is lost and the restart after it (the case the extension exists for), and a
# plain reconciliation that the worker can answer from its lookup.
MACROS: tuple[tuple[Step, ...], ...] = (
    ({"step": "compensate", "inverse": LOST}, {"step": "restart"}),
    ({"step": "compensate", "inverse": LOST}, {"step": "restart"}),
    ({"step": "reconcile", "lookup": UNDONE},),
    ({"step": "reconcile_frame", "lookup": UNDONE},),
)
OPTIONS: list[tuple[Step, ...]] = [(step,) for step in _options()] + list(MACROS) * 4
ANSWERS = Answers()


def _fallback(step: Mapping[str, Any]) -> Step | None:
    """The same step without a scripted answer the worker did not use."""
    if step["step"] == "compensate":
        return {"step": "resend"}
    if step.get("lookup") is not None:
        return {**step, "lookup": None}
    return None


def _replay(scenario: Mapping[str, Any], steps: Sequence[Step]) -> tuple[ReconcileRun, list[Any]]:
    run = ReconcileRun({**scenario, "steps": []})
    outcomes = [{**run.step(step), "state": run.state()} for step in steps]
    return run, outcomes


@st.composite
def reconcile_scenarios(draw: st.DrawFn) -> dict[str, Any]:
    profile = draw(st.sampled_from((PROFILE, PROFILE, PROFILE, "splash-v5")))
    declared = draw(st.sampled_from((True, True, True, False)))
    head: dict[str, Any] = {"profile": profile, "declared": declared}
    run = ReconcileRun({**head, "steps": []})
    steps: list[Step] = []
    outcomes: list[Any] = []
    for _ in range(draw(st.integers(1, 10))):
        for drawn in OPTIONS[draw(st.integers(0, len(OPTIONS) - 1))]:
            candidate: Step | None = drawn
            while candidate is not None:
                try:
                    outcome = run.step(candidate)
                except ReconcileScenarioError:
                    # The live run may have moved on the way: rebuild it from the kept steps.
                    run, outcomes = _replay(head, steps)
                    candidate = _fallback(candidate)
                    continue
                steps.append(candidate)
                outcomes.append({**outcome, "state": run.state()})
                break
    trace = {"scenario": {**head, "steps": steps}}
    ANSWERS.remember(trace, {"steps": outcomes})
    return trace


RECONCILE_AREA = Area(
    name="compensation-reconcile",
    op="session.compensation-reconcile",
    capability="session",
    rule="CR-7",
    description="random compensation reconciliation scenarios (lost inverse answers, restarts, "
    "lookups, drifted requests, frames, resends; with and without the profile) agree with the "
    "reference (Rescind's extension)",
    traces=reconcile_scenarios(),
    rebuild=keep_scenario_steps,
    steps_of=scenario_steps,
    answers=ANSWERS,
    profile=PROFILE,
)
