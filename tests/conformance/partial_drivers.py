"""Fake drivers that, like upstream Splash's, cannot express everything they declare: the
reference behind the driver protocol, answering ``unsupported`` where a real driver over
upstream's public API would, and (for some) wrong on purpose.

Usable in process (``InProcessDriver(PARTIAL[name])``) or as a subprocess:
``python -m tests.conformance.partial_drivers NAME``.
"""

from __future__ import annotations

import copy
import sys
from collections.abc import Mapping
from typing import Any

from rescind.conformance.driver import REFERENCE_CAPABILITY
from rescind.conformance.driver import handle as reference
from rescind.conformance.harness.restrictions import AUTHORIZED_BY_AUTHORIZER, raw_authorization
from rescind.conformance.provenance import SPLASH
from tests.conformance.driver_double import Handler, serve_with

TRACE_OPS = ("journal.trace", "authorizer.trace")
UNSUPPORTED_OPS = frozenset({"grants.manifest_attenuate"})
"""Operations the ``restricted`` fake answers ``unsupported`` as a whole."""
RAW_REASON = "upstream builds authorized values only through SessionAuthorizer::authorize_*"

UPSTREAM_REPOSITORY, UPSTREAM_COMMIT = SPLASH.split()


def _hello(message: Mapping[str, Any], name: str, restricted: bool) -> dict[str, Any]:
    reply = reference(message)
    ok = reply["ok"]
    ok["implementation"] = {
        "name": name,
        "version": "0.1.0",
        "upstream": {"repository": UPSTREAM_REPOSITORY, "commit": UPSTREAM_COMMIT},
    }
    # What a driver built from Splash could declare: no saga (agentctl, CaseHub), no
    # Rescind extension, no reference-only checks.
    ok["capabilities"] = [c for c in ok["capabilities"] if c not in (REFERENCE_CAPABILITY, "saga")]
    ok["profiles"] = ["splash-v5", "splash-v5-f64"]
    if restricted:
        ok["restrictions"] = [AUTHORIZED_BY_AUTHORIZER.name]
    return reply


def _cut_at_raw_step(message: Mapping[str, Any]) -> dict[str, Any] | None:
    """The reply of a driver that stops at the first raw request+grant step: the reference's
    results for the steps before it, then ``{"unsupported": ...}``."""
    args = message["args"]
    steps = args.get("steps", [])
    raw = next((i for i, step in enumerate(steps) if raw_authorization(step)), None)
    if raw is None:
        return None
    prefix = reference({**message, "args": {**args, "steps": steps[:raw]}})
    if "ok" not in prefix:
        return prefix
    outcomes = [*prefix["ok"]["steps"], {"unsupported": RAW_REASON}]
    return {"id": message["id"], "ok": {"steps": outcomes, "checkpoints": {}}}


def restricted(message: Mapping[str, Any]) -> dict[str, Any]:
    """Declares ``authorized-by-authorizer`` and keeps to it; everything it answers is the
    reference's answer."""
    op = message.get("op")
    if op == "hello":
        return _hello(message, "partial-fake", restricted=True)
    if op in UNSUPPORTED_OPS:
        return {"id": message["id"], "unsupported": f"{op} is not public upstream"}
    if op in TRACE_OPS:
        cut = _cut_at_raw_step(message)
        if cut is not None:
            return cut
    return reference(message)


def forgets_duplicates(message: Mapping[str, Any]) -> dict[str, Any]:
    """``restricted``, and wrong: a second admission of a known key is answered as a fresh
    dispatch (the journal no longer deduplicates, WJ-8)."""
    reply = restricted(message)
    if message.get("op") in TRACE_OPS and "ok" in reply:
        reply = copy.deepcopy(reply)
        for outcome in reply["ok"]["steps"]:
            result = outcome.get("result")
            if isinstance(result, dict) and result.get("admission") == "existing":
                outcome["result"] = {"admission": "dispatch"}
    return reply


def unsupported_everywhere(message: Mapping[str, Any]) -> dict[str, Any]:
    """Declares journal and answers every trace ``unsupported``."""
    if message.get("op") in TRACE_OPS:
        return {"id": message["id"], "unsupported": "no traces"}
    return restricted(message)


def differs_on(text: str) -> Handler:
    """``restricted``, but its canonical JSON of payload ``text`` has one more space."""

    def handler(message: Mapping[str, Any]) -> dict[str, Any]:
        reply = restricted(message)
        args = message.get("args", {})
        if message.get("op") == "canonical.input" and args.get("text") == text and "ok" in reply:
            reply = copy.deepcopy(reply)
            reply["ok"]["canonicalJson"] = reply["ok"].get("canonicalJson", "") + " "
        return reply

    return handler


PRIVATE_REASONS: dict[str, str] = {
    "hostInputFingerprint": "splash-workflow cannot be built offline",
    "compensation_identities": "private in SessionAuthorizer",
    "request_ids": "private in SessionAuthorizer",
    "completed_results": "private in SessionAuthorizer",
}
"""Members a driver over upstream's public crates cannot answer, and why."""
PRIVATE_OPS: dict[str, frozenset[str]] = {
    "canonical.input": frozenset({"hostInputFingerprint"}),
    **{
        op: frozenset({"compensation_identities", "request_ids", "completed_results"})
        for op in TRACE_OPS
    },
}


def _marked(value: Any, names: frozenset[str]) -> Any:
    """``value`` with every member named in ``names`` (at any depth) replaced by the marker
    ``{"unsupported": reason}``."""
    if isinstance(value, dict):
        return {
            key: {"unsupported": PRIVATE_REASONS[key]} if key in names else _marked(item, names)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [_marked(item, names) for item in value]
    return value


def private_members(message: Mapping[str, Any]) -> dict[str, Any]:
    """``restricted``, and it cannot answer some members upstream keeps private: the host
    input fingerprint of ``canonical.input`` and the authorizer's set counters (``calls``
    and ``compensations`` stay answered), each replaced by the marker wherever it occurs."""
    reply = restricted(message)
    names = PRIVATE_OPS.get(str(message.get("op")))
    if names and "ok" in reply:
        reply = {**reply, "ok": _marked(reply["ok"], names)}
    return reply


def private_members_wrong(message: Mapping[str, Any]) -> dict[str, Any]:
    """``private_members``, and wrong in one answered member: its worker input fingerprint
    of ``canonical.input`` is another digest, and every ``calls`` counter is one too high."""
    reply = private_members(message)
    op = message.get("op")
    if "ok" not in reply or op not in ("canonical.input", *TRACE_OPS):
        return reply
    reply = copy.deepcopy(reply)
    if op == "canonical.input" and "workerInputFingerprint" in reply["ok"]:
        reply["ok"]["workerInputFingerprint"] = "0" * 64
    _bump_calls(reply["ok"])
    return reply


def _bump_calls(value: Any) -> None:
    if isinstance(value, dict):
        calls = value.get("calls")
        if isinstance(calls, dict) and "request_ids" in value:
            value["calls"] = {tool: count + 1 for tool, count in calls.items()}
        for item in value.values():
            _bump_calls(item)
    elif isinstance(value, list):
        for item in value:
            _bump_calls(item)


def private_forgets_duplicates(message: Mapping[str, Any]) -> dict[str, Any]:
    """``forgets_duplicates`` (a real journal bug) with ``private_members``' markers."""
    reply = forgets_duplicates(message)
    names = PRIVATE_OPS.get(str(message.get("op")))
    if names and "ok" in reply:
        reply = {**reply, "ok": _marked(reply["ok"], names)}
    return reply


PARTIAL: dict[str, Handler] = {
    "restricted": restricted,
    "forgets-duplicates": forgets_duplicates,
    "unsupported-everywhere": unsupported_everywhere,
    "private-members": private_members,
    "private-members-wrong": private_members_wrong,
    "private-forgets-duplicates": private_forgets_duplicates,
}


def main(argv: list[str]) -> int:
    """``NAME`` or ``differs-on TEXT``."""
    return serve_with(differs_on(argv[1]) if argv[0] == "differs-on" else PARTIAL[argv[0]])


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))


__all__ = ["PARTIAL", "differs_on"]
