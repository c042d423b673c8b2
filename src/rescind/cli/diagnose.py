"""``rescind diagnose``: which reading of each known JSON hazard an implementation follows
(number mode, key order, duplicate keys, escapes, nesting and depth limits, normalisation).
Not pass/fail: every line names a reading and the golden vectors that decided it."""

from __future__ import annotations

import argparse
import json
import textwrap
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from rescind.cli import UsageError
from rescind.conformance.diagnose import Diagnosis, ReadingLine, diagnose
from rescind.conformance.driver import handle
from rescind.conformance.harness import DEFAULT_TIMEOUT, Driver, InProcessDriver, SubprocessDriver
from rescind.conformance.harness.text import visible
from rescind.conformance.hazards import LABELS

_EVIDENCE_SHOWN = 2
_VECTOR_PREFIX = "canon."


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "diagnose",
        help="which reading of each known JSON hazard an implementation follows",
        description=(
            "Sends golden vectors through canonical.input and reports, for each hazard, the "
            "reading whose predictions all match the answers, with the vectors that decided "
            "it. Not pass/fail: exit code 0 once diagnosed; 2: a usage or driver-protocol "
            "(harness) error."
        ),
    )
    parser.add_argument("--impl", metavar="COMMAND", help="an implementation's driver command")
    parser.add_argument(
        "--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds to wait for each reply"
    )
    parser.add_argument("--json", action="store_true", help="print the diagnosis as JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.timeout <= 0:
        raise UsageError("--timeout must be positive")
    driver: Driver = (
        SubprocessDriver(args.impl, timeout=args.timeout) if args.impl else InProcessDriver(handle)
    )
    try:
        if "canonical" not in driver.hello.capabilities:
            raise UsageError("the driver does not declare capability canonical: nothing to probe")
        diagnosis = diagnose(driver)
    finally:
        driver.close()
    if args.json:
        print(json.dumps(diagnosis.to_json(), indent=2))
        return 0
    console = Console()
    if console.is_terminal and console.width >= TABLE_WIDTH:
        _print_table(diagnosis)
    else:
        print(list_text(diagnosis, min(console.width, 80) if console.is_terminal else 80))
    return 0


TABLE_WIDTH = 120
"""Narrower than this (or in a pipe) the diagnosis is a list: a table would fold ids."""


def _upstream_plain(line: ReadingLine) -> str:
    verdict = line.matches_upstream
    if verdict is None:
        return "-"
    return "yes" if verdict else f"no; upstream: {LABELS[line.upstream]}"


def list_text(diagnosis: Diagnosis, width: int = 80) -> str:
    """One block per hazard, wrapped at ``width`` between words only: ids never break."""

    def wrap(text: str, indent: str) -> list[str]:
        return textwrap.wrap(
            visible(text),
            width,
            initial_indent=indent,
            subsequent_indent=indent + "  ",
            break_long_words=False,
            break_on_hyphens=False,
        )

    lines = wrap(f"Rescind diagnosis: {diagnosis.implementation} {diagnosis.version}", "")
    for line in diagnosis.lines:
        lines.append("")
        lines += wrap(f"{line.title}: {line.description}", "")
        lines += wrap(f"upstream: {_upstream_plain(line)}", "  ")
        lines += wrap(f"evidence: {_evidence_cell(line)}", "  ")
    lines.append("")
    lines += wrap(
        f"evidence: canonical-input vector ids without {_VECTOR_PREFIX!r} (all: --json)", ""
    )
    return "\n".join(lines)


def _upstream_cell(line: ReadingLine) -> str:
    verdict = line.matches_upstream
    if verdict is None:
        return "-"
    return "[green]yes[/green]" if verdict else f"[red]no[/red]; upstream: {LABELS[line.upstream]}"


def _evidence_cell(line: ReadingLine) -> str:
    shown = ", ".join(i.removeprefix(_VECTOR_PREFIX) for i in line.evidence[:_EVIDENCE_SHOWN])
    hidden = len(line.evidence) - _EVIDENCE_SHOWN
    return f"{shown} (+{hidden} more)" if hidden > 0 else shown


def _print_table(diagnosis: Diagnosis) -> None:
    table = Table(
        title=Text(visible(f"Rescind diagnosis: {diagnosis.implementation} {diagnosis.version}")),
        caption=f"evidence: canonical-input vector ids without {_VECTOR_PREFIX!r} (all: --json)",
    )
    for column in ("hazard", "reading", "upstream", "evidence"):
        table.add_column(column, overflow="fold")
    for line in diagnosis.lines:
        table.add_row(line.title, line.description, _upstream_cell(line), _evidence_cell(line))
    Console().print(table)
