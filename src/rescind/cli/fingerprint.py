"""``rescind fingerprint``: canonical input bytes, both input fingerprints and hazards."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from rescind.cli import UsageError
from rescind.reference.errors import RescindError
from rescind.reference.inspect_fast import inspect_fast
from rescind.reference.inspect_payload import Inspection
from rescind.reference.payload_format import PayloadFormat


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "fingerprint",
        help="print canonical input bytes, worker and host input fingerprints, and hazards",
        description=(
            "Reads one payload (JSON text, or raw text with --format text; the bytes are taken "
            "exactly, so a trailing newline is part of a text payload) and prints its canonical "
            "input bytes (hex) and fingerprints in profile splash-v5."
        ),
    )
    parser.add_argument("file", nargs="?", default="-", help="payload file; '-' or none: stdin")
    parser.add_argument(
        "--format", choices=("json", "text"), default="json", help="payload format (json)"
    )
    parser.add_argument(
        "--output", choices=("text", "json"), default="text", help="report format (text)"
    )
    parser.add_argument(
        "--max-input-bytes",
        type=byte_count,
        default=DEFAULT_MAX_INPUT_BYTES,
        metavar="BYTES",
        help=f"refuse a larger payload (default {DEFAULT_MAX_INPUT_BYTES}: 8 MiB, eight "
        "times the largest wire frame); raise it for larger files",
    )
    parser.set_defaults(handler=run)


DEFAULT_MAX_INPUT_BYTES = 8 * 1024 * 1024
"""Eight times the 1 MiB wire frame bound, so every payload a frame can carry fits with room.
A payload without hazards costs about ten times its size in memory; one whose every number
is a hazard (each is reported) over a hundred times (benchmarks/fingerprint_memory.py)."""


class FingerprintInputTooLarge(RescindError):
    """The payload is larger than ``--max-input-bytes``; nothing of it was parsed."""

    code = "fingerprint_input_too_large"
    upstream = ""


def byte_count(text: str) -> int:
    value = int(text)
    if value <= 0:
        raise ValueError(text)
    return value


def read_bounded(file: str, maximum: int) -> bytes:
    """The payload bytes, reading at most one byte past ``maximum`` before refusing."""
    if file == "-":
        data = sys.stdin.buffer.read(maximum + 1)
    else:
        with Path(file).open("rb") as source:
            data = source.read(maximum + 1)
    if len(data) > maximum:
        raise FingerprintInputTooLarge(maximum=maximum)
    return data


def _hint(error: RescindError, payload_format: str) -> str:
    """What to do about a refused payload: the fix, named."""
    reason = error.details.get("reason")
    if isinstance(error, FingerprintInputTooLarge):
        return (
            f"the payload is larger than --max-input-bytes ({error.details['maximum']} bytes); "
            "raise it, e.g. --max-input-bytes 67108864"
        )
    if reason == "invalid_utf8":
        return (
            "the payload is not UTF-8; splash-v5 payloads are UTF-8 in both formats "
            "(json and text): convert the file to UTF-8 (e.g. iconv -t UTF-8)"
        )
    if payload_format == "json" and error.code == "serialization":
        return (
            "the payload is not JSON; to fingerprint its bytes as a text payload add --format text"
        )
    return ""


def run(args: argparse.Namespace) -> int:
    try:
        data = read_bounded(args.file, args.max_input_bytes)
        report = inspect_fast(data, PayloadFormat(args.format))
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise UsageError(f"cannot read payload file {args.file}: {reason}") from None
    except RescindError as error:
        hint = _hint(error, args.format)
        if hint:
            raise UsageError(f"{error}: {hint}") from None
        raise
    if args.output == "json":
        print(json.dumps(as_json(report), indent=2))
    else:
        print(as_text(report))
    return 0


def as_json(report: Inspection) -> dict[str, Any]:
    body: dict[str, Any] = {"profile": "splash-v5", "format": report.format.value}
    body.update(report.digests.to_json())
    body["size"] = len(report.canonical_body)
    body["hazards"] = [hazard.to_json() for hazard in report.hazards]
    if isinstance(report.informative, RescindError):
        body["splash-v5-f64"] = report.informative.to_wire()
    elif report.informative is not None:
        body["splash-v5-f64"] = report.informative.to_json()
    return body


def as_text(report: Inspection) -> str:
    digests = report.digests
    lines = [
        "profile                   splash-v5",
        f"format                    {report.format.value}",
        f"size                      {len(report.canonical_body)}",
        f"canonical input bytes     {digests.canonical_input.hex()}",
        f"worker input fingerprint  {digests.worker_input_fingerprint}",
        f"host input fingerprint    {digests.host_input_fingerprint}",
    ]
    if isinstance(report.informative, RescindError):
        lines.append(f"splash-v5-f64             rejects: {report.informative.code}")
    elif report.informative is not None:
        lines.append(f"splash-v5-f64 bytes       {report.informative.canonical_input.hex()}")
        lines.append(f"splash-v5-f64 worker fp   {report.informative.worker_input_fingerprint}")
        lines.append(f"splash-v5-f64 host fp     {report.informative.host_input_fingerprint}")
    for hazard in report.hazards:
        detail = f" ({hazard.detail})" if hazard.detail else ""
        lines.append(f"hazard: {hazard.kind} at {hazard.where}{detail}")
    if not report.hazards:
        lines.append("hazards                   none")
    return "\n".join(lines)
