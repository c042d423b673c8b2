"""``unsupported`` is its own outcome: a whole request, or a trace step after which the driver
stops, that a driver declaring the capability cannot express. Never a pass, never a failure,
counted and shown in every report; a difference before the unsupported step still fails."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import jsonschema
import pytest

from rescind.conformance.driver import handle
from rescind.conformance.harness import HarnessFailure, InProcessDriver, Reply
from rescind.conformance.harness.restrictions import NAMES
from rescind.conformance.report import html as report_html
from rescind.conformance.report import run as reports
from rescind.conformance.report.merge import merge, plan_section
from rescind.conformance.runner import RunReport, run_checks
from rescind.conformance.vector_files import load_vector_files
from rescind.conformance.vectors.checks import vector_checks
from rescind.conformance.verdict import judge
from tests.conformance.partial_drivers import RAW_REASON, UNSUPPORTED_OPS, restricted

ROOT = Path(__file__).resolve().parents[2]


def _vector_tests(topic: str) -> dict[str, dict[str, Any]]:
    for document in load_vector_files():
        if document["topic"] == topic:
            return {t["id"]: t for g in document["testGroups"] for t in g["tests"]}
    raise AssertionError(topic)


def _first_raw_step(test: dict[str, Any]) -> int | None:
    """Written out here rather than taken from the restrictions module: a step naming both a
    request and a grant."""
    for index, step in enumerate(test["input"]["steps"]):
        if {"request", "grant"} <= set(step.get("args", {})):
            return index
    return None


def _run(topics: tuple[str, ...]) -> RunReport:
    checks = [c for c in vector_checks() if c.source in topics and not c.id.endswith(".f64")]
    return run_checks(checks, lambda: InProcessDriver(restricted))


@pytest.fixture(scope="module")
def partial_run() -> RunReport:
    return _run(("grants", "journal-traces", "authorizer-traces"))


def test_a_whole_request_answered_unsupported_is_unsupported_not_failed(
    partial_run: RunReport,
) -> None:
    grants = _vector_tests("grants")
    statuses = {r.check.id: r.outcome for r in partial_run.results if r.check.source == "grants"}
    unsupported = {
        i for i, t in grants.items() if f"grants.{t['input']['operation']}" in UNSUPPORTED_OPS
    }
    assert len(unsupported) >= 3
    for test_id, outcome in statuses.items():
        expected = "unsupported" if test_id in unsupported else "pass"
        assert outcome.status == expected, (test_id, outcome)
    assert all("is not public upstream" in statuses[i].message for i in unsupported)


def test_a_trace_cut_at_an_inexpressible_step_is_unsupported(partial_run: RunReport) -> None:
    tests = {**_vector_tests("journal-traces"), **_vector_tests("authorizer-traces")}
    outcomes = {r.check.id: r.outcome for r in partial_run.results if r.check.id in tests}
    assert outcomes.keys() == tests.keys()
    cut = 0
    for test_id, outcome in outcomes.items():
        raw = _first_raw_step(tests[test_id])
        if raw is None:
            assert outcome.status == "pass", (test_id, outcome)
            continue
        cut += 1
        call = tests[test_id]["input"]["steps"][raw]["call"]
        if call.startswith("validate_") and call.endswith("_result"):
            # result-check-needs-issuing-authorizer: a restriction the fake does not declare
            assert outcome.status == "unsupported", (test_id, outcome)
            prefix = ""
        else:
            assert outcome.status == "restricted", (test_id, outcome)
            assert outcome.restricted_by == ("authorized-by-authorizer",)
            prefix = "restricted (authorized-by-authorizer): "
        assert outcome.message.startswith(f"{prefix}unsupported at step {raw + 1} ")
        assert RAW_REASON in outcome.message
    assert cut >= 20 and len(outcomes) - cut >= 10


def test_only_the_declared_restriction_excuses_and_only_its_shapes() -> None:
    """The same cut traces from a driver that declares nothing are unanswered."""

    def undeclared(message: dict[str, Any]) -> dict[str, Any]:
        reply = restricted(message)
        if message["op"] == "hello":
            reply["ok"]["restrictions"] = []
        return reply

    checks = [c for c in vector_checks() if c.source == "journal-traces"]
    report = run_checks(checks, lambda: InProcessDriver(undeclared))
    assert "restricted" not in report.counts() and report.counts()["unsupported"] >= 20
    assert report.exit_code() == 3


def test_unsupported_never_fails_the_run_and_is_never_a_pass(partial_run: RunReport) -> None:
    counts = partial_run.counts()
    assert counts["unsupported"] + counts["restricted"] >= 23 and "fail" not in counts
    # grants.manifest_attenuate answered unsupported as a whole: no declared restriction
    # names it, so the claim is partial (exit 3), not passed
    assert counts["unsupported"] >= 3
    assert partial_run.exit_code() == 3
    assert reports.expected_failures_text(partial_run).count("\n") == 1  # header only


EXPECTED = {"steps": [{"result": {"a": 1}}, {"error": "denied"}, {"result": {}}]}


@pytest.mark.parametrize(
    ("reply", "status"),
    [
        (Reply(unsupported="no"), "whole"),
        (Reply(ok={"steps": [{"unsupported": "no"}]}), "cut at 0"),
        (Reply(ok={"steps": [{"result": {"a": 1}}, {"unsupported": "no"}]}), "cut at 1"),
        (
            Reply(ok={"steps": [{"result": {"a": 1}}, {"error": "denied"}, {"unsupported": "n"}]}),
            "cut at 2",
        ),
        (
            Reply(ok={"steps": [{"result": {"a": 2}}, {"unsupported": "no"}]}),
            "step 1: /steps/0/result/a differs",
        ),
        (
            Reply(ok={"steps": [{"result": {"a": 1}}, {"result": {}}, {"unsupported": "n"}]}),
            "step 2: /steps/1/error missing",
        ),
        # Not the contract: results after the unsupported step, or more steps than asked.
        (Reply(ok={"steps": [{"unsupported": "no"}, {"error": "denied"}]}), None),
        (Reply(ok={"steps": [*EXPECTED["steps"], {"unsupported": "no"}]}), None),
        (Reply(ok={"steps": EXPECTED["steps"]}), None),
        (Reply(error_code="denied"), None),
    ],
)
def test_the_verdict_reads_the_unsupported_contract(reply: Reply, status: str | None) -> None:
    found = judge(EXPECTED, reply).cut
    if status is None:
        assert found is None
    elif status == "whole":
        assert found is not None and found.step is None and found.problem is None
    elif status.startswith("step "):
        assert found is not None and found.problem == status
    else:
        assert found is not None and found.problem is None
        assert found.step == int(status.split()[-1])


def test_a_difference_before_the_unsupported_step_fails() -> None:
    tests = _vector_tests("journal-traces")
    test_id = next(i for i, t in tests.items() if (_first_raw_step(t) or 0) >= 1)

    def wrong_first_step(message: dict[str, Any]) -> dict[str, Any]:
        reply = restricted(message)
        if message.get("op") == "journal.trace":
            reply["ok"]["steps"][0] = {"result": {"something": "else"}}
        return reply

    check = next(c for c in vector_checks() if c.id == test_id)
    outcome = check.run(InProcessDriver(wrong_first_step))
    assert outcome.status == "fail" and outcome.message.startswith("step 1: ")
    assert check.run(InProcessDriver(restricted)).status == "unsupported"
    assert check.run(InProcessDriver(handle)).status == "pass"


def test_every_report_counts_and_shows_unsupported(partial_run: RunReport, tmp_path: Path) -> None:
    unsupported = [r for r in partial_run.results if r.outcome.status == "unsupported"]
    document = reports.to_json(partial_run)
    assert document["counts"]["unsupported"] == len(unsupported)
    assert not document["passed"] and document["exitCode"] == 3
    assert document["claim"]["verdict"] == "PARTIAL"
    by_kind = document["countsByProvenance"]
    assert sum(row["unsupported"] for row in by_kind.values()) == len(unsupported)
    assert all(
        row["pass"]
        + row["fail"]
        + row["not-applicable"]
        + row["unsupported"]
        + row["restricted"]
        + row.get("other", 0)
        > 0
        for row in by_kind.values()
    )

    junit = tmp_path / "report.xml"
    reports.write_junit(partial_run, junit)
    cases = {c.get("name"): c for c in ElementTree.parse(junit).getroot().iter("testcase")}
    for result in unsupported:
        skipped = cases[result.check.id].find("skipped")
        assert skipped is not None
        assert skipped.get("message") == f"unsupported: {result.outcome.message}"
        assert cases[result.check.id].find("failure") is None

    markdown = reports.to_markdown(partial_run)
    assert (
        "| provenance | pass | fail | not-applicable | unsupported | restricted | other |"
        in markdown
    )
    assert f"| unsupported | {len(unsupported)} |" in markdown
    assert "## Unanswered by the driver" in markdown
    assert markdown.startswith("# Rescind conformance: PARTIAL partial-fake 0.1.0")
    assert all(f"`{r.check.id}`" in markdown for r in unsupported)

    page = report_html.to_html(partial_run, vectors={}, lifecycles=())
    assert f"{len(unsupported)} unsupported" in page
    total = sum(int(v) for v in re.findall(r'data-unsupported="(\d+)"', page))
    assert total >= len(unsupported)  # per cell, per row total and the overall total


def test_merge_keeps_unsupported(partial_run: RunReport) -> None:
    document = reports.to_json(partial_run)
    run = {"seed": 0, "shard": "1/1", "plan": plan_section(c["id"] for c in document["checks"])}
    joined, _ = merge([("s1.json", {**document, "run": run})])
    assert joined.counts() == partial_run.counts()
    assert joined.restrictions == partial_run.restrictions == ("authorized-by-authorizer",)


def _hello_reply(**extra: Any) -> Any:
    def adapter(message: dict[str, Any]) -> dict[str, Any]:
        reply = handle(message)
        if message["op"] == "hello":
            reply["ok"].update(extra)
        return reply

    return adapter


def test_declared_restrictions_are_read_and_unknown_ones_refused() -> None:
    driver = InProcessDriver(restricted)
    assert driver.hello.restrictions == frozenset({"authorized-by-authorizer"})
    assert driver.hello.upstream is not None and driver.hello.upstream.repository == "ymote/Splash"
    assert InProcessDriver(handle).hello.restrictions == frozenset()
    with pytest.raises(HarnessFailure) as refused:
        InProcessDriver(_hello_reply(restrictions=["authorised-by-authorizer"]))
    assert refused.value.kind == "bad_handshake" and "unknown_restriction" in str(refused.value)
    with pytest.raises(HarnessFailure):
        InProcessDriver(_hello_reply(restrictions="authorized-by-authorizer"))


def test_the_schema_lists_exactly_the_catalogue() -> None:
    schema = json.loads((ROOT / "conformance/driver-protocol.schema.json").read_text())
    hello = schema["$defs"]["helloResult"]
    assert hello["properties"]["restrictions"]["items"]["enum"] == list(NAMES)
    validator = jsonschema.Draft202012Validator(
        {"$defs": schema["$defs"], "$ref": "#/$defs/helloResult"}
    )
    ok = restricted({"id": 1, "op": "hello", "args": {}})["ok"]
    assert not list(validator.iter_errors(ok))
    assert list(validator.iter_errors({**ok, "restrictions": ["nope"]}))
    documented = (ROOT / "docs/driver-protocol.md").read_text()
    assert all(f"`{name}`" in documented for name in NAMES)


def _shard(index: int, status: str) -> tuple[str, dict[str, Any]]:
    check = {
        "id": f"explore.journal-authorizer#shard-{index}/2",
        "tier": "must",
        "rule": "WJ-16",
        "source": "exploration",
        "capability": "journal",
        "status": status,
        "message": f"slice {index}",
    }
    plan = plan_section(["explore.journal-authorizer"])
    return f"s{index}.json", {
        "implementation": {"name": "fake", "version": "1"},
        "capabilities": ["journal"],
        "profiles": ["splash-v5"],
        "restrictions": ["authorized-by-authorizer"],
        "harnessFailures": [],
        "checks": [check],
        "run": {"seed": 0, "shard": f"{index}/2", "plan": plan},
    }


@pytest.mark.parametrize(
    ("first", "second", "joined"),
    [
        ("pass", "unsupported", "unsupported"),
        ("unsupported", "unsupported", "unsupported"),
        ("unsupported", "fail", "fail"),
        ("unsupported", "not-applicable", "unsupported"),
        ("pass", "not-applicable", "pass"),
    ],
)
def test_merged_exploration_slices_join_as_their_worst_slice(
    first: str, second: str, joined: str
) -> None:
    report, _ = merge([_shard(1, first), _shard(2, second)])
    assert [r.outcome.status for r in report.results] == [joined]
