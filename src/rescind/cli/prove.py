"""``rescind prove``: run every model check (or the named ones) and report each result.

Checks come from ``rescind.model.catalog.discover_checks`` (every ``rescind.model`` module with
a ``checks()`` function), so protocol, saga and progress checks show up side by side. Exit code
0 when every check selected is proven or a documented finding (an upstream hazard reproduced
by its named lasso), 1 when any is violated or unknown, 2 for an unknown name.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from typing import Any

from rich.console import Console, JustifyMethod
from rich.table import Table
from rich.text import Text

from rescind.cli import UsageError
from rescind.cli._options import add_cache_arguments
from rescind.conformance.harness.text import visible
from rescind.conformance.sources import proofs
from rescind.model.core.proof_check import PASSING, Check, CheckResult

MODEL_TEXT = 4096
"""Characters of one detail or counterexample line shown (the model's own are under 500)."""
_STYLE = {"proven": "green", "finding": "magenta", "violated": "bold red", "unknown": "yellow"}


def discover_checks() -> list[Check]:
    """The model's checks; imported when asked, since the proof modules load z3 and every
    other command would otherwise pay for it at start-up."""
    from rescind.model.catalog import discover_checks as every_check

    return every_check()


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "prove",
        help="prove the model's invariants and progress properties with z3 (table, "
        "counterexample traces, findings with their lassos)",
    )
    parser.add_argument(
        "--invariant",
        action="append",
        metavar="NAME",
        help="run only this check (repeatable); default: all",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help='print one JSON object {"invariants": [...], "seconds": total}',
    )
    add_cache_arguments(parser)
    parser.set_defaults(handler=_prove)


def cache_of(args: argparse.Namespace) -> proofs.ProofCache | None:
    if args.no_cache:
        if args.cache:
            raise UsageError("--cache and --no-cache contradict each other")
        return None
    return proofs.ProofCache.open(read=args.cache or not os.environ.get("CI"))


def jobs_of(args: argparse.Namespace) -> int:
    if args.jobs is None:
        return proofs.available_cores()
    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    return int(args.jobs)


def select(found: Sequence[Check], names: Sequence[str] | None) -> list[Check]:
    if not names:
        return list(found)
    by_name = {check.name: check for check in found}
    unknown = [name for name in names if name not in by_name]
    if unknown:
        raise UsageError(f"no check named {', '.join(unknown)} (run `rescind prove` to list them)")
    return [by_name[name] for name in dict.fromkeys(names)]


def run_check(check: Check) -> CheckResult:
    """Run one check; a check that crashes is reported as unknown, never as proven."""
    return proofs.run_check(check)


def _prove(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    selected = select(discover_checks(), args.invariant)
    cache = cache_of(args)
    ran = proofs.run_all(selected, cache=cache, jobs=jobs_of(args))
    results = [(check, proved.result) for check, proved in ran]
    cached = {check.name for check, proved in ran if proved.cached}
    total = time.perf_counter() - started
    notes = proofs.cache_notes(cache, len(cached), len(results))
    for note in notes:
        print(f"rescind: {visible(note)}", file=sys.stderr)
    if args.json:
        print(json.dumps({**as_json(results, total, cached), "fromCache": len(cached)}, indent=2))
    else:
        _print_report(results, total, cached)
    return 0 if all(result.status in PASSING for _, result in results) else 1


def as_json(
    results: Sequence[tuple[Check, CheckResult]],
    total: float,
    cached: frozenset[str] | set[str] = frozenset(),
) -> dict[str, Any]:
    return {
        "invariants": [
            {
                "name": check.name,
                "group": check.group,
                "statement": check.statement,
                "rule": check.rule,
                "status": result.status,
                "seconds": round(result.seconds, 4),
                "counterexample": list(result.counterexample),
                "detail": result.detail,
                "finding": result.finding,
                "cached": check.name in cached,
            }
            for check, result in results
        ],
        "seconds": round(total, 4),
    }


def _print_report(
    results: Sequence[tuple[Check, CheckResult]],
    total: float,
    cached: frozenset[str] | set[str] = frozenset(),
) -> None:
    console = Console(file=sys.stdout, highlight=False, soft_wrap=True)
    table = Table(title="rescind prove", show_lines=False)
    columns: tuple[tuple[str, JustifyMethod], ...] = (
        ("group", "left"),
        ("invariant", "left"),
        ("rule", "left"),
        ("status", "left"),
        ("seconds", "right"),
    )
    for column, justify in columns:
        table.add_column(column, justify=justify)
    for check, result in results:
        status = Text(result.status, style=_STYLE[result.status])
        seconds = f"{result.seconds:.2f}" + (" cached" if check.name in cached else "")
        table.add_row(check.group, check.name, check.rule, status, seconds)
    console.print(table)
    notes = [(check, result) for check, result in results if result.status == "proven"]
    notes = [(check, result) for check, result in notes if result.detail]
    if notes:
        # Proven checks can still have something to say: e.g. the documented exceptions
        # (CaseHub's COMPLETED -> COMPENSATING) that a rule admits, by name.
        console.print("\nnotes", markup=False)
        for check, result in notes:
            console.print(Text(f"  {check.name}: {visible(result.detail, limit=MODEL_TEXT)}"))
    for check, result in results:
        if result.status == "proven":
            continue
        # Result text is never read as Rich markup and shown visible (escapes written out).
        label = (
            (" ", ("finding " + visible(result.finding, limit=MODEL_TEXT), "magenta"))
            if result.status == "finding"
            else ("",)
        )
        console.print(
            Text.assemble("\n", (check.name, "bold"), f" ({check.rule})", *label, ": ")
            + Text(check.statement)
        )
        if result.detail:
            console.print(Text(f"  {visible(result.detail, limit=MODEL_TEXT)}"))
        for line in result.counterexample:
            console.print(Text(f"  {visible(line, limit=MODEL_TEXT)}"))
    counts = {status: 0 for status in _STYLE}
    for _, result in results:
        counts[result.status] += 1
    summary = ", ".join(f"{count} {status}" for status, count in counts.items())
    reused = f" ({len(cached)} read from the cache; --no-cache proves them again)"
    console.print(f"\n{len(results)} checks: {summary}; {total:.2f} s total{reused}", markup=False)
