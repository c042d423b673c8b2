"""``rescind check --deadline``: a slow but correct driver ends the run in bounded time, with
every report written, the checks it did not reach ``not-run`` and exit code 4.

The driver here answers every request 0.3 s late (the reference's answers, so nothing fails):
without a deadline the ~300 canonical checks alone would take about 90 s.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from xml.etree import ElementTree

from rescind.conformance.harness import SubprocessDriver
from rescind.conformance.runner import run_checks
from rescind.conformance.runner_check import Check, Outcome
from tests.cli_process import WIRE_ONLY, run_rescind
from tests.conformance.check_doubles import probe_check

SLOW = """
import json, sys, time
from rescind.conformance.driver import handle
for line in sys.stdin:
    message = json.loads(line)
    if message.get("op") not in ("hello", "bye"):
        time.sleep(0.3)
    sys.stdout.write(json.dumps(handle(message)) + "\\n"); sys.stdout.flush()
    if message.get("op") == "bye":
        break
"""


def _slow_driver(tmp_path: Path) -> str:
    script = tmp_path / "slow.py"
    script.write_text(SLOW)
    return f"{sys.executable} {script}"


def test_the_runner_stops_sending_at_the_deadline(tmp_path: Path) -> None:
    command = _slow_driver(tmp_path)
    started = time.monotonic()
    # Each check asks four times (1.2 s per check, 24 s for all): the deadline cuts the run
    # after a few checks, one of them mid-way. Generous margins: the machine may be loaded.
    report = run_checks(
        [probe_check(i, requests=4) for i in range(20)],
        lambda: SubprocessDriver(command, timeout=10.0),
        deadline=6.0,
    )
    assert time.monotonic() - started < 10.0
    statuses = [result.outcome.status for result in report.results]
    passed = statuses.count("pass")
    assert 1 <= passed <= 5 and statuses == ["pass"] * passed + ["not-run"] * (20 - passed)
    assert all(r.outcome.message == "deadline" for r in report.results[passed:])
    assert report.not_run == 20 - passed and report.exit_code() == 4
    assert not report.harness_failures  # the deadline is not the driver's fault


def test_a_failure_outranks_the_deadline(tmp_path: Path) -> None:
    def failing(_):  # type: ignore[no-untyped-def]
        return Outcome("fail", "no")

    checks = [Check("bad", "must", "CJ-1", "model", "probe", failing), *map(probe_check, range(30))]
    report = run_checks(
        checks, lambda: SubprocessDriver(_slow_driver(tmp_path), timeout=10.0), deadline=1.0
    )
    assert report.not_run > 0 and report.exit_code() == 1


def test_check_writes_every_report_and_exits_4(tmp_path: Path) -> None:
    out = {name: tmp_path / f"report.{name}" for name in ("json", "xml", "md", "html")}
    started = time.monotonic()
    completed = run_rescind(
        "check",
        *WIRE_ONLY,
        *("--impl", _slow_driver(tmp_path), "--deadline", "2"),
        *("--json", str(out["json"]), "--junit", str(out["xml"])),
        *("--markdown", str(out["md"]), "--html", str(out["html"])),
        timeout=60,
    )
    assert time.monotonic() - started < 20.0
    assert completed.returncode == 4, completed.stdout + completed.stderr
    first = completed.stdout.splitlines()[0]
    assert first.startswith("INCOMPLETE") and "checks not run" in first
    document = json.loads(out["json"].read_text())
    assert document["exitCode"] == 4 and document["notRun"] == document["counts"]["not-run"] > 0
    assert document["deadline"] == 2.0 and not document["passed"]
    skipped = ElementTree.parse(out["xml"]).getroot().iter("skipped")
    assert any(s.get("message") == "not-run: deadline" for s in skipped)
    assert "INCOMPLETE" in out["md"].read_text().splitlines()[0]
    assert 'id="not-run"' in out["html"].read_text()


def test_a_negative_deadline_is_a_usage_error() -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "rescind", "check", "--deadline", "nan"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 2 and "--deadline" in completed.stderr


def test_exploration_cut_by_the_deadline_is_not_run_not_an_error(tmp_path: Path) -> None:
    # Hypothesis wraps the deadline in its own FlakyFailure group: still ``not-run``.
    report = tmp_path / "report.json"
    completed = subprocess.run(
        [
            *(sys.executable, "-m", "rescind", "check", "--no-model", "--select", "explore"),
            *("--explore-steps", "50", "--example-db", "none", "--deadline", "2"),
            *("--impl", _slow_driver(tmp_path), "--json", str(report)),
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert completed.returncode == 4, completed.stdout + completed.stderr
    document = json.loads(report.read_text())
    assert not document["harnessFailures"]
    assert {check["status"] for check in document["checks"]} == {"not-run"}


def test_after_the_deadline_an_undeclared_capability_is_still_not_applicable() -> None:
    from rescind.conformance.driver import handle
    from rescind.conformance.harness import InProcessDriver

    undeclared = Check("other", "must", "CJ-1", "no-such-capability", "probe", probe_check(0).run)
    report = run_checks([probe_check(0), undeclared], lambda: InProcessDriver(handle), deadline=0.0)
    assert [r.outcome.status for r in report.results] == ["not-run", "not-applicable"]


def test_proofs_still_running_at_the_deadline_are_not_awaited(tmp_path: Path) -> None:
    # A cold cache: the proofs take tens of seconds in their worker processes. Before, the
    # run's reports came at the deadline but the process waited for every proof to end.
    started = time.monotonic()
    completed = subprocess.run(
        [
            *(sys.executable, "-m", "rescind", "check", "--explore-steps", "0", "--jobs", "2"),
            *("--impl", _slow_driver(tmp_path), "--deadline", "2"),
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        env={**os.environ, "RESCIND_CACHE_DIR": str(tmp_path / "cold")},
    )
    assert completed.returncode == 4, completed.stdout + completed.stderr
    assert time.monotonic() - started < 15.0
