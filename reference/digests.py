"""Every fingerprint and key recipe of worker protocol v5 and the host workflow ledger.

Notation: ``lp(x)`` is the big-endian u64 length of ``x`` followed by ``x``; domain tags are
raw ASCII with no length prefix. All digests are 32-byte BLAKE3 outputs, written as 64
lowercase hex characters.

The worker input fingerprint has *no* length prefix before the canonical input bytes; the
host one has. They never agree, by design, and both are normative.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs
from blake3 import blake3

from rescind.reference.errors import RescindError
from rescind.reference.payload import ToolPayload, u64_be
from rescind.reference.protocol_errors import (
    InvalidSessionKeyLength,
    WeakSessionKey,
    WireFrameTooLarge,
)
from rescind.reference.tokens import require_token

WORKER_INPUT_DOMAIN = b"splash-worker-operation-input-v1"
GRANT_DOMAIN = b"splash-compensation-grant-v1"
FRAME_AUTH_DOMAIN = "splash-worker-auth-v5"
STORAGE_RECORD_DOMAIN = b"splash-storage-record-v1"
PLAN_DOMAIN = b"splash-workflow-plan-v1"
HOST_INPUT_DOMAIN = b"splash-workflow-operation-input-v1"
OPERATION_KEY_DOMAIN = b"splash-workflow-operation-key-v1"
COMPENSATION_KEY_DOMAIN = b"splash-workflow-compensation-key-v1"

MAX_OPERATION_INPUT_BYTES = 262_144
MAX_NONCE_BYTES = 128
MAX_STEP_ID_BYTES = 128
MAX_PLAN_STEPS = 1024
MAX_PLAN_SOURCE_BYTES = 1_048_576
MAX_WIRE_FRAME_BYTES = 1_048_576
SESSION_KEY_BYTES = 32


class HostKeyError(RescindError):
    """Failures of the host-side derivations (upstream ``WorkflowOperationLedgerError``)."""


class EmptyOperationNonce(HostKeyError):
    code = "empty_operation_nonce"
    upstream = "EmptyOperationNonce"


class OperationNonceTooLarge(HostKeyError):
    code = "operation_nonce_too_large"
    upstream = "OperationNonceTooLarge"


class HostInputTooLarge(HostKeyError):
    code = "host_input_too_large"
    upstream = "InputTooLarge"


class InvalidStepId(HostKeyError):
    code = "invalid_step_id"
    upstream = "InvalidStepId"


class InvalidPlan(HostKeyError):
    code = "invalid_plan"
    upstream = "Plan"


def lp(data: bytes) -> bytes:
    return u64_be(len(data)) + data


def _hex(*parts: bytes) -> str:
    hasher = blake3()
    for part in parts:
        hasher.update(part)
    return hasher.hexdigest()


def worker_input_fingerprint(payload: ToolPayload) -> str:
    """BLAKE3(worker domain || canonical input bytes); also the compensation input's."""
    return _hex(WORKER_INPUT_DOMAIN, payload.canonical_input_bytes())


def host_input_fingerprint_of_bytes(canonical_input: bytes) -> str:
    """BLAKE3(host domain || lp(canonical input bytes)) over already-canonical bytes."""
    return _hex(HOST_INPUT_DOMAIN, lp(canonical_input))


def host_input_fingerprint(payload: ToolPayload) -> str:
    return host_input_fingerprint_of_bytes(payload.canonical_input_bytes())


def grant_fingerprint_of_encoding(encoded_grant: bytes) -> str:
    """BLAKE3(grant domain || lp(compact grant JSON)); see ``grants`` for the encoding."""
    return _hex(GRANT_DOMAIN, lp(encoded_grant))


@attrs.frozen
class PlanStep:
    """One step of a plan. Its id is checked when the plan is (``validate_plan``), not here:
    upstream checks a plan's size before any id, so an invalid id must not win by being
    constructed first (docs/spec/precedence.md)."""

    step_id: str
    source: str


def is_step_id(value: str) -> bool:
    try:
        require_token("step id", value)
    except RescindError:
        return False
    return True


def validate_plan(steps: Sequence[PlanStep]) -> None:
    """Upstream's order (``validate_steps``): an empty plan, the step count, the total source
    bytes, then each step in plan order, its id grammar and then whether it repeats."""
    if not steps:
        raise InvalidPlan(reason="empty plan")
    if len(steps) > MAX_PLAN_STEPS:
        raise InvalidPlan(reason="too many steps")
    total = sum(len(step.source.encode("utf-8")) for step in steps)
    if total > MAX_PLAN_SOURCE_BYTES:
        raise InvalidPlan(reason="plan source too large")
    seen: set[str] = set()
    for step in steps:
        if not is_step_id(step.step_id):
            raise InvalidStepId(step_id=step.step_id)
        if step.step_id in seen:
            raise InvalidPlan(reason="duplicate step id")
        seen.add(step.step_id)


def plan_fingerprint(steps: Sequence[PlanStep]) -> str:
    """BLAKE3(plan domain || u64(step count) || per step lp(id) || lp(source UTF-8))."""
    validate_plan(steps)
    parts = [PLAN_DOMAIN, u64_be(len(steps))]
    for step in steps:
        parts += [lp(step.step_id.encode("ascii")), lp(step.source.encode("utf-8"))]
    return _hex(*parts)


def _check_input_and_nonce(canonical_input: bytes, nonce: bytes) -> None:
    if len(canonical_input) > MAX_OPERATION_INPUT_BYTES:
        raise HostInputTooLarge(actual=len(canonical_input), maximum=MAX_OPERATION_INPUT_BYTES)
    if not nonce:
        raise EmptyOperationNonce()
    if len(nonce) > MAX_NONCE_BYTES:
        raise OperationNonceTooLarge(actual=len(nonce), maximum=MAX_NONCE_BYTES)


def derive_operation_key(
    plan_fingerprint_hex: str, step_id: str, tool: str, canonical_input: bytes, nonce: bytes
) -> str:
    """``op-`` + hex(BLAKE3(key domain || lp(plan fp as ASCII hex) || lp(step) || lp(tool)
    || lp(canonical input bytes) || lp(nonce))): always 67 characters."""
    require_token("tool", tool)
    _check_input_and_nonce(canonical_input, nonce)
    return "op-" + _hex(
        OPERATION_KEY_DOMAIN,
        lp(plan_fingerprint_hex.encode("ascii")),
        lp(step_id.encode("ascii")),
        lp(tool.encode("ascii")),
        lp(canonical_input),
        lp(nonce),
    )


def derive_compensation_key(
    plan_fingerprint_hex: str,
    operation_key: str,
    tool: str,
    tenant_scope: str,
    grant_fingerprint_hex: str,
    canonical_input: bytes,
    nonce: bytes,
) -> str:
    """``cmp-`` + hex(BLAKE3(compensation domain || lp(plan fp) || lp(op key) || lp(tool) ||
    lp(tenant) || lp(grant fp hex) || lp(canonical compensation input) || lp(nonce))):
    always 68 characters."""
    _check_input_and_nonce(canonical_input, nonce)
    return "cmp-" + _hex(
        COMPENSATION_KEY_DOMAIN,
        lp(plan_fingerprint_hex.encode("ascii")),
        lp(operation_key.encode("ascii")),
        lp(tool.encode("ascii")),
        lp(tenant_scope.encode("ascii")),
        lp(grant_fingerprint_hex.encode("ascii")),
        lp(canonical_input),
        lp(nonce),
    )


def check_session_key(key: bytes) -> bytes:
    if len(key) != SESSION_KEY_BYTES:
        raise InvalidSessionKeyLength(actual=len(key), expected=SESSION_KEY_BYTES)
    if not any(key):
        raise WeakSessionKey()
    return key


def frame_auth_payload(sender: str, sequence: int, session_id: str, message_json: str) -> bytes:
    """The JSON text that a frame tag covers (fields in this exact order, compact)."""
    payload = (
        f'{{"domain":"{FRAME_AUTH_DOMAIN}","protocol_version":5,"sender":"{sender}",'
        f'"sequence":{sequence},"session_id":"{session_id}","message":{message_json}}}'
    ).encode()
    if len(payload) > MAX_WIRE_FRAME_BYTES:
        raise WireFrameTooLarge(actual=len(payload), maximum=MAX_WIRE_FRAME_BYTES)
    return payload


def frame_tag(
    session_key: bytes, sender: str, sequence: int, session_id: str, message_json: str
) -> str:
    """BLAKE3 keyed with the session key over ``frame_auth_payload`` (no length prefix)."""
    check_session_key(session_key)
    payload = frame_auth_payload(sender, sequence, session_id, message_json)
    return blake3(payload, key=session_key).hexdigest()
