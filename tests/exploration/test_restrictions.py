"""Exploration stays inside what a driver can express: under ``authorized-by-authorizer`` the
journal/authorizer generator never draws a raw request+grant step, still compares many
traces, still catches a real disagreement; a trace a driver answers ``unsupported`` anyway is
discarded and counted, never a disagreement."""

from __future__ import annotations

import copy
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

from hypothesis import Phase, given, settings

from rescind.conformance.driver import handle
from rescind.conformance.explore.engine import explore, replay, save_replay
from rescind.conformance.explore.worker import JOURNAL_AREA, authorized_traces
from rescind.conformance.harness import InProcessDriver
from rescind.conformance.ops import registry as operations
from rescind.conformance.sources.exploration import _check
from rescind.conformance.sources.options import SourceOptions
from tests.conformance.partial_drivers import (
    forgets_duplicates,
    restricted,
    unsupported_everywhere,
)

JOURNAL_CALLS_ON_VALUES = (
    "admit",
    "observe",
    "admit_compensation",
    "observe_compensation",
    "observe_reconciliation",
    "validate_reconciliation",
)


def _raw(step: dict[str, Any]) -> bool:
    return {"request", "grant"} <= set(step["args"])


def test_the_restricted_generator_never_draws_a_raw_step_and_stays_well_formed() -> None:
    reached: Counter[str] = Counter()

    @settings(
        max_examples=60, database=None, phases=[Phase.generate], deadline=None, derandomize=True
    )
    @given(authorized_traces)
    def check(trace: dict[str, Any]) -> None:
        assert not any(_raw(step) for step in trace["steps"])
        answer = operations.run("journal.trace", copy.deepcopy(trace))  # bad_request raises
        for step, outcome in zip(trace["steps"], answer["steps"], strict=True):
            if step["call"] in JOURNAL_CALLS_ON_VALUES and "authorized" in step["args"]:
                key = step["call"]
                if key == "admit" and outcome.get("result", {}).get("admission") == "existing":
                    key = "admit existing"
                reached[key if "result" in outcome else f"{key} refused"] += 1

    check()
    # The journal is reached through authorized values, duplicates and compensations included.
    for call in ("admit", "admit existing", "observe", "admit_compensation"):
        assert reached[call] >= 5, reached
    assert reached["observe_compensation"] >= 1, reached


def test_a_restricted_driver_is_explored_and_passes() -> None:
    driver = InProcessDriver(restricted)
    result = explore(driver, JOURNAL_AREA, 150, seed=0)
    assert result.disagreement is None
    assert result.inexpressible == 0 and result.compared == 150
    assert result.steps > 150 * 12
    # Without the restriction's generator the same driver could express few of the traces.
    unrestricted = explore(InProcessDriver(_undeclared), JOURNAL_AREA, 60, seed=0)
    assert unrestricted.disagreement is None
    assert unrestricted.inexpressible > 30 and unrestricted.compared > 0


def _undeclared(message: dict[str, Any]) -> dict[str, Any]:
    """``restricted`` without declaring its restriction: raw steps come, and are answered
    ``unsupported``."""
    reply = restricted(message)
    if message["op"] == "hello":
        reply["ok"].pop("restrictions")
    return reply


def test_a_real_disagreement_is_still_caught_under_the_restriction(tmp_path: Path) -> None:
    driver = InProcessDriver(forgets_duplicates)
    assert driver.hello.restrictions == frozenset({"authorized-by-authorizer"})
    result = explore(driver, JOURNAL_AREA, 150, seed=0)
    assert result.disagreement is not None
    assert "admission" in result.disagreement.message
    minimal = result.disagreement.trace["steps"]
    assert minimal and not any(_raw(step) for step in minimal) and len(minimal) <= 6
    path = save_replay(result.disagreement, tmp_path, "journal-authorizer")
    document = json.loads(path.read_text())
    assert replay(document, InProcessDriver(handle)) is None
    assert replay(document, InProcessDriver(forgets_duplicates)) is not None


def test_a_disagreement_before_an_unsupported_step_is_not_discarded() -> None:
    def wrong_then_unsupported(message: dict[str, Any]) -> dict[str, Any]:
        reply = _undeclared(message)
        steps = reply.get("ok", {}).get("steps", [])
        if message["op"] == "journal.trace" and len(steps) > 1 and "unsupported" in steps[-1]:
            steps[0] = {"result": {"journal": "not what the reference says"}}
        return reply

    result = explore(InProcessDriver(wrong_then_unsupported), JOURNAL_AREA, 60, seed=0)
    assert result.disagreement is not None


def _options(tmp_path: Path, examples: int) -> SourceOptions:
    return SourceOptions(explore_examples=examples, replay_directory=tmp_path)


def test_the_exploration_check_reports_inexpressible_traces(tmp_path: Path) -> None:
    check = _check(JOURNAL_AREA, 40, _options(tmp_path, 40))
    outcome = check.run(InProcessDriver(_undeclared))
    # most traces discarded: the area did not earn its pass (90% must be compared to the end)
    assert outcome.status == "unsupported", outcome
    counts = re.search(r"(\d+) traces, (\d+) inexpressible \(discarded\), ", outcome.message)
    assert counts is not None, outcome.message
    compared, discarded = int(counts[1]), int(counts[2])
    assert compared + discarded == 40 and discarded > 0 and compared > 0
    assert outcome.message.startswith(f"only {compared} of 40 traces compared to their end ")

    everywhere = check.run(InProcessDriver(unsupported_everywhere))
    assert everywhere.status == "unsupported"
    assert "0 traces, 40 inexpressible" in everywhere.message
    assert check.run(InProcessDriver(restricted)).message.startswith("40 traces, ")
