"""``rescind vectors export|check``: write or verify the golden vectors."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from rescind.conformance import vectortool


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("vectors", help="export or check the golden vectors")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    for action, help_text in (
        ("export", "regenerate every vector file, schema and the ID registry from the reference"),
        ("check", "fail if vectors are stale, break their schema, or a published ID changed"),
    ):
        sub = actions.add_parser(action, help=help_text)
        sub.add_argument(
            "--dir",
            type=Path,
            default=None,
            help="vectors directory (default: the one shipped with this installation)",
        )
        sub.set_defaults(handler=_export if action == "export" else _check)


def _directory(args: argparse.Namespace) -> Path:
    directory: Path = args.dir or vectortool.default_directory()
    return directory


def _export_directory(args: argparse.Namespace) -> Path:
    """Where export may write: a source checkout's ``vectors/``, never an installation."""
    from rescind.cli import UsageError

    given = _directory(args)
    if given.is_symlink():
        raise UsageError(f"--dir {given} is a symlink; vectors export never follows one")
    directory = given.resolve()
    if vectortool.inside_installation(directory):
        raise UsageError(
            "vectors export writes to a source checkout only, not into an installation"
            " (use an editable install of the repository, or --dir)"
        )
    return directory


def _export(args: argparse.Namespace) -> int:
    directory = _export_directory(args)
    problems = vectortool.export(directory)
    for problem in problems:
        print(f"refused: {problem}", file=sys.stderr)
    if problems:
        return 1
    print(f"vectors written to {directory}")
    return 0


def _check(args: argparse.Namespace) -> int:
    directory = _directory(args)
    problems = vectortool.check(directory)
    for problem in problems:
        print(f"FAIL {problem}")
    if problems:
        print(f"{len(problems)} problem(s) in {directory}")
        return 1
    print(f"vectors in {directory} are fresh, schema-valid and consistent with the registry")
    return 0
