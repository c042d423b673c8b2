"""Members a driver cannot answer: the exact object ``{"unsupported": "<reason>"}`` in place
of a member's value is unanswered, not a difference. A check whose reply differs nowhere but
leaves members unanswered is ``unsupported`` ("answered in part"); a wrong answered member
still fails. The unanswered pointers expected here are worked out from the vector files and
the fake driver's list of private members, not read back from the comparison code."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from rescind.cli import main
from rescind.conformance import comparison as cmp
from rescind.conformance.catalogue import SourceOptions
from rescind.conformance.explore.engine import (
    Disagreement,
    explore,
    reference_answer,
    replay_verdict,
    save_replay,
)
from rescind.conformance.explore.worker import JOURNAL_AREA, trace_of
from rescind.conformance.harness import InProcessDriver, Reply
from rescind.conformance.report import html as report_html
from rescind.conformance.report import run as reports
from rescind.conformance.report.merge import merge, plan_section
from rescind.conformance.runner import RunReport, run_checks
from rescind.conformance.runner_check import Check
from rescind.conformance.sources.exploration import _check
from rescind.conformance.vector_files import load_vector_files
from rescind.conformance.vectors.checks import vector_checks
from rescind.conformance.verdict import judge
from tests.conformance.partial_drivers import (
    PRIVATE_OPS,
    PRIVATE_REASONS,
    private_forgets_duplicates,
    private_members,
    private_members_wrong,
    restricted,
)

FAKE = f"{sys.executable} -m tests.conformance.partial_drivers"
TOPICS = ("canonical-input", "authorizer-traces", "splash-upstream-tests")
OPS = {"canonical-input": "canonical.input", "authorizer-traces": "authorizer.trace"}


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _private_pointers(expected: Any, names: frozenset[str], path: str = "") -> Iterator[str]:
    """Every pointer in a vector's expectation at which the fake answers the marker: a member
    named in ``names`` (informative keys and error objects are never looked into)."""
    if isinstance(expected, dict):
        if "error" in expected:
            return
        for key, value in expected.items():
            if key in cmp.INFORMATIVE_KEYS:
                continue
            if key in names:
                yield f"{path}/{_escape(key)}"
            else:
                yield from _private_pointers(value, names, f"{path}/{_escape(key)}")
    elif isinstance(expected, list):
        for index, item in enumerate(expected):
            yield from _private_pointers(item, names, f"{path}/{index}")


@cache
def _vectors() -> dict[str, tuple[str, dict[str, Any]]]:
    found = {}
    for document in load_vector_files():
        for group in document["testGroups"]:
            for test in group["tests"]:
                found[test["id"]] = (document["topic"], test)
    return found


def _raw_step(test: Mapping[str, Any]) -> bool:
    steps = test["input"].get("steps", [])
    return any({"request", "grant"} <= set(step.get("args", {})) for step in steps)


def _ops_names(topic: str, check: Check) -> frozenset[str]:
    if topic in OPS:
        return PRIVATE_OPS[OPS[topic]]
    # splash-upstream-tests: only its authorizer and journal groups send traces.
    return (
        PRIVATE_OPS["authorizer.trace"]
        if check.capability in ("authorizer", "journal")
        else (frozenset())
    )


def _checks() -> list[Check]:
    return [c for c in vector_checks() if c.source in TOPICS and not c.id.endswith(".f64")]


@pytest.fixture(scope="module")
def private_run() -> RunReport:
    return run_checks(_checks(), lambda: InProcessDriver(private_members))


@pytest.fixture(scope="module")
def wrong_run() -> RunReport:
    return run_checks(_checks(), lambda: InProcessDriver(private_members_wrong))


def test_unanswered_members_make_a_check_unsupported_answered_in_part(
    private_run: RunReport,
) -> None:
    in_part = 0
    for result in private_run.results:
        topic, test = _vectors()[result.check.id]
        ordered = list(_private_pointers(test["expected"], _ops_names(topic, result.check)))
        pointers = sorted(ordered)
        outcome = result.outcome
        assert outcome.status != "fail", (result.check.id, outcome.message)
        if _raw_step(test) or outcome.message.startswith("unsupported"):
            continue  # cut at a raw step, or a whole operation the fake does not offer
        if not pointers:
            assert outcome.status == "pass", (result.check.id, outcome)
            continue
        in_part += 1
        assert outcome.status == "unsupported", (result.check.id, outcome)
        assert outcome.message.startswith(f"answered in part: unanswered {ordered[0]} (")
        assert outcome.comparison is not None and not outcome.comparison.differences
        listed = sorted(outcome.comparison.at + m.path for m in outcome.comparison.unanswered)
        assert listed == pointers, result.check.id
        assert {m.reason for m in outcome.comparison.unanswered} <= set(PRIVATE_REASONS.values())
    assert in_part >= 150
    # No restriction the fake declares names these members: the claim is partial (exit 3).
    assert private_run.exit_code() == 3


def test_the_json_report_carries_the_unanswered_pointers(private_run: RunReport) -> None:
    document = reports.to_json(private_run)
    entries = {entry["id"]: entry for entry in document["checks"]}
    canonical = entries["canon.text.release"]
    assert canonical["status"] == "unsupported"
    assert canonical["comparison"]["differences"] == []
    assert canonical["comparison"]["unanswered"] == [
        {"path": "/hostInputFingerprint", "reason": PRIVATE_REASONS["hostInputFingerprint"]}
    ]
    # Countable from the report alone, and carried through a merge.
    counted = sum(len(e.get("comparison", {}).get("unanswered", [])) for e in entries.values())
    expected = 0
    for result in private_run.results:
        topic, test = _vectors()[result.check.id]
        if result.outcome.message.startswith("answered in part"):
            expected += len(
                list(_private_pointers(test["expected"], _ops_names(topic, result.check)))
            )
    assert counted == expected > 400
    run = {"seed": 0, "shard": "1/1", "plan": plan_section(entries)}
    joined, _ = merge([("s1.json", {**document, "run": run})])
    again = {r.check.id: r.outcome for r in joined.results}["canon.text.release"]
    assert again.comparison is not None
    assert [m.path for m in again.comparison.unanswered] == ["/hostInputFingerprint"]


def test_one_wrong_answered_member_still_fails(wrong_run: RunReport) -> None:
    outcomes = {r.check.id: r.outcome for r in wrong_run.results}
    failed = 0
    for check_id, outcome in outcomes.items():
        topic, test = _vectors()[check_id]
        if topic != "canonical-input" or "error" in test["expected"]:
            continue
        failed += 1
        assert outcome.status == "fail", (check_id, outcome)
        assert outcome.message == "/workerInputFingerprint differs (1 member unanswered)"
        assert outcome.comparison is not None
        assert [d.path for d in outcome.comparison.differences] == ["/workerInputFingerprint"]
        assert [m.path for m in outcome.comparison.unanswered] == ["/hostInputFingerprint"]
    assert failed >= 150
    counters = [
        outcome
        for check_id, outcome in outcomes.items()
        if _vectors()[check_id][0] == "authorizer-traces" and outcome.status == "fail"
    ]
    assert len(counters) >= 10 and all("/calls/" in o.message for o in counters)
    page = report_html.to_html(wrong_run, vectors={}, lifecycles=())
    assert "Unanswered by the driver (not compared): <code>/hostInputFingerprint</code>" in page


EXPECTED = {"a": 1, "b": {"c": 2}, "list": [1, 2], "reason": "x"}


@pytest.mark.parametrize(
    ("ok", "problem", "unanswered"),
    [
        ({**EXPECTED, "a": {"unsupported": "private"}}, False, ["/a"]),
        ({**EXPECTED, "b": {"c": {"unsupported": "private"}}}, False, ["/b/c"]),
        ({**EXPECTED, "b": {"unsupported": "private"}}, False, ["/b"]),
        # Not the marker: two keys, a reason that is not a string, an array item.
        ({**EXPECTED, "a": {"unsupported": "private", "x": 1}}, True, []),
        ({**EXPECTED, "a": {"unsupported": 1}}, True, []),
        ({**EXPECTED, "list": [1, {"unsupported": "private"}]}, True, []),
        # A wrong answered member beside an unanswered one.
        ({**EXPECTED, "a": {"unsupported": "private"}, "b": {"c": 3}}, True, ["/a"]),
    ],
)
def test_the_marker_is_exactly_one_string_member(
    ok: dict[str, Any], problem: bool, unanswered: list[str]
) -> None:
    judged = judge(EXPECTED, Reply(ok=ok))
    assert (judged.problem is not None) is problem
    found = judged.comparison()
    assert found is not None
    assert bool(found.differences) is problem
    assert [m.path for m in found.unanswered] == unanswered
    assert [path for path, _ in judged.unanswered_pointers] == unanswered


def test_a_marker_equal_to_the_expectation_is_a_match_not_unanswered() -> None:
    expected = {"a": {"unsupported": "x"}}
    assert judge(expected, Reply(ok={"a": {"unsupported": "x"}})).comparison() is None
    other = judge(expected, Reply(ok={"a": {"unsupported": "y"}})).comparison()
    assert other is not None and not other.differences
    assert [m.path for m in other.unanswered] == ["/a"]


def test_a_step_result_marker_before_more_steps_is_still_not_the_contract() -> None:
    expected = {"steps": [{"result": {"a": 1}}, {"result": {}}]}
    cut_early = Reply(ok={"steps": [{"unsupported": "no"}, {"result": {}}]})
    assert judge(expected, cut_early).problem is not None
    member = Reply(ok={"steps": [{"result": {"a": {"unsupported": "no"}}}, {"result": {}}]})
    assert judge(expected, member).problem is None


def test_unanswered_members_before_an_unsupported_step_are_named() -> None:
    """A trace answered in part, then cut at a step the driver cannot run."""
    check_id, test = next(
        (i, t)
        for i, (topic, t) in _vectors().items()
        if topic == "authorizer-traces"
        and not _raw_step(t)
        and len(t["expected"]["steps"]) >= 3
        and any("request_ids" in s.get("result", {}) for s in t["expected"]["steps"][:-1])
    )
    last = len(test["expected"]["steps"]) - 1

    def cut_at_last(message: Mapping[str, Any]) -> dict[str, Any]:
        reply = private_members(message)
        if message.get("op") == "authorizer.trace":
            steps = reply["ok"]["steps"][:last]
            reply = {**reply, "ok": {"steps": [*steps, {"unsupported": "no"}], "checkpoints": {}}}
        return reply

    check = next(c for c in vector_checks() if c.id == check_id)
    outcome = check.run(InProcessDriver(cut_at_last))
    assert outcome.status == "unsupported", outcome
    assert outcome.message.startswith(f"unsupported at step {last + 1} ")
    pointers = sorted(
        _private_pointers(
            {"steps": test["expected"]["steps"][:last]}, PRIVATE_OPS["authorizer.trace"]
        )
    )
    assert "; answered in part before it: unanswered " in outcome.message
    assert all(p in outcome.message for p in pointers[:5])


def test_exploration_compares_traces_with_unanswered_counters() -> None:
    result = explore(InProcessDriver(private_members), JOURNAL_AREA, 60, seed=0)
    assert result.disagreement is None
    assert result.inexpressible == 0 and result.compared == 60
    assert result.in_part >= 30  # the authorizer counters are in every checkpoint
    found = explore(InProcessDriver(private_forgets_duplicates), JOURNAL_AREA, 150, seed=0)
    assert found.disagreement is not None
    assert "admission" in found.disagreement.message


def test_the_exploration_check_counts_traces_answered_in_part(tmp_path: Path) -> None:
    """Traces compared only on their answered members do not earn a pass: the area is
    unanswered until 90% of its traces are compared to their end."""
    options = SourceOptions(explore_examples=30, seed=0, replay_directory=tmp_path)
    outcome = _check(JOURNAL_AREA, 30, options).run(InProcessDriver(private_members))
    assert outcome.status == "unsupported", outcome
    assert outcome.message.startswith("only 0 of 30 traces compared to their end (90% needed): ")
    assert "30 traces, 30 answered in part, " in outcome.message


def _declaring_counters_private(message: Mapping[str, Any]) -> dict[str, Any]:
    reply = private_members(message)
    if message.get("op") == "hello":
        reply["ok"]["restrictions"] = [*reply["ok"]["restrictions"], "authorizer-counters-private"]
    return reply


def test_members_a_declared_restriction_names_do_not_count_against_exploration(
    tmp_path: Path,
) -> None:
    options = SourceOptions(explore_examples=30, seed=0, replay_directory=tmp_path)
    driver = InProcessDriver(_declaring_counters_private)
    outcome = _check(JOURNAL_AREA, 30, options).run(driver)
    assert outcome.status == "pass", outcome
    assert outcome.message.startswith("30 traces, ") and "answered in part" not in outcome.message


def _replay_file(tmp_path: Path) -> Path:
    request = "d.op-1.math.add.a.0"
    authorize = {"call": "authorize_operation", "args": {"request": request, "as": request}}
    trace = trace_of([authorize, {"call": "counters", "args": {}}])
    expected = reference_answer("journal.trace", trace)
    assert expected["steps"][1]["result"]["calls"] == {"math.add": 1}
    found = Disagreement("journal.trace", trace, expected, "saved")
    return save_replay(found, tmp_path)


def test_replay_says_unsupported_not_disagrees(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _replay_file(tmp_path)
    document = json.loads(path.read_text())

    def unsupported(message: Mapping[str, Any]) -> dict[str, Any]:
        if message.get("op") == "journal.trace":
            return {"id": message["id"], "unsupported": "no traces here"}
        return restricted(message)

    verdict = replay_verdict(document, InProcessDriver(unsupported))
    assert verdict.problem is None and verdict.unsupported == "unsupported: no traces here"
    assert main(["replay", str(path), "--impl", f"{FAKE} unsupported-everywhere"]) == 3
    compared, said = capsys.readouterr().out.splitlines()
    assert compared.startswith("compared: ") and said.startswith("unsupported: no traces")
    assert main(["replay", str(path), "--impl", f"{FAKE} private-members"]) == 0
    said = capsys.readouterr().out.splitlines()[-1]
    assert said.startswith("agrees: ") and "answered in part: unanswered /" in said
    assert main(["replay", str(path), "--impl", f"{FAKE} private-members-wrong"]) == 1
    assert capsys.readouterr().out.splitlines()[-1].startswith("disagrees: ")
