"""Host ledger and workflow engine errors (upstream ``WorkflowOperationLedgerError`` and the
``WorkflowError`` variants the ledger path raises).

Reuse rule: where a ledger variant means the same thing as a protocol variant (an unknown
operation, a compensation key without ``cmp-``, a non-hex grant fingerprint, ...) the protocol
class is re-exported here, so both layers report one code. Where the meaning differs (the
*ledger* format version, the *ledger* size bound, the *ledger* revision counter) the class
below has its own ``ledger_``-prefixed code. The host derivation errors (empty or long nonce,
input over 256 KiB, bad step id) live in ``rescind.reference.digests`` and are re-exported.

Upstream wraps protocol failures as ``WorkflowOperationLedgerError::Protocol(e)`` and ledger
failures reached through the engine as ``WorkflowError::OperationLedger(e)``; Rescind raises
the inner error itself, so a wrapped failure keeps its inner code.

Every error here is definite: the ledger checks everything before it changes anything.
"""

from __future__ import annotations

from rescind.reference.digests import (
    EmptyOperationNonce,
    HostInputTooLarge,
    InvalidPlan,
    InvalidStepId,
    OperationNonceTooLarge,
)
from rescind.reference.errors import RescindError
from rescind.reference.protocol_errors import (
    CompensationNotGranted,
    CompensationRequiresSucceededOperation,
    DuplicateOperationKey,
    InvalidCompensationGrantFingerprint,
    InvalidCompensationKey,
    UnknownCompensation,
    UnknownOperation,
)

__all__ = [
    "ApprovalMismatch",
    "CompensationActionDenied",
    "CompensationAlreadyRecorded",
    "CompensationDispatchRequiresHostAuthenticator",
    "CompensationGrantDenied",
    "CompensationInputFingerprintMismatch",
    "CompensationNotGranted",
    "CompensationPolicyMismatch",
    "CompensationRequestMismatch",
    "CompensationRequiresSucceededOperation",
    "DuplicateOperationKey",
    "EmptyOperationNonce",
    "HostInputTooLarge",
    "InputFingerprintMismatch",
    "InvalidCompensationGrantFingerprint",
    "InvalidCompensationKey",
    "InvalidCompensationStateTransition",
    "InvalidCompensationTenantScope",
    "InvalidInputFingerprint",
    "InvalidOperationKey",
    "InvalidPlan",
    "InvalidPlanFingerprint",
    "InvalidStateTransition",
    "InvalidStepId",
    "InvalidTool",
    "LedgerEncodingFailed",
    "LedgerError",
    "LedgerInvalidEncoding",
    "LedgerRevisionExhausted",
    "LedgerTooLarge",
    "LedgerUnsupportedVersion",
    "OperationAlreadyTerminal",
    "OperationBindingMismatch",
    "OperationDispatchRequiresHostAuthenticator",
    "OperationNonceTooLarge",
    "PlanMismatch",
    "PlanOwnershipMismatch",
    "ReconciliationMismatch",
    "ReconciliationRequiresHostAuthenticator",
    "StaleRevision",
    "TooManyOperations",
    "UnexpectedCompensationMessage",
    "UnexpectedOperationDispatchMessage",
    "UnexpectedReconciliationMessage",
    "UnknownCompensation",
    "UnknownOperation",
    "UnknownStep",
    "WorkflowError",
]


class LedgerError(RescindError):
    """A ``WorkflowOperationLedgerError`` variant that has no protocol counterpart."""


class WorkflowError(RescindError):
    """A ``WorkflowError`` variant of the engine itself (not a wrapped ledger error)."""


# --- encoding and format ---------------------------------------------------------------


class LedgerTooLarge(LedgerError):
    """Decode input over 65,536 bytes, or the encoder's estimate or output over it."""

    code = "ledger_too_large"
    upstream = "TooLarge"


class LedgerEncodingFailed(LedgerError):
    """The serializer failed in ``to_json`` (unreachable for a validated ledger)."""

    code = "ledger_encoding"
    upstream = "Encoding"


class LedgerInvalidEncoding(LedgerError):
    """``from_json`` could not read the text as a ledger (syntax, types, fields, ranges)."""

    code = "ledger_invalid_encoding"
    upstream = "InvalidEncoding"


class LedgerUnsupportedVersion(LedgerError):
    """The ledger's own ``format_version`` is not 2 (not the protocol version)."""

    code = "ledger_unsupported_version"
    upstream = "UnsupportedVersion"


class InvalidPlanFingerprint(LedgerError):
    code = "invalid_plan_fingerprint"
    upstream = "InvalidPlanFingerprint"


class TooManyOperations(LedgerError):
    code = "too_many_operations"
    upstream = "TooManyOperations"


class LedgerRevisionExhausted(LedgerError):
    """A state-changing mutation at revision 2**64-1 (the workflow counter, not storage's)."""

    code = "ledger_revision_exhausted"
    upstream = "RevisionExhausted"


class StaleRevision(LedgerError):
    code = "stale_revision"
    upstream = "StaleRevision"


# --- identifiers and fingerprints ------------------------------------------------------


class InvalidTool(LedgerError):
    code = "invalid_tool"
    upstream = "InvalidTool"


class InvalidOperationKey(LedgerError):
    code = "invalid_operation_key"
    upstream = "InvalidOperationKey"


class InvalidInputFingerprint(LedgerError):
    code = "invalid_input_fingerprint"
    upstream = "InvalidInputFingerprint"


class InvalidCompensationTenantScope(LedgerError):
    code = "invalid_compensation_tenant_scope"
    upstream = "InvalidCompensationTenantScope"


class InputFingerprintMismatch(LedgerError):
    code = "input_fingerprint_mismatch"
    upstream = "InputFingerprintMismatch"


class CompensationInputFingerprintMismatch(LedgerError):
    code = "compensation_input_fingerprint_mismatch"
    upstream = "CompensationInputFingerprintMismatch"


# --- plan binding ---------------------------------------------------------------------


class PlanMismatch(LedgerError):
    code = "plan_mismatch"
    upstream = "PlanMismatch"


class UnknownStep(LedgerError):
    code = "unknown_step"
    upstream = "UnknownStep"


# --- lifecycle ------------------------------------------------------------------------


class InvalidStateTransition(LedgerError):
    """A contradictory observation of an operation (the host compares state kinds only)."""

    code = "invalid_state_transition"
    upstream = "InvalidStateTransition"


class InvalidCompensationStateTransition(LedgerError):
    code = "invalid_compensation_state_transition"
    upstream = "InvalidCompensationStateTransition"


class OperationAlreadyTerminal(LedgerError):
    code = "operation_already_terminal"
    upstream = "OperationAlreadyTerminal"


class OperationBindingMismatch(LedgerError):
    code = "operation_binding_mismatch"
    upstream = "OperationBindingMismatch"


# --- compensation policy and verifiers ------------------------------------------------


class CompensationAlreadyRecorded(LedgerError):
    code = "compensation_already_recorded"
    upstream = "CompensationAlreadyRecorded"


class CompensationPolicyMismatch(LedgerError):
    code = "compensation_policy_mismatch"
    upstream = "CompensationPolicyMismatch"


class CompensationGrantDenied(LedgerError):
    """The error a host grant verifier is expected to raise when it refuses."""

    code = "compensation_grant_denied"
    upstream = "CompensationGrantDenied"


class CompensationActionDenied(LedgerError):
    """The error a host action verifier is expected to raise when it refuses."""

    code = "compensation_action_denied"
    upstream = "CompensationActionDenied"


class CompensationRequestMismatch(LedgerError):
    code = "compensation_request_mismatch"
    upstream = "CompensationRequestMismatch"


# --- authenticated frames -------------------------------------------------------------


class ReconciliationMismatch(LedgerError):
    code = "reconciliation_mismatch"
    upstream = "ReconciliationMismatch"


class OperationDispatchRequiresHostAuthenticator(LedgerError):
    code = "operation_dispatch_requires_host_authenticator"
    upstream = "OperationDispatchRequiresHostAuthenticator"


class ReconciliationRequiresHostAuthenticator(LedgerError):
    code = "reconciliation_requires_host_authenticator"
    upstream = "ReconciliationRequiresHostAuthenticator"


class CompensationDispatchRequiresHostAuthenticator(LedgerError):
    code = "compensation_dispatch_requires_host_authenticator"
    upstream = "CompensationDispatchRequiresHostAuthenticator"


class UnexpectedOperationDispatchMessage(LedgerError):
    code = "unexpected_operation_dispatch_message"
    upstream = "UnexpectedOperationDispatchMessage"


class UnexpectedReconciliationMessage(LedgerError):
    code = "unexpected_reconciliation_message"
    upstream = "UnexpectedReconciliationMessage"


class UnexpectedCompensationMessage(LedgerError):
    code = "unexpected_compensation_message"
    upstream = "UnexpectedCompensationMessage"


# --- WorkflowError --------------------------------------------------------------------


class PlanOwnershipMismatch(WorkflowError):
    """The plan was not made by this engine instance."""

    code = "plan_ownership_mismatch"
    upstream = "PlanOwnershipMismatch"


class ApprovalMismatch(WorkflowError):
    """An approval does not bind what is being prepared, or was already used."""

    code = "approval_mismatch"
    upstream = "ApprovalMismatch"
