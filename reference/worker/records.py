"""The values a worker journal stores: operation records, their compensation records, and
the five-phase state both use. Each has ``validate`` (upstream's per-record rules), a compact
encoding with fields in upstream's order, and a strict decoding (unknown fields denied,
``compensation`` optional and written as ``null`` when absent).

Raw inputs are never stored, only their worker input fingerprints; terminal success payloads
and failure messages are stored, so a duplicate can be answered with the original result.
"""

from __future__ import annotations

import attrs

from rescind.reference.grants import CapabilityGrant, require_grant_fingerprint
from rescind.reference.jsonencode import encode_string
from rescind.reference.jsonparse import Node
from rescind.reference.messages import (
    OperationStatus,
    decode_state,
    encode_state,
    validate_state_fields,
    validate_state_for_grant,
)
from rescind.reference.numbers import NumberMode
from rescind.reference.payload import ToolPayload
from rescind.reference.protocol_errors import (
    CompensationRequiresSucceededOperation,
    InvalidOperationFingerprint,
)
from rescind.reference.tokens import is_hex64, require_compensation_key, require_token
from rescind.reference.wirejson import Struct, as_str
from rescind.tables.operation import Phase

ALL_PHASES = tuple(Phase)

RECORD_FIELDS = ("tool", "operation_key", "input_fingerprint", "state", "compensation")
COMPENSATION_FIELDS = ("compensation_key", "input_fingerprint", "grant_fingerprint", "state")


@attrs.frozen
class WorkerOperationState:
    """pending, running, succeeded(payload), failed(message) or cancelled.

    ``==`` is exact (payloads by canonical bytes); ``same_as`` is upstream's structural
    equality, the one the lifecycle's ``stay_if_same`` verdict uses."""

    phase: Phase
    payload: ToolPayload | None = None
    message: str | None = None

    def __attrs_post_init__(self) -> None:
        if (self.payload is not None) != (self.phase is Phase.SUCCEEDED):
            raise ValueError("a payload belongs to, and only to, the succeeded phase")
        if (self.message is not None) != (self.phase is Phase.FAILED):
            raise ValueError("a message belongs to, and only to, the failed phase")

    @classmethod
    def pending(cls) -> WorkerOperationState:
        return cls(Phase.PENDING)

    @classmethod
    def from_status(cls, status: OperationStatus) -> WorkerOperationState:
        return cls(status.phase, status.payload, status.message)

    def as_status(self) -> OperationStatus | None:
        """The wire status of this state; ``pending`` has none."""
        if self.phase is Phase.PENDING:
            return None
        return OperationStatus(self.phase, self.payload, self.message)

    @property
    def kind(self) -> str:
        return self.phase.value

    def same_as(self, other: WorkerOperationState) -> bool:
        if self.phase is not other.phase:
            return False
        if self.payload is not None and other.payload is not None:
            return self.payload.same_as(other.payload)
        return self.message == other.message

    def validate(self) -> None:
        validate_state_fields(self.phase, self.payload, self.message)

    def validate_for_grant(self, grant: CapabilityGrant) -> None:
        """A stored state re-checked under the *current* grant (format and output bound)."""
        validate_state_for_grant(self.phase, self.payload, self.message, grant)

    def to_json(self) -> str:
        return encode_state(self.phase, self.payload, self.message)

    @classmethod
    def from_node(cls, node: Node, mode: NumberMode) -> WorkerOperationState:
        return cls(*decode_state(node, mode, ALL_PHASES))


def _require_fingerprint(value: str) -> None:
    if not is_hex64(value):
        raise InvalidOperationFingerprint()


@attrs.frozen
class CompensationRecord:
    """The one compensation an original may ever get, bound to its key, input and grant."""

    compensation_key: str
    input_fingerprint: str
    grant_fingerprint: str
    state: WorkerOperationState

    def validate(self) -> None:
        require_compensation_key(self.compensation_key)
        _require_fingerprint(self.input_fingerprint)
        require_grant_fingerprint(self.grant_fingerprint)
        self.state.validate()

    def same_identity(self, key: str, input_fingerprint: str, grant_fingerprint: str) -> bool:
        return (self.compensation_key, self.input_fingerprint, self.grant_fingerprint) == (
            key,
            input_fingerprint,
            grant_fingerprint,
        )

    def to_json(self) -> str:
        return (
            f'{{"compensation_key":{encode_string(self.compensation_key)}'
            f',"input_fingerprint":{encode_string(self.input_fingerprint)}'
            f',"grant_fingerprint":{encode_string(self.grant_fingerprint)}'
            f',"state":{self.state.to_json()}}}'
        )

    @classmethod
    def from_node(cls, node: Node, mode: NumberMode) -> CompensationRecord:
        struct = Struct(node, COMPENSATION_FIELDS, deny_unknown=True, what="compensation record")
        return cls(
            as_str(struct.required("compensation_key")),
            as_str(struct.required("input_fingerprint")),
            as_str(struct.required("grant_fingerprint")),
            WorkerOperationState.from_node(struct.required("state"), mode),
        )


@attrs.frozen
class OperationRecord:
    """One admitted operation: tool, key, input fingerprint, state, optional compensation."""

    tool: str
    operation_key: str
    input_fingerprint: str
    state: WorkerOperationState
    compensation: CompensationRecord | None = None

    def validate(self) -> None:
        """Tokens, fingerprint, state, then the compensation (only on a succeeded record)."""
        require_token("tool", self.tool)
        require_token("operation key", self.operation_key)
        _require_fingerprint(self.input_fingerprint)
        self.state.validate()
        if self.compensation is not None:
            if self.state.phase is not Phase.SUCCEEDED:
                raise CompensationRequiresSucceededOperation(
                    operation_key=self.operation_key, state=self.state.kind
                )
            self.compensation.validate()

    def to_json(self) -> str:
        compensation = "null" if self.compensation is None else self.compensation.to_json()
        return (
            f'{{"tool":{encode_string(self.tool)}'
            f',"operation_key":{encode_string(self.operation_key)}'
            f',"input_fingerprint":{encode_string(self.input_fingerprint)}'
            f',"state":{self.state.to_json()},"compensation":{compensation}}}'
        )

    @classmethod
    def from_node(cls, node: Node, mode: NumberMode) -> OperationRecord:
        struct = Struct(node, RECORD_FIELDS, deny_unknown=True, what="operation record")
        compensation_node = struct.optional("compensation")
        compensation = (
            None
            if compensation_node is None
            else CompensationRecord.from_node(compensation_node, mode)
        )
        return cls(
            as_str(struct.required("tool")),
            as_str(struct.required("operation_key")),
            as_str(struct.required("input_fingerprint")),
            WorkerOperationState.from_node(struct.required("state"), mode),
            compensation,
        )
