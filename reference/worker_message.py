"""``WorkerMessage``: the internally tagged union every frame carries (tag field ``type``).

Each variant is a frozen value with ``validate``, ``session_id`` and a compact encoding in
upstream's field order (``type`` first, then the body key). Decoding follows serde's
internally tagged rules: the tag may appear anywhere, a repeated tag or body key is an error,
and unknown keys beside them are ignored.

Modelled bodies: the manifest of ``open_session``, every operation, compensation and
reconciliation struct, ``close_session``'s two fields, and the typed bodies upstream decodes
for ``cancel`` (``WorkerCancellationRequest``) and ``result`` (``ToolResult``). The bodies of
``invoke`` and ``cancellation_result`` are kept *opaque* (``OpaqueBody``): Rescind does not
model ordinary invocations, so only their ``protocol_version`` and ``session_id`` are read and
checked, and they are re-encoded in the member order they arrived in (upstream's struct order
for any conforming sender). See docs/spec/messages.md WM-9.

Two more kinds, ``reconcile_compensation`` and ``reconciled_compensation``, belong to Rescind's
extension (docs/spec/compensation-reconcile.md CR-1), not to upstream. Every decoder and
encoder takes a ``WireProfile``; under the default ``WireProfile.UPSTREAM`` the two kinds are
refused by the very check that refuses any unknown ``type``, so upstream's behaviour is
unchanged byte for byte.
"""

from __future__ import annotations

import enum
from typing import ClassVar, Protocol, TypeAlias, cast

import attrs

from rescind.reference.digests import MAX_WIRE_FRAME_BYTES
from rescind.reference.jsonencode import canonical_json_text, encode_string
from rescind.reference.jsonparse import JsonPairs, Node, to_value
from rescind.reference.jsonvalue import JsonValue
from rescind.reference.manifest import SessionManifest
from rescind.reference.messages import (
    OperationCompensationRequest,
    OperationCompensationResult,
    OperationDispatchRequest,
    OperationReconcileRequest,
    OperationReconcileResult,
    ToolResult,
    WorkerCancellationRequest,
    check_version,
)
from rescind.reference.numbers import NumberMode
from rescind.reference.protocol_errors import Serialization, WireFrameTooLarge
from rescind.reference.tokens import require_token
from rescind.reference.wirejson import Struct, as_str, as_uint, read_document, tag_of


class _Body(Protocol):
    @property
    def session_id(self) -> str: ...

    def validate(self) -> None: ...

    def to_json(self) -> str: ...


class _OneBody:
    """A message whose body is one wire object under one key (``body_key``, also the field's
    name): the session, the checks and the encoding are that object's."""

    body_key: ClassVar[str]

    @property
    def _body(self) -> _Body:
        return cast(_Body, getattr(self, self.body_key))

    @property
    def session_id(self) -> str:
        return self._body.session_id

    def validate(self) -> None:
        self._body.validate()

    def body_json(self) -> str:
        return f'"{self.body_key}":{self._body.to_json()}'


@attrs.frozen
class OpaqueBody:
    """A struct body Rescind carries without modelling it: its members in arrival order."""

    members: tuple[tuple[str, JsonValue], ...]

    def _member(self, name: str) -> JsonValue:
        for key, value in self.members:
            if key == name:
                return value
        raise Serialization(reason="missing_field", field=name)

    @property
    def session_id(self) -> str:
        value = self._member("session_id")
        if not isinstance(value, str):
            raise Serialization(reason="invalid_type", expected="string")
        return value

    @property
    def protocol_version(self) -> int:
        value = self._member("protocol_version")
        text = canonical_json_text(value)
        # The length test comes first: int() refuses texts past Python's digit limit.
        if not text.isdigit() or len(text) > 5 or int(text) > 2**16 - 1:
            raise Serialization(reason="invalid_type", expected="u16")
        return int(text)

    def validate(self) -> None:
        check_version(self.protocol_version)
        require_token("session id", self.session_id)

    def to_json(self) -> str:
        members = ",".join(
            f"{encode_string(key)}:{canonical_json_text(value)}" for key, value in self.members
        )
        return "{" + members + "}"

    @classmethod
    def from_node(cls, node: Node, mode: NumberMode) -> OpaqueBody:
        if not isinstance(node, JsonPairs):
            raise Serialization(reason="invalid_type", expected="struct")
        seen: set[str] = set()
        for key, _ in node.pairs:
            if key in seen:
                raise Serialization(reason="duplicate_field", field=key)
            seen.add(key)
        body = cls(tuple((key, to_value(value, mode)) for key, value in node.pairs))
        # Read eagerly so a body without the two header fields fails at decoding, as a
        # typed struct missing a required field does.
        _ = (body.protocol_version, body.session_id)
        return body


@attrs.frozen
class OpenSession(_OneBody):
    kind: ClassVar[str] = "open_session"
    body_key: ClassVar[str] = "manifest"
    manifest: SessionManifest


@attrs.frozen
class Invoke(_OneBody):
    kind: ClassVar[str] = "invoke"
    body_key: ClassVar[str] = "invocation"
    invocation: OpaqueBody


@attrs.frozen
class ToolResultMessage(_OneBody):
    kind: ClassVar[str] = "result"
    body_key: ClassVar[str] = "result"
    result: ToolResult


@attrs.frozen
class DispatchOperation(_OneBody):
    kind: ClassVar[str] = "dispatch_operation"
    body_key: ClassVar[str] = "request"
    request: OperationDispatchRequest


@attrs.frozen
class OperationResult(_OneBody):
    kind: ClassVar[str] = "operation_result"
    body_key: ClassVar[str] = "result"
    result: OperationReconcileResult


@attrs.frozen
class CompensateOperation(_OneBody):
    kind: ClassVar[str] = "compensate_operation"
    body_key: ClassVar[str] = "request"
    request: OperationCompensationRequest


@attrs.frozen
class CompensationResult(_OneBody):
    kind: ClassVar[str] = "compensation_result"
    body_key: ClassVar[str] = "result"
    result: OperationCompensationResult


@attrs.frozen
class ReconcileOperation(_OneBody):
    kind: ClassVar[str] = "reconcile_operation"
    body_key: ClassVar[str] = "request"
    request: OperationReconcileRequest


@attrs.frozen
class ReconciledOperation(_OneBody):
    kind: ClassVar[str] = "reconciled_operation"
    body_key: ClassVar[str] = "result"
    result: OperationReconcileResult


@attrs.frozen
class Cancel(_OneBody):
    kind: ClassVar[str] = "cancel"
    body_key: ClassVar[str] = "request"
    request: WorkerCancellationRequest


@attrs.frozen
class CancellationResult(_OneBody):
    kind: ClassVar[str] = "cancellation_result"
    body_key: ClassVar[str] = "result"
    result: OpaqueBody


@attrs.frozen
class CloseSession:
    kind: ClassVar[str] = "close_session"
    session_id: str
    protocol_version: int = 5

    def validate(self) -> None:
        check_version(self.protocol_version)
        require_token("session id", self.session_id)

    def body_json(self) -> str:
        return (
            f'"protocol_version":{self.protocol_version}'
            f',"session_id":{encode_string(self.session_id)}'
        )


@attrs.frozen
class ReconcileCompensation(_OneBody):
    """CR-1, host to worker: exactly the compensation the host recorded and sent."""

    kind: ClassVar[str] = "reconcile_compensation"
    body_key: ClassVar[str] = "request"
    request: OperationCompensationRequest


@attrs.frozen
class ReconciledCompensation(_OneBody):
    """CR-1, worker to host: the compensation result for that request."""

    kind: ClassVar[str] = "reconciled_compensation"
    body_key: ClassVar[str] = "result"
    result: OperationCompensationResult


WorkerMessage: TypeAlias = (
    OpenSession
    | Invoke
    | ToolResultMessage
    | DispatchOperation
    | OperationResult
    | CompensateOperation
    | CompensationResult
    | ReconcileOperation
    | ReconciledOperation
    | Cancel
    | CancellationResult
    | CloseSession
    | ReconcileCompensation
    | ReconciledCompensation
)

MESSAGE_KINDS: tuple[str, ...] = (
    "open_session",
    "invoke",
    "result",
    "dispatch_operation",
    "operation_result",
    "compensate_operation",
    "compensation_result",
    "reconcile_operation",
    "reconciled_operation",
    "cancel",
    "cancellation_result",
    "close_session",
)

EXTENSION_MESSAGE_KINDS: tuple[str, ...] = ("reconcile_compensation", "reconciled_compensation")


class WireProfile(enum.Enum):
    """Which message kinds a peer decodes, encodes, seals and opens."""

    UPSTREAM = "splash-v5"
    COMPENSATION_RECONCILE = "splash-v5+compensation-reconcile"

    @property
    def kinds(self) -> tuple[str, ...]:
        if self is WireProfile.UPSTREAM:
            return MESSAGE_KINDS
        return MESSAGE_KINDS + EXTENSION_MESSAGE_KINDS

    def admit(self, message: WorkerMessage) -> None:
        """Refuse a message of a kind this profile does not know, with the error decoding
        gives an unknown ``type`` (so an in-memory message cannot bypass the gate)."""
        if message.kind not in self.kinds:
            raise Serialization(reason="unknown_variant")


_BODY_KEY = {
    "open_session": "manifest",
    "invoke": "invocation",
    "result": "result",
    "dispatch_operation": "request",
    "operation_result": "result",
    "compensate_operation": "request",
    "compensation_result": "result",
    "reconcile_operation": "request",
    "reconciled_operation": "result",
    "cancel": "request",
    "cancellation_result": "result",
    "reconcile_compensation": "request",
    "reconciled_compensation": "result",
}


def message_json(message: WorkerMessage) -> str:
    """Compact encoding: ``{"type":"<kind>",<body>}`` (no validation, no size check)."""
    return f'{{"type":"{message.kind}",{message.body_json()}}}'


def message_from_node(
    node: Node, mode: NumberMode = NumberMode.AP, profile: WireProfile = WireProfile.UPSTREAM
) -> WorkerMessage:
    """Typed decoding only; call ``validate`` (or use ``decode_message_line``) to check.
    ``profile`` is the gate of CR-1: its kinds are the only ``type`` values accepted."""
    kind = tag_of(node, "type", profile.kinds)
    if kind == "close_session":
        struct = Struct(
            node, ("type", "protocol_version", "session_id"), deny_unknown=False, what=kind
        )
        return CloseSession(
            protocol_version=as_uint(struct.required("protocol_version"), 16),
            session_id=as_str(struct.required("session_id")),
        )
    key = _BODY_KEY[kind]
    body = Struct(node, ("type", key), deny_unknown=False, what=kind).required(key)
    return _decode_body(kind, body, mode)


def _decode_body(kind: str, body: Node, mode: NumberMode) -> WorkerMessage:
    if kind == "open_session":
        return OpenSession(SessionManifest.from_node(body))
    if kind == "dispatch_operation":
        return DispatchOperation(OperationDispatchRequest.from_node(body, mode))
    if kind == "operation_result":
        return OperationResult(OperationReconcileResult.from_node(body, mode))
    if kind == "compensate_operation":
        return CompensateOperation(OperationCompensationRequest.from_node(body, mode))
    if kind == "compensation_result":
        return CompensationResult(OperationCompensationResult.from_node(body, mode))
    if kind == "reconcile_operation":
        return ReconcileOperation(OperationReconcileRequest.from_node(body, mode))
    if kind == "reconciled_operation":
        return ReconciledOperation(OperationReconcileResult.from_node(body, mode))
    if kind == "reconcile_compensation":
        return ReconcileCompensation(OperationCompensationRequest.from_node(body, mode))
    if kind == "reconciled_compensation":
        return ReconciledCompensation(OperationCompensationResult.from_node(body, mode))
    if kind == "result":
        return ToolResultMessage(ToolResult.from_node(body, mode))
    if kind == "cancel":
        return Cancel(WorkerCancellationRequest.from_node(body, mode))
    opaque = OpaqueBody.from_node(body, mode)
    if kind == "invoke":
        return Invoke(opaque)
    return CancellationResult(opaque)


def check_frame_size(size: int) -> None:
    if size > MAX_WIRE_FRAME_BYTES:
        raise WireFrameTooLarge(actual=size, maximum=MAX_WIRE_FRAME_BYTES)


def text_size(text: str | bytes) -> int:
    """Byte length of a wire line (a str is measured as its UTF-8 encoding)."""
    return len(text.encode("utf-8", "surrogatepass")) if isinstance(text, str) else len(text)


def encode_message_line(message: WorkerMessage, profile: WireProfile = WireProfile.UPSTREAM) -> str:
    """The profile's kind gate, validate, encode, then bound the encoding by 1 MiB (upstream
    ``to_json_line``)."""
    profile.admit(message)
    message.validate()
    encoded = message_json(message)
    check_frame_size(len(encoded.encode("utf-8")))
    return encoded


def decode_message_line(
    text: str | bytes,
    mode: NumberMode = NumberMode.AP,
    profile: WireProfile = WireProfile.UPSTREAM,
) -> WorkerMessage:
    """Bound the input by 1 MiB before parsing, decode (the profile's kinds only), then
    validate."""
    check_frame_size(text_size(text))
    message = message_from_node(read_document(text, mode), mode, profile)
    message.validate()
    return message
