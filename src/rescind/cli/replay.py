"""``rescind replay FILE``: run a saved disagreement again (reference or ``--impl``)."""

from __future__ import annotations

import argparse
import json
import os
import stat
from pathlib import Path
from typing import Any

from rescind.cli import UsageError
from rescind.conformance.driver import handle
from rescind.conformance.explore.engine import replay_verdict
from rescind.conformance.explore.worker import REPLAY_FORMAT
from rescind.conformance.harness import (
    DEFAULT_MAX_REPLY_BYTES,
    DEFAULT_TIMEOUT,
    Driver,
    InProcessDriver,
    SubprocessDriver,
)
from rescind.conformance.harness.limits import (
    MAX_EXPANSION_BYTES,
    ExpansionTooLarge,
    check_expansions,
)
from rescind.conformance.harness.text import visible
from rescind.reference.errors import RescindError

MAX_REPLAY_BYTES = DEFAULT_MAX_REPLY_BYTES
"""A replay file holds one request and its expected reply: no larger than a reply line."""


class InvalidReplayFile(RescindError):
    """The file is not a replay document (``docs/driver-protocol.md``): not a regular file of
    at most ``MAX_REPLAY_BYTES``, not JSON, nested too deeply to read, missing one of its
    members, or asking (``repeat``/``count``) for more than ``limits.MAX_EXPANSION_BYTES``."""

    code = "invalid_replay_file"
    upstream = ""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "replay",
        help="re-run a minimal disagreement saved by differential exploration",
        description="Exit code 0: the implementation now agrees with the saved expectation "
        '(a member it answers {"unsupported": reason} is not compared, and is named); '
        "1: it still disagrees; 2: the file or the driver is unusable; 3: the driver answers "
        "unsupported (it cannot express the trace: neither agreement nor disagreement).",
    )
    parser.add_argument("file", type=Path)
    parser.add_argument("--impl", metavar="COMMAND", help="an implementation's driver command")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT)
    parser.set_defaults(handler=run)


def read_replay(path: Path) -> dict[str, Any]:
    """The replay document in ``path``, checked member by member."""
    shown = visible(path)
    try:
        # Looked at before it is opened: a FIFO or a device would block or never end.
        status = os.stat(path)
        if not stat.S_ISREG(status.st_mode):
            raise InvalidReplayFile(reason="not a regular file")
        if status.st_size > MAX_REPLAY_BYTES:
            raise InvalidReplayFile(reason="larger than a reply line", maximum=MAX_REPLAY_BYTES)
        with path.open("rb") as stream:
            data = stream.read(MAX_REPLAY_BYTES + 1)
    except OSError as error:
        raise UsageError(f"cannot read replay file {shown}: {error.strerror}") from None
    if len(data) > MAX_REPLAY_BYTES:
        raise InvalidReplayFile(reason="larger than a reply line", maximum=MAX_REPLAY_BYTES)
    try:
        document = json.loads(data)
    except ValueError:
        raise InvalidReplayFile(reason="not json") from None
    except RecursionError:
        raise InvalidReplayFile(reason="nested too deeply") from None
    if not isinstance(document, dict):
        raise InvalidReplayFile(reason="not a json object")
    if document.get("format") != REPLAY_FORMAT:
        raise InvalidReplayFile(reason="not a rescind replay format")
    for member, kind in (("op", str), ("args", dict), ("expected", dict)):
        if not isinstance(document.get(member), kind):
            raise InvalidReplayFile(reason="missing or mistyped member", field=member)
    if not isinstance(document["args"].get("steps", []), list):
        raise InvalidReplayFile(reason="missing or mistyped member", field="args.steps")
    try:
        check_expansions(document["args"], "args")
    except ExpansionTooLarge as error:
        raise InvalidReplayFile(
            reason="repeat count beyond the expansion bound",
            field=error.where,
            maximum=MAX_EXPANSION_BYTES,
        ) from None
    return document


def run(args: argparse.Namespace) -> int:
    document = read_replay(args.file)
    driver: Driver = (
        SubprocessDriver(args.impl, timeout=args.timeout) if args.impl else InProcessDriver(handle)
    )
    hello = driver.hello
    try:
        verdict = replay_verdict(document, driver)
    finally:
        driver.close()
    steps = len(document["args"].get("steps", []))
    who = visible(f"{hello.implementation} {hello.version}")
    # Everything from the file or the command line is shown as check reports show driver
    # text: a lone surrogate or a terminal escape in ``op`` is written as its escape.
    where = (
        f"driver {visible(repr(args.impl))}" if args.impl else "the built-in reference, in process"
    )
    print(
        f"compared: the reply of {who} ({where}) to {visible(document['op'])} ({steps} steps) "
        f"with the expected answer saved in {visible(args.file)} (the reference's answer when "
        "it was recorded)"
    )
    if verdict.unsupported is not None:
        print(visible(verdict.unsupported))
        return 3
    if verdict.problem is not None:
        print(f"disagrees: {visible(verdict.problem)}")
        return 1
    unanswered = verdict.unanswered
    in_part = f"; answered in part: unanswered {', '.join(unanswered)}" if unanswered else ""
    print(f"agrees: the reply matches the saved expectation{visible(in_part)}")
    return 0
