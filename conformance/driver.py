"""The reference implementation behind the driver protocol.

Run as ``python -m rescind.conformance.driver``: it reads one JSON request per line on
stdin and writes one JSON reply per line on stdout (logs, if any, go to stderr). See
docs/driver-protocol.md. ``handle`` is the same logic for in-process use.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from typing import IO, Any

from rescind import __version__
from rescind.conformance.harness import DRIVER_PROTOCOL
from rescind.conformance.ops import registry as operations
from rescind.reference.errors import RescindError

REFERENCE_CAPABILITY = "rescind-reference"
"""Not an operation family: declared only here, so checks that run the reference's own code
in process (``sources.saga_refinement``) apply to this driver and to no other implementation."""


def handle(message: Mapping[str, Any]) -> dict[str, Any]:
    """One request object in, one reply object out (never raises for a bad request)."""
    request_id = message.get("id")
    op = message.get("op")
    args = message.get("args", {})
    if not isinstance(op, str) or not isinstance(args, dict):
        return {"id": request_id, "error": {"code": "bad_request", "definite": True}}
    if op == "hello":
        return {
            "id": request_id,
            "ok": {
                "protocol": DRIVER_PROTOCOL,
                "implementation": {"name": "rescind-reference", "version": __version__},
                "capabilities": [*operations.capabilities(), REFERENCE_CAPABILITY],
                "profiles": ["splash-v5", "splash-v5-f64", "splash-v5+compensation-reconcile"],
            },
        }
    if op == "bye":
        return {"id": request_id, "ok": {}}
    if operations.capability_of(op) is None:
        return {"id": request_id, "unsupported": f"unknown operation {op}"}
    try:
        return {"id": request_id, "ok": operations.run(op, args)}
    except RescindError as error:
        if isinstance(error, operations.BadRequest):
            cause = error.details.get("cause_kind", "")
            print(f"rescind driver: bad request to {op} {cause}".rstrip(), file=sys.stderr)
        return {"id": request_id, "error": {"code": error.code, "definite": error.definite}}


def serve(source: IO[str], sink: IO[str]) -> int:
    for line in source:
        if not line.strip():
            continue
        try:
            message = json.loads(line)
        except (ValueError, RecursionError):  # not JSON, or nested past the decoder's depth
            message = None
        if not isinstance(message, dict):
            reply: dict[str, Any] = {"id": None, "error": {"code": "bad_request", "definite": True}}
        else:
            reply = handle(message)
        sink.write(json.dumps(reply, separators=(",", ":"), ensure_ascii=True) + "\n")
        sink.flush()
        if isinstance(message, dict) and message.get("op") == "bye":
            break
    return 0


def main() -> int:
    return serve(sys.stdin, sys.stdout)


if __name__ == "__main__":
    raise SystemExit(main())
