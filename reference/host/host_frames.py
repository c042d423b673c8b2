"""Dispatch and reconciliation through authenticated frames (HL-14, HL-15, HL-20).

The host builds requests from the ledger (never from a worker's word), seals them with its
host-role ``SessionAuthenticator`` and applies results only after the frame opened. Check
orders follow docs/spec/ledger.md; the points that matter most:

* the role is the first check of every ``prepare_*``/``apply_*``;
* a protocol failure while opening leaves the authenticator and the ledger untouched;
* a frame of the wrong message kind *has* consumed its incoming sequence (the open
  succeeded) but the ledger is left untouched;
* results change state kinds only; no output or failure text is kept.
"""

from __future__ import annotations

from typing import Generic, TypeVar

import attrs

from rescind.reference.frames import AuthenticatedFrame, SessionAuthenticator, SessionRole
from rescind.reference.host.engine_core import EngineCore
from rescind.reference.host.errors import (
    LedgerError,
    OperationDispatchRequiresHostAuthenticator,
    ReconciliationMismatch,
    ReconciliationRequiresHostAuthenticator,
    UnexpectedOperationDispatchMessage,
    UnexpectedReconciliationMessage,
)
from rescind.reference.host.events import OperationObserved
from rescind.reference.host.ledger import WorkflowOperationLedger
from rescind.reference.host.plan import WorkflowPlan
from rescind.reference.messages import (
    OperationCompensationRequest,
    OperationDispatchRequest,
    OperationReconcileRequest,
    OperationReconcileResult,
)
from rescind.reference.payload import ToolPayload
from rescind.reference.worker_message import (
    DispatchOperation,
    OperationResult,
    ReconciledOperation,
    ReconcileOperation,
    WorkerMessage,
)
from rescind.tables.operation import Phase

Request = TypeVar(
    "Request", OperationDispatchRequest, OperationReconcileRequest, OperationCompensationRequest
)


@attrs.frozen
class PreparedFrame(Generic[Request]):
    """A sealed frame and the request inside it (kept by the host to apply the result)."""

    request: Request
    frame: AuthenticatedFrame


@attrs.frozen
class DispatchOutcome:
    """What applying a dispatch result returns: the observed state and the verified result
    (the caller may use the result's output; the ledger never keeps it)."""

    state: Phase
    result: OperationReconcileResult


Reply = TypeVar("Reply", bound=WorkerMessage)


def require_host(authenticator: SessionAuthenticator, error: type[LedgerError]) -> None:
    """The first check of every ``prepare_*``/``apply_*`` of every frame handler: the
    authenticator speaks for the host, else ``error`` (each API names its own)."""
    if authenticator.role is not SessionRole.HOST:
        raise error(role=authenticator.role.value)


def open_reply(
    authenticator: SessionAuthenticator,
    frame: AuthenticatedFrame,
    expected: type[Reply],
    unexpected: type[LedgerError],
) -> Reply:
    """Open the frame (a failure leaves the authenticator and the ledger untouched), then
    require the message kind the request asked for: another kind has used its sequence but
    raises ``unexpected`` before anything is applied."""
    message = authenticator.open(frame)
    if not isinstance(message, expected):
        raise unexpected(kind=message.kind)
    return message


class HostFrames:
    """Dispatch and reconciliation APIs of the engine."""

    def __init__(self, core: EngineCore) -> None:
        self.core = core

    # -- dispatch ------------------------------------------------------------------------

    def operation_dispatch_request(
        self,
        plan: WorkflowPlan,
        ledger: WorkflowOperationLedger,
        operation_key: str,
        payload: ToolPayload,
        session_id: str,
        request_id: str,
    ) -> OperationDispatchRequest:
        """Ownership and ledger, the operation, the request (protocol validation), then the
        payload's canonical input against the record. Terminal operations are *not*
        refused here (HL-14)."""
        self.core.validate_operation_ledger(plan, ledger)
        operation = ledger.require_operation(operation_key)
        request = OperationDispatchRequest(
            session_id=session_id,
            request_id=request_id,
            tool=operation.tool,
            operation_key=operation.operation_key,
            payload=payload,
        ).checked()
        operation.verify_input(payload.canonical_input_bytes())
        return request

    def prepare_authenticated_operation_dispatch(
        self,
        plan: WorkflowPlan,
        ledger: WorkflowOperationLedger,
        operation_key: str,
        payload: ToolPayload,
        request_id: str,
        authenticator: SessionAuthenticator,
    ) -> PreparedFrame[OperationDispatchRequest]:
        require_host(authenticator, OperationDispatchRequiresHostAuthenticator)
        request = self.operation_dispatch_request(
            plan, ledger, operation_key, payload, authenticator.session_id, request_id
        )
        return PreparedFrame(request, authenticator.seal(DispatchOperation(request)))

    def apply_verified_operation_dispatch_result(
        self,
        plan: WorkflowPlan,
        ledger: WorkflowOperationLedger,
        request: OperationDispatchRequest,
        result: OperationReconcileResult,
    ) -> Phase:
        """Rebuild the dispatch request from the ledger with the supplied payload, session
        and request id; it must equal the supplied request and the result must match it;
        then apply the result as a reconciliation."""
        self.core.validate_operation_ledger(plan, ledger)
        rebuilt = self.operation_dispatch_request(
            plan,
            ledger,
            request.operation_key,
            request.payload,
            request.session_id,
            request.request_id,
        )
        if rebuilt != request or not result.matches_dispatch(request):
            raise ReconciliationMismatch(operation_key=request.operation_key)
        return self._observe(plan, ledger, _reconcile_view(request), result)

    def apply_authenticated_operation_dispatch_result(
        self,
        plan: WorkflowPlan,
        ledger: WorkflowOperationLedger,
        request: OperationDispatchRequest,
        authenticator: SessionAuthenticator,
        frame: AuthenticatedFrame,
    ) -> DispatchOutcome:
        require_host(authenticator, OperationDispatchRequiresHostAuthenticator)
        message = open_reply(
            authenticator, frame, OperationResult, UnexpectedOperationDispatchMessage
        )
        state = self.apply_verified_operation_dispatch_result(plan, ledger, request, message.result)
        return DispatchOutcome(state, message.result)

    # -- reconciliation ------------------------------------------------------------------

    def operation_reconcile_request(
        self,
        plan: WorkflowPlan,
        ledger: WorkflowOperationLedger,
        operation_key: str,
        canonical_input: bytes,
        session_id: str,
        request_id: str,
    ) -> OperationReconcileRequest:
        """Works in any state: ask the worker what happened under this key."""
        self.core.validate_operation_ledger(plan, ledger)
        return ledger.reconcile_request(operation_key, canonical_input, session_id, request_id)

    def prepare_authenticated_operation_reconciliation(
        self,
        plan: WorkflowPlan,
        ledger: WorkflowOperationLedger,
        operation_key: str,
        canonical_input: bytes,
        request_id: str,
        authenticator: SessionAuthenticator,
    ) -> PreparedFrame[OperationReconcileRequest]:
        require_host(authenticator, ReconciliationRequiresHostAuthenticator)
        request = self.operation_reconcile_request(
            plan, ledger, operation_key, canonical_input, authenticator.session_id, request_id
        )
        return PreparedFrame(request, authenticator.seal(ReconcileOperation(request)))

    def apply_verified_operation_reconciliation(
        self,
        plan: WorkflowPlan,
        ledger: WorkflowOperationLedger,
        request: OperationReconcileRequest,
        result: OperationReconcileResult,
    ) -> Phase:
        self.core.validate_operation_ledger(plan, ledger)
        return self._observe(plan, ledger, request, result)

    def apply_authenticated_operation_reconciliation(
        self,
        plan: WorkflowPlan,
        ledger: WorkflowOperationLedger,
        request: OperationReconcileRequest,
        authenticator: SessionAuthenticator,
        frame: AuthenticatedFrame,
    ) -> Phase:
        require_host(authenticator, ReconciliationRequiresHostAuthenticator)
        message = open_reply(
            authenticator, frame, ReconciledOperation, UnexpectedReconciliationMessage
        )
        return self.apply_verified_operation_reconciliation(plan, ledger, request, message.result)

    def _observe(
        self,
        plan: WorkflowPlan,
        ledger: WorkflowOperationLedger,
        request: OperationReconcileRequest,
        result: OperationReconcileResult,
    ) -> Phase:
        state = ledger.apply_verified_reconciliation(request, result)
        operation = ledger.require_operation(request.operation_key)
        self.core.emit(OperationObserved(plan.plan_id, operation.step_id, operation.tool, state))
        return state


def _reconcile_view(request: OperationDispatchRequest) -> OperationReconcileRequest:
    """The dispatch request's five correlation fields as a reconcile request."""
    return OperationReconcileRequest(
        protocol_version=request.protocol_version,
        session_id=request.session_id,
        request_id=request.request_id,
        tool=request.tool,
        operation_key=request.operation_key,
    )
