"""The ``rescind`` command line.

Each subcommand lives in its own module in this package, listed in ``commands()`` and, with
its one-line help, in ``COMMANDS``; it exposes ``register(subparsers) -> None``; the parser
it adds sets ``handler`` to a function taking the parsed arguments and returning the exit
code. Exit codes everywhere (docs/driver-protocol.md, "Claims, classes and exit codes"): 0
success, 1 a check failed, 2 bad input or a usage/harness error (one line on stderr, no
traceback), 3 partial (nothing failed, some claimed checks unanswered), 4 incomplete.

Start-up stays short: ``main`` imports only the module of the subcommand it runs (the
others appear in ``--help`` by their ``COMMANDS`` line), and the suite's code is imported
only once a handler runs (tests/cli/test_startup.py counts the modules).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import NoReturn

from rescind import __version__

Handler = Callable[[argparse.Namespace], int]


class UsageError(Exception):
    """Bad command-line input; reported as one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    """argparse reports a bad argument as its usage text plus the error; here it is one line
    like every other bad input (``--help`` still prints the usage)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: error: {message}")


def commands() -> tuple[ModuleType, ...]:
    """Every subcommand module, in ``--help`` order (imported here: they import this package)."""
    from rescind.cli import (
        check,
        coverage,
        diagnose,
        diagram,
        fingerprint,
        prove,
        replay,
        report,
        saga,
        vectors,
    )

    return (check, coverage, diagnose, fingerprint, vectors, prove, diagram, replay, saga, report)


COMMANDS: tuple[tuple[str, str], ...] = (
    ("check", "run the conformance suite (default: against the built-in reference)"),
    (
        "coverage",
        "which checks reach each spec rule, error code, lifecycle table pair and precedence pair",
    ),
    ("diagnose", "which reading of each known JSON hazard an implementation follows"),
    ("fingerprint", "print canonical input bytes, worker and host input fingerprints, and hazards"),
    ("vectors", "export or check the golden vectors"),
    (
        "prove",
        "prove the model's invariants and progress properties with z3 (table, "
        "counterexample traces, findings with their lassos)",
    ),
    ("diagram", "write Mermaid state diagrams of every lifecycle table"),
    ("replay", "re-run a minimal disagreement saved by differential exploration"),
    ("saga", "plan compensations and validate bindings"),
    ("report", "work with conformance reports (merge shard reports, compare implementations)"),
)
"""Each subcommand (its name is its module's) with its ``--help`` line, in ``commands()``
order; a test keeps both in step with what each module registers."""


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser; with ``only``, just that subcommand is imported and registered in full,
    the others are listed by name and help line."""
    parser = _Parser(
        prog="rescind",
        description="Model, reference and conformance suite for worker protocol v5 operations.",
    )
    parser.add_argument("--version", action="version", version=f"rescind {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    if only is None:
        for command in commands():
            command.register(subparsers)
        return parser
    for name, summary in COMMANDS:
        if name == only:
            importlib.import_module(f"{__name__}.{name}").register(subparsers)
        else:
            subparsers.add_parser(name, help=summary)
    return parser


def _command_named(argv: Sequence[str]) -> str:
    """The subcommand ``argv`` runs: the top-level options take no value, so it is the first
    word that is not an option ('' when there is none or it is unknown)."""
    known = {name for name, _ in COMMANDS}
    for word in argv:
        if not word.startswith("-"):
            return word if word in known else ""
    return ""


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(_command_named(words))
    try:
        args = parser.parse_args(words)
    except UsageError as error:
        print(error, file=sys.stderr)  # already names the (sub)command, as argparse does
        return 2
    handler: Handler | None = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return 2
    # Imported once a handler runs, so that --help never pays for the suite.
    from rescind.conformance.harness import HarnessFailure
    from rescind.reference.errors import RescindError

    try:
        return handler(args)
    except RescindError as error:
        print(f"rescind: error: {error}", file=sys.stderr)
        return 2
    except HarnessFailure as error:
        print(f"rescind: driver protocol failure: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader went away (``| head``): nothing left to say, and no traceback at exit.
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except (UsageError, OSError) as error:
        print(f"rescind: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("rescind: interrupted", file=sys.stderr)
        return 2
