"""Differential exploration throughput: trace steps per second, in process and over the pipe.

Targets (issues 5 and 13): at least 5,000 steps/s in process and 2,000 steps/s over the
driver pipe, both against the reference, for every explored area. A step is one trace step
executed by the implementation; every step is also executed by the reference to get the
expectation (for the closed-loop ledger and session generators, while drawing), so the
figures include both sides and Hypothesis' generation. One row per explored area and mode.

The verdict uses wall-clock steps/s, the best of ``--repeat`` runs (other processes on the
machine only ever slow a run down). Next to it: steps per CPU second (this process, plus the
driver process over the pipe), which says what the harness costs whatever the machine's
load, and the load average before and after, which says how shared the machine was.

    python benchmarks/exploration_throughput.py [--examples N] [--repeat R] [--area NAME] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from collections.abc import Callable

from rich.console import Console
from rich.table import Table

from rescind.conformance.driver import handle
from rescind.conformance.explore.areas import AREAS
from rescind.conformance.explore.engine import Area, explore
from rescind.conformance.harness import Driver, InProcessDriver, SubprocessDriver

TARGETS = {"in process": 5000.0, "over the pipe": 2000.0}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _once(make: Callable[[], Driver], area: Area, examples: int) -> dict[str, float]:
    cpu, children = time.process_time(), _children_cpu()
    driver = make()
    try:
        result = explore(driver, area, examples, seed=0)
    finally:
        driver.close()  # waits for a driver process, so its CPU time is counted below
    cpu = time.process_time() - cpu + _children_cpu() - children
    assert result.disagreement is None, "the reference disagreed with itself"
    return {
        "examples": result.examples,
        "steps": result.steps,
        "seconds": result.seconds,
        "cpu_seconds": cpu,
    }


def measure(examples: int, areas: list[Area], repeat: int = 1) -> dict[str, dict[str, object]]:
    results: dict[str, dict[str, object]] = {}
    pipe_command = [sys.executable, "-m", "rescind.conformance.driver"]
    makers: dict[str, Callable[[], Driver]] = {
        "in process": lambda: InProcessDriver(handle),
        "over the pipe": lambda: SubprocessDriver(pipe_command),
    }
    for area in areas:
        explore(InProcessDriver(handle), area, 20, seed=1)  # imports, caches
        for label, make in makers.items():
            runs = [_once(make, area, examples) for _ in range(max(repeat, 1))]
            best = min(runs, key=lambda run: run["seconds"])
            rate = best["steps"] / best["seconds"]
            results[f"{area.name} {label}"] = {
                "examples": int(best["examples"]),
                "steps": int(best["steps"]),
                "seconds": round(best["seconds"], 3),
                "steps_per_second": round(rate),
                "steps_per_cpu_second": round(best["steps"] / best["cpu_seconds"]),
                "runs": len(runs),
                "target": TARGETS[label],
                "met": rate >= TARGETS[label],
            }
    return results


def _load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=3, help="runs per row; the best counts")
    parser.add_argument("--area", action="append", choices=[a.name for a in AREAS])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    chosen = [a for a in AREAS if not args.area or a.name in args.area]
    load_before = _load()
    results = measure(args.examples, chosen, args.repeat)
    load_after = _load()
    missed = sorted(label for label, row in results.items() if not row["met"])
    if args.json:
        document = {
            "load_average_before": load_before,
            "load_average_after": load_after,
            "cpus": os.cpu_count(),
            "rows": results,
            "all_met": not missed,
        }
        print(json.dumps(document, indent=2))
        return 0
    table = Table(title="differential exploration (reference vs reference)")
    columns = ("area and mode", "traces", "steps", "seconds", "steps/s", "steps/CPU-s")
    for column in (*columns, "target", "met"):
        table.add_column(column)
    for label, row in results.items():
        table.add_row(
            label,
            str(row["examples"]),
            str(row["steps"]),
            f"{row['seconds']:.2f}",
            str(row["steps_per_second"]),
            str(row["steps_per_cpu_second"]),
            f"{row['target']:.0f}",
            "yes" if row["met"] else "NO",
        )
    console = Console()
    console.print(table)
    console.print(
        f"load average (1, 5, 15 min) before {load_before}, after {load_after}; "
        f"{os.cpu_count()} CPUs; best of {max(args.repeat, 1)} run(s) per row"
    )
    verdict = "every target met" if not missed else "targets missed: " + ", ".join(missed)
    console.print(f"verdict: {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
