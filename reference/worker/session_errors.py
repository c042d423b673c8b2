"""Errors of the worker session (upstream ``WorkerSessionError``, ``WorkerSessionOpenError``,
``WorkerAdapterError`` and ``WorkerSessionLimitsError``), one class per variant.

How wrapped errors show (docs/spec/session.md WS-4, WS-20):

* ``Protocol(e)``: the session raises the protocol error's *own* class and code, with one
  extra detail ``layer="protocol"`` so a reader can tell a refusal that came through the
  session from one raised by the journal or authorizer directly (``wrap_protocol``).
* ``Journal(E)``: ``journal_persistence_failed`` with the store error's code as ``cause``.
* ``Adapter{tool, error}``: ``adapter_failed`` with the adapter error's kind as ``error``.
* Indeterminate outcomes carry ``cause_kind`` (``adapter``, ``protocol``, ``journal`` or
  ``invalid_journal_revision``) and ``cause`` (the inner code).

Definiteness is about the *effect* of the request that failed. Only the two indeterminate
variants are indefinite: they are raised after the adapter was called for an effect. A
persistence failure before the adapter was called (admission) or around a reconciliation
(which has no effect) is definite even when the store itself cannot say whether it wrote:
no effect ran for that request, and the session is poisoned either way.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import ClassVar, TypeVar

from rescind.reference.errors import RescindError

PROTOCOL_LAYER = "protocol"

E = TypeVar("E", bound=RescindError)


def wrap_protocol(error: E) -> E:
    """The same error class and details plus ``layer="protocol"``.

    The details are copied as they are (already redacted), not passed through the
    constructor again, so a redaction marker keeps the length it reported."""
    if error.details.get("layer") == PROTOCOL_LAYER:
        return error
    wrapped = type(error)()
    wrapped.details = MappingProxyType({**error.details, "layer": PROTOCOL_LAYER})
    wrapped.args = (wrapped._render(),)
    return wrapped


class WorkerSessionFailure(RescindError):
    """Any refusal or failure raised by the worker session itself."""


# -- WorkerSessionError ---------------------------------------------------------------------


class SessionPoisoned(WorkerSessionFailure):
    code = "session_poisoned"
    upstream = "SessionPoisoned"


class MissingAdapter(WorkerSessionFailure):
    """Also an open error: every granted tool needs an adapter."""

    code = "missing_adapter"
    upstream = "MissingAdapter"


class InvocationSafetyNotDeclared(WorkerSessionFailure):
    code = "invocation_safety_not_declared"
    upstream = "InvocationSafetyNotDeclared"


class DurableOperationContractNotDeclared(WorkerSessionFailure):
    code = "durable_operation_contract_not_declared"
    upstream = "DurableOperationContractNotDeclared"


class InvocationNotModelled(WorkerSessionFailure):
    """Rescind models durable operations only; an ``invoke`` to an adapter that declared its
    safety is refused here instead of running an ordinary tool call."""

    code = "invocation_not_modelled"


class AdapterFailed(WorkerSessionFailure):
    """``Adapter{tool, error}``: the adapter reported an error (``error`` is its kind). For a
    dispatch or compensation the record stays pending; resends get ``pending_*``."""

    code = "adapter_failed"
    upstream = "Adapter"


class IndeterminateOperation(WorkerSessionFailure):
    code = "indeterminate_operation"
    upstream = "IndeterminateOperation"
    definite = False


class IndeterminateCompensation(WorkerSessionFailure):
    code = "indeterminate_compensation"
    upstream = "IndeterminateCompensation"
    definite = False


class PendingOperation(WorkerSessionFailure):
    """An exact duplicate of an admitted dispatch whose outcome is not known yet. Nothing
    ran for this request; the host reconciles the key instead of resending it."""

    code = "pending_operation"
    upstream = "PendingOperation"


class PendingCompensation(WorkerSessionFailure):
    code = "pending_compensation"
    upstream = "PendingCompensation"


class ReconciliationBudgetExhausted(WorkerSessionFailure):
    code = "reconciliation_budget_exhausted"
    upstream = "ReconciliationBudgetExhausted"


class ReconciliationSessionBudgetExhausted(WorkerSessionFailure):
    code = "reconciliation_session_budget_exhausted"
    upstream = "ReconciliationSessionBudgetExhausted"


class UnexpectedMessage(WorkerSessionFailure):
    code = "unexpected_message"
    upstream = "UnexpectedMessage"


class JournalPersistenceFailed(WorkerSessionFailure):
    """``Journal(E)``: the admission or reconciliation persist failed; ``cause`` is the
    store's code. Poisons the session."""

    code = "journal_persistence_failed"
    upstream = "Journal"


class InvalidJournalRevision(WorkerSessionFailure):
    """The store answered a revision not greater than the expected one. Poisons."""

    code = "invalid_journal_revision"
    upstream = "InvalidJournalRevision"


# -- WorkerSessionOpenError -----------------------------------------------------------------


class RequiresWorkerAuthenticator(WorkerSessionFailure):
    code = "requires_worker_authenticator"
    upstream = "RequiresWorkerAuthenticator"


class UnexpectedOpeningMessage(WorkerSessionFailure):
    code = "unexpected_opening_message"
    upstream = "UnexpectedOpeningMessage"


class InvalidJournalLease(WorkerSessionFailure):
    code = "invalid_journal_lease"
    upstream = "InvalidJournalLease"


class AdmissionFailed(WorkerSessionFailure):
    """``Admission(E)``: the host-side admission refused the session (``cause`` is its
    code, for example a replayed ``open_session`` or a fence that cannot be reserved)."""

    code = "admission_failed"
    upstream = "Admission"


class SessionAlreadyAdmitted(WorkerSessionFailure):
    """Raised by the fence admission for a session id it admitted before (a replayed
    ``open_session``); the session reports it as ``admission_failed``."""

    code = "session_already_admitted"


# -- WorkerSessionLimitsError ---------------------------------------------------------------


class ZeroPerToolReconciliationLimit(WorkerSessionFailure):
    code = "zero_per_tool_reconciliation_limit"
    upstream = "ZeroPerToolReconciliationLimit"


class ZeroSessionReconciliationLimit(WorkerSessionFailure):
    code = "zero_session_reconciliation_limit"
    upstream = "ZeroSessionReconciliationLimit"


# -- journal store bridge -------------------------------------------------------------------


class InvalidJournalEncoding(WorkerSessionFailure):
    """A stored journal payload that is not UTF-8."""

    code = "invalid_journal_encoding"
    upstream = "InvalidJournalEncoding"


# -- WorkerAdapterError ---------------------------------------------------------------------


class WorkerAdapterError(RescindError):
    """What an adapter raises instead of returning a status. ``kind`` is the upstream
    variant in snake_case; the session reports it as ``adapter_failed(error=kind)`` or, for
    ``indeterminate`` on a dispatch or compensation, as an indeterminate outcome."""

    kind: ClassVar[str] = ""


class AdapterUnsupported(WorkerAdapterError):
    code = "adapter_unsupported"
    upstream = "Unsupported"
    kind = "unsupported"


class AdapterInvalidJsonInput(WorkerAdapterError):
    code = "adapter_invalid_json_input"
    upstream = "InvalidJsonInput"
    kind = "invalid_json_input"


class AdapterInvalidJsonOutput(WorkerAdapterError):
    code = "adapter_invalid_json_output"
    upstream = "InvalidJsonOutput"
    kind = "invalid_json_output"


class AdapterReportedFailure(WorkerAdapterError):
    code = "adapter_reported_failure"
    upstream = "Failed"
    kind = "failed"


class AdapterIndeterminate(WorkerAdapterError):
    """The adapter cannot tell whether its effect happened."""

    code = "adapter_indeterminate"
    upstream = "Indeterminate"
    kind = "indeterminate"
    definite = False


ADAPTER_ERRORS: dict[str, type[WorkerAdapterError]] = {
    cls.kind: cls
    for cls in (
        AdapterUnsupported,
        AdapterInvalidJsonInput,
        AdapterInvalidJsonOutput,
        AdapterReportedFailure,
        AdapterIndeterminate,
    )
}
