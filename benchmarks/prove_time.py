"""How long ``rescind prove`` takes end to end (acceptance: at most 10 s on 2 cores).

Runs the real command in a fresh interpreter ``--runs`` times (imports and z3 start-up
included, as a spec author would see it; ``--no-cache``, so every proof is proven: cold and
warm cache are compared by ``check_time.py``), then prints the wall time of each run, the median,
the time per group (protocol invariants, saga, progress properties with their lassos) and the
slowest checks from the last run's JSON report. ``rescind prove`` exits 0 when every check is
proven or a documented finding. Exit code 1 when the median exceeds ``--budget`` seconds. Not
a test: timing belongs here, never in tests/.

    python benchmarks/prove_time.py --runs 5
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time


def run_once() -> tuple[float, dict[str, object]]:
    started = time.perf_counter()
    completed = subprocess.run(
        [sys.executable, "-m", "rescind", "prove", "--json", "--no-cache"],
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed = time.perf_counter() - started
    if completed.returncode != 0:
        sys.stderr.write(completed.stdout + completed.stderr)
        raise SystemExit(f"rescind prove exited {completed.returncode}")
    report: dict[str, object] = json.loads(completed.stdout)
    return elapsed, report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--budget", type=float, default=10.0)
    args = parser.parse_args()
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    walls: list[float] = []
    report: dict[str, object] = {}
    for number in range(1, args.runs + 1):
        wall, report = run_once()
        walls.append(wall)
        print(f"run {number}: {wall:.2f} s wall, {report['seconds']} s inside `prove`")
    rows = sorted(report["invariants"], key=lambda row: -row["seconds"])  # type: ignore[index]
    print(f"\ncores available: {cores}; checks: {len(rows)}")
    groups: dict[str, float] = {}
    for row in rows:
        groups[row["group"]] = groups.get(row["group"], 0.0) + row["seconds"]
    print("  by group: " + ", ".join(f"{name} {total:.2f} s" for name, total in groups.items()))
    statuses = sorted({row["status"] for row in rows})
    print(
        "  statuses: " + ", ".join(f"{s} {sum(r['status'] == s for r in rows)}" for s in statuses)
    )
    for row in rows[:8]:
        print(f"  {row['seconds']:>7.3f} s  {row['group']:<9} {row['name']}")
    median = statistics.median(walls)
    verdict = "within" if median <= args.budget else "OVER"
    print(f"\nmedian wall time {median:.2f} s: {verdict} the {args.budget:.0f} s budget")
    return 0 if median <= args.budget else 1


if __name__ == "__main__":
    raise SystemExit(main())
