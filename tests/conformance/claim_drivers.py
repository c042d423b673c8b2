"""Drivers that check almost nothing and would have passed before claims existed: each answers
little or nothing of what it declares, in a different way. Run as
``python -m tests.conformance.claim_drivers NAME`` (or in process, ``CLAIM_DRIVERS[NAME]``).

- ``silent``: the reference's hello, then ``unsupported`` to every request;
- ``masking``: the reference's answers with every member it can replace by the unanswered
  marker so replaced (error codes are kept: replacing one is a difference, not a gap);
- ``cutting``: the reference, but every journal or authorizer trace stops at its first
  reconciliation step with a step-level ``unsupported``;
- ``over-restricted``: declares ``authorized-by-authorizer`` and answers ``unsupported`` to
  every journal and authorizer trace, restricted shape or not;
- ``undeclared``: the reference minus the ``ledger`` capability and the ``splash-v5-f64``
  profile in its hello (it answers everything else as the reference does).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

from rescind.conformance.driver import handle as reference
from tests.conformance.driver_double import Handler, serve_with

MARK = {"unsupported": "masked on purpose"}
TRACE_OPS = ("journal.trace", "authorizer.trace")


def silent(message: Mapping[str, Any]) -> dict[str, Any]:
    if message.get("op") in ("hello", "bye"):
        return reference(message)
    return {"id": message["id"], "unsupported": "nothing is implemented"}


def _masked(value: Any) -> Any:
    """Every leaf member replaced by the marker; arrays of leaves replaced whole (a marker is
    only a gap as a member's value); objects and arrays of objects walked; ``error`` kept."""
    if isinstance(value, dict):
        return {
            key: item if key == "error" else _masked_member(item) for key, item in value.items()
        }
    if isinstance(value, list):
        return [_masked(item) for item in value]
    return value


def _masked_member(value: Any) -> Any:
    if isinstance(value, dict):
        return _masked(value) if value else MARK
    if isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
        return [_masked(item) for item in value]
    return MARK


def masking(message: Mapping[str, Any]) -> dict[str, Any]:
    reply = reference(message)
    if message.get("op") in ("hello", "bye") or "ok" not in reply:
        return reply
    return {**reply, "ok": _masked(reply["ok"])}


def cutting(message: Mapping[str, Any]) -> dict[str, Any]:
    if message.get("op") not in TRACE_OPS:
        return reference(message)
    args = message["args"]
    steps = args.get("steps", [])
    cut = next((i for i, step in enumerate(steps) if "reconcil" in str(step.get("call", ""))), None)
    if cut is None:
        return reference(message)
    before = reference({**message, "args": {**args, "steps": steps[:cut]}})
    if "ok" not in before:
        return before
    outcomes = [*before["ok"]["steps"], {"unsupported": "no reconciliation here"}]
    return {"id": message["id"], "ok": {"steps": outcomes, "checkpoints": {}}}


def over_restricted(message: Mapping[str, Any]) -> dict[str, Any]:
    op = message.get("op")
    if op == "hello":
        reply = reference(message)
        reply["ok"]["restrictions"] = ["authorized-by-authorizer"]
        return reply
    if op in TRACE_OPS:
        return {"id": message["id"], "unsupported": "authorized-by-authorizer"}
    return reference(message)


def undeclared(message: Mapping[str, Any]) -> dict[str, Any]:
    reply = reference(message)
    if message.get("op") == "hello":
        ok = reply["ok"]
        ok["capabilities"] = [name for name in ok["capabilities"] if name != "ledger"]
        ok["profiles"] = [name for name in ok["profiles"] if name != "splash-v5-f64"]
    return reply


CLAIM_DRIVERS: dict[str, Handler] = {
    "silent": silent,
    "masking": masking,
    "cutting": cutting,
    "over-restricted": over_restricted,
    "undeclared": undeclared,
}


def main(argv: list[str]) -> int:
    return serve_with(CLAIM_DRIVERS[argv[0]])


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
