"""Exploration of the reference in worker processes (``rescind check --jobs N``) explores
exactly the traces the runner's own process would, and falls back when a worker fails."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from rescind.cli import main
from rescind.conformance.explore.areas import AREAS
from rescind.conformance.runner_check import Check, Outcome
from rescind.conformance.sources import parallel as parallel_explore


def _explored(
    jobs: int, capsys: pytest.CaptureFixture[str], replays: Path
) -> list[tuple[str, str]]:
    args = ["check", "--json", "--no-model", "--seed", "5", "--example-db", "none"]
    args += ["--explore-steps", "8", "--select", "explore", "--replay-dir", str(replays)]
    assert main([*args, "--jobs", str(jobs)]) == 0
    rows = json.loads(capsys.readouterr().out)["checks"]
    # The rate (steps/s) is a timing; everything else must be the same.
    return [(row["id"], re.sub(r", \d+ steps/s", "", row["message"])) for row in rows]


def test_workers_explore_what_the_runner_would(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    alone = _explored(1, capsys, tmp_path)
    assert len(alone) == len(AREAS) and all("8 traces" in message for _, message in alone)
    assert _explored(2, capsys, tmp_path) == alone


def test_a_failed_worker_explores_here(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []

    def here(_: object) -> Outcome:
        calls.append("here")
        return Outcome("pass", "explored here")

    check = Check("explore.x", "must", "HL-1", "ledger", "exploration", here)
    other = Check("canon.x", "must", "CJ-1", "canonical", "canonical-input", here)
    options = parallel_explore.ExploreOptions(1, "replays", 0, None, "none")
    explorer = parallel_explore.ParallelExploration(options, 1)
    try:
        wrapped = explorer.wrap([other, check])
        assert wrapped[0] is other
        # The worker knows no area "explore.x": it fails, and the check runs here.
        assert wrapped[1].run(None).message == "explored here"  # type: ignore[arg-type]
    finally:
        explorer.close()
    assert calls == ["here"]
