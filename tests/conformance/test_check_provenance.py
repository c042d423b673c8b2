"""``rescind check`` counts results per provenance kind (summary, --json, --markdown) and
``--provenance`` keeps only the checks of the kinds asked for."""

from __future__ import annotations

import json
from pathlib import Path

from rescind.cli import main
from rescind.conformance.report import run as reports
from rescind.conformance.runner import RunReport
from rescind.conformance.runner_check import Check, Outcome, Result
from tests.conformance.check_doubles import passing_check

FAST = ["check", "--no-model", "--explore-steps", "0"]


def _check(check_id: str, provenance: str | None) -> Check:
    return passing_check(check_id, source="t", provenance=provenance)


def test_counts_by_provenance_tally_each_status_under_its_kind() -> None:
    results = (
        Result(_check("a", "derived"), Outcome("pass")),
        Result(_check("b", "derived"), Outcome("fail", "x")),
        Result(_check("c", "upstream-observed"), Outcome("not-applicable")),
        Result(_check("d", "upstream-observed"), Outcome("xfail")),
        Result(_check("e", None), Outcome("pass")),
        Result(_check("f", "derived"), Outcome("unsupported", "no")),
        Result(_check("g", "derived"), Outcome("restricted", "no")),
    )
    report = RunReport("impl", "1", (), (), results, (), 0.0)
    counts = reports.counts_by_provenance(report)
    assert list(counts) == ["upstream-observed", "derived", "model"]
    none = {"pass": 0, "fail": 0, "not-applicable": 0, "unsupported": 0, "restricted": 0}
    assert counts["derived"] == {**none, "pass": 1, "fail": 1, "unsupported": 1, "restricted": 1}
    assert counts["upstream-observed"] == {**none, "not-applicable": 1, "other": 1}
    assert counts["model"] == {**none, "pass": 1}
    markdown = reports.to_markdown(report)
    assert "| derived | 1 | 1 | 0 | 1 | 1 | 0 |" in markdown
    assert "| upstream-observed | 0 | 0 | 1 | 0 | 0 | 1 |" in markdown
    assert reports.to_json(report)["checks"][4]["provenance"] == "model"


def test_json_report_counts_per_provenance_and_they_add_up(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main([*FAST, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    by_kind = report["countsByProvenance"]
    assert {"upstream-observed", "derived", "model"} <= set(by_kind)
    assert set(by_kind) <= set(reports.PROVENANCE_LABELS)
    total = sum(sum(row.values()) for row in by_kind.values())
    assert total == len(report["checks"])
    for kind, row in by_kind.items():
        checks = [check for check in report["checks"] if check["provenance"] == kind]
        assert row["pass"] == sum(1 for check in checks if check["status"] == "pass")
    vector_sources = {
        check["source"] for check in report["checks"] if check["provenance"] != "model"
    }
    assert "canonical-input" in vector_sources and "exploration" not in vector_sources


def test_provenance_filter_keeps_only_those_kinds(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main([*FAST, "--json", "--provenance", "upstream-observed,upstream-test"]) == 0
    report = json.loads(capsys.readouterr().out)
    kinds = {check["provenance"] for check in report["checks"]}
    assert kinds == {"upstream-observed", "upstream-test"}
    assert set(report["countsByProvenance"]) == kinds


def test_provenance_filter_model_keeps_the_non_vector_checks(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main([*FAST, "--json", "--provenance", "model", "--select", "refinement"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["checks"] and {check["provenance"] for check in report["checks"]} == {"model"}


def test_summary_and_markdown_print_the_provenance_table(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    markdown = tmp_path / "report.md"
    selection = ["--select", "codec.", "--select", "ledger.codec."]
    assert main([*FAST, *selection, "--markdown", str(markdown)]) == 0
    printed = capsys.readouterr().out
    assert "By provenance of the expectation" in printed
    assert "upstream-observed" in printed  # every codec vector is observed upstream now
    assert (
        "| provenance | pass | fail | not-applicable | unsupported | restricted | other |"
        in markdown.read_text()
    )


def test_unknown_provenance_kinds_are_usage_errors() -> None:
    assert main([*FAST, "--provenance", "folklore"]) == 2
    assert main([*FAST, "--provenance", ","]) == 2
    assert main([*FAST, "--provenance", "design-doc", "--select", "canon."]) == 2
