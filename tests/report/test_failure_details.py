"""Failures say what is wrong (issue 20, part 2): the terminal, Markdown, JUnit and the pytest
plugin show each failure's vector file, the input sent and bounded expected/actual values,
and failures with one difference shape are one grouped cause naming the likely rule."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest

from rescind.cli import main
from rescind.conformance.harness import InProcessDriver
from rescind.conformance.report import run as report
from rescind.conformance.runner import run_checks
from rescind.conformance.vectors.checks import vector_checks
from tests.report.reversed_keys_driver import handle

ROOT = Path(__file__).resolve().parents[2]
SELECT = ["--no-model", "--explore-steps", "0", "--select", "canonical-input"]


def _has_unordered_members(node: Any) -> bool:
    """True when some object holds two or more members: reversing key order changes it."""
    if isinstance(node, dict):
        return len(node) > 1 or any(_has_unordered_members(value) for value in node.values())
    if isinstance(node, list):
        return any(_has_unordered_members(item) for item in node)
    return False


def _key_order_sensitive() -> int:
    """How many normative canonical-input vectors a reversed key order must break, read
    from the vector file alone (not from the checks under test)."""
    document = json.loads((ROOT / "vectors" / "canonical-input.json").read_text("utf-8"))
    return sum(
        1
        for group in document["testGroups"]
        for test in group["tests"]
        if test.get("profile", "splash-v5") == "splash-v5"
        and "canonicalJson" in test["expected"]
        and _has_unordered_members(
            json.loads(test["expected"]["canonicalJson"], parse_int=str, parse_float=str)
        )
    )


def test_a_reversed_key_order_is_one_grouped_cause() -> None:
    checks = [check for check in vector_checks() if check.source == "canonical-input"]
    run = run_checks(checks, lambda: InProcessDriver(handle))
    failed = [result for result in run.results if result.failed]
    expected = _key_order_sensitive()
    assert len(failed) == expected > 1 and len({r.check.rule for r in failed}) > 1
    (group,) = report.failure_groups(run)
    assert len(group.results) == expected
    # The likely rule is the one nearly all of whose checks fail this way: key order.
    assert group.rule == "CJ-13" and group.rule_failed * 2 > group.rule_total


def test_terminal_markdown_and_junit_show_values_vector_and_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    command = f"{sys.executable} -m tests.report.reversed_keys_driver"
    markdown, junit = tmp_path / "r.md", tmp_path / "r.xml"
    code = main(
        ["check", *SELECT, "--impl", command, "--markdown", str(markdown), "--junit", str(junit)]
    )
    assert code == 1
    out = capsys.readouterr().out
    causes = [line for line in out.splitlines() if line.startswith("CAUSE")]
    expected = _key_order_sensitive()
    assert len(causes) == 1
    assert causes[0].startswith(f"CAUSE {expected} failures share one difference")
    flat = " ".join(out.split())
    assert "likely rule CJ-13" in flat
    assert "vector: vectors/canonical-input.json, test canon." in flat
    assert re.search(r"input: \{\"format\":\"json\",\"text\":", flat)
    assert re.search(r"at /canonicalJson: expected \"\{.*\", actual \"\{", flat)
    # Only the grouped cause's example is printed whole; the others are listed by id.
    assert len(re.findall(r"^FAIL canon\.", out, re.M)) == 1
    text = markdown.read_text(encoding="utf-8")
    assert "## Failure details" in text
    assert f"{expected} failures share one difference" in text
    rows = [line for line in text.splitlines() if line.startswith("| `canon.")]
    assert text.count("vector: vectors/canonical-input.json") == len(rows) >= expected
    assert "at /canonicalJson: expected" in text
    failures = ElementTree.parse(junit).getroot().iter("failure")
    bodies = [failure.text or "" for failure in failures]
    assert len(bodies) == expected
    assert all("input: {" in body and "expected" in body and "actual" in body for body in bodies)


def test_pytest_plugin_failure_shows_values_vector_and_input(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        my_adapter="from tests.report.reversed_keys_driver import handle as reversed_keys\n"
    )
    pytester.syspathinsert(str(ROOT))
    pytester.syspathinsert()
    result = pytester.runpytest(
        "--rescind-adapter",
        "my_adapter:reversed_keys",
        "--rescind-select",
        "canon.object.nested-sort",
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*canon.object.nested-sort (CJ-*): /canonicalJson differs*",
            "*vector: vectors/canonical-input.json, test canon.object.nested-sort*",
            "*input: {*",
            "*at /canonicalJson: expected *, actual *",
        ]
    )


CRASHING = """
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m["op"] == "hello":
        hello = {"protocol": "rescind-driver/1", "capabilities": ["canonical"],
                 "implementation": {"name": "crashy-impl", "version": "9.9"}}
        print(json.dumps({"id": m["id"], "ok": hello}), flush=True)
        continue
    sys.exit(3)
"""


def test_a_crash_keeps_the_name_and_is_reported_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "crashing.py"
    script.write_text(CRASHING, encoding="utf-8")
    markdown = tmp_path / "r.md"
    selection = ["--no-model", "--explore-steps", "0", "--select", "canon.text"]
    command = ["--impl", f"{sys.executable} {script}"]
    assert main(["check", *selection, *command, "--markdown", str(markdown)]) == 2
    out = capsys.readouterr().out
    assert "Rescind conformance: crashy-impl 9.9" in out
    flat = " ".join(out.split())
    assert flat.count("driver protocol failure") == 1
    assert "crashed: driver exited (code 3) while answering canonical.input (4 times:" in flat
    assert "FAIL canon." not in flat
    text = markdown.read_text(encoding="utf-8")
    assert text.startswith("# Rescind conformance: HARNESS ERROR crashy-impl 9.9")
    section = text.split("## Driver protocol failures", 1)[1].split("##", 1)[0]
    assert section.count("\n- ") == 1 and "4 times" in section
    assert main(["check", *selection, *command, "--json"]) == 2
    assert json.loads(capsys.readouterr().out)["implementation"]["name"] == "crashy-impl"
