"""Error precedence: the data, its page, its generated vectors and their coverage."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs
import pytest

from rescind.conformance import coverage, precedence
from rescind.conformance.coverage import CoverageMap, Exceptions, Reach, verdict
from rescind.conformance.precedence import BY_NAME, OPERATIONS, Check, Operation
from rescind.conformance.vector_files import load_vector_files
from rescind.conformance.vectors.sets import _precedence, host_keys
from rescind.conformance.vectors.sets._precedence import Faults, pair_rows

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "spec" / "precedence.md"


def test_the_page_shows_the_data() -> None:
    text = PAGE.read_text(encoding="utf-8")
    generated = text[
        text.index(precedence.BEGIN) : text.index(precedence.END) + len(precedence.END)
    ]
    assert generated == precedence.render(), "run python -m rescind.conformance.precedence"


def test_every_rule_of_the_data_is_on_the_page() -> None:
    text = PAGE.read_text(encoding="utf-8")
    for operation in OPERATIONS:
        assert f"**{operation.rule}**" in text
    assert len({operation.rule for operation in OPERATIONS}) == len(OPERATIONS)


def test_pairs_are_the_adjacent_checks_and_the_loop() -> None:
    plan = BY_NAME["host.plan"]
    assert [pair.name for pair in plan.pairs()] == [
        "host.plan: non_empty > step_count",
        "host.plan: step_count > source_size",
        "host.plan: source_size > step_id",
        "host.plan: step_id > step_unique",
        "host.plan: step_unique > next step_id",
    ]
    assert plan.covered_pairs()[0].name == "host.plan: step_count > source_size"


def test_excused_pairs_name_adjacent_checks() -> None:
    for operation in OPERATIONS:
        adjacent = {(pair.first.name, pair.second.name) for pair in operation.pairs()}
        assert set(operation.excused) <= adjacent, operation.name


def _published() -> dict[str, dict[str, Any]]:
    tests: dict[str, dict[str, Any]] = {}
    for document in load_vector_files():
        for group in document["testGroups"]:
            for test in group["tests"]:
                tests[test["id"]] = test
    return tests


def test_every_covered_pair_has_its_vector_expecting_the_earlier_code() -> None:
    tests = _published()
    for operation in OPERATIONS:
        for pair in operation.covered_pairs():
            found = [
                test
                for test_id, test in tests.items()
                if test_id.endswith(f".precedence.{pair.slug}") and test["rule"] == operation.rule
            ]
            # one vector per pair; the journal's pairs also on authorized values
            assert 1 <= len(found) <= 2, pair.name
            assert len({test["id"].split(".precedence.")[0] for test in found}) == len(found)
            for test in found:
                expected = test["expected"]
                for steps in ("steps", "results"):  # a trace: its last step breaks both
                    if expected.get(steps):
                        expected = expected[steps][-1]
                if "error" not in expected:  # a session scenario that does not open
                    expected = expected["open"]
                assert expected["error"] == pair.first.code, pair.name
                assert "ErrorPrecedence" in test["flags"]
                # read from upstream's code, or since observed through drivers/splash
                assert test["provenance"]["kind"] in (
                    "upstream-code",
                    "design-doc",
                    "upstream-observed",
                )


@pytest.mark.parametrize(
    ("steps", "code"),
    [
        # the four plans of issue 33, with upstream's code (validate_steps' order)
        ([["a", "x"], ["a", "y"], ["B", "z"]], "invalid_plan"),
        ([[f"s{i}", ""] for i in range(1024)] + [["S", ""]], "invalid_plan"),
        ([["B", {"repeat": "x", "count": 1_048_577}]], "invalid_plan"),
        ([["a", "x"], ["a", "y"], ["s" * 129, "z"]], "invalid_plan"),
        # and the id still comes first within a step
        ([["B", "x"], ["B", "y"]], "invalid_step_id"),
        ([["a", "x"], ["B", "y"], ["a", "z"]], "invalid_step_id"),
    ],
)
def test_the_reference_plans_in_upstreams_order(steps: list[list[Any]], code: str) -> None:
    with pytest.raises(Exception) as raised:
        host_keys.run({"operation": "plan_fingerprint", "steps": steps})
    assert getattr(raised.value, "code", None) == code


def _plan_faults(**overrides: Any) -> Faults:
    faults = {
        "non_empty": lambda steps, _: steps.clear(),
        "step_count": host_keys._too_many,
        "source_size": host_keys._huge_source,
        "step_id": host_keys._upper_id,
        "step_unique": host_keys._repeat_id,
    }
    faults.update(overrides)
    return Faults(
        "host.plan",
        "hostkeys.plan",
        lambda: [["a", "x"], ["b", "y"], ["c", "z"]],
        faults,
        lambda steps: {"operation": "plan_fingerprint", "steps": steps},
        host_keys.run,
        host_keys.PLAN_ORDER,
    )


def test_the_family_makes_one_row_a_covered_pair() -> None:
    rows = pair_rows(_plan_faults())
    assert [row.id for row in rows] == [
        f"hostkeys.plan.precedence.{pair.slug}" for pair in BY_NAME["host.plan"].covered_pairs()
    ]


def test_a_fault_that_breaks_nothing_stops_the_family() -> None:
    with pytest.raises(ValueError, match="fault step_id alone gives accepted"):
        pair_rows(_plan_faults(step_id=lambda steps, at: None))


def test_a_fault_that_breaks_another_check_stops_the_family() -> None:
    with pytest.raises(ValueError, match="fault source_size alone gives invalid_plan"):
        pair_rows(_plan_faults(source_size=host_keys._too_many))


def test_an_order_the_reference_does_not_follow_stops_the_family(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plan = BY_NAME["host.plan"]
    checks = list(plan.checks)
    checks[2], checks[3] = checks[3], checks[2]  # the id before the source size
    swapped = attrs.evolve(plan, checks=tuple(checks))
    monkeypatch.setitem(_precedence.BY_NAME, "host.plan", swapped)
    with pytest.raises(ValueError, match="step_id > source_size: both faults give invalid_plan"):
        pair_rows(_plan_faults())


def test_adding_a_check_adds_its_pairs() -> None:
    plan = BY_NAME["host.plan"]
    extra = Check("source_utf8", "invalid_plan", "a source that is not UTF-8", marker="x")
    grown = attrs.evolve(plan, checks=(*plan.checks[:3], extra, *plan.checks[3:]))
    names = [pair.name for pair in grown.covered_pairs()]
    assert "host.plan: source_size > source_utf8" in names
    assert "host.plan: source_utf8 > step_id" in names
    assert len(names) == len(plan.covered_pairs()) + 1


def _map(precedence_reach: dict[str, Reach]) -> CoverageMap:
    return CoverageMap({}, {}, {}, {}, precedence=precedence_reach)


def test_the_coverage_map_counts_precedence_pairs() -> None:
    covered, excused = coverage._precedence_pairs()
    assert set(covered) == {pair.name for op in OPERATIONS for pair in op.covered_pairs()}
    assert "host.plan: non_empty > step_count" in excused
    tests = _published()
    reached = {name for test in tests.values() for name in coverage._precedence_of(test, covered)}
    assert reached == set(covered)


def test_an_uncovered_precedence_pair_is_a_gap_and_a_stale_exception_fails() -> None:
    name = "host.plan: step_count > source_size"
    judged = verdict(_map({name: Reach()}), Exceptions({}))
    assert judged["precedence"]["unexcused"] == [name]
    stale = verdict(_map({name: Reach(("v",))}), Exceptions({"precedence": {name: "why"}}))
    assert stale["precedence"]["stale"] == [name]


def test_operations_name_their_spec_rules() -> None:
    text = "".join(page.read_text(encoding="utf-8") for page in (ROOT / "docs/spec").glob("*.md"))
    for operation in OPERATIONS:
        for rule in operation.rules:
            assert f"**{rule}**" in text, (operation.name, rule)
    assert isinstance(OPERATIONS[0], Operation)


def test_an_unobservable_order_makes_its_pair_vectors_acceptable() -> None:
    tests = _published()
    for operation in OPERATIONS:
        for pair in operation.covered_pairs():
            found = [
                test
                for test_id, test in tests.items()
                if test_id.endswith(f".precedence.{pair.slug}") and test["rule"] == operation.rule
            ]
            wanted = "acceptable" if operation.acceptable else "invalid"
            if any("steps" in test["expected"] or "results" in test["expected"] for test in found):
                continue  # a trace's result is its run's, the last step carries the code
            assert {test["result"] for test in found} == {wanted}, pair.name
    assert BY_NAME["casehub.bindings"].acceptable
