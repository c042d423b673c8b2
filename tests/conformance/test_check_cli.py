"""``rescind check`` end to end: reference in process and through a real subprocess."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from xml.etree import ElementTree

from rescind.cli import main
from tests.cli_process import WIRE_ONLY, run_rescind

REFERENCE_DRIVER = f"{sys.executable} -m rescind.conformance.driver"


def test_reference_passes_in_process(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["check", "--no-model", "--explore-steps", "0", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["passed"] and report["counts"].get("pass", 0) > 250
    assert "fail" not in report["counts"]


def test_reference_driver_passes_over_the_pipe(tmp_path: Path) -> None:
    junit = tmp_path / "report.xml"
    markdown = tmp_path / "report.md"
    completed = run_rescind(
        "check",
        *WIRE_ONLY,
        *("--impl", REFERENCE_DRIVER, "--junit", str(junit), "--markdown", str(markdown)),
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "PASS" in completed.stdout
    suites = ElementTree.parse(junit).getroot()
    assert int(suites.find("testsuite").get("tests")) > 0  # type: ignore[union-attr]
    assert "PASS" in markdown.read_text()


def test_expected_failures_are_tracked(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    listing = tmp_path / "known-gaps.txt"
    listing.write_text("# none of these fail\ncanon.text.release\n")
    code = main(
        [
            "check",
            "--no-model",
            "--explore-steps",
            "0",
            "--json",
            "--expect-fail",
            str(listing),
            "--select",
            "canon.text",
        ]
    )
    report = json.loads(capsys.readouterr().out)
    assert code == 0
    statuses = {check["id"]: check["status"] for check in report["checks"]}
    assert statuses["canon.text.release"] == "xpass"
    fresh = (tmp_path / "known-gaps.txt.new").read_text()
    assert "canon.text.release" not in fresh


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    assert main(["check", "--expect-fail", str(tmp_path / "missing.txt")]) == 2
    assert main(["check", "--select", "no-such-check-anywhere"]) == 2
    assert main(["check", "--timeout", "0"]) == 2


def test_json_takes_a_file_like_the_other_reports(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    target = tmp_path / "report.json"
    selection = ["--no-model", "--explore-steps", "0", "--select", "canon.text.release"]
    assert main(["check", *selection, "--json", str(target)]) == 0
    document = json.loads(target.read_text(encoding="utf-8"))
    assert "canon.text.release" in [c["id"] for c in document["checks"]]
    assert "PASS" in capsys.readouterr().out  # the summary still goes to the terminal
    for spelling in (["--json", "-"], ["--json"]):
        assert main(["check", *selection, *spelling]) == 0
        assert json.loads(capsys.readouterr().out)["passed"] is True
