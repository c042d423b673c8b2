"""``rescind check``: the main job. Runs every check against the built-in reference, or
against an external implementation's driver with ``--impl "COMMAND"``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from rescind.cli import UsageError
from rescind.cli import _scale_out as scale_out
from rescind.conformance import report as reports
from rescind.conformance import report_html
from rescind.conformance.catalogue import all_checks
from rescind.conformance.checks import Check, Outcome
from rescind.conformance.driver import handle
from rescind.conformance.harness import DEFAULT_TIMEOUT, InProcessDriver, SubprocessDriver
from rescind.conformance.report_merge import plan_section, run_section
from rescind.conformance.runner import RunReport, run_checks
from rescind.conformance.sharding import Shard


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "check",
        help="run the conformance suite (default: against the built-in reference)",
        description=(
            "Runs the golden vectors, the scenario catalogue, differential exploration and the "
            "model proofs. Exit code 0: every required check passed; 1: a failure; 2: a usage "
            "or driver-protocol (harness) error."
        ),
    )
    parser.add_argument("--impl", metavar="COMMAND", help="an implementation's driver command")
    parser.add_argument(
        "--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds to wait for each reply"
    )
    parser.add_argument("--json", action="store_true", help="print the report as one JSON object")
    parser.add_argument("--junit", type=Path, metavar="FILE", help="write a JUnit XML report")
    parser.add_argument("--markdown", type=Path, metavar="FILE", help="write a Markdown report")
    parser.add_argument(
        "--html", type=Path, metavar="FILE", help="write a self-contained HTML report (no network)"
    )
    parser.add_argument(
        "--expect-fail",
        type=Path,
        metavar="FILE",
        help="check ids expected to fail (known gaps); a fresh list is written to FILE.new",
    )
    parser.add_argument(
        "--select",
        action="append",
        default=[],
        metavar="PREFIX",
        help="only check ids/sources with this prefix",
    )
    parser.add_argument(
        "--provenance",
        metavar="KIND[,KIND]",
        help=(
            "only vector checks whose expectation has one of these provenance kinds ("
            + ", ".join(reports.PROVENANCE_LABELS[:-1])
            + "); list "
            + reports.NOT_A_VECTOR
            + " to keep the model proofs, refinement and exploration as well"
        ),
    )
    parser.add_argument(
        "--explore-steps",
        type=int,
        default=None,
        metavar="N",
        help="differential exploration budget (call sequences); 0 disables it",
    )
    parser.add_argument(
        "--replay-dir",
        type=Path,
        default=Path("rescind-replays"),
        metavar="DIR",
        help="where exploration saves minimal disagreements (default: rescind-replays)",
    )
    parser.add_argument("--no-model", action="store_true", help="skip the model proofs")
    scale_out.add_arguments(parser)
    parser.set_defaults(handler=run)


def _factory(args: argparse.Namespace) -> Any:
    if args.impl:
        command = args.impl
        timeout = args.timeout
        return lambda: SubprocessDriver(command, timeout=timeout)
    return lambda: InProcessDriver(handle)


def _selected(checks: list[Check], prefixes: list[str]) -> list[Check]:
    if not prefixes:
        return checks
    return [
        c for c in checks if any(c.id.startswith(p) or c.source.startswith(p) for p in prefixes)
    ]


def _provenance_filter(text: str | None) -> frozenset[str] | None:
    if text is None:
        return None
    kinds = frozenset(part.strip() for part in text.split(",") if part.strip())
    unknown = sorted(kinds - set(reports.PROVENANCE_LABELS))
    if not kinds or unknown:
        raise UsageError(f"--provenance takes {', '.join(reports.PROVENANCE_LABELS)}; got {text!r}")
    return kinds


def _by_provenance(checks: list[Check], kinds: frozenset[str] | None) -> list[Check]:
    if kinds is None:
        return checks
    return [check for check in checks if reports.provenance_of(check) in kinds]


def run(args: argparse.Namespace) -> int:
    if args.timeout <= 0:
        raise UsageError("--timeout must be positive")
    expected: list[str] = []
    if args.expect_fail is not None:
        if not args.expect_fail.is_file():
            raise UsageError(f"expected-failures file {args.expect_fail} does not exist")
        expected = reports.read_expected_failures(args.expect_fail)
    kinds = _provenance_filter(args.provenance)
    start = _factory(args)
    scale = scale_out.options(args)

    def chosen(shard: Shard | None) -> list[Check]:
        every = all_checks(
            start,
            include_model=not args.no_model,
            explore_steps=args.explore_steps,
            replay_directory=args.replay_dir,
            seed=scale.seed,
            shard=shard,
            example_db=scale.example_db,
        )
        return _by_provenance(_selected(every, args.select), kinds)

    checks = chosen(scale.shard)
    plan = plan_section(c.id for c in (chosen(None) if scale.shard else checks))
    scale_out.announce(scale)
    if not checks:
        raise UsageError("no check matches the selection")
    console = Console(stderr=True)
    with Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
        disable=args.json or not console.is_terminal,
    ) as progress:
        task = progress.add_task("checking", total=len(checks))

        def advance(check: Check, _: Outcome) -> None:
            progress.update(task, advance=1, description=check.source)

        result = run_checks(checks, start, expected_failures=expected, progress=advance)
    args.run_section = run_section(scale.seed, scale.shard, plan)
    _write_outputs(result, args)
    return result.exit_code()


def _write_outputs(result: RunReport, args: argparse.Namespace) -> None:
    if args.junit:
        reports.write_junit(result, args.junit)
    if args.markdown:
        args.markdown.write_text(reports.to_markdown(result), encoding="utf-8")
    if args.html:
        report_html.write_html(result, args.html)
    if args.expect_fail is not None:
        fresh = args.expect_fail.with_name(args.expect_fail.name + ".new")
        fresh.write_text(reports.expected_failures_text(result), encoding="utf-8")
    if args.json:
        print(json.dumps({**reports.to_json(result), "run": args.run_section}, indent=2))
        return
    _print_summary(result)


def _print_summary(result: RunReport) -> None:
    console = Console()
    table = Table(title=f"Rescind conformance: {result.implementation} {result.version}")
    for column in ("source", "checks", "pass", "fail", "error", "n/a", "unsupported", "other"):
        table.add_column(column, justify="right" if column != "source" else "left")
    by_source: dict[str, dict[str, int]] = {}
    for item in result.results:
        row = by_source.setdefault(item.check.source, {})
        row[item.outcome.status] = row.get(item.outcome.status, 0) + 1
    for source, row in sorted(by_source.items()):
        other = sum(
            v
            for k, v in row.items()
            if k not in ("pass", "fail", "error", "not-applicable", "unsupported")
        )
        table.add_row(
            source,
            str(sum(row.values())),
            str(row.get("pass", 0)),
            str(row.get("fail", 0)),
            str(row.get("error", 0)),
            str(row.get("not-applicable", 0)),
            str(row.get("unsupported", 0)),
            str(other),
        )
    console.print(table)
    console.print(_provenance_table(result))
    for item in result.results:
        if item.outcome.status in ("fail", "error") and item.check.tier == "must":
            console.print(
                f"[red]FAIL[/red] {item.check.id} ({item.check.rule}): {item.outcome.message}"
            )
    for failure in result.harness_failures:
        console.print(f"[red]driver protocol failure[/red] {failure}")
    verdict = {0: "[green]PASS[/green]", 1: "[red]FAIL[/red]", 2: "[red]HARNESS ERROR[/red]"}
    counts = ", ".join(f"{count} {status}" for status, count in sorted(result.counts().items()))
    console.print(
        f"{verdict[result.exit_code()]}  {len(result.results)} checks: {counts} "
        f"in {result.seconds:.1f} s"
    )
    sys.stdout.flush()


def _provenance_table(result: RunReport) -> Table:
    table = Table(title="By provenance of the expectation")
    table.add_column("provenance")
    for column in ("pass", "fail", "n/a", "unsupported", "other"):
        table.add_column(column, justify="right")
    for label, row in reports.counts_by_provenance(result).items():
        table.add_row(
            label,
            str(row["pass"]),
            str(row["fail"]),
            str(row["not-applicable"]),
            str(row["unsupported"]),
            str(row.get("other", 0)),
        )
    return table
