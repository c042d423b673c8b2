"""Runs of ``rescind check`` on the reference always end with a report: every exploration
area, drawn from many run seeds with small budgets, agrees with the reference and raises
nothing out of its own generator (issue 19: seed 148785706 once ended a run with
``rollback_detected`` raised from the host-session generator's final read)."""

from __future__ import annotations

from typing import Any

import pytest

from rescind.conformance.driver import handle
from rescind.conformance.explore.areas import AREAS
from rescind.conformance.explore.engine import explore
from rescind.conformance.explore.host_session import DRIVERS, HOST_SESSION_AREA, SETUP
from rescind.conformance.explore.sharding import area_seed
from rescind.conformance.fixtures.recovery_cases import PLAN
from rescind.conformance.harness import Driver, InProcessDriver
from rescind.conformance.interpreters.host_scenario import run_host_scenario
from rescind.conformance.runner import run_checks
from rescind.conformance.runner_check import Check, Outcome
from tests.conformance.check_doubles import passing_check

RUN_SEEDS = range(200)
"""Run seeds, as ``rescind check --seed N`` derives each area's seed from them."""


@pytest.mark.parametrize("area", AREAS, ids=[area.name for area in AREAS])
def test_every_area_runs_clean_from_many_seeds(area: Any) -> None:
    driver = InProcessDriver(handle)
    examples = 0
    for run_seed in RUN_SEEDS:
        result = explore(driver, area, 3, area_seed(run_seed, area.name, None))
        assert result.disagreement is None, (run_seed, result.disagreement)
        examples += result.examples
    assert examples >= 3 * len(RUN_SEEDS)


def test_the_seed_that_crashed_the_host_session_generator_runs_clean() -> None:
    # The default budget of that run: its generator reached a final read of a removed record.
    seed = area_seed(148785706, HOST_SESSION_AREA.name, None)
    result = explore(InProcessDriver(handle), HOST_SESSION_AREA, 200, seed)
    assert result.disagreement is None and result.examples == 200


def test_a_removed_record_under_a_newer_floor_is_the_final_answer_not_a_crash() -> None:
    # A backup taken before the first write (the persist) is put back with the current floor: the
    # record is gone while the floor remembers revision 1, which storage refuses (RC-13).
    spec = {
        "setup": SETUP,
        "steps": [
            {"call": "save_store", "args": {"as": "empty"}},
            {"call": "driver_start", "args": {"driver": "h1", "steps": PLAN, **DRIVERS["h1"]}},
            {"call": "driver_persist", "args": {"driver": "h1"}},
            {"call": "restore_store", "args": {"from": "empty", "with_floor": False}},
            {"call": "stored", "args": {}},
        ],
    }
    answer = run_host_scenario(spec)
    assert answer["steps"][4]["error"] == "rollback_detected"
    assert answer["final"]["stored"] == answer["steps"][4]
    assert answer["final"]["stored"]["details"]["revision_floor"] == 1
    # Put back with its own (empty) floor, the removal is invisible to storage: null.
    spec["steps"][3]["args"]["with_floor"] = True
    assert run_host_scenario(spec)["final"]["stored"] is None


def test_an_exception_in_rescind_own_check_code_still_ends_with_a_report() -> None:
    def broken(_: Driver) -> Outcome:
        raise KeyError("generator bug")

    checks = [
        Check(id="a", tier="must", rule="CJ-1", capability="model", source="probe", run=broken),
        passing_check("b", "model"),
    ]
    report = run_checks(checks, lambda: InProcessDriver(handle))
    assert [result.outcome.status for result in report.results] == ["error", "pass"]
    assert "internal error in Rescind: KeyError" in report.results[0].outcome.message
    assert report.exit_code() == 2 and report.harness_failures
