"""Differential exploration throughput: trace steps per second, in process and over the pipe.

Targets (issue 5): at least 5,000 steps/s in process and 2,000 steps/s over the driver
pipe, both against the reference. A step is one trace step executed by the implementation;
every step is also executed by the reference to get the expectation (for the closed-loop
ledger and session generators, while drawing), so the figures include both sides and
Hypothesis' generation. One row per explored area and mode.

    python benchmarks/exploration_throughput.py [--examples N] [--area NAME] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys

from rich.console import Console
from rich.table import Table

from rescind.conformance.driver import handle
from rescind.conformance.explore_areas import AREAS
from rescind.conformance.explore_engine import Area, explore
from rescind.conformance.harness import InProcessDriver, SubprocessDriver

TARGETS = {"in process": 5000.0, "over the pipe": 2000.0}


def measure(examples: int, areas: list[Area]) -> dict[str, dict[str, float]]:
    results = {}
    pipe_command = [sys.executable, "-m", "rescind.conformance.driver"]
    for area in areas:
        explore(InProcessDriver(handle), area, 20, seed=1)  # imports, caches
        for label, make in (
            ("in process", lambda: InProcessDriver(handle)),
            ("over the pipe", lambda: SubprocessDriver(pipe_command)),
        ):
            driver = make()
            try:
                result = explore(driver, area, examples, seed=0)
            finally:
                driver.close()
            assert result.disagreement is None, "the reference disagreed with itself"
            rate = result.steps / result.seconds
            results[f"{area.name} {label}"] = {
                "examples": result.examples,
                "steps": result.steps,
                "seconds": round(result.seconds, 3),
                "steps_per_second": round(rate),
                "target": TARGETS[label],
                "met": rate >= TARGETS[label],
            }
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=500)
    parser.add_argument("--area", action="append", choices=[a.name for a in AREAS])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    chosen = [a for a in AREAS if not args.area or a.name in args.area]
    results = measure(args.examples, chosen)
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    table = Table(title="differential exploration (reference vs reference)")
    for column in ("area and mode", "traces", "steps", "seconds", "steps/s", "target", "met"):
        table.add_column(column)
    for label, row in results.items():
        table.add_row(
            label,
            str(row["examples"]),
            str(row["steps"]),
            f"{row['seconds']:.2f}",
            str(row["steps_per_second"]),
            f"{row['target']:.0f}",
            "yes" if row["met"] else "NO",
        )
    Console().print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
