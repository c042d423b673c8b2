"""The ``rescind`` command line.

Each subcommand lives in its own module in this package, listed in ``commands()``, and
exposes
``register(subparsers) -> None``; the parser it adds sets ``handler`` to a function taking
the parsed arguments and returning the exit code. Exit codes everywhere: 0 success, 1 a
check failed, 2 bad input or a usage/harness error (one line on stderr, no traceback).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import NoReturn

from rescind import __version__
from rescind.conformance.harness import HarnessFailure
from rescind.reference.errors import RescindError

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


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="rescind",
        description="Model, reference and conformance suite for worker protocol v5 operations.",
    )
    parser.add_argument("--version", action="version", version=f"rescind {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in commands():
        command.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except UsageError as error:
        print(error, file=sys.stderr)  # already names the (sub)command, as argparse does
        return 2
    handler: Handler | None = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return 2
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
