"""Operation wire objects of worker protocol v5: statuses, requests, results.

Every object here is a frozen value with an explicit constructor (``create`` builds and
validates, like upstream's ``new``; the plain constructor builds without checking, because a
decoded message must be representable before ``validate`` can reject it). ``to_json`` is the
compact serde form with fields in declaration order; ``from_node`` reads a parsed document
with upstream's serde rules (the dispatch and compensation structs deny unknown fields, the
reconcile structs ignore them, a repeated field is always an error).

The whole ``WorkerMessage`` union lives in ``worker_message``; this module has no framing.
"""

from __future__ import annotations

from typing import Any, ClassVar, Self

import attrs

from rescind.reference.grants import CapabilityGrant, require_grant_fingerprint
from rescind.reference.jsonencode import encode_string
from rescind.reference.jsonparse import Node
from rescind.reference.manifest import PROTOCOL_VERSION
from rescind.reference.numbers import NumberMode
from rescind.reference.payload import ToolPayload
from rescind.reference.protocol_errors import (
    InvalidOperationFailure,
    OperationFailureTooLarge,
    OutputTooLarge,
    UnsupportedVersion,
)
from rescind.reference.tokens import require_compensation_key, require_token
from rescind.reference.wirejson import Struct, as_str, as_uint, read_payload, tag_of
from rescind.tables.operation import Phase

MAX_FAILURE_MESSAGE_BYTES = 4096
U16_MAX = 2**16 - 1

STATUS_PHASES = (Phase.RUNNING, Phase.SUCCEEDED, Phase.FAILED, Phase.CANCELLED)
"""The phases a worker can report; ``pending`` exists only inside a journal."""


def _check_text(_: object, attribute: attrs.Attribute[str], value: object) -> None:
    # A Rust String is valid UTF-8, so no wire text can hold a lone surrogate.
    if not isinstance(value, str):
        raise TypeError(f"{attribute.name} must be str")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"{attribute.name} is not valid unicode text") from None


def _check_u16(_: object, attribute: attrs.Attribute[int], value: object) -> None:
    if type(value) is not int or not 0 <= value <= U16_MAX:
        raise ValueError(f"{attribute.name} must be an int that fits u16")


def _check_payload(_: object, attribute: attrs.Attribute[ToolPayload], value: object) -> None:
    if not isinstance(value, ToolPayload):
        raise TypeError(f"{attribute.name} must be a ToolPayload")


def check_version(version: int) -> None:
    if version != PROTOCOL_VERSION:
        raise UnsupportedVersion(actual=version)


def validate_failure_message(message: str) -> None:
    """Non-empty and at most 4096 UTF-8 bytes (not bounded by the grant's output limit)."""
    size = len(message.encode("utf-8"))
    if size == 0:
        raise InvalidOperationFailure()
    if size > MAX_FAILURE_MESSAGE_BYTES:
        raise OperationFailureTooLarge(actual=size, maximum=MAX_FAILURE_MESSAGE_BYTES)


# -- operation state shape (shared by the wire status and the journal's stored state) --------


def validate_state_fields(phase: Phase, payload: ToolPayload | None, message: str | None) -> None:
    """Self-validation of a state: a success payload checks its own envelope and depth, a
    failure message its length; the other phases carry nothing to check."""
    if phase is Phase.SUCCEEDED:
        assert payload is not None
        payload.validate()
    elif phase is Phase.FAILED:
        assert message is not None
        validate_failure_message(message)


def validate_state_for_grant(
    phase: Phase, payload: ToolPayload | None, message: str | None, grant: CapabilityGrant
) -> None:
    """The state's own rules first, then a success payload against the grant: format,
    envelope, depth and the inclusive ``max_output_bytes`` bound."""
    validate_state_fields(phase, payload, message)
    if phase is Phase.SUCCEEDED:
        assert payload is not None
        payload.validate_for(grant.format, grant.max_output_bytes, OutputTooLarge)


def encode_state(phase: Phase, payload: ToolPayload | None, message: str | None) -> str:
    """``{"state":..}`` with the tag first, then ``payload`` or ``message`` if any."""
    if phase is Phase.SUCCEEDED:
        assert payload is not None
        return f'{{"state":"succeeded","payload":{payload.wire_json()}}}'
    if phase is Phase.FAILED:
        assert message is not None
        return f'{{"state":"failed","message":{encode_string(message)}}}'
    return f'{{"state":"{phase.value}"}}'


def decode_state(
    node: Node, mode: NumberMode, phases: tuple[Phase, ...]
) -> tuple[Phase, ToolPayload | None, str | None]:
    """An internally tagged state object: the tag may be anywhere, extra keys are ignored
    (unit variants included), a repeated tag or field is an error."""
    name = tag_of(node, "state", [phase.value for phase in phases])
    phase = Phase(name)
    if phase is Phase.SUCCEEDED:
        struct = Struct(node, ("state", "payload"), deny_unknown=False, what="state")
        return phase, read_payload(struct.required("payload"), mode), None
    if phase is Phase.FAILED:
        struct = Struct(node, ("state", "message"), deny_unknown=False, what="state")
        return phase, None, as_str(struct.required("message"))
    return phase, None, None


def _check_state_shape(phase: Phase, payload: ToolPayload | None, message: str | None) -> None:
    if (payload is not None) != (phase is Phase.SUCCEEDED):
        raise ValueError("a payload belongs to, and only to, the succeeded phase")
    if (message is not None) != (phase is Phase.FAILED):
        raise ValueError("a message belongs to, and only to, the failed phase")
    if message is not None:
        try:
            message.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError("a failure message must be valid unicode text") from None


@attrs.frozen
class OperationStatus:
    """What a worker reports: running, succeeded(payload), failed(message) or cancelled.

    Equality is exact (payloads compare by canonical bytes); terminal *idempotence* uses
    ``same_as``, upstream's structural equality."""

    phase: Phase
    payload: ToolPayload | None = None
    message: str | None = None

    def __attrs_post_init__(self) -> None:
        if self.phase not in STATUS_PHASES:
            raise ValueError(f"{self.phase.value} is not a wire status")
        _check_state_shape(self.phase, self.payload, self.message)

    @classmethod
    def running(cls) -> OperationStatus:
        return cls(Phase.RUNNING)

    @classmethod
    def succeeded(cls, payload: ToolPayload) -> OperationStatus:
        return cls(Phase.SUCCEEDED, payload=payload)

    @classmethod
    def failed(cls, message: str) -> OperationStatus:
        return cls(Phase.FAILED, message=message)

    @classmethod
    def cancelled(cls) -> OperationStatus:
        return cls(Phase.CANCELLED)

    def validate(self) -> None:
        validate_state_fields(self.phase, self.payload, self.message)

    def validate_for_grant(self, grant: CapabilityGrant) -> None:
        validate_state_for_grant(self.phase, self.payload, self.message, grant)

    def to_json(self) -> str:
        return encode_state(self.phase, self.payload, self.message)

    @classmethod
    def from_node(cls, node: Node, mode: NumberMode = NumberMode.AP) -> OperationStatus:
        return cls(*decode_state(node, mode, STATUS_PHASES))


# -- requests and results ----------------------------------------------------------------------

HEADER_FIELDS = ("protocol_version", "session_id", "request_id", "tool", "operation_key")
BINDING_FIELDS = (*HEADER_FIELDS, "compensation_key", "tenant_scope", "grant_fingerprint")


def _text_field() -> str:
    return attrs.field(validator=_check_text)


def _version_field() -> int:
    return attrs.field(default=PROTOCOL_VERSION, validator=_check_u16)


@attrs.frozen
class _HeaderValues:
    protocol_version: int
    session_id: str
    request_id: str
    tool: str
    operation_key: str

    @classmethod
    def read(cls, struct: Struct) -> _HeaderValues:
        return cls(
            as_uint(struct.required("protocol_version"), 16),
            as_str(struct.required("session_id")),
            as_str(struct.required("request_id")),
            as_str(struct.required("tool")),
            as_str(struct.required("operation_key")),
        )


@attrs.frozen
class _BindingValues:
    header: _HeaderValues
    compensation_key: str
    tenant_scope: str
    grant_fingerprint: str

    @classmethod
    def read(cls, struct: Struct) -> _BindingValues:
        return cls(
            _HeaderValues.read(struct),
            as_str(struct.required("compensation_key")),
            as_str(struct.required("tenant_scope")),
            as_str(struct.required("grant_fingerprint")),
        )


class _Header:
    """Shared behaviour of the five-field header (version, session, request, tool, key)."""

    protocol_version: int
    session_id: str
    request_id: str
    tool: str
    operation_key: str
    fields: ClassVar[tuple[str, ...]]

    def validate(self) -> None:
        raise NotImplementedError

    def checked(self) -> Self:
        """This object after ``validate`` (upstream's validating ``new``)."""
        self.validate()
        return self

    def validate_header(self) -> None:
        check_version(self.protocol_version)
        require_token("session id", self.session_id)
        require_token("request id", self.request_id)
        require_token("tool", self.tool)
        require_token("operation key", self.operation_key)

    def header_json(self) -> str:
        return (
            f'"protocol_version":{self.protocol_version}'
            f',"session_id":{encode_string(self.session_id)}'
            f',"request_id":{encode_string(self.request_id)}'
            f',"tool":{encode_string(self.tool)}'
            f',"operation_key":{encode_string(self.operation_key)}'
        )

    def header_tuple(self) -> tuple[int, str, str, str, str]:
        return (
            self.protocol_version,
            self.session_id,
            self.request_id,
            self.tool,
            self.operation_key,
        )


class _Binding(_Header):
    """The eight binding fields of a compensation request or result."""

    compensation_key: str
    tenant_scope: str
    grant_fingerprint: str

    def validate_header(self) -> None:
        super().validate_header()
        require_compensation_key(self.compensation_key)
        require_token("tenant scope", self.tenant_scope)
        require_grant_fingerprint(self.grant_fingerprint)

    def header_json(self) -> str:
        return (
            super().header_json()
            + f',"compensation_key":{encode_string(self.compensation_key)}'
            + f',"tenant_scope":{encode_string(self.tenant_scope)}'
            + f',"grant_fingerprint":{encode_string(self.grant_fingerprint)}'
        )

    def binding_tuple(self) -> tuple[object, ...]:
        return (
            *self.header_tuple(),
            self.compensation_key,
            self.tenant_scope,
            self.grant_fingerprint,
        )


@attrs.frozen(kw_only=True)
class OperationDispatchRequest(_Header):
    """``dispatch_operation`` body: an effect under a host-owned idempotency key."""

    protocol_version: int = _version_field()
    session_id: str = _text_field()
    request_id: str = _text_field()
    tool: str = _text_field()
    operation_key: str = _text_field()
    payload: ToolPayload = attrs.field(validator=_check_payload)

    fields = (*HEADER_FIELDS, "payload")

    def validate(self) -> None:
        """Header tokens and version, then the payload against its own format."""
        self.validate_header()
        self.payload.validate()

    def to_json(self) -> str:
        return f'{{{self.header_json()},"payload":{self.payload.wire_json()}}}'

    @classmethod
    def from_node(cls, node: Node, mode: NumberMode = NumberMode.AP) -> OperationDispatchRequest:
        struct = Struct(node, cls.fields, deny_unknown=True, what="dispatch request")
        header = _HeaderValues.read(struct)
        return cls(**attrs.asdict(header), payload=read_payload(struct.required("payload"), mode))


@attrs.frozen(kw_only=True)
class OperationCompensationRequest(_Binding):
    """``compensate_operation`` body: undo one succeeded original, bound to a grant."""

    protocol_version: int = _version_field()
    session_id: str = _text_field()
    request_id: str = _text_field()
    tool: str = _text_field()
    operation_key: str = _text_field()
    compensation_key: str = _text_field()
    tenant_scope: str = _text_field()
    grant_fingerprint: str = _text_field()
    payload: ToolPayload = attrs.field(validator=_check_payload)

    fields = (*BINDING_FIELDS, "payload")

    def validate(self) -> None:
        """Header, ``cmp-`` key, tenant scope token, grant fingerprint form, then payload."""
        self.validate_header()
        self.payload.validate()

    def to_json(self) -> str:
        return f'{{{self.header_json()},"payload":{self.payload.wire_json()}}}'

    @classmethod
    def from_node(
        cls, node: Node, mode: NumberMode = NumberMode.AP
    ) -> OperationCompensationRequest:
        struct = Struct(node, cls.fields, deny_unknown=True, what="compensation request")
        return cls(
            **_binding_kwargs(_BindingValues.read(struct)),
            payload=read_payload(struct.required("payload"), mode),
        )


@attrs.frozen(kw_only=True)
class OperationCompensationResult(_Binding):
    """``compensation_result`` body: the eight binding fields plus a status."""

    protocol_version: int = _version_field()
    session_id: str = _text_field()
    request_id: str = _text_field()
    tool: str = _text_field()
    operation_key: str = _text_field()
    compensation_key: str = _text_field()
    tenant_scope: str = _text_field()
    grant_fingerprint: str = _text_field()
    status: OperationStatus

    fields = (*BINDING_FIELDS, "status")

    @classmethod
    def for_request(
        cls, request: OperationCompensationRequest, status: OperationStatus
    ) -> OperationCompensationResult:
        """The reply to ``request``: every binding field copied, the payload never echoed."""
        return cls(
            protocol_version=request.protocol_version,
            session_id=request.session_id,
            request_id=request.request_id,
            tool=request.tool,
            operation_key=request.operation_key,
            compensation_key=request.compensation_key,
            tenant_scope=request.tenant_scope,
            grant_fingerprint=request.grant_fingerprint,
            status=status,
        )

    def validate(self) -> None:
        self.validate_header()
        self.status.validate()

    def matches_request(self, request: OperationCompensationRequest) -> bool:
        """All eight binding fields equal; payload and status are never compared."""
        return self.binding_tuple() == request.binding_tuple()

    def to_json(self) -> str:
        return f'{{{self.header_json()},"status":{self.status.to_json()}}}'

    @classmethod
    def from_node(cls, node: Node, mode: NumberMode = NumberMode.AP) -> OperationCompensationResult:
        struct = Struct(node, cls.fields, deny_unknown=True, what="compensation result")
        binding = _BindingValues.read(struct)
        status = OperationStatus.from_node(struct.required("status"), mode)
        return cls(**_binding_kwargs(binding), status=status)


@attrs.frozen(kw_only=True)
class OperationReconcileRequest(_Header):
    """``reconcile_operation`` body: ask for the state of one key (no input, no effect)."""

    protocol_version: int = _version_field()
    session_id: str = _text_field()
    request_id: str = _text_field()
    tool: str = _text_field()
    operation_key: str = _text_field()

    fields = HEADER_FIELDS

    def validate(self) -> None:
        self.validate_header()

    def to_json(self) -> str:
        return f"{{{self.header_json()}}}"

    @classmethod
    def from_node(cls, node: Node, mode: NumberMode = NumberMode.AP) -> OperationReconcileRequest:
        struct = Struct(node, cls.fields, deny_unknown=False, what="reconcile request")
        return cls(**attrs.asdict(_HeaderValues.read(struct)))


@attrs.frozen(kw_only=True)
class OperationReconcileResult(_Header):
    """Body of both ``operation_result`` and ``reconciled_operation``."""

    protocol_version: int = _version_field()
    session_id: str = _text_field()
    request_id: str = _text_field()
    tool: str = _text_field()
    operation_key: str = _text_field()
    status: OperationStatus

    fields = (*HEADER_FIELDS, "status")

    @classmethod
    def for_request(
        cls,
        request: OperationDispatchRequest | OperationReconcileRequest,
        status: OperationStatus,
    ) -> OperationReconcileResult:
        """The reply to a dispatch or reconcile request: its five header fields copied."""
        return cls(
            protocol_version=request.protocol_version,
            session_id=request.session_id,
            request_id=request.request_id,
            tool=request.tool,
            operation_key=request.operation_key,
            status=status,
        )

    def validate(self) -> None:
        self.validate_header()
        self.status.validate()

    def matches_request(self, request: OperationReconcileRequest) -> bool:
        """The five correlation fields equal (version, session, request id, tool, key)."""
        return self.header_tuple() == request.header_tuple()

    def matches_dispatch(self, request: OperationDispatchRequest) -> bool:
        return self.header_tuple() == request.header_tuple()

    def to_json(self) -> str:
        return f'{{{self.header_json()},"status":{self.status.to_json()}}}'

    @classmethod
    def from_node(cls, node: Node, mode: NumberMode = NumberMode.AP) -> OperationReconcileResult:
        struct = Struct(node, cls.fields, deny_unknown=False, what="operation result")
        header = _HeaderValues.read(struct)
        status = OperationStatus.from_node(struct.required("status"), mode)
        return cls(**attrs.asdict(header), status=status)


def _binding_kwargs(binding: _BindingValues) -> dict[str, Any]:
    return {
        **attrs.asdict(binding.header),
        "compensation_key": binding.compensation_key,
        "tenant_scope": binding.tenant_scope,
        "grant_fingerprint": binding.grant_fingerprint,
    }
