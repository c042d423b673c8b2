"""``rescind diagram``: write Mermaid state diagrams of every lifecycle table.

The diagrams are drawn from the very tables the reference executes (see
``rescind.tables.registry`` for how lifecycles are listed), one Markdown file each plus an
``index.md``. ``--check`` writes nothing and fails when the files on disk are stale.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rescind.tables import diagrams


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "diagram", help="write Mermaid state diagrams of every lifecycle table"
    )
    parser.add_argument(
        "--output",
        type=Path,
        default=Path("docs/diagrams"),
        help="directory for the Markdown files (default: docs/diagrams)",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 if any diagram file is missing, stale or left over",
    )
    parser.set_defaults(handler=_diagram)


def stale_files(directory: Path, files: dict[str, str]) -> list[str]:
    problems = []
    for name, content in sorted(files.items()):
        path = directory / name
        if not path.is_file() or path.read_text(encoding="utf-8") != content:
            problems.append(name)
    problems.extend(name for name in _generated(directory) if name not in files)
    return problems


def _generated(directory: Path) -> list[str]:
    if not directory.is_dir():
        return []
    return sorted(
        path.name
        for path in directory.glob("*.md")
        if diagrams.MARKER in path.read_text(encoding="utf-8")
    )


def _diagram(args: argparse.Namespace) -> int:
    files = diagrams.render_all()
    directory: Path = args.output
    if args.check:
        problems = stale_files(directory, files)
        for name in problems:
            print(f"STALE {directory / name}")
        if problems:
            print("run `rescind diagram` to regenerate")
            return 1
        print(f"{len(files)} diagram files in {directory} are up to date")
        return 0
    directory.mkdir(parents=True, exist_ok=True)
    for name in _generated(directory):
        if name not in files:
            (directory / name).unlink()
    for name, content in files.items():
        (directory / name).write_text(content, encoding="utf-8")
    print(f"wrote {len(files)} files to {directory}")
    return 0
