"""The crash campaign (benchmarks/crash_campaign.py) on a small budget: real forked worker
processes over SQLite, killed with SIGKILL, then recovered."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "crash_campaign.py"
AFTER_INVERSE = 9
"""Crash point of a first life that dispatches and compensates: two journal writes and the
effect around each call, so the 10th point is just after the inverse effect."""


def load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("crash_campaign", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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
    verdict = campaign.run_schedule(profile, KillOnceAt(AFTER_INVERSE), max_crashes=1)
    assert verdict["crashes"] == 1 and verdict["inverse_effects"] == 1
    assert verdict["stuck"] is stuck
    assert verdict["stuck_state"] == ("pending" if stuck else None)
    assert verdict["duplicate_effects"] == verdict["second_inverses"] == 0
    assert verdict["lost_terminal_results"] == 0


def test_small_campaign_from_the_command_line() -> None:
    completed = subprocess.run(
        [sys.executable, str(SCRIPT), "--schedules", "12", "--seed", "5", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    report = json.loads(completed.stdout)
    assert report["seed"] == 5 and report["failures"] == []
    rows = {row["profile"]: row for row in report["profiles"]}
    assert set(rows) == {"splash-v5", "splash-v5+compensation-reconcile"}
    for row in rows.values():
        assert row["schedules"] == 12 and row["crashes"] > 0 and row["compensations"] > 0
        assert row["duplicate_effects"] == row["second_inverses"] == 0
        assert row["lost_terminal_results"] == 0
    assert rows["splash-v5+compensation-reconcile"]["stuck_compensations"] == 0
