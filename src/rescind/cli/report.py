"""``rescind report merge``: join the JSON reports of a sharded ``rescind check`` run."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from rescind.cli import UsageError
from rescind.cli._options import CLAIM_CLASSES
from rescind.conformance.harness.text import visible
from rescind.conformance.report import run as reports
from rescind.conformance.report.claim import claim_of, headline, held
from rescind.conformance.report.files import write_files
from rescind.conformance.report.merge import merge


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "report",
        help="work with conformance reports (merge shard reports, compare implementations)",
        description="Reports written by rescind check.",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    joined = actions.add_parser(
        "merge",
        help="join the --json reports of every shard of a run (rescind check --shard I/N)",
        description=(
            "Joins shard reports into the report of the whole run. Refuses (exit 2) reports "
            "of different runs (seed, plan, implementation, shard count), a shard or check "
            "given twice, and a missing shard. Exit code otherwise: that of the whole run."
        ),
    )
    joined.add_argument("reports", nargs="+", type=Path, metavar="REPORT.json")
    joined.add_argument("--json", type=Path, metavar="FILE", help="write the joined JSON report")
    joined.add_argument("--junit", type=Path, metavar="FILE", help="write a JUnit XML report")
    joined.add_argument("--markdown", type=Path, metavar="FILE", help="write a Markdown report")
    joined.add_argument("--html", type=Path, metavar="FILE", help="write an HTML report")
    joined.add_argument(
        "--claim",
        action="append",
        default=[],
        choices=CLAIM_CLASSES,
        metavar="CLASS",
        help="hold the joined run to this class, as rescind check --claim does for one run",
    )
    joined.add_argument(
        "--accept-partial",
        action="store_true",
        help="exit 0 instead of 3 for a partial joined run (the reports still say PARTIAL)",
    )
    joined.set_defaults(handler=run_merge)
    compared = actions.add_parser(
        "compare",
        help="the claims of several implementations side by side (rescind check --json reports)",
        description=(
            "Reads the claim of each report and prints a matrix: the verdict, each conformance "
            "class and each capability per implementation. Exit code 0, or 2 for a report "
            "without a readable claim."
        ),
    )
    compared.add_argument("reports", nargs="+", type=Path, metavar="REPORT.json")
    compared.add_argument(
        "--markdown", type=Path, metavar="FILE", help="write the matrix as Markdown"
    )
    compared.add_argument("--html", type=Path, metavar="FILE", help="write the matrix as HTML")
    compared.set_defaults(handler=run_compare)


MAX_REPORT_BYTES = 64 * 1024 * 1024
"""A report larger than this is refused before it is parsed (a whole run's is about 12 MB
with 16 KiB messages on every check)."""
MAX_REPORT_MEMBERS = 4_000_000
"""Members and items a report may hold (a whole run's holds well under 200,000)."""


def run_compare(args: argparse.Namespace) -> int:
    from rescind.conformance.report import compare

    columns = []
    for path in args.reports:
        try:
            columns.append(compare.column_of(_read(path)))
        except compare.NotAClaim as problem:
            raise UsageError(f"{path}: {problem}") from None
    if args.markdown:
        args.markdown.write_text(compare.to_markdown(columns), encoding="utf-8")
    if args.html:
        args.html.write_text(compare.to_html(columns), encoding="utf-8")
    print(compare.to_text(columns), end="")
    return 0


def _read(path: Path) -> dict[str, Any]:
    """A report file is hostile data: its size, nesting and member count are bounded before
    it is parsed, and every way it can fail to parse is one line (exit 2)."""
    from rescind.conformance.harness.limits import MAX_REPLY_DEPTH, reply_shape

    if not path.is_file():
        raise UsageError(f"{path} is not a file")
    if path.stat().st_size > MAX_REPORT_BYTES:
        raise UsageError(f"{path} is larger than {MAX_REPORT_BYTES} bytes")
    raw = path.read_bytes()
    beyond = reply_shape(raw, MAX_REPORT_MEMBERS, MAX_REPLY_DEPTH)
    if beyond is not None:
        raise UsageError(f"{path} is not a JSON report: it {beyond}")
    try:
        document = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise UsageError(f"{path} is not a JSON report: not UTF-8") from None
    except json.JSONDecodeError as error:
        raise UsageError(f"{path} is not a JSON report: {error.msg}") from None
    if not isinstance(document, dict) or not isinstance(document.get("checks"), list):
        raise UsageError(f"{path} is not a rescind check --json report")
    return document


def run_merge(args: argparse.Namespace) -> int:
    documents = [(path.name, _read(path)) for path in args.reports]
    result, run = merge(documents)
    result = held(result, args.claim, args.accept_partial)
    document = {**reports.to_json(result), "run": run}
    text = json.dumps(document, indent=2) + "\n"
    if args.json:
        args.json.write_text(text, encoding="utf-8")
    write_files(result, junit=args.junit, markdown=args.markdown, html=args.html)
    if not (args.json or args.junit or args.markdown or args.html):
        print(text, end="")
    counts = ", ".join(f"{count} {status}" for status, count in sorted(result.counts().items()))
    print(visible(headline(claim_of(result))), file=sys.stderr)
    print(f"{len(result.results)} checks from {len(documents)} shards: {counts}", file=sys.stderr)
    return result.exit_code()
