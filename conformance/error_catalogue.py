"""The error catalogue: for every error code, which members of a refusal's ``details`` are
normative (compared by the suite) and where each comes from.

A member is normative when upstream's error variant carries it as a typed field (the
variant's named field, or the one value of a tuple variant, written ``"0"``), and ``layer``
is normative for every code (docs/spec rule WS-4: a protocol refusal raised through a session
keeps its own code and details and adds ``layer``). Every other member is informative and
never compared: free text (``reason``, serde's messages), values Rescind redacts
(``invalid_token``'s ``value``), and members of codes that are Rescind's own rules with no
upstream variant (ER-2). docs/spec/errors.md states the rules (ER-1 to ER-3);
``conformance/schemas/error-details.json`` publishes this table
(``python -m rescind.conformance.error_catalogue FILE`` writes it; a test keeps it fresh).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from typing import Any, Final

import attrs

UPSTREAM: Final = "ymote/Splash 623d57c5c524f062ed5ddf8995cbed5b7b98e380"
LAYER: Final = "layer"
"""Normative for every code (WS-4)."""


@attrs.frozen
class Member:
    type: str
    """JSON type of the value: ``integer`` or ``string``."""
    field: str
    """The upstream variant's field it comes from (``"0"``: the tuple variant's value)."""


@attrs.frozen
class Source:
    variant: str
    """The upstream error variant, ``Enum::Variant`` (crates of ``UPSTREAM``)."""
    members: Mapping[str, Member]


NORMATIVE: Mapping[str, Source] = {
    "adapter_failed": Source(
        "WorkerSessionError::Adapter",
        {
            "error": Member("string", "error"),
            "tool": Member("string", "tool"),
        },
    ),
    "admission_failed": Source(
        "WorkerSessionOpenError::Admission",
        {
            "cause": Member("string", "0"),
        },
    ),
    "call_budget_exhausted": Source(
        "ProtocolError::CallBudgetExhausted",
        {
            "maximum": Member("integer", "maximum"),
            "tool": Member("string", "tool"),
        },
    ),
    "compensation_already_recorded": Source(
        "WorkflowOperationLedgerError::CompensationAlreadyRecorded",
        {
            "operation_key": Member("string", "0"),
        },
    ),
    "compensation_budget_exhausted": Source(
        "ProtocolError::CompensationBudgetExhausted",
        {
            "maximum": Member("integer", "maximum"),
            "tool": Member("string", "tool"),
        },
    ),
    "compensation_identity_mismatch": Source(
        "ProtocolError::CompensationIdentityMismatch",
        {
            "operation_key": Member("string", "0"),
        },
    ),
    "compensation_input_fingerprint_mismatch": Source(
        "WorkflowOperationLedgerError::CompensationInputFingerprintMismatch",
        {
            "compensation_key": Member("string", "0"),
        },
    ),
    "compensation_not_granted": Source(
        "WorkflowOperationLedgerError::CompensationNotGranted",
        {
            "tool": Member("string", "0"),
        },
    ),
    "compensation_policy_mismatch": Source(
        "WorkflowOperationLedgerError::CompensationPolicyMismatch",
        {
            "operation_key": Member("string", "0"),
        },
    ),
    "compensation_requires_succeeded_operation": Source(
        "WorkflowOperationLedgerError::CompensationRequiresSucceededOperation",
        {
            "operation_key": Member("string", "operation_key"),
            "state": Member("string", "state"),
        },
    ),
    "compensation_tool_mismatch": Source(
        "ProtocolError::CompensationToolMismatch",
        {
            "operation_key": Member("string", "0"),
        },
    ),
    "duplicate_request": Source(
        "ProtocolError::DuplicateRequest",
        {
            "request_id": Member("string", "0"),
        },
    ),
    "duplicate_result": Source(
        "ProtocolError::DuplicateResult",
        {
            "request_id": Member("string", "0"),
        },
    ),
    "durable_operation_contract_not_declared": Source(
        "WorkerSessionError::DurableOperationContractNotDeclared",
        {
            "tool": Member("string", "0"),
        },
    ),
    "fencing_required": Source(
        "VolatileMemoryStoreError::FencingRequired",
        {
            "current": Member("integer", "current"),
        },
    ),
    "fencing_token_rejected": Source(
        "VolatileMemoryStoreError::FencingTokenRejected",
        {
            "current": Member("integer", "current"),
            "supplied": Member("integer", "supplied"),
        },
    ),
    "indeterminate_compensation": Source(
        "WorkerSessionError::IndeterminateCompensation",
        {
            "cause": Member("string", "cause"),
            "cause_kind": Member("string", "cause"),
            "compensation_key": Member("string", "compensation_key"),
            "operation_key": Member("string", "operation_key"),
        },
    ),
    "indeterminate_operation": Source(
        "WorkerSessionError::IndeterminateOperation",
        {
            "cause": Member("string", "cause"),
            "cause_kind": Member("string", "cause"),
            "operation_key": Member("string", "operation_key"),
        },
    ),
    "input_too_large": Source(
        "WorkflowOperationLedgerError::InputTooLarge",
        {
            "actual": Member("integer", "actual"),
            "maximum": Member("integer", "maximum"),
        },
    ),
    "invalid_compensation_state_transition": Source(
        "WorkflowOperationLedgerError::InvalidCompensationStateTransition",
        {
            "compensation_key": Member("string", "compensation_key"),
            "current": Member("string", "current"),
            "observed": Member("string", "observed"),
        },
    ),
    "invalid_journal_revision": Source(
        "WorkerSessionError::InvalidJournalRevision",
        {
            "actual": Member("integer", "actual"),
            "expected": Member("integer", "expected"),
        },
    ),
    "invalid_token": Source(
        "ProtocolError::InvalidToken",
        {
            "field": Member("string", "field"),
        },
    ),
    "invalid_worker_compensation_transition": Source(
        "ProtocolError::InvalidWorkerCompensationTransition",
        {
            "current": Member("string", "current"),
            "observed": Member("string", "observed"),
            "operation_key": Member("string", "operation_key"),
        },
    ),
    "invalid_worker_operation_transition": Source(
        "ProtocolError::InvalidWorkerOperationTransition",
        {
            "current": Member("string", "current"),
            "observed": Member("string", "observed"),
            "operation_key": Member("string", "operation_key"),
        },
    ),
    "invocation_safety_not_declared": Source(
        "WorkerSessionError::InvocationSafetyNotDeclared",
        {
            "tool": Member("string", "0"),
        },
    ),
    "journal_persistence_failed": Source(
        "WorkerSessionError::Journal",
        {
            "cause": Member("string", "0"),
        },
    ),
    "json_payload_too_deep": Source(
        "ProtocolError::JsonPayloadTooDeep",
        {
            "maximum": Member("integer", "maximum"),
        },
    ),
    "missing_adapter": Source(
        "WorkerSessionOpenError::MissingAdapter",
        {
            "tool": Member("string", "0"),
        },
    ),
    "operation_already_terminal": Source(
        "WorkflowOperationLedgerError::OperationAlreadyTerminal",
        {
            "operation_key": Member("string", "operation_key"),
            "state": Member("string", "state"),
        },
    ),
    "operation_failure_too_large": Source(
        "ProtocolError::OperationFailureTooLarge",
        {
            "actual": Member("integer", "actual"),
            "maximum": Member("integer", "maximum"),
        },
    ),
    "operation_identity_mismatch": Source(
        "ProtocolError::OperationIdentityMismatch",
        {
            "operation_key": Member("string", "0"),
        },
    ),
    "operation_journal_scope_mismatch": Source(
        "ProtocolError::OperationJournalScopeMismatch",
        {
            "actual": Member("string", "actual"),
            "expected": Member("string", "expected"),
        },
    ),
    "operation_journal_too_large": Source(
        "ProtocolError::OperationJournalTooLarge",
        {
            "actual": Member("integer", "actual"),
            "maximum": Member("integer", "maximum"),
        },
    ),
    "output_too_large": Source(
        "ProtocolError::OutputTooLarge",
        {
            "actual": Member("integer", "actual"),
            "maximum": Member("integer", "maximum"),
        },
    ),
    "payload_format_mismatch": Source(
        "ProtocolError::PayloadFormatMismatch",
        {
            "actual": Member("string", "actual"),
            "expected": Member("string", "expected"),
        },
    ),
    "payload_too_large": Source(
        "AuthenticatedStoreError::PayloadTooLarge",
        {
            "actual": Member("integer", "actual"),
            "maximum": Member("integer", "maximum"),
        },
    ),
    "pending_compensation": Source(
        "WorkerSessionError::PendingCompensation",
        {
            "operation_key": Member("string", "0"),
        },
    ),
    "pending_operation": Source(
        "WorkerSessionError::PendingOperation",
        {
            "operation_key": Member("string", "0"),
        },
    ),
    "reconciliation_budget_exhausted": Source(
        "WorkerSessionError::ReconciliationBudgetExhausted",
        {
            "maximum": Member("integer", "maximum"),
            "tool": Member("string", "tool"),
        },
    ),
    "reconciliation_mismatch": Source(
        "WorkflowOperationLedgerError::ReconciliationMismatch",
        {
            "operation_key": Member("string", "0"),
        },
    ),
    "reconciliation_session_budget_exhausted": Source(
        "WorkerSessionError::ReconciliationSessionBudgetExhausted",
        {
            "maximum": Member("integer", "maximum"),
        },
    ),
    "record_too_large": Source(
        "AuthenticatedStoreError::RecordTooLarge",
        {
            "actual": Member("integer", "actual"),
            "maximum": Member("integer", "maximum"),
        },
    ),
    "revision_floor_mismatch": Source(
        "AuthenticatedStoreError::RevisionFloorMismatch",
        {
            "record_revision": Member("integer", "record_revision"),
            "revision_floor": Member("integer", "revision_floor"),
        },
    ),
    "revision_mismatch": Source(
        "AuthenticatedStoreError::RevisionMismatch",
        {
            "backend": Member("integer", "backend"),
            "envelope": Member("integer", "envelope"),
        },
    ),
    "rollback_detected": Source(
        "AuthenticatedStoreError::RollbackDetected",
        {
            "record_revision": Member("NoneType | int", "record_revision"),
            "revision_floor": Member("integer", "revision_floor"),
        },
    ),
    "session_request_limit_exceeded": Source(
        "ProtocolError::SessionRequestLimitExceeded",
        {
            "maximum": Member("integer", "maximum"),
        },
    ),
    "stale_revision": Source(
        "WorkflowOperationLedgerError::StaleRevision",
        {
            "actual": Member("integer", "actual"),
            "minimum": Member("integer", "minimum"),
        },
    ),
    "too_many_worker_operations": Source(
        "ProtocolError::TooManyWorkerOperations",
        {
            "maximum": Member("integer", "maximum"),
        },
    ),
    "unexpected_message": Source(
        "WorkerSessionError::UnexpectedMessage",
        {
            "kind": Member("string", "0"),
        },
    ),
    "unexpected_sequence": Source(
        "ProtocolError::UnexpectedSequence",
        {
            "actual": Member("integer", "actual"),
            "expected": Member("integer", "expected"),
        },
    ),
    "unknown_compensation": Source(
        "WorkflowOperationLedgerError::UnknownCompensation",
        {
            "operation_key": Member("string", "0"),
        },
    ),
    "unknown_operation": Source(
        "WorkflowOperationLedgerError::UnknownOperation",
        {
            "operation_key": Member("string", "0"),
        },
    ),
    "unknown_session": Source(
        "ProtocolError::UnknownSession",
        {
            "session_id": Member("string", "0"),
        },
    ),
    "unknown_tool": Source(
        "ProtocolError::UnknownTool",
        {
            "tool": Member("string", "0"),
        },
    ),
    "unsupported_format": Source(
        "AuthenticatedStoreError::UnsupportedFormat",
        {
            "actual": Member("integer", "0"),
        },
    ),
    "unsupported_version": Source(
        "ProtocolError::UnsupportedVersion",
        {
            "actual": Member("integer", "actual"),
        },
    ),
    "wire_frame_too_large": Source(
        "ProtocolError::WireFrameTooLarge",
        {
            "actual": Member("integer", "actual"),
            "maximum": Member("integer", "maximum"),
        },
    ),
    "write_conflict": Source(
        "AuthenticatedStoreError::WriteConflict",
        {
            "actual": Member("NoneType | int", "actual"),
            "expected": Member("NoneType | int", "expected"),
            "revision_floor": Member("integer", "revision_floor"),
        },
    ),
}
"""Per code: its normative details members (rule ER-1). A code not listed has no normative
member except ``layer``."""


def normative(code: str, member: str) -> bool:
    """Whether ``member`` of a ``code`` refusal's details is compared."""
    if member == LAYER:
        return True
    source = NORMATIVE.get(code)
    return source is not None and member in source.members


def compared_details(code: str, details: Mapping[str, Any]) -> dict[str, Any]:
    """The members of an expected ``details`` object that the suite compares."""
    return {member: value for member, value in details.items() if normative(code, member)}


def catalogue_json() -> dict[str, Any]:
    """The published table (``conformance/schemas/error-details.json``)."""
    return {
        "format": "rescind-error-details/1",
        "upstream": UPSTREAM,
        "rules": {
            "ER-1": "members an upstream variant carries as typed fields are normative",
            "ER-2": "codes with no upstream variant have informative details, except layer",
            "WS-4": "layer is normative for every code",
        },
        "always": {LAYER: {"type": "string", "rule": "WS-4"}},
        "codes": {
            code: {
                "upstream": source.variant,
                "normative": {
                    name: {"type": member.type, "field": member.field, "rule": "ER-1"}
                    for name, member in sorted(source.members.items())
                },
            }
            for code, source in sorted(NORMATIVE.items())
        },
    }


def main(argv: list[str]) -> int:
    text = json.dumps(catalogue_json(), indent=2, sort_keys=True) + "\n"
    if not argv:
        sys.stdout.write(text)
    else:
        with open(argv[0], "w", encoding="utf-8") as sink:
            sink.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
