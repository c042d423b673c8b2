"""A driver's long messages cost the reports a person reads nothing more: terminal, Markdown,
HTML and JUnit show at most ``MAX_SHOWN`` characters of each, then the length and a digest of
the whole; the JSON report keeps each message whole (up to ``MAX_KEPT``).

Before, a 4,096-character message was kept as 1,024 characters plus its length everywhere
(JSON included), and shown at that length in every view: a run whose 2,089 replies were such
messages wrote a 3.5 MB Markdown, 6.8 MB HTML and 5.6 MB JUnit report, against 2.0, 5.3 and
2.5 MB for 256-character messages. Now both write the same sizes.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from xml.etree import ElementTree

import pytest

from rescind.cli import check as check_cli
from rescind.conformance.harness.text import MAX_SHOWN
from rescind.conformance.report import html as report_html
from rescind.conformance.report import run as reports
from rescind.conformance.runner import RunReport
from rescind.conformance.runner_check import Outcome, Result
from tests.conformance.check_doubles import passing_check

LONG = "".join(f"{index:05d}-" for index in range(700))  # 4,200 characters, none repeated
DIGEST = hashlib.sha256(LONG.encode()).hexdigest()[:12]
TAIL = LONG[-40:]


def _report() -> RunReport:
    check = passing_check("v.long", source="canonical-input")
    return RunReport(
        "impl", "1", ("canonical",), (), (Result(check, Outcome("fail", LONG)),), (), 0.1
    )


def test_json_keeps_the_message_whole() -> None:
    (entry,) = reports.to_json(_report())["checks"]
    assert entry["message"] == LONG


def test_markdown_html_and_junit_show_it_cut(tmp_path: Path) -> None:
    report = _report()
    markdown = reports.to_markdown(report)
    page = report_html.to_html(report, vectors={})
    reports.write_junit(report, tmp_path / "r.xml")
    junit = ElementTree.parse(tmp_path / "r.xml").getroot()
    (failure,) = junit.iter("failure")
    for shown in (markdown, page, failure.get("message", "")):
        assert f"{len(LONG)} chars, sha256 {DIGEST}" in shown and TAIL not in shown


def test_the_terminal_shows_it_cut(capsys: pytest.CaptureFixture[str]) -> None:
    check_cli._print_summary(_report())
    out = capsys.readouterr().out
    assert DIGEST in out and TAIL not in out
    longest = max(len(line) for line in out.splitlines())
    assert longest < MAX_SHOWN + 200


def test_a_message_over_the_kept_bound_is_cut_in_json_too() -> None:
    huge = "y" * 100_000
    kept = Outcome("fail", huge).message
    assert len(kept) < 20_000 and hashlib.sha256(huge.encode()).hexdigest()[:12] in kept
