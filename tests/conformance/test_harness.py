"""The runner survives misbehaving drivers and names what each one did."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from rescind.conformance.harness import HarnessFailure, SubprocessDriver
from rescind.conformance.runner import run_checks
from tests.conformance.check_doubles import passing_check, probe_check

PRELUDE = """
import json, sys
def reply(request, **body):
    sys.stdout.write(json.dumps({"id": request["id"], **body}) + "\\n"); sys.stdout.flush()
HELLO = {"protocol": "rescind-driver/1", "capabilities": ["canonical"], "implementation": {"name": "broken", "version": "0"}}
count = 0
for line in sys.stdin:
    request = json.loads(line); count += 1
    if request["op"] == "hello":
        reply(request, ok=HELLO); continue
    if request["op"] == "bye":
        reply(request, ok={}); break
"""

BEHAVIOURS = {
    "garbage": "    sys.stdout.write('this is not json\\n'); sys.stdout.flush()",
    "exits": "    sys.exit(3)",
    "silent": "    import time; time.sleep(60)",
    "twice": "    reply(request, ok={}); reply(request, ok={})",
    "wrong_id": "    sys.stdout.write(json.dumps({'id': 999, 'ok': {}}) + '\\n'); sys.stdout.flush()",
    "malformed": "    reply(request, result='?')",
    "array": "    sys.stdout.write('[1, 2]\\n'); sys.stdout.flush()",
}
KINDS = {
    "garbage": "non_json_output",
    "exits": "crashed",
    "silent": "timeout",
    "twice": "duplicate_reply",
    "wrong_id": "unexpected_reply",
    "malformed": "malformed_reply",
    "array": "non_json_output",
}


def _driver(tmp_path: Path, behaviour: str) -> list[str]:
    script = tmp_path / f"{behaviour}.py"
    script.write_text(PRELUDE + BEHAVIOURS[behaviour] + "\n")
    return [sys.executable, str(script)]


@pytest.mark.parametrize("behaviour", sorted(BEHAVIOURS))
def test_each_misbehaviour_is_named(tmp_path: Path, behaviour: str) -> None:
    driver = SubprocessDriver(_driver(tmp_path, behaviour), timeout=1.0)
    with pytest.raises(HarnessFailure) as caught:
        driver.request("canonical.input", {"format": "json", "text": "{}"})
        driver.request("canonical.input", {"format": "json", "text": "{}"})
    assert caught.value.kind == KINDS[behaviour]
    driver.close()
    assert driver.process.poll() is not None  # never left running


def test_bad_handshake_is_named(tmp_path: Path) -> None:
    script = tmp_path / "old.py"
    script.write_text(
        textwrap.dedent("""
        import json, sys
        for line in sys.stdin:
            request = json.loads(line)
            print(json.dumps({"id": request["id"], "ok": {"protocol": "rescind-driver/0", "capabilities": []}}), flush=True)
    """)
    )
    with pytest.raises(HarnessFailure) as caught:
        SubprocessDriver([sys.executable, str(script)], timeout=2.0)
    assert caught.value.kind == "bad_handshake"


def test_missing_command_is_a_harness_failure() -> None:
    with pytest.raises(HarnessFailure) as caught:
        SubprocessDriver(["/nonexistent/driver"], timeout=1.0)
    assert caught.value.kind == "crashed"


def test_run_continues_after_a_crash_and_exits_2(tmp_path: Path) -> None:
    script = tmp_path / "flaky.py"
    script.write_text(
        PRELUDE + "    if count == 3:\n        sys.exit(1)\n    reply(request, ok={})\n"
    )
    report = run_checks(
        [probe_check(i) for i in range(6)],
        lambda: SubprocessDriver([sys.executable, str(script)], timeout=2.0),
    )
    statuses = [result.outcome.status for result in report.results]
    assert "error" in statuses and statuses.count("pass") >= 3
    assert report.exit_code() == 2
    assert any("crashed" in failure for failure in report.harness_failures)


def test_undeclared_capability_is_not_applicable(tmp_path: Path) -> None:
    check = passing_check("x", "journal")
    script = tmp_path / "ok.py"
    script.write_text(PRELUDE + "    reply(request, ok={})\n")
    report = run_checks(
        [check], lambda: SubprocessDriver([sys.executable, str(script)], timeout=2.0)
    )
    assert report.results[0].outcome.status == "not-applicable"
    assert report.exit_code() == 0
