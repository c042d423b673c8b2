"""Ledger format version 2: compact JSON text, the decoder's rules and the encoder's estimate.

Encoding writes fields in upstream's declaration order with no whitespace:
``format_version, revision, plan_fingerprint, operations``; each operation
``step_id, tool, operation_key, input_fingerprint, state, compensation`` (``compensation`` is
always written, ``null`` when absent); each compensation ``compensation_key,
input_fingerprint, tenant_scope, grant_fingerprint, state``.

Decoding follows serde: unknown fields are refused at all three levels, a repeated field is
refused, a missing ``compensation`` means none (``null`` too), integers must be integers that
fit ``u8``/``u64``. Any such failure is one error, ``ledger_invalid_encoding``; text over
65,536 bytes is refused as ``ledger_too_large`` before it is parsed.

The encoder first computes a conservative size *estimate* and refuses when the estimate is
over 65,536 bytes, even when the real text would fit (HL-9). Upstream does exactly this, so
the reference reproduces it instead of measuring the real text only.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from rescind.reference.errors import RescindError
from rescind.reference.host.errors import LedgerInvalidEncoding, LedgerTooLarge
from rescind.reference.host.ledger_records import (
    MAX_LEDGER_BYTES,
    CompensationRecord,
    OperationRecord,
)
from rescind.reference.jsonencode import encode_string
from rescind.reference.jsonparse import Node
from rescind.reference.numbers import NumberMode
from rescind.reference.wirejson import Struct, as_list, as_str, as_uint, read_document
from rescind.tables.operation import Phase

LEDGER_FIELDS = ("format_version", "revision", "plan_fingerprint", "operations")
OPERATION_FIELDS = (
    "step_id",
    "tool",
    "operation_key",
    "input_fingerprint",
    "state",
    "compensation",
)
COMPENSATION_FIELDS = (
    "compensation_key",
    "input_fingerprint",
    "tenant_scope",
    "grant_fingerprint",
    "state",
)

# Upstream's estimate constants: the ledger envelope (192 + 32), per operation and per
# compensation fixed overheads, each plus the lengths of the variable fields.
ESTIMATE_BASE = 192 + 32
ESTIMATE_PER_OPERATION = 256
ESTIMATE_PER_COMPENSATION = 320


@attrs.frozen
class DecodedLedger:
    """The raw fields of a decoded ledger, before structural validation."""

    format_version: int
    revision: int
    plan_fingerprint: str
    operations: tuple[OperationRecord, ...]


def size_estimate(operations: Sequence[OperationRecord]) -> int:
    """The encoder's upper-bound estimate in bytes (HL-9). Field lengths are UTF-8 lengths;
    Python integers do not overflow, which matches upstream's "overflow is too large"
    because no validated ledger comes near the u64 range."""
    total = ESTIMATE_BASE
    for operation in operations:
        total += ESTIMATE_PER_OPERATION + _lengths(
            operation.step_id, operation.tool, operation.operation_key, operation.input_fingerprint
        )
        if operation.compensation is not None:
            compensation = operation.compensation
            total += ESTIMATE_PER_COMPENSATION + _lengths(
                compensation.compensation_key,
                compensation.input_fingerprint,
                compensation.tenant_scope,
                compensation.grant_fingerprint,
            )
    return total


def _lengths(*fields: str) -> int:
    return sum(len(field.encode("utf-8")) for field in fields)


def encode_compensation(compensation: CompensationRecord | None) -> str:
    if compensation is None:
        return "null"
    return (
        f'{{"compensation_key":{encode_string(compensation.compensation_key)}'
        f',"input_fingerprint":{encode_string(compensation.input_fingerprint)}'
        f',"tenant_scope":{encode_string(compensation.tenant_scope)}'
        f',"grant_fingerprint":{encode_string(compensation.grant_fingerprint)}'
        f',"state":"{compensation.state.value}"}}'
    )


def encode_operation(operation: OperationRecord) -> str:
    return (
        f'{{"step_id":{encode_string(operation.step_id)}'
        f',"tool":{encode_string(operation.tool)}'
        f',"operation_key":{encode_string(operation.operation_key)}'
        f',"input_fingerprint":{encode_string(operation.input_fingerprint)}'
        f',"state":"{operation.state.value}"'
        f',"compensation":{encode_compensation(operation.compensation)}}}'
    )


def encode_ledger(
    format_version: int,
    revision: int,
    plan_fingerprint: str,
    operations: Sequence[OperationRecord],
) -> str:
    """The compact text, without any bound check (``WorkflowOperationLedger.to_json`` checks
    structure, the estimate and the real length around this)."""
    body = ",".join(encode_operation(operation) for operation in operations)
    return (
        f'{{"format_version":{format_version},"revision":{revision}'
        f',"plan_fingerprint":{encode_string(plan_fingerprint)}'
        f',"operations":[{body}]}}'
    )


def check_estimate(operations: Sequence[OperationRecord]) -> None:
    """Refuse before serializing when the estimate is over the bound (even if the real text
    would fit: HL-9)."""
    estimate = size_estimate(operations)
    if estimate > MAX_LEDGER_BYTES:
        raise LedgerTooLarge(estimate=estimate, maximum=MAX_LEDGER_BYTES)


def check_length(text: str) -> None:
    actual = len(text.encode("utf-8"))
    if actual > MAX_LEDGER_BYTES:
        raise LedgerTooLarge(actual=actual, maximum=MAX_LEDGER_BYTES)


def _text_length(text: str | bytes) -> int:
    if isinstance(text, bytes | bytearray):
        return len(text)
    return len(text.encode("utf-8", "surrogatepass"))


def decode_ledger(text: str | bytes) -> DecodedLedger:
    """Size bound first (no parse of oversized text), then serde-style typed decoding."""
    actual = _text_length(text)
    if actual > MAX_LEDGER_BYTES:
        raise LedgerTooLarge(actual=actual, maximum=MAX_LEDGER_BYTES)
    try:
        return _read_ledger(read_document(text, NumberMode.AP))
    except LedgerInvalidEncoding:
        raise
    except RescindError as error:
        raise LedgerInvalidEncoding(reason=str(error.details.get("reason", error.code))) from None


def _read_state(node: Node) -> Phase:
    name = as_str(node)
    for phase in Phase:
        if phase.value == name:
            return phase
    raise LedgerInvalidEncoding(reason="unknown_variant")


def _read_compensation(node: Node) -> CompensationRecord | None:
    if node is None:
        return None
    struct = Struct(node, COMPENSATION_FIELDS, deny_unknown=True, what="compensation")
    return CompensationRecord(
        compensation_key=as_str(struct.required("compensation_key")),
        input_fingerprint=as_str(struct.required("input_fingerprint")),
        tenant_scope=as_str(struct.required("tenant_scope")),
        grant_fingerprint=as_str(struct.required("grant_fingerprint")),
        state=_read_state(struct.required("state")),
    )


def _read_operation(node: Node) -> OperationRecord:
    struct = Struct(node, OPERATION_FIELDS, deny_unknown=True, what="operation")
    return OperationRecord(
        step_id=as_str(struct.required("step_id")),
        tool=as_str(struct.required("tool")),
        operation_key=as_str(struct.required("operation_key")),
        input_fingerprint=as_str(struct.required("input_fingerprint")),
        state=_read_state(struct.required("state")),
        compensation=_read_compensation(struct.optional("compensation")),
    )


def _read_ledger(node: Node) -> DecodedLedger:
    struct = Struct(node, LEDGER_FIELDS, deny_unknown=True, what="operation ledger")
    return DecodedLedger(
        format_version=as_uint(struct.required("format_version"), 8),
        revision=as_uint(struct.required("revision"), 64),
        plan_fingerprint=as_str(struct.required("plan_fingerprint")),
        operations=tuple(_read_operation(item) for item in as_list(struct.required("operations"))),
    )
