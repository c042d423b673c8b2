"""Every deliberately broken driver fails, and the failing checks name the broken rule;
the unbroken reference passes everything."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from rescind.cli import main
from rescind.conformance.catalogue import all_checks
from rescind.conformance.driver import handle
from rescind.conformance.harness import InProcessDriver
from rescind.conformance.runner import RunReport, run_checks
from tests.cli_process import WIRE_ONLY, run_rescind
from tests.conformance.broken_drivers import BROKEN

EXPECTED_FAILURES = {
    "utf16-key-order": {"canon.object.probe.bmp-vs-astral", "canon.object.astral-vs-private-use"},
    "first-wins-duplicates": {"canon.object.probe.duplicate-key", "canon.object.duplicate-three"},
    "binary-float-numbers": {
        "canon.number.probe.one-point-zero-zero",
        "canon.number.probe.minus-zero",
        "explore.canonical-numbers",
    },
    "length-prefixed-worker-fingerprint": {"canon.json.probe.basic", "canon.text.release"},
    "widening-attenuation": {
        "grant.attenuate.widen-max-calls",
        "grant.attenuate.widen-max-compensations",
    },
    "second-compensation-key": {
        "journal.edge-34.compensation-duplicates",
        "journal.edge-35.compensation-mismatches",
    },
    "contradictory-terminal": {
        "journal.edge-18.failed-after-succeeded",
        "journal.edge-20.cancelled-and-failed",
    },
    "superseded-lease-writes": {
        "trace.fencing-superseded-after-conflict",
        "trace.two-recovering-writers",
        # a stale token among the faults of a fenced write (EP-24)
        "explore.storage-write-faults",
    },
    "reflected-frame-accepted": {"trace.reflection"},
    "reruns-adapter-on-existing": {"session.edge-42.two-writes-one-effect"},
    "skips-persistence-before-effect": {"session.edge-42.two-writes-one-effect"},
}
# The topics a broken rule may show up in; failures anywhere else mean a check is noisy.
# Ported upstream tests (topic splash-upstream-tests) cover the same protocol areas, so a
# protocol bug may also fail them; canonical input has no ported tests.
PORTS = "splash-upstream-tests"
EXPECTED_SOURCES = {
    # Both encoders ignore the profile, so explore.canonical-numbers-f64 catches them too.
    "utf16-key-order": {"canonical-input", "exploration"},
    "first-wins-duplicates": {"canonical-input", "exploration"},
    "binary-float-numbers": {"canonical-input", "exploration"},
    "length-prefixed-worker-fingerprint": {"canonical-input", "exploration"},
    "widening-attenuation": {"grants", PORTS},
    "second-compensation-key": {"journal-traces", "exploration", PORTS},
    "contradictory-terminal": {"journal-traces", "exploration", PORTS},
    "superseded-lease-writes": {"storage", "exploration", PORTS},
    "reflected-frame-accepted": {"frames", PORTS},
    "reruns-adapter-on-existing": {"session-scenarios", "exploration", PORTS},
    "skips-persistence-before-effect": {"session-scenarios", "exploration", PORTS},
}


# Under the ci profile exploration runs from the fixed seed 0, where 100 traces per area catch
# every broken driver below; deep runs (random seeds) keep the default budget.
EXPLORE_STEPS = 100 if os.environ.get("HYPOTHESIS_PROFILE", "ci") == "ci" else 200


def _run(handler, replays: Path) -> RunReport:  # type: ignore[no-untyped-def]
    start = lambda: InProcessDriver(handler)  # noqa: E731
    checks = all_checks(
        start, include_model=False, explore_steps=EXPLORE_STEPS, replay_directory=replays
    )
    return run_checks(checks, start)


def test_at_least_eight_broken_drivers() -> None:
    assert len(BROKEN) >= 8 and set(BROKEN) == set(EXPECTED_FAILURES)


def test_reference_passes(tmp_path: Path) -> None:
    report = _run(handle, tmp_path)
    assert report.exit_code() == 0, [r.check.id for r in report.results if r.failed]


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_broken_driver_fails_with_the_right_checks(name: str, tmp_path: Path) -> None:
    report = _run(BROKEN[name], tmp_path)
    failing = {result.check.id for result in report.results if result.failed}
    assert report.exit_code() == 1
    assert EXPECTED_FAILURES[name] <= failing, sorted(failing)[:10]
    sources = {result.check.source for result in report.results if result.failed}
    assert sources <= EXPECTED_SOURCES[name], sources
    if "explore.journal-authorizer" in EXPECTED_FAILURES[name]:
        (replay,) = tmp_path.glob("journal-*.json")  # the minimal trace, replayable
        assert main(["replay", str(replay)]) == 0  # the reference agrees with its expectation
        command = f"{sys.executable} -m tests.conformance.broken_drivers {name}"
        assert main(["replay", str(replay), "--impl", command]) == 1


def test_broken_driver_over_a_real_pipe() -> None:
    command = f"{sys.executable} -m tests.conformance.broken_drivers utf16-key-order"
    completed = run_rescind("check", *WIRE_ONLY, "--impl", command, "--json", "--select", "canon.")
    assert completed.returncode == 1, completed.stderr
    report = json.loads(completed.stdout)
    failed = {check["id"] for check in report["checks"] if check["status"] == "fail"}
    assert "canon.object.probe.bmp-vs-astral" in failed
