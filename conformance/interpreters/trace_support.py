"""Argument decoding and scripted verifiers for ledger traces (see ``trace``).

Byte strings in a trace are written as a JSON string (its UTF-8 bytes), ``{"hex": "..."}``
or ``{"repeat": "<text>", "count": N}`` (the text repeated N times, UTF-8). Inputs are
canonical operation input bytes: either a tool payload in wire form (``{"format": "json",
"value": ...}``; a text value may instead be ``{"repeat": .., "count": ..}``), or raw bytes
``{"hex": ...}`` / ``{"repeat": ...}`` that the ledger hashes as they are.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from typing import Any

import attrs

from rescind.conformance.harness.limits import expand_text
from rescind.reference.grants import CapabilityGrant
from rescind.reference.host.compensation import WorkflowCompensationAction
from rescind.reference.host.engine import WorkflowEngine
from rescind.reference.host.errors import CompensationActionDenied, CompensationGrantDenied
from rescind.reference.host.ledger import WorkflowOperationLedger
from rescind.reference.host.plan import IdCounter, WorkflowPlan
from rescind.reference.messages import OperationStatus
from rescind.reference.payload import ToolPayload
from rescind.reference.wirejson import read_document


class TraceFormatError(ValueError):
    """The trace itself is malformed (a bug in the vector, not a ledger outcome)."""


def bytes_arg(spec: object) -> bytes:
    if isinstance(spec, str):
        return spec.encode("utf-8")
    if isinstance(spec, Mapping):
        if "hex" in spec:
            return bytes.fromhex(str(spec["hex"]))
        if "repeat" in spec:
            return expand_text(str(spec["repeat"]), spec["count"]).encode("utf-8")
    raise TraceFormatError(f"not a byte string spec: {spec!r}")


def payload_arg(spec: object) -> ToolPayload:
    if not isinstance(spec, Mapping) or "format" not in spec:
        raise TraceFormatError(f"not a payload spec: {spec!r}")
    value = spec["value"]
    if spec["format"] == "text":
        if isinstance(value, Mapping):
            return ToolPayload.text(bytes_arg(value).decode("utf-8"))
        return ToolPayload.text(str(value))
    # Re-read through the strict parser so numbers keep their spelling rules.
    return _json_payload(json.dumps(value, ensure_ascii=False))


@functools.lru_cache(maxsize=256)
def _json_payload(text: str) -> ToolPayload:
    """Traces repeat a few payloads many times; a payload is an immutable value of its text
    (a refused text raises every time: exceptions are not cached)."""
    return ToolPayload.json_text(text)


def input_arg(spec: object) -> bytes:
    """Canonical input bytes from a payload spec, or raw bytes."""
    if isinstance(spec, Mapping) and "format" in spec:
        return payload_arg(spec).canonical_input_bytes()
    return bytes_arg(spec)


def status_arg(spec: object) -> OperationStatus:
    if not isinstance(spec, Mapping) or "state" not in spec:
        raise TraceFormatError(f"not a status spec: {spec!r}")
    state = spec["state"]
    if state == "succeeded":
        return OperationStatus.succeeded(payload_arg(spec["payload"]))
    if state == "failed":
        return OperationStatus.failed(str(spec["message"]))
    if state == "running":
        return OperationStatus.running()
    if state == "cancelled":
        return OperationStatus.cancelled()
    raise TraceFormatError(f"unknown status state {state!r}")


def grant_arg(spec: object) -> CapabilityGrant:
    """A grant in its wire form (unknown fields ignored, defaults as upstream)."""
    return _grant(json.dumps(spec))


@functools.lru_cache(maxsize=64)
def _grant(text: str) -> CapabilityGrant:
    return CapabilityGrant.from_node(read_document(text))


@attrs.frozen
class ActionSeen:
    """What one action-verifier call saw (the raw input as hex, for exact comparison)."""

    plan_fingerprint: str
    operation_key: str
    step_id: str
    tool: str
    operation_input_fingerprint: str
    tenant_scope: str
    grant_tool: str
    compensation_input_hex: str

    def to_json(self) -> dict[str, Any]:
        return attrs.asdict(self)


class ScriptedVerifier:
    """A host verifier for traces and tests: allows or denies, and remembers every call.

    It implements both hooks, so one object can serve as a target's grant verifier, its
    action verifier, or both."""

    def __init__(self, allow: bool = True) -> None:
        self.allow = allow
        self.grant_calls: list[tuple[str, str]] = []
        self.actions: list[ActionSeen] = []

    def verify_compensation_grant(self, tenant_scope: str, grant: CapabilityGrant) -> None:
        self.grant_calls.append((tenant_scope, grant.tool))
        if not self.allow:
            raise CompensationGrantDenied(tool=grant.tool, tenant_scope=tenant_scope)

    def verify_compensation_action(self, action: WorkflowCompensationAction) -> None:
        self.actions.append(
            ActionSeen(
                plan_fingerprint=action.plan_fingerprint,
                operation_key=action.operation_key,
                step_id=action.step_id,
                tool=action.tool,
                operation_input_fingerprint=action.operation_input_fingerprint,
                tenant_scope=action.tenant_scope,
                grant_tool=action.grant.tool,
                compensation_input_hex=action.compensation_input.hex(),
            )
        )
        if not self.allow:
            raise CompensationActionDenied(
                operation_key=action.operation_key,
                tool=action.tool,
                tenant_scope=action.tenant_scope,
            )

    def calls_json(self) -> dict[str, Any]:
        return {
            "grant_calls": len(self.grant_calls),
            "action_calls": len(self.actions),
            "actions": [action.to_json() for action in self.actions],
        }


Json = Any


class TraceBase:
    """Names and argument resolution shared by every group of trace calls."""

    def __init__(self) -> None:
        self.ids = IdCounter()
        self.names: dict[str, object] = {}
        self.checkpoints: dict[str, Json] = {}
        self.ledger_names: list[str] = []

    # -- name lookup ---------------------------------------------------------------------

    def get(self, name: object, kind: type[Any]) -> Any:
        if not isinstance(name, str) or name not in self.names:
            raise TraceFormatError(f"unknown name {name!r}")
        value = self.names[name]
        if not isinstance(value, kind):
            raise TraceFormatError(f"{name!r} is not a {kind.__name__}")
        return value

    def text(self, value: object) -> str:
        if isinstance(value, str) and value.startswith("$"):
            bound = self.names.get(value[1:])
            if not isinstance(bound, str):
                raise TraceFormatError(f"{value!r} is not a bound string")
            return bound
        if not isinstance(value, str):
            raise TraceFormatError(f"expected a string, got {value!r}")
        return value

    def bind(self, args: Mapping[str, Json], value: object) -> None:
        if "as" in args:
            self.names[str(args["as"])] = value

    def context(
        self, args: Mapping[str, Json]
    ) -> tuple[WorkflowEngine, WorkflowPlan, WorkflowOperationLedger]:
        return (
            self.get(args["engine"], WorkflowEngine),
            self.get(args["plan"], WorkflowPlan),
            self.get(args["ledger"], WorkflowOperationLedger),
        )
