"""``rescind coverage``: the coverage map of the specification (rules, error codes, lifecycle
table pairs, precedence pairs, each with the checks that reach it). ``--check`` is the gate:
exit 1 when a gap is not listed with a reason in ``conformance/coverage-exceptions.toml``,
or an exception is stale."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from rescind.cli import UsageError


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "coverage",
        help=(
            "which checks reach each spec rule, error code, lifecycle table pair and"
            " precedence pair"
        ),
        description=(
            "The coverage map of the specification. Exit code 0; with --check, 1 when a rule, "
            "error code, table pair or precedence pair no check reaches is not listed with a "
            "reason in conformance/coverage-exceptions.toml, or when an exception is stale."
        ),
    )
    parser.add_argument(
        "--spec",
        type=Path,
        default=Path("docs/spec"),
        help="the folder of spec pages whose rules to map (default: docs/spec)",
    )
    parser.add_argument("--json", action="store_true", help="print the map as JSON")
    parser.add_argument("--check", action="store_true", help="the gate (see above)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from rescind.conformance import coverage

    if not args.spec.is_dir():
        raise UsageError(f"no spec folder at {args.spec} (run from a checkout, or give --spec)")
    found = coverage.coverage_map(args.spec)
    judged = coverage.verdict(found, coverage.Exceptions.load())
    if args.json:
        print(json.dumps(_document(found, judged), indent=2))
    else:
        _print(found, judged)
    bad = any(entry["unexcused"] or entry["stale"] for entry in judged.values())
    return 1 if args.check and bad else 0


def _document(found: Any, judged: dict[str, dict[str, list[str]]]) -> dict[str, Any]:
    from rescind.conformance.coverage import pair_name

    return {
        "rules": {
            rule: {
                "page": found.rule_pages[rule],
                "checks": list(reach.checks),
                "provenance": list(reach.provenance),
            }
            for rule, reach in sorted(found.rules.items())
        },
        "errorCodes": {code: list(reach.checks) for code, reach in sorted(found.codes.items())},
        "tablePairs": {
            pair_name(pair): list(reach.checks) for pair, reach in sorted(found.pairs.items())
        },
        "precedencePairs": {
            name: list(reach.checks) for name, reach in sorted(found.precedence.items())
        },
        "precedenceExcused": dict(sorted(found.excused_precedence.items())),
        "normativeDetails": {
            name: list(reach.checks) for name, reach in sorted(found.details.items())
        },
        "gaps": judged,
    }


def _print(found: Any, judged: dict[str, dict[str, list[str]]]) -> None:
    pages: dict[str, list[int]] = {}
    for rule, reach in found.rules.items():
        row = pages.setdefault(found.rule_pages[rule], [0, 0])
        row[0] += bool(reach.checks)
        row[1] += 1
    print("rules reached by a check, per docs/spec page:")
    for page, (reached, total) in sorted(pages.items()):
        print(f"  {page:<24} {reached:>4} / {total}")
    totals = (
        ("rules", found.rules),
        ("error codes", found.codes),
        ("table pairs", found.pairs),
        ("precedence pairs", found.precedence),
        ("normative details members", found.details),
    )
    for name, items in totals:
        reached = sum(1 for reach in items.values() if reach.checks)
        print(f"{name}: {reached} of {len(items)} reached")
    if found.excused_precedence:
        print(f"precedence pairs no input can break together: {len(found.excused_precedence)}")
    for kind, entry in judged.items():
        for item in entry["unexcused"]:
            print(f"GAP {kind} {item}: no check, and no reviewed exception")
        for item in entry["stale"]:
            print(f"STALE exception {kind} {item}: a check reaches it now, or it no longer exists")
