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

from collections.abc import Callable
from typing import Any, ClassVar, Self

import attrs

from rescind.reference.grants import CapabilityGrant, require_grant_fingerprint
from rescind.reference.jsonencode import encode_string
from rescind.reference.jsonparse import Node
from rescind.reference.manifest import PROTOCOL_VERSION
from rescind.reference.numbers import NumberMode
from rescind.reference.payload import ToolPayload
from rescind.reference.protocol_errors import (
    CancellationIdMatchesRequest,
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


@attrs.frozen
class WireField:
    """One field of a request or result, as the wire sees it: its key, how it is read from a
    parsed document, how it is written, and (for the binding fields) the check ``validate``
    applies. Reading, writing, validation and correlation all walk one tuple of these, in the
    wire order, so a field is described once."""

    name: str
    read: Callable[[Node, NumberMode], Any]
    write: Callable[[Any], str]
    check: Callable[[Any], object] | None = None
    """Raises when the value is malformed; what it returns is ignored."""


def _token(what: str) -> Callable[[Any], None]:
    def check(value: Any) -> None:
        require_token(what, value)

    return check


def _text(name: str, check: Callable[[Any], object]) -> WireField:
    return WireField(name, lambda node, _: as_str(node), encode_string, check)


HEADER: tuple[WireField, ...] = (
    WireField("protocol_version", lambda node, _: as_uint(node, 16), str, check_version),
    _text("session_id", _token("session id")),
    _text("request_id", _token("request id")),
    _text("tool", _token("tool")),
    _text("operation_key", _token("operation key")),
)
"""The five correlation fields every request and result starts with."""

BINDING: tuple[WireField, ...] = (
    *HEADER,
    _text("compensation_key", require_compensation_key),
    _text("tenant_scope", _token("tenant scope")),
    _text("grant_fingerprint", require_grant_fingerprint),
)
"""The eight fields that bind a compensation to its original and its grant."""

PAYLOAD = WireField("payload", read_payload, lambda payload: payload.wire_json())
STATUS = WireField(
    "status",
    lambda node, mode: OperationStatus.from_node(node, mode),
    lambda status: status.to_json(),
)

HEADER_FIELDS = tuple(field.name for field in HEADER)
BINDING_FIELDS = tuple(field.name for field in BINDING)


def _text_field() -> str:
    return attrs.field(validator=_check_text)


def _version_field() -> int:
    return attrs.field(default=PROTOCOL_VERSION, validator=_check_u16)


class _Message:
    """What every request and result shares, driven by its ``spec`` (wire order): the
    correlation fields it is matched on (``correlation``), reading, writing and the checks of
    its binding fields; a body (payload or status) is validated by ``validate``."""

    spec: ClassVar[tuple[WireField, ...]]
    correlation: ClassVar[tuple[WireField, ...]]
    deny_unknown: ClassVar[bool]
    what: ClassVar[str]

    def validate(self) -> None:
        raise NotImplementedError

    def checked(self) -> Self:
        """This object after ``validate`` (upstream's validating ``new``)."""
        self.validate()
        return self

    def validate_header(self) -> None:
        for field in self.correlation:
            if field.check is not None:
                field.check(getattr(self, field.name))

    def to_json(self) -> str:
        members = (
            f'"{field.name}":{field.write(getattr(self, field.name))}' for field in self.spec
        )
        return "{" + ",".join(members) + "}"

    def correlation_tuple(self) -> tuple[object, ...]:
        return tuple(getattr(self, field.name) for field in self.correlation)

    @classmethod
    def from_node(cls, node: Node, mode: NumberMode = NumberMode.AP) -> Self:
        names = tuple(field.name for field in cls.spec)
        struct = Struct(node, names, deny_unknown=cls.deny_unknown, what=cls.what)
        values = {field.name: field.read(struct.required(field.name), mode) for field in cls.spec}
        return cls(**values)


@attrs.frozen(kw_only=True)
class OperationDispatchRequest(_Message):
    """``dispatch_operation`` body: an effect under a host-owned idempotency key."""

    protocol_version: int = _version_field()
    session_id: str = _text_field()
    request_id: str = _text_field()
    tool: str = _text_field()
    operation_key: str = _text_field()
    payload: ToolPayload = attrs.field(validator=_check_payload)

    spec = (*HEADER, PAYLOAD)
    correlation = HEADER
    deny_unknown = True
    what = "dispatch request"

    def validate(self) -> None:
        """Header tokens and version, then the payload against its own format."""
        self.validate_header()
        self.payload.validate()


@attrs.frozen(kw_only=True)
class WorkerCancellationRequest(_Message):
    """``cancel`` body (upstream ``WorkerCancellationRequest``, WM-9): every member required,
    unknown members refused; the cancellation id names this exchange and may not be the id
    of the request it cancels."""

    protocol_version: int = _version_field()
    session_id: str = _text_field()
    cancellation_id: str = _text_field()
    request_id: str = _text_field()
    tool: str = _text_field()

    spec = (
        HEADER[0],
        HEADER[1],
        _text("cancellation_id", _token("cancellation id")),
        HEADER[2],
        HEADER[3],
    )
    correlation = spec
    deny_unknown = True
    what = "cancellation request"

    def validate(self) -> None:
        self.validate_header()
        if self.cancellation_id == self.request_id:
            raise CancellationIdMatchesRequest()


@attrs.frozen(kw_only=True)
class ToolResult(_Message):
    """``result`` body (upstream ``ToolResult``, WM-9): header and a required payload;
    unknown members are ignored and not re-encoded. Only the header is validated, as
    upstream's ``validate_header`` does."""

    protocol_version: int = _version_field()
    session_id: str = _text_field()
    request_id: str = _text_field()
    payload: ToolPayload = attrs.field(validator=_check_payload)

    spec = (HEADER[0], HEADER[1], HEADER[2], PAYLOAD)
    correlation = (HEADER[0], HEADER[1], HEADER[2])
    deny_unknown = False
    what = "tool result"

    def validate(self) -> None:
        self.validate_header()


@attrs.frozen(kw_only=True)
class OperationCompensationRequest(_Message):
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

    spec = (*BINDING, PAYLOAD)
    correlation = BINDING
    deny_unknown = True
    what = "compensation request"

    def validate(self) -> None:
        """Header, ``cmp-`` key, tenant scope token, grant fingerprint form, then payload."""
        self.validate_header()
        self.payload.validate()


@attrs.frozen(kw_only=True)
class OperationCompensationResult(_Message):
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

    spec = (*BINDING, STATUS)
    correlation = BINDING
    deny_unknown = True
    what = "compensation result"

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
        return self.correlation_tuple() == request.correlation_tuple()


@attrs.frozen(kw_only=True)
class OperationReconcileRequest(_Message):
    """``reconcile_operation`` body: ask for the state of one key (no input, no effect)."""

    protocol_version: int = _version_field()
    session_id: str = _text_field()
    request_id: str = _text_field()
    tool: str = _text_field()
    operation_key: str = _text_field()

    spec = HEADER
    correlation = HEADER
    deny_unknown = False
    what = "reconcile request"

    def validate(self) -> None:
        self.validate_header()


@attrs.frozen(kw_only=True)
class OperationReconcileResult(_Message):
    """Body of both ``operation_result`` and ``reconciled_operation``."""

    protocol_version: int = _version_field()
    session_id: str = _text_field()
    request_id: str = _text_field()
    tool: str = _text_field()
    operation_key: str = _text_field()
    status: OperationStatus

    spec = (*HEADER, STATUS)
    correlation = HEADER
    deny_unknown = False
    what = "operation result"

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
        return self.correlation_tuple() == request.correlation_tuple()

    def matches_dispatch(self, request: OperationDispatchRequest) -> bool:
        return self.correlation_tuple() == request.correlation_tuple()
