"""``rescind vectors export|check|observe``: write or verify the golden vectors, or record what
a driver built from upstream's code answers to each (provenance from observation)."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import Any

from rescind.conformance.harness import DEFAULT_TIMEOUT, SubprocessDriver, Upstream
from rescind.conformance.vectors import observation
from rescind.conformance.vectors import tool as vectortool


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
        sub.add_argument(
            "--observations",
            type=Path,
            default=None,
            metavar="DIR",
            help="observation files provenance is derived from (default: the ones shipped in "
            "rescind/conformance/observations)",
        )
        sub.set_defaults(handler=_export if action == "export" else _check)
    observe = actions.add_parser(
        "observe",
        help="run every vector through a driver (as rescind check does) and record what it "
        "answered: the observation file export derives upstream-observed provenance from",
    )
    observe.add_argument("--impl", metavar="COMMAND", required=True, help="the driver command")
    observe.add_argument(
        "--out",
        type=Path,
        default=None,
        metavar="FILE",
        help="where to write (default: conformance/observations/<implementation name>.json in "
        "the source checkout)",
    )
    observe.add_argument(
        "--upstream",
        metavar="OWNER/REPO@COMMIT",
        help="the upstream source the driver is built from, when its hello does not say",
    )
    observe.add_argument(
        "--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds to wait for each reply"
    )
    observe.set_defaults(handler=_observe)


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
    problems = vectortool.export(directory, _observations(args))
    for problem in problems:
        print(f"refused: {problem}", file=sys.stderr)
    if problems:
        return 1
    print(f"vectors written to {directory}")
    return 0


def _check(args: argparse.Namespace) -> int:
    directory = _directory(args)
    problems = vectortool.check(directory, _observations(args))
    for problem in problems:
        print(f"FAIL {problem}")
    if problems:
        print(f"{len(problems)} problem(s) in {directory}")
        return 1
    print(f"vectors in {directory} are fresh, schema-valid and consistent with the registry")
    return 0


def _observations(args: argparse.Namespace) -> tuple[observation.Observation, ...] | None:
    return None if args.observations is None else observation.load(args.observations)


def _upstream(text: str | None) -> Upstream | None:
    from rescind.cli import UsageError

    if text is None:
        return None
    repository, _, commit = text.partition("@")
    if not repository or "/" not in repository or not commit:
        raise UsageError(f"--upstream takes OWNER/REPO@COMMIT; got {text!r}")
    return Upstream(repository, commit)


def _observe(args: argparse.Namespace) -> int:
    from rescind.cli import UsageError

    if args.timeout <= 0:
        raise UsageError("--timeout must be positive")
    command, timeout = args.impl, args.timeout
    produced_by = "rescind vectors observe --impl " + shlex.quote(
        observation.relative_command(command, Path.cwd())
    )
    found = observation.observe(
        lambda: SubprocessDriver(command, timeout=timeout),
        produced_by,
        name=args.out.stem if args.out else None,
        upstream=_upstream(args.upstream),
    )
    target: Path = args.out or observation.default_directory() / f"{found.name}.json"
    if args.out is None and vectortool.inside_installation(target.parent):
        raise UsageError("observe writes to a source checkout only; give --out FILE")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(found.render(), encoding="utf-8")
    counts = ", ".join(f"{count} {answer}" for answer, count in found.counts().items())
    print(
        f"observed {found.driver} ({found.upstream.repository} {found.upstream.commit}): "
        f"{counts}; written to {target}"
    )
    for check_id, seen in sorted(found.vectors.items()):
        if seen.answered == "differed":
            print(f"DIFFERED {check_id}", file=sys.stderr)
    return 0
