"""The compensation-reconcile exploration area: closed-loop scenarios whose recorded answers
equal a fresh run, deep states reached, the reference agrees with itself, a driver that
ignores the profile gate is caught with a short scenario, and only drivers declaring the
extension's profile are explored."""

from __future__ import annotations

import collections
import copy
from collections.abc import Mapping
from typing import Any

from hypothesis import given, settings

from rescind.conformance.driver import handle
from rescind.conformance.explore.areas import AREAS
from rescind.conformance.explore.engine import explore
from rescind.conformance.explore.reconcile import PROFILE
from rescind.conformance.explore.reconcile import RECONCILE_AREA as AREA
from rescind.conformance.harness import InProcessDriver
from rescind.conformance.ops import registry as operations
from rescind.conformance.runner import run_checks
from rescind.conformance.sources.exploration import exploration_checks
from rescind.conformance.sources.options import SourceOptions


def test_the_area_is_explored_by_rescind_check() -> None:
    assert AREA in AREAS and AREA.op in operations.operation_names()


def test_scenarios_are_well_formed_and_answers_match_a_fresh_run() -> None:
    seen: collections.Counter[tuple[str, str]] = collections.Counter()

    @settings(max_examples=150, database=None, deadline=None)
    @given(AREA.traces)
    def check(trace: dict[str, Any]) -> None:
        recorded = AREA.answers.recall(trace) if AREA.answers else None
        fresh = operations.run(AREA.op, copy.deepcopy(trace))  # bad_request would raise
        assert recorded == fresh
        for step, outcome in zip(AREA.steps_of(trace), fresh["steps"], strict=True):
            seen[(step["step"], str(outcome.get("error", "ok")))] += 1

    check()
    for reached in (
        ("compensate", "indeterminate_compensation"),  # an inverse answer lost
        ("reconcile", "ok"),
        ("reconcile_frame", "ok"),
        ("reconcile", "extension_not_enabled"),
        ("resend", "ok"),
    ):
        assert seen[reached] > 0, (reached, sorted(seen))


def test_the_reference_agrees_with_itself() -> None:
    assert explore(InProcessDriver(handle), AREA, 300, seed=5).disagreement is None


def _ignores_the_gate(message: Mapping[str, Any]) -> dict[str, Any]:
    """Reconciles under plain splash-v5 scenarios too, as if the extension were always on."""
    if message.get("op") == AREA.op:
        scenario = message["args"]["scenario"]
        message = {**message, "args": {"scenario": {**scenario, "profile": PROFILE}}}
    return handle(message)


def test_a_driver_ignoring_the_profile_gate_is_caught() -> None:
    result = explore(InProcessDriver(_ignores_the_gate), AREA, 300, seed=5)
    assert result.disagreement is not None
    trace = result.disagreement.trace
    assert trace["scenario"]["profile"] == "splash-v5"
    assert 1 <= len(AREA.steps_of(trace)) <= 4


def test_only_a_driver_declaring_the_profile_is_explored() -> None:
    (check,) = [
        c
        for c in exploration_checks(
            lambda: InProcessDriver(handle), SourceOptions(explore_examples=5)
        )
        if c.id == f"explore.{AREA.name}"
    ]
    assert check.profile == PROFILE

    def plain(message: Mapping[str, Any]) -> dict[str, Any]:
        answer = handle(message)
        if message.get("op") == "hello":
            answer["ok"]["profiles"] = ["splash-v5"]
        return answer

    report = run_checks([check], lambda: InProcessDriver(plain))
    assert report.results[0].outcome.status == "not-applicable"
    assert run_checks([check], lambda: InProcessDriver(handle)).results[0].outcome.status == "pass"
