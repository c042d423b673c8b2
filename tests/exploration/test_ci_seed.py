"""CI runs are derandomized by convention: with ``CI`` set (as every CI service sets it),
Hypothesis loads its ``ci`` profile and ``rescind check`` explores from the fixed seed, run
after run; outside CI each run draws a fresh seed and prints it."""

from __future__ import annotations

import os
import re
from pathlib import Path

from rescind.conformance.explore.sharding import FIXED_SEED
from tests.cli_process import run_rescind

SEED = re.compile(r"^rescind: exploration seed (\d+) \(--seed \1 reproduces\)$", re.MULTILINE)


def _seed(scratch: Path, **extra: str) -> int:
    # A clean environment: no CI marker and no HYPOTHESIS_PROFILE unless given here.
    environment = {"PATH": os.environ.get("PATH", ""), "HOME": str(scratch), **extra}
    environment["RESCIND_CACHE_DIR"] = str(scratch / "cache")
    completed = run_rescind(
        "check",
        *("--select", "explore.canonical-numbers", "--explore-steps", "1", "--no-model"),
        *("--example-db", "none", "--json"),
        cwd=scratch,
        env=environment,
    )
    assert completed.returncode == 0, completed.stderr[-2000:]
    found = SEED.findall(completed.stderr)
    assert len(found) == 1, completed.stderr[-2000:]
    return int(found[0])


def test_ci_runs_keep_one_seed(tmp_path: Path) -> None:
    assert _seed(tmp_path, CI="true") == _seed(tmp_path, CI="true") == FIXED_SEED


def test_runs_outside_ci_draw_fresh_printed_seeds(tmp_path: Path) -> None:
    seeds = {_seed(tmp_path), _seed(tmp_path)}
    assert len(seeds) == 2 and FIXED_SEED not in seeds
