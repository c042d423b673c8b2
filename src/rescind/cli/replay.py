"""``rescind replay FILE``: run a saved disagreement again (reference or ``--impl``)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from rescind.cli import UsageError
from rescind.conformance.driver import handle
from rescind.conformance.explore import replay
from rescind.conformance.harness import DEFAULT_TIMEOUT, Driver, InProcessDriver, SubprocessDriver


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "replay",
        help="re-run a minimal disagreement saved by differential exploration",
        description="Exit code 0: the implementation now agrees with the saved expectation; "
        "1: it still disagrees; 2: the file or the driver is unusable.",
    )
    parser.add_argument("file", type=Path)
    parser.add_argument("--impl", metavar="COMMAND", help="an implementation's driver command")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    try:
        document = json.loads(args.file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise UsageError(f"cannot read replay file {args.file}: {error}") from None
    driver: Driver = (
        SubprocessDriver(args.impl, timeout=args.timeout) if args.impl else InProcessDriver(handle)
    )
    try:
        problem = replay(document, driver)
    except ValueError as error:
        raise UsageError(str(error)) from None
    finally:
        driver.close()
    steps = len(document["args"].get("steps", []))
    if problem is None:
        print(f"agrees: {args.file} ({steps} steps) now matches the reference's answer")
        return 0
    print(f"disagrees: {problem} ({args.file}, {steps} steps)")
    return 1
