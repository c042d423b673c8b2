"""The host side of compensation reconciliation, profile ``splash-v5+compensation-reconcile``
(docs/spec/compensation-reconcile.md CR-1, CR-10). Not upstream.

The counterpart of the original's reconcile in ``host_frames``: the request is built from the
ledger (never from a worker's word), sealed as ``reconcile_compensation`` and its
``reconciled_compensation`` answer applied as a compensation result, so the ledger's
transition rules apply unchanged. It needs no approval and consumes none (CR-10): what it asks
about was sent under one already, and asking runs no effect. Only a compensation the ledger
records and that is not terminal is asked about. The host's authenticator must speak the
profile (``WireProfile.COMPENSATION_RECONCILE``): an upstream one refuses to seal the kind.

Whether the compensation frame ever left is not in the ledger; after a host crash the host may
ask about one it never sent. The worker then answers ``unknown_compensation`` (CR-4), the
host's cue to approve and send it.
"""

from __future__ import annotations

from rescind.reference.frames import AuthenticatedFrame, SessionAuthenticator
from rescind.reference.host.compensation_frames import CompensationFrames, require_compensation
from rescind.reference.host.engine_core import EngineCore
from rescind.reference.host.errors import (
    LedgerError,
    ReconciliationRequiresHostAuthenticator,
)
from rescind.reference.host.host_frames import PreparedFrame, open_reply, require_host
from rescind.reference.host.ledger import WorkflowOperationLedger
from rescind.reference.host.plan import WorkflowPlan
from rescind.reference.messages import OperationCompensationRequest
from rescind.reference.payload import ToolPayload
from rescind.reference.worker_message import ReconcileCompensation, ReconciledCompensation
from rescind.tables.operation import OPERATION_LIFECYCLE, Phase


class CompensationAlreadyTerminal(LedgerError):
    """CR-10: the ledger already holds this compensation's terminal outcome."""

    code = "compensation_already_terminal"


class UnexpectedCompensationReconciliationMessage(LedgerError):
    code = "unexpected_compensation_reconciliation_message"


class CompensationReconcileFrames:
    """Build, seal and apply compensation reconciliations."""

    def __init__(self, core: EngineCore, compensation: CompensationFrames) -> None:
        self.core = core
        self.compensation = compensation

    def compensation_reconcile_request(
        self,
        plan: WorkflowPlan,
        ledger: WorkflowOperationLedger,
        operation_key: str,
        payload: ToolPayload,
        session_id: str,
        request_id: str,
    ) -> OperationCompensationRequest:
        """Ownership and ledger, the operation, its recorded compensation, not terminal, the
        request from the record (protocol validation), then the payload's canonical input
        against the recorded fingerprint."""
        self.core.validate_operation_ledger(plan, ledger)
        operation = ledger.require_operation(operation_key)
        compensation = require_compensation(operation)
        if OPERATION_LIFECYCLE.is_terminal(compensation.state):
            raise CompensationAlreadyTerminal(
                compensation_key=compensation.compensation_key, state=compensation.state.value
            )
        request = OperationCompensationRequest(
            session_id=session_id,
            request_id=request_id,
            tool=operation.tool,
            operation_key=operation.operation_key,
            compensation_key=compensation.compensation_key,
            tenant_scope=compensation.tenant_scope,
            grant_fingerprint=compensation.grant_fingerprint,
            payload=payload,
        ).checked()
        compensation.verify_input(payload.canonical_input_bytes())
        return request

    def prepare_authenticated_compensation_reconciliation(
        self,
        plan: WorkflowPlan,
        ledger: WorkflowOperationLedger,
        operation_key: str,
        payload: ToolPayload,
        request_id: str,
        authenticator: SessionAuthenticator,
    ) -> PreparedFrame[OperationCompensationRequest]:
        """Role, the request, then the seal (which refuses the kind outside the profile)."""
        require_host(authenticator, ReconciliationRequiresHostAuthenticator)
        request = self.compensation_reconcile_request(
            plan, ledger, operation_key, payload, authenticator.session_id, request_id
        )
        return PreparedFrame(request, authenticator.seal(ReconcileCompensation(request)))

    def apply_authenticated_compensation_reconciliation(
        self,
        plan: WorkflowPlan,
        ledger: WorkflowOperationLedger,
        request: OperationCompensationRequest,
        authenticator: SessionAuthenticator,
        frame: AuthenticatedFrame,
    ) -> Phase:
        """Role, open (a failure leaves everything untouched), message kind (the sequence is
        already used), then the verified apply of a compensation result (HL-21)."""
        require_host(authenticator, ReconciliationRequiresHostAuthenticator)
        unexpected = UnexpectedCompensationReconciliationMessage
        message = open_reply(authenticator, frame, ReconciledCompensation, unexpected)
        return self.compensation.apply_verified_operation_compensation(
            plan, ledger, request, message.result
        )
