"""The crash campaign (benchmarks/crash_campaign.py) on a small budget: real forked host and
worker processes over SQLite, one side killed with SIGKILL, then recovered."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.benchmark_scripts import load_benchmark

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "crash_campaign.py"
AFTER_INVERSE = 9
"""Crash point of a first worker life that dispatches and compensates: two journal writes and
the effect around each call, so the 10th point is just after the inverse effect."""
APPROVED_NOT_SENT, INVERSE_RAN_NOT_RECORDED, RECORDING_THE_OUTCOME = 8, 9, 10
"""Crash points of a first host life: two ledger writes for the operation, a dispatch (sealed,
reply) and its two writes, two for the compensation intent; then the compensation approved
and sealed but not sent, its reply received but not applied, and its outcome being written."""
UPSTREAM, EXTENSION = "splash-v5", "splash-v5+compensation-reconcile"


def load() -> ModuleType:
    return load_benchmark("crash_campaign")


class KillOnceAt:
    """An RNG stand-in: crash the first life at ``point``, never again."""

    def __init__(self, point: int) -> None:
        self.point, self.asked = point, 0

    def random(self) -> float:
        self.asked += 1
        return 0.0 if self.asked == 1 else 1.0

    def randrange(self, stop: int) -> int:
        assert self.point < stop
        return self.point


@pytest.mark.parametrize(
    ("profile", "stuck"), [("splash-v5", True), ("splash-v5+compensation-reconcile", False)]
)
def test_a_kill_after_the_inverse_effect(profile: str, stuck: bool) -> None:
    campaign = load()
    verdict = campaign.run_schedule(profile, KillOnceAt(AFTER_INVERSE), 1, "worker")
    assert verdict["crashes"] == 1 and verdict["inverse_effects"] == 1
    assert verdict["stuck"] is stuck
    assert verdict["stuck_state"] == ("pending" if stuck else None)
    assert verdict["duplicate_effects"] == verdict["second_inverses"] == 0
    assert verdict["lost_terminal_results"] == 0


@pytest.mark.parametrize(
    ("profile", "point", "approvals"),
    [
        # Never sent: both hosts must approve again and send it.
        (UPSTREAM, APPROVED_NOT_SENT, 2),
        (EXTENSION, APPROVED_NOT_SENT, 2),
        # Sent and run, outcome lost with the host: upstream resends under a new approval,
        # the extension asks without one (CR-10).
        (UPSTREAM, INVERSE_RAN_NOT_RECORDED, 2),
        (EXTENSION, INVERSE_RAN_NOT_RECORDED, 1),
        (UPSTREAM, RECORDING_THE_OUTCOME, 2),
        (EXTENSION, RECORDING_THE_OUTCOME, 1),
    ],
)
def test_a_host_killed_around_its_compensation_recovers(
    profile: str, point: int, approvals: int
) -> None:
    campaign = load()
    verdict = campaign.run_schedule(profile, KillOnceAt(point), 1, "host")
    where = {
        APPROVED_NOT_SENT: "sealed-not-sent",
        INVERSE_RAN_NOT_RECORDED: "reply-not-applied",
        RECORDING_THE_OUTCOME: "before-ledger-write",
    }[point]
    assert verdict["crash_points"] == {f"host:{where}": 1}
    assert verdict["crashes"] == 1 and verdict["host_lives"] == 2
    assert verdict["settled"] and not verdict["stuck"] and verdict["inverse_effects"] == 1
    assert verdict["approvals"] == approvals
    assert verdict["duplicate_effects"] == verdict["second_inverses"] == 0
    assert verdict["lost_terminal_results"] == 0 and verdict["host_errors"] == 0


def test_small_campaign_from_the_command_line() -> None:
    completed = subprocess.run(
        [sys.executable, str(SCRIPT), "--schedules", "4", "--seed", "5", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    report = json.loads(completed.stdout)
    assert report["seed"] == 5 and report["failures"] == []
    rows = {(row["side"], row["profile"]): row for row in report["rows"]}
    assert set(rows) == {(side, p) for side in ("worker", "host") for p in (UPSTREAM, EXTENSION)}
    for (side, _), row in rows.items():
        assert row["schedules"] == 4 and row["crashes"] > 0 and row["compensations"] > 0
        assert all(point.startswith(f"{side}:") for point in row["crash_points"])
        assert row["duplicate_effects"] == row["second_inverses"] == 0
        assert row["lost_terminal_results"] == 0 and row["host_errors"] == 0
    assert rows["worker", EXTENSION]["stuck_compensations"] == 0
    assert rows["host", EXTENSION]["stuck_compensations"] == 0
