"""``rescind check``: the main job. Runs every check against the built-in reference, or
against an external implementation's driver with ``--impl "COMMAND"``."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rescind.cli import UsageError
from rescind.cli import _options as options

# The suite, Rich and Hypothesis are imported by the functions that use them, so that
# ``rescind check --help`` and ``--list`` start without them (tests/cli/test_startup.py).
if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from rescind.conformance.runner import RunReport
    from rescind.conformance.runner_check import Check, Outcome

DEFAULT_DEADLINE = 2700.0
"""45 minutes: a run ends with its reports inside the common 60-minute CI job limit, with room
for set-up and the upload of the reports (docs/bounds.md)."""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "check",
        help="run the conformance suite (default: against the built-in reference)",
        description=(
            "Runs the golden vectors, the scenario catalogue, differential exploration and the "
            "model proofs. Exit code 0: every required check was answered and passed; 1: a "
            "failure; 2: a usage or driver-protocol (harness) error; 3: partial (nothing failed, "
            "but some claimed checks were not answered); 4: the --deadline passed before every "
            "check ran."
        ),
    )
    parser.add_argument("--impl", metavar="COMMAND", help="an implementation's driver command")
    parser.add_argument(
        "--timeout",
        type=float,
        default=options.DEFAULT_TIMEOUT,
        help="seconds to wait for each reply (default: %(default)s)",
    )
    parser.add_argument(
        "--deadline",
        type=float,
        default=DEFAULT_DEADLINE,
        metavar="SECONDS",
        help="stop sending once the run has lasted this long: unfinished checks are not-run, "
        "every report is written, exit code 4 (default: %(default)g s, inside a 60-minute CI "
        "job; 0: no deadline)",
    )
    parser.add_argument(
        "--json",
        nargs="?",
        const="-",
        metavar="FILE",
        help="write the report as one JSON object to FILE ('-' or no FILE: stdout, instead of "
        "the summary)",
    )
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
            + ", ".join(options.PROVENANCE_LABELS[:-1])
            + "); list "
            + options.PROVENANCE_LABELS[-1]
            + " to keep the model proofs, refinement and exploration as well"
        ),
    )
    parser.add_argument(
        "--explore-steps",
        type=int,
        default=None,
        metavar="N",
        help="differential exploration budget in traces, per vocabulary; 0 disables it "
        f"(default: {options.DEFAULT_EXPLORE_STEPS})",
    )
    parser.add_argument(
        "--replay-dir",
        type=Path,
        default=Path("rescind-replays"),
        metavar="DIR",
        help="where exploration saves minimal disagreements (default: rescind-replays)",
    )
    parser.add_argument(
        "--claim",
        action="append",
        default=[],
        choices=options.CLAIM_CLASSES,
        metavar="CLASS",
        help="run only the checks of this conformance class (and the classes it requires) and "
        "exit 0 only when it conforms: "
        + ", ".join(options.CLAIM_CLASSES)
        + " (docs/driver-protocol.md, 'Claims, classes and exit codes')",
    )
    parser.add_argument(
        "--accept-partial",
        action="store_true",
        help="exit 0 instead of 3 when nothing failed but some checks were not answered (the "
        "reports still say PARTIAL)",
    )
    parser.add_argument("--no-model", action="store_true", help="skip the model proofs")
    parser.add_argument(
        "--list",
        action="store_true",
        help="list the check ids (after --select, --provenance, --no-model and --shard) "
        "grouped by source, with capability, profile and provenance, and run nothing; with "
        "--json, one JSON object",
    )
    options.add_cache_arguments(parser)
    options.add_scale_out_arguments(parser)
    parser.set_defaults(handler=run)


def _factory(args: argparse.Namespace) -> Any:
    from rescind.conformance.driver import handle
    from rescind.conformance.harness import InProcessDriver, SubprocessDriver

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


def _claimed(checks: list[Check], classes: list[str]) -> list[Check]:
    """The checks of the classes asked for with ``--claim`` (no model proofs: a claim is about
    the implementation); every check without ``--claim``."""
    from rescind.conformance.report import claim

    if not classes:
        return checks
    capabilities = frozenset().union(*(claim.class_capabilities(name) for name in classes))
    return [check for check in checks if check.capability in capabilities]


def _provenance_filter(text: str | None) -> frozenset[str] | None:
    from rescind.conformance.report import run as reports

    if text is None:
        return None
    kinds = frozenset(part.strip() for part in text.split(",") if part.strip())
    unknown = sorted(kinds - set(reports.PROVENANCE_LABELS))
    if not kinds or unknown:
        raise UsageError(f"--provenance takes {', '.join(reports.PROVENANCE_LABELS)}; got {text!r}")
    return kinds


def _by_provenance(checks: list[Check], kinds: frozenset[str] | None) -> list[Check]:
    from rescind.conformance.report import run as reports

    if kinds is None:
        return checks
    return [check for check in checks if reports.provenance_of(check) in kinds]


def run(args: argparse.Namespace) -> int:
    if args.list:
        return _list(args, _provenance_filter(args.provenance))
    import attrs
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from rescind.cli import _scale_out as scale_out
    from rescind.cli import prove
    from rescind.conformance.catalogue import all_checks
    from rescind.conformance.explore import example_db
    from rescind.conformance.explore.sharding import Shard
    from rescind.conformance.report import claim
    from rescind.conformance.report import run as reports
    from rescind.conformance.report.merge import plan_section, run_section
    from rescind.conformance.runner import run_checks
    from rescind.conformance.sources.parallel import ExploreOptions, ParallelExploration
    from rescind.conformance.sources.proofs import ProofRunner

    if args.timeout <= 0:
        raise UsageError("--timeout must be positive")
    if not args.deadline >= 0:  # also refuses NaN
        raise UsageError("--deadline must be a number of seconds, 0 for none")
    deadline = args.deadline or None
    expected: list[str] = []
    if args.expect_fail is not None:
        if not args.expect_fail.is_file():
            raise UsageError(f"expected-failures file {args.expect_fail} does not exist")
        expected = reports.read_expected_failures(args.expect_fail)
    kinds = _provenance_filter(args.provenance)
    start = _factory(args)
    scale = scale_out.options(args)
    proofs = ProofRunner(prove.cache_of(args), prove.jobs_of(args))

    def chosen(shard: Shard | None) -> list[Check]:
        every = all_checks(
            start,
            include_model=not args.no_model,
            explore_steps=args.explore_steps,
            replay_directory=args.replay_dir,
            seed=scale.seed,
            shard=shard,
            example_db=scale.example_db,
            proofs=proofs,
        )
        return _by_provenance(_claimed(_selected(every, args.select), args.claim), kinds)

    checks = chosen(scale.shard)
    plan = plan_section(c.id for c in (chosen(None) if scale.shard else checks))
    scale_out.announce(scale)
    if not checks:
        raise UsageError("no check matches the selection")
    # The selected proofs start now, in worker processes, while the driver runs the rest;
    # so does exploration of the built-in reference (its areas share no driver).
    proofs.start(check.id for check in checks)
    jobs = prove.jobs_of(args)
    explorer = ParallelExploration(
        ExploreOptions(
            args.explore_steps, str(args.replay_dir), scale.seed, args.shard, args.example_db
        ),
        jobs if jobs > 1 and not args.impl else 0,
    )
    checks = explorer.wrap(checks)
    console = Console(stderr=True)
    with Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[ends]}"),
        console=console,
        transient=True,
        disable=args.json == "-" or not console.is_terminal,
    ) as progress:
        began = time.time()
        task = progress.add_task("checking", total=len(checks), ends=_ends(began, 0, 1, deadline))
        done = [0]

        def advance(check: Check, _: Outcome) -> None:
            done[0] += 1
            ends = _ends(began, done[0], len(checks), deadline)
            progress.update(task, advance=1, description=check.source, ends=ends)

        # The proofs run in worker processes: the driver's checks go first, so that the two
        # overlap; the report keeps the catalogue's order.
        ordered = sorted(checks, key=lambda check: check.capability == "model")
        result = run_checks(
            ordered, start, expected_failures=expected, progress=advance, deadline=deadline
        )
        place = {id(check): number for number, check in enumerate(checks)}
        in_order = sorted(result.results, key=lambda item: place[id(item.check)])
        result = attrs.evolve(result, results=tuple(in_order))
    if result.not_run:
        proofs.abandon()  # past the deadline: proofs still running are not awaited
    explorer.close()
    lost = example_db.lost(scale.example_db)
    if lost is not None:
        result = attrs.evolve(result, notes=(*result.notes, lost))
    result = attrs.evolve(result, notes=(*result.notes, *proofs.notes()))
    result = claim.held(result, args.claim, args.accept_partial)
    args.run_section = run_section(scale.seed, scale.shard, plan)
    _write_outputs(result, args)
    return result.exit_code()


def _list(args: argparse.Namespace, kinds: frozenset[str] | None) -> int:
    """``--list``: the checks a run with these options would hold, without running any (the
    driver is never started, the model is never proven)."""
    from rescind.conformance.catalogue import all_checks
    from rescind.conformance.explore.sharding import Shard
    from rescind.conformance.report import listing as check_list

    # Not scale_out.options: listing opens no example database and announces no seed.
    try:
        shard = Shard.parse(args.shard) if args.shard is not None else None
    except ValueError as error:
        raise UsageError(f"--shard: {error}") from error
    checks = _by_provenance(
        _selected(
            all_checks(
                _factory(args),
                include_model=not args.no_model,
                explore_steps=args.explore_steps,
                replay_directory=args.replay_dir,
                seed=args.seed,
                shard=shard,
            ),
            args.select,
        ),
        kinds,
    )
    if not checks:
        raise UsageError("no check matches the selection")
    if args.json is None:
        sys.stdout.write(check_list.as_text(checks))
        return 0
    text = json.dumps(check_list.as_json(checks), indent=2)
    if args.json == "-":
        print(text)
    else:
        Path(args.json).write_text(text + "\n", encoding="utf-8")
    return 0


def _ends(began: float, done: int, total: int, deadline: float | None) -> str:
    """The estimated end (wall clock) from the pace so far, and the deadline's end."""
    parts = []
    if done:
        estimate = began + (time.time() - began) * total / done
        parts.append(f"ends ~{time.strftime('%H:%M:%S', time.localtime(estimate))}")
    if deadline is not None:
        parts.append(f"deadline {time.strftime('%H:%M:%S', time.localtime(began + deadline))}")
    return ", ".join(parts)


def _write_outputs(result: RunReport, args: argparse.Namespace) -> None:
    from rescind.conformance.report import run as reports
    from rescind.conformance.report.files import write_files

    write_files(result, junit=args.junit, markdown=args.markdown, html=args.html)
    if args.expect_fail is not None:
        fresh = args.expect_fail.with_name(args.expect_fail.name + ".new")
        fresh.write_text(reports.expected_failures_text(result), encoding="utf-8")
    if args.json is not None:
        text = json.dumps({**reports.to_json(result), "run": args.run_section}, indent=2)
        if args.json == "-":
            print(text)
            return
        Path(args.json).write_text(text + "\n", encoding="utf-8")
    _print_summary(result)


def _plain(text: object) -> Text:
    """Driver text for the terminal: visible (no control sequence reaches it) and never read
    as Rich markup."""
    from rich.text import Text

    from rescind.conformance.harness.text import visible

    return Text(visible(text))


LOG_WIDTH = 1_000
"""Columns of the summary when stdout is not a terminal (a pipe, a file, a CI log): wide
enough that no source name is cut; a table takes only the width its cells need."""


def _summary_console() -> Console:
    """On a terminal, its width; elsewhere Rich would assume 80 columns and cut the source
    names (``compensation-rec…``), so logs get ``LOG_WIDTH``."""
    from rich.console import Console

    console = Console()
    return console if console.is_terminal else Console(width=LOG_WIDTH)


def _print_summary(result: RunReport) -> None:
    from rich.table import Table
    from rich.text import Text

    from rescind.conformance.report import claim
    from rescind.conformance.report import run as reports

    console = _summary_console()
    stated = claim.claim_of(result)
    console.print(_plain(claim.headline(stated)), soft_wrap=True)
    for line in claim.detail_lines(stated):
        console.print(_plain(f"  {line}"), soft_wrap=True)
    if result.not_run:
        console.print(
            Text.assemble(("INCOMPLETE", "red"), " ", _plain(reports.not_run_line(result)))
        )
    table = Table(title=_plain(f"Rescind conformance: {result.implementation} {result.version}"))
    columns = ("source", "checks", "pass", "fail", "error", "n/a", "unsupported", "restricted")
    for column in (*columns, "other"):
        table.add_column(column, justify="right" if column != "source" else "left")
    by_source: dict[str, dict[str, int]] = {}
    for item in result.results:
        row = by_source.setdefault(item.check.source, {})
        row[item.outcome.status] = row.get(item.outcome.status, 0) + 1
    for source, row in sorted(by_source.items()):
        other = sum(
            v
            for k, v in row.items()
            if k not in ("pass", "fail", "error", "not-applicable", "unsupported", "restricted")
        )
        table.add_row(
            _plain(source),
            str(sum(row.values())),
            str(row.get("pass", 0)),
            str(row.get("fail", 0)),
            str(row.get("error", 0)),
            str(row.get("not-applicable", 0)),
            str(row.get("unsupported", 0)),
            str(row.get("restricted", 0)),
            str(other),
        )
    console.print(table)
    console.print(_provenance_table(result))
    _print_failures(console, result)
    for failure in reports.harness_summary(result):
        console.print(Text.assemble(("driver protocol failure", "red"), " ", _plain(failure)))
    for note in result.notes:
        console.print(Text.assemble(("note", "yellow"), " ", _plain(note)))
    counts = ", ".join(f"{count} {status}" for status, count in sorted(result.counts().items()))
    colour = "green" if result.exit_code() == 0 else "red"
    console.print(
        Text.assemble(
            (stated.verdict, colour),
            f"  {len(result.results)} checks: {counts} in {result.seconds:.1f} s",
        )
    )
    sys.stdout.flush()


GROUP_IDS = 8
"""Check ids a grouped cause lists on the terminal (every id is in the other reports)."""


def _print_failures(console: Console, result: RunReport) -> None:
    """Grouped causes first (one example with its values, then the other ids), then every
    other failing must check with its vector, input and values. Checks that errored because
    the driver broke the protocol are reported once, with the driver protocol failures."""
    from rich.text import Text

    from rescind.conformance.report import run as reports

    vectors = reports.vector_tests_for(result)
    grouped = reports.failure_groups(result)
    shown: set[str] = set()
    for group in grouped:
        first, *others = group.results
        console.print(Text.assemble(("CAUSE", "red"), " ", _plain(reports.group_summary(group))))
        _print_failure(console, first, vectors)
        ids = [other.check.id for other in others]
        listed = ", ".join(ids[:GROUP_IDS]) + (
            f" +{len(ids) - GROUP_IDS} more" * (len(ids) > GROUP_IDS)
        )
        console.print(_plain(f"    same difference: {listed}"))
        shown.update(item.check.id for item in group.results)
    broken = 0
    for item in result.results:
        if not item.failed or item.check.id in shown:
            continue
        if item.outcome.status == "error":
            broken += 1
            continue
        _print_failure(console, item, vectors)
    if broken:
        console.print(
            Text.assemble(
                ("ERROR", "red"),
                _plain(
                    f" {broken} checks not run to the end: the driver broke the protocol "
                    "(listed once below)"
                ),
            )
        )


def _print_failure(console: Console, item: Any, vectors: Any) -> None:
    from rich.text import Text

    from rescind.conformance.report import run as reports

    # The message is cut on its own, so its marker's digest is the message's (as in JSON).
    head = _plain(f" {item.check.id} ({item.check.rule}): ")
    console.print(Text.assemble(("FAIL", "red"), head, _plain(item.outcome.message)))
    for detail in reports.failure_details(item, vectors):
        console.print(_plain(f"    {detail}"))


def _provenance_table(result: RunReport) -> Table:
    from rich.table import Table

    from rescind.conformance.report import run as reports

    table = Table(title="By provenance of the expectation")
    table.add_column("provenance")
    for column in ("pass", "fail", "n/a", "unsupported", "restricted", "other"):
        table.add_column(column, justify="right")
    for label, row in reports.counts_by_provenance(result).items():
        table.add_row(
            _plain(label),
            str(row["pass"]),
            str(row["fail"]),
            str(row["not-applicable"]),
            str(row["unsupported"]),
            str(row["restricted"]),
            str(row.get("other", 0)),
        )
    return table
