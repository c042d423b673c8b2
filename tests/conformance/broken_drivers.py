"""Deliberately broken drivers: the reference with exactly one rule broken each.

Each is a ``handle(message) -> reply`` wrapper around the reference driver, usable in
process or as a subprocess: ``python -m tests.conformance.broken_drivers NAME``.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Callable, Mapping
from typing import Any

import attrs
from blake3 import blake3

from rescind.conformance.driver import handle as reference
from rescind.conformance.interpreters import worker_scenario
from rescind.reference.digests import host_input_fingerprint_of_bytes
from rescind.reference.grants import CapabilityGrant, GrantAttenuation
from rescind.reference.jsonencode import encode_string
from rescind.reference.jsonparse import JsonPairs, parse_document
from rescind.reference.jsonvalue import JsonNumber
from rescind.reference.payload import u64_be
from rescind.reference.worker.journal import Existing
from rescind.reference.worker.session import WorkerSession
from tests.conformance.driver_double import Handler, serve_with


def _canonical_variant(message: Mapping[str, Any], encode: Callable[[Any], str]) -> dict[str, Any]:
    """Answer ``canonical.input`` with another (wrong) canonical JSON encoder."""
    reply = reference(message)
    if (
        "ok" not in reply
        or message["args"].get("format") != "json"
        or "text" not in message["args"]
    ):
        return reply
    body = encode(parse_document(message["args"]["text"])).encode("utf-8")
    canonical = b"json" + u64_be(len(body)) + body
    worker = blake3(b"splash-worker-operation-input-v1" + canonical).hexdigest()
    reply["ok"] = {
        **reply["ok"],
        "canonicalJson": body.decode("utf-8"),
        "canonicalInputHex": canonical.hex(),
        "workerInputFingerprint": worker,
        "hostInputFingerprint": host_input_fingerprint_of_bytes(canonical),
    }
    return reply


def _encoder(order: Callable[[str], Any], first_wins: bool) -> Callable[[Any], str]:
    def encode(node: Any) -> str:
        if isinstance(node, JsonPairs):
            members: dict[str, Any] = {}
            for key, value in node.pairs:
                if first_wins and key in members:
                    continue
                members[key] = value
            inner = ",".join(
                f"{encode_string(k)}:{encode(members[k])}" for k in sorted(members, key=order)
            )
            return "{" + inner + "}"
        if isinstance(node, tuple):
            return "[" + ",".join(encode(item) for item in node) + "]"
        if isinstance(node, JsonNumber):
            return node.text
        if isinstance(node, str):
            return encode_string(node)
        return {True: "true", False: "false", None: "null"}[node]

    return encode


def utf16_key_order(message: Mapping[str, Any]) -> dict[str, Any]:
    """Sorts object keys by UTF-16 code units (JCS), not code points."""
    return _canonical_variant(message, _encoder(lambda key: key.encode("utf-16-be"), False))


def first_wins_duplicates(message: Mapping[str, Any]) -> dict[str, Any]:
    """Keeps the first of duplicate keys instead of the last."""
    return _canonical_variant(message, _encoder(lambda key: key, True))


def binary_float_numbers(message: Mapping[str, Any]) -> dict[str, Any]:
    """Parses numbers into binary floats for the normative profile (splash-v5-f64 bytes)."""
    if message.get("op") == "canonical.input" and "profile" not in message.get("args", {}):
        message = {**message, "args": {**message["args"], "profile": "splash-v5-f64"}}
    return reference(message)


def length_prefixed_worker_fingerprint(message: Mapping[str, Any]) -> dict[str, Any]:
    """Uses the host recipe's length prefix in the worker input fingerprint."""
    reply = reference(message)
    if message.get("op") == "canonical.input" and "ok" in reply:
        canonical = bytes.fromhex(reply["ok"]["canonicalInputHex"])
        prefixed = u64_be(len(canonical)) + canonical
        reply["ok"]["workerInputFingerprint"] = blake3(
            b"splash-worker-operation-input-v1" + prefixed
        ).hexdigest()
    return reply


def widening_attenuation(message: Mapping[str, Any]) -> dict[str, Any]:
    """Applies an attenuation without checking that it only narrows."""
    reply = reference(message)
    if message.get("op") != "grants.grant_attenuate" or reply.get("error", {}).get("code") not in (
        "attenuation_widens_limits",
        "attenuation_expands_resources",
    ):
        return reply
    grant = CapabilityGrant.from_json(message["args"]["grant"])
    for step in message["args"]["attenuations"]:
        attenuation = GrantAttenuation.from_json(step)
        changes = {
            name: getattr(attenuation, name)
            for name in ("max_calls", "max_input_bytes", "max_output_bytes", "max_compensations")
            if getattr(attenuation, name) is not None
        }
        if attenuation.resources is not None:
            changes["resources"] = attenuation.resources
        grant = attrs.evolve(grant, **changes)
    return {"id": message["id"], "ok": {"encoded": grant.to_json(), "fingerprint": "0" * 64}}


def _rewrite_steps(
    message: Mapping[str, Any], op: str, code: str, replacement: dict[str, Any]
) -> dict[str, Any]:
    reply = reference(message)
    if message.get("op") != op or "ok" not in reply:
        return reply
    steps = reply["ok"].get("steps", [])
    reply["ok"]["steps"] = [replacement if step.get("error") == code else step for step in steps]
    return reply


def second_compensation_key(message: Mapping[str, Any]) -> dict[str, Any]:
    """Accepts a second compensation (another cmp- key) for the same original."""
    return _rewrite_steps(
        message,
        "journal.trace",
        "compensation_identity_mismatch",
        {"result": {"admission": "dispatch"}},
    )


def contradictory_terminal(message: Mapping[str, Any]) -> dict[str, Any]:
    """Lets a terminal operation change to a contradicting terminal state."""
    return _rewrite_steps(
        message,
        "journal.trace",
        "invalid_worker_operation_transition",
        {"result": {"state": '{"state":"failed","message":"boom"}'}},
    )


def superseded_lease_writes(message: Mapping[str, Any]) -> dict[str, Any]:
    """Lets a writer whose fence was superseded write anyway."""
    return _rewrite_steps(
        message, "storage.trace", "fencing_token_rejected", {"ok": {"revision": 99}}
    )


def reflected_frame_accepted(message: Mapping[str, Any]) -> dict[str, Any]:
    """Accepts a frame whose tag was computed for the opener's own role (reflection)."""
    return _rewrite_steps(
        message, "frames.trace", "invalid_authentication_tag", {"result": {"message": "{}"}}
    )


class _RerunsOnExisting(WorkerSession):
    """Runs the adapter again when the journal answers ``Existing`` (a second effect)."""

    def _dispatch(self, request: Any, store: Any) -> Any:
        admitted = self._journal.admit(self._authorizer.authorize_operation(request))
        if isinstance(admitted.result, Existing):
            with contextlib.suppress(Exception):
                self._adapter(request.tool).dispatch_operation(request)
        return super()._dispatch(request, store)


class _SkipsAdmissionPersist(WorkerSession):
    """Calls the adapter before the admission is durable (no write before the effect)."""

    _skip_next = False

    def _dispatch(self, request: Any, store: Any) -> Any:
        self._skip_next = True
        return super()._dispatch(request, store)

    def _persist(self, store: Any, snapshot: Any) -> None:
        if self._skip_next:
            self._skip_next = False
            return
        super()._persist(store, snapshot)


def _with_session(session_class: type[WorkerSession]) -> Handler:
    def handler(message: Mapping[str, Any]) -> dict[str, Any]:
        if message.get("op") != "session.worker":
            return reference(message)
        original = worker_scenario.WorkerSession
        worker_scenario.WorkerSession = session_class  # type: ignore[misc]
        try:
            return reference(message)
        finally:
            worker_scenario.WorkerSession = original  # type: ignore[misc]

    return handler


BROKEN: dict[str, Handler] = {
    "utf16-key-order": utf16_key_order,
    "first-wins-duplicates": first_wins_duplicates,
    "binary-float-numbers": binary_float_numbers,
    "length-prefixed-worker-fingerprint": length_prefixed_worker_fingerprint,
    "widening-attenuation": widening_attenuation,
    "second-compensation-key": second_compensation_key,
    "contradictory-terminal": contradictory_terminal,
    "superseded-lease-writes": superseded_lease_writes,
    "reflected-frame-accepted": reflected_frame_accepted,
    "reruns-adapter-on-existing": _with_session(_RerunsOnExisting),
    "skips-persistence-before-effect": _with_session(_SkipsAdmissionPersist),
}


def main(argv: list[str]) -> int:
    return serve_with(BROKEN[argv[0]])


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))


__all__ = ["BROKEN", "json"]
