"""The multi-fault ledger area (ledger.trace): its traces break two or more checks of one
host-engine call, the reference agrees with itself, and a driver that checks the input's size
before anything else is caught."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from rescind.conformance.driver import handle
from rescind.conformance.explore.areas import AREAS
from rescind.conformance.explore.engine import explore, reference_answer
from rescind.conformance.explore.ledger_faults import (
    FAMILIES,
    LEDGER_FAULTS_AREA,
    fault_names,
    faulted_trace,
)
from rescind.conformance.harness import InProcessDriver
from rescind.conformance.interpreters.host_trace import run_trace
from rescind.conformance.ops import registry as operations
from rescind.conformance.precedence import BY_NAME

AREA = LEDGER_FAULTS_AREA
_HUGE = {"repeat": "x", "count": 262_145}


def test_the_area_is_explored_by_rescind_check() -> None:
    assert AREA in AREAS and AREA.op in operations.operation_names()


def test_every_family_draws_at_least_two_faults_without_raw_policies() -> None:
    for faults in FAMILIES:
        names = fault_names(faults)
        assert len(names) >= 2, faults.operation
        for name in names:  # drivers/splash answers raw_policy unsupported
            calls = [step["call"] for step in faulted_trace(faults, (name,))["steps"]]
            assert "raw_policy" not in calls, name
        order = [check.name for check in BY_NAME[faults.operation].checks]
        assert list(names) == sorted(names, key=order.index)


@settings(max_examples=100, database=None, deadline=None)
@given(st.sampled_from(FAMILIES), st.data())
def test_two_faults_give_the_earlier_checks_code(faults: Any, data: st.DataObject) -> None:
    """Any two faults of a family (the pairwise vectors show adjacent checks only): each
    alone gets its own check's code, and together the earlier one's, whenever the later
    fault leaves the earlier in place and the trace's earlier steps still succeed (two
    faults may make the stored ledger itself invalid)."""
    names = fault_names(faults)
    pair = data.draw(st.lists(st.sampled_from(names), min_size=2, max_size=2, unique=True))
    first, second = sorted(pair, key=names.index)
    operation = BY_NAME[faults.operation]
    for name in (first, second):
        alone = run_trace(faulted_trace(faults, (name,)))["steps"]
        assert alone[-1].get("error") == operation.check(name).code, name
    together = faulted_trace(faults, (first, second))
    # two faults on one member (e.g. a payload too deep, then too large): the later one wins
    assume(together != faulted_trace(faults, (second,)))
    answer = reference_answer(AREA.op, together)
    assume(answer.get("error") != operations.BadRequest.code)  # the ledger did not load
    both = answer["steps"]
    assume(all("error" not in step for step in both[:-1]))
    assert both[-1].get("error") == operation.check(first).code, (first, second)


def test_the_reference_agrees_with_itself() -> None:
    assert explore(InProcessDriver(handle), AREA, 120, seed=5).disagreement is None


def _size_first(message: Mapping[str, Any]) -> Mapping[str, Any]:
    """A driver that refuses an over-long input before any other check of the call."""
    reply = dict(handle(message))
    if message.get("op") != AREA.op or "ok" not in reply:
        return reply
    last = message["args"]["steps"][-1]["args"]
    if last.get("input") == _HUGE and "error" in reply["ok"]["steps"][-1]:
        steps = [*reply["ok"]["steps"][:-1], {"error": "host_input_too_large"}]
        reply["ok"] = {**reply["ok"], "steps": steps}
    return reply


def test_input_size_checked_first_is_caught() -> None:
    result = explore(InProcessDriver(_size_first), AREA, 300, seed=5)
    assert result.disagreement is not None
    assert result.disagreement.trace["steps"][-1]["args"]["input"] == _HUGE


@settings(max_examples=100, database=None, deadline=None)
@given(AREA.traces)
def test_drawn_traces_are_well_formed_and_their_answers_kept(trace: dict[str, Any]) -> None:
    answer = AREA.expected(trace)
    assert answer.get("error") != operations.BadRequest.code
    assert answer == run_trace(trace)
