"""How long the main job takes end to end: ``rescind check`` and ``rescind prove``, with a cold
and a warm proof cache (goals: check <= 8 s wall with the model on, prove <= 10 s median).

Each run is the real command in a fresh interpreter (imports, z3 start-up and worker
processes included). ``cold``: a new, empty ``RESCIND_CACHE_DIR`` for every run, so every
proof is proven; ``warm``: one cache directory filled by an untimed run first. Runs of the
commands and modes alternate, so a change in the machine's load hits all of them alike. The
machine may be shared: every run prints the 1-minute load average before and after it, and
the summary gives the medians with the mean load.

The cache is found through the environment only, so the script also times a revision that
has no cache (there cold and warm are the same thing): check out the older commit, run this
file from a copy outside the repository, compare.

    python benchmarks/check_time.py --runs 5
    python benchmarks/check_time.py --runs 3 --commands check --modes cold --jobs 1

Not a test: timing belongs here, never in tests/.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import attrs

COMMANDS = {
    "check": ["check", "--seed", "0", "--example-db", "none"],
    "prove": ["prove", "--json"],
}
GOALS = {"check": 8.0, "prove": 10.0}


@attrs.frozen
class Run:
    command: str
    mode: str
    wall: float
    load_before: float
    load_after: float


def timed(command: str, mode: str, cache: Path, extra: list[str]) -> Run:
    environment = {**os.environ, "RESCIND_CACHE_DIR": str(cache)}
    before = os.getloadavg()[0]
    started = time.perf_counter()
    completed = subprocess.run(
        [sys.executable, "-m", "rescind", *COMMANDS[command], *extra],
        capture_output=True,
        text=True,
        env=environment,
        check=False,
    )
    wall = time.perf_counter() - started
    if completed.returncode != 0:
        sys.stderr.write(completed.stdout[-2000:] + completed.stderr[-2000:])
        raise SystemExit(f"rescind {command} exited {completed.returncode}")
    return Run(command, mode, wall, before, os.getloadavg()[0])


def summary(runs: list[Run]) -> list[str]:
    lines = []
    for key in dict.fromkeys((run.command, run.mode) for run in runs):
        chosen = [run for run in runs if (run.command, run.mode) == key]
        median = statistics.median(run.wall for run in chosen)
        load = statistics.mean((run.load_before + run.load_after) / 2 for run in chosen)
        goal = GOALS[key[0]]
        verdict = "within" if median <= goal else "OVER"
        lines.append(
            f"{key[0]:<6} {key[1]:<5} median {median:6.2f} s over {len(chosen)} runs "
            f"(min {min(r.wall for r in chosen):.2f}, max {max(r.wall for r in chosen):.2f}); "
            f"mean load {load:.2f}; {verdict} the {goal:.0f} s goal"
        )
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--commands", default="check,prove", help="check, prove or both")
    parser.add_argument("--modes", default="cold,warm", help="cold, warm or both")
    parser.add_argument("--jobs", type=int, default=None, help="passed on as --jobs N")
    args = parser.parse_args()
    commands = [c for c in args.commands.split(",") if c]
    modes = [m for m in args.modes.split(",") if m]
    extra = [] if args.jobs is None else ["--jobs", str(args.jobs)]
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"cores available: {cores}; python {sys.version.split()[0]}; extra args {extra}")
    runs: list[Run] = []
    with tempfile.TemporaryDirectory(prefix="rescind-bench-") as scratch:
        warm = Path(scratch) / "warm"
        if "warm" in modes:
            for command in commands:
                timed(command, "fill", warm, extra)  # untimed: fills the warm cache
        for number in range(1, args.runs + 1):
            for command in commands:
                for mode in modes:
                    cache = warm if mode == "warm" else Path(scratch) / f"cold-{number}-{command}"
                    run = timed(command, mode, cache, extra)
                    runs.append(run)
                    print(
                        f"run {number}: {command:<6} {mode:<5} {run.wall:6.2f} s wall, "
                        f"load {run.load_before:.2f} -> {run.load_after:.2f}",
                        flush=True,
                    )
    print()
    for line in summary(runs):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
