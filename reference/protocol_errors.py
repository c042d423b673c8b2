"""Protocol error variants of worker protocol v5 (upstream ``ProtocolError``), one class each.

Codes are the upstream variant names in snake_case. Every protocol error is definite: it is
raised before any effect is started. Layers that wrap a protocol error (worker session, host
ledger) keep the protocol code and add their own context.
"""

from __future__ import annotations

from rescind.reference.errors import RescindError


class ProtocolError(RescindError):
    """Any failure that upstream reports as a ``ProtocolError`` variant."""


class UnsupportedVersion(ProtocolError):
    code = "unsupported_version"
    upstream = "UnsupportedVersion"


class InvalidToken(ProtocolError):
    code = "invalid_token"
    upstream = "InvalidToken"


class DuplicateGrant(ProtocolError):
    code = "duplicate_grant"
    upstream = "DuplicateGrant"


class InvalidGrant(ProtocolError):
    code = "invalid_grant"
    upstream = "InvalidGrant"


class TooManyGrants(ProtocolError):
    code = "too_many_grants"
    upstream = "TooManyGrants"


class TooManyResources(ProtocolError):
    code = "too_many_resources"
    upstream = "TooManyResources"


class AttenuationWidensLimits(ProtocolError):
    code = "attenuation_widens_limits"
    upstream = "AttenuationWidensLimits"


class AttenuationExpandsResources(ProtocolError):
    code = "attenuation_expands_resources"
    upstream = "AttenuationExpandsResources"


class CancellationIdMatchesRequest(ProtocolError):
    """A cancel request whose cancellation id equals the request id it cancels (WM-9)."""

    code = "cancellation_id_matches_request"
    upstream = "CancellationIdMatchesRequest"


class UnknownSession(ProtocolError):
    code = "unknown_session"
    upstream = "UnknownSession"


class UnknownTool(ProtocolError):
    code = "unknown_tool"
    upstream = "UnknownTool"


class DuplicateRequest(ProtocolError):
    code = "duplicate_request"
    upstream = "DuplicateRequest"


class SessionRequestLimitExceeded(ProtocolError):
    code = "session_request_limit_exceeded"
    upstream = "SessionRequestLimitExceeded"


class DuplicateResult(ProtocolError):
    code = "duplicate_result"
    upstream = "DuplicateResult"


class OperationResultMismatch(ProtocolError):
    code = "operation_result_mismatch"
    upstream = "OperationResultMismatch"


class CompensationResultMismatch(ProtocolError):
    code = "compensation_result_mismatch"
    upstream = "CompensationResultMismatch"


class InvalidCompensationKey(ProtocolError):
    code = "invalid_compensation_key"
    upstream = "InvalidCompensationKey"


class InvalidCompensationGrantFingerprint(ProtocolError):
    code = "invalid_compensation_grant_fingerprint"
    upstream = "InvalidCompensationGrantFingerprint"


class CompensationNotGranted(ProtocolError):
    code = "compensation_not_granted"
    upstream = "CompensationNotGranted"


class CompensationBudgetExhausted(ProtocolError):
    code = "compensation_budget_exhausted"
    upstream = "CompensationBudgetExhausted"


class CompensationGrantMismatch(ProtocolError):
    code = "compensation_grant_mismatch"
    upstream = "CompensationGrantMismatch"


class CompensationToolMismatch(ProtocolError):
    code = "compensation_tool_mismatch"
    upstream = "CompensationToolMismatch"


class CompensationRequiresSucceededOperation(ProtocolError):
    code = "compensation_requires_succeeded_operation"
    upstream = "CompensationRequiresSucceededOperation"


class UnknownCompensation(ProtocolError):
    code = "unknown_compensation"
    upstream = "UnknownCompensation"


class CompensationIdentityMismatch(ProtocolError):
    code = "compensation_identity_mismatch"
    upstream = "CompensationIdentityMismatch"


class InvalidWorkerCompensationTransition(ProtocolError):
    code = "invalid_worker_compensation_transition"
    upstream = "InvalidWorkerCompensationTransition"


class UnsupportedOperationJournalVersion(ProtocolError):
    code = "unsupported_operation_journal_version"
    upstream = "UnsupportedOperationJournalVersion"


class OperationJournalTooLarge(ProtocolError):
    code = "operation_journal_too_large"
    upstream = "OperationJournalTooLarge"


class OperationJournalScopeMismatch(ProtocolError):
    code = "operation_journal_scope_mismatch"
    upstream = "OperationJournalScopeMismatch"


class TooManyWorkerOperations(ProtocolError):
    code = "too_many_worker_operations"
    upstream = "TooManyWorkerOperations"


class InvalidOperationFingerprint(ProtocolError):
    code = "invalid_operation_fingerprint"
    upstream = "InvalidOperationFingerprint"


class DuplicateOperationKey(ProtocolError):
    code = "duplicate_operation_key"
    upstream = "DuplicateOperationKey"


class UnknownOperation(ProtocolError):
    code = "unknown_operation"
    upstream = "UnknownOperation"


class OperationIdentityMismatch(ProtocolError):
    code = "operation_identity_mismatch"
    upstream = "OperationIdentityMismatch"


class InvalidWorkerOperationTransition(ProtocolError):
    code = "invalid_worker_operation_transition"
    upstream = "InvalidWorkerOperationTransition"


class PayloadFormatMismatch(ProtocolError):
    code = "payload_format_mismatch"
    upstream = "PayloadFormatMismatch"


class InvalidJsonEnvelope(ProtocolError):
    code = "invalid_json_envelope"
    upstream = "InvalidJsonEnvelope"


class JsonPayloadTooDeep(ProtocolError):
    code = "json_payload_too_deep"
    upstream = "JsonPayloadTooDeep"


class InvalidOperationFailure(ProtocolError):
    code = "invalid_operation_failure"
    upstream = "InvalidOperationFailure"


class OperationFailureTooLarge(ProtocolError):
    code = "operation_failure_too_large"
    upstream = "OperationFailureTooLarge"


class InputTooLarge(ProtocolError):
    code = "input_too_large"
    upstream = "InputTooLarge"


class OutputTooLarge(ProtocolError):
    code = "output_too_large"
    upstream = "OutputTooLarge"


class CallBudgetExhausted(ProtocolError):
    code = "call_budget_exhausted"
    upstream = "CallBudgetExhausted"


class AuthorizationProvenanceMismatch(ProtocolError):
    code = "authorization_provenance_mismatch"
    upstream = "AuthorizationProvenanceMismatch"


class InvalidAuthenticationTag(ProtocolError):
    code = "invalid_authentication_tag"
    upstream = "InvalidAuthenticationTag"


class UnexpectedSequence(ProtocolError):
    code = "unexpected_sequence"
    upstream = "UnexpectedSequence"


class InvalidSequence(ProtocolError):
    code = "invalid_sequence"
    upstream = "InvalidSequence"


class SequenceExhausted(ProtocolError):
    code = "sequence_exhausted"
    upstream = "SequenceExhausted"


class WireFrameTooLarge(ProtocolError):
    code = "wire_frame_too_large"
    upstream = "WireFrameTooLarge"


class WeakSessionKey(ProtocolError):
    code = "weak_session_key"
    upstream = "WeakSessionKey"


class InvalidSessionKeyLength(ProtocolError):
    code = "invalid_session_key_length"
    upstream = "InvalidSessionKeyLength"


class Serialization(ProtocolError):
    code = "serialization"
    upstream = "Serialization"
