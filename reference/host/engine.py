"""``WorkflowEngine``: the host engine with every ledger, dispatch, reconciliation and
compensation API (upstream ``WorkflowEngine``'s operation-ledger surface).

The engine is its core state (``engine_core.EngineCore``: plans, ownership, recording,
derivation, telemetry) plus three handlers it owns, each given that core explicitly:
``host_frames`` (dispatch and reconciliation frames), ``compensation_frames`` (approve,
prepare, apply compensation) and ``compensation_reconcile_frames`` (Rescind's extension, not
upstream: usable only with an authenticator of the profile ``splash-v5+compensation-reconcile``).
The methods below hand each call to its handler; no handler inherits from another.

Engine ids: each engine takes the next id from ``plan.PROCESS_ENGINE_IDS`` (process-wide,
starting at 1) unless it is given its own ``IdCounter``.
"""

from __future__ import annotations

from rescind.reference.frames import AuthenticatedFrame, SessionAuthenticator
from rescind.reference.host.approvals import Approval
from rescind.reference.host.compensation import (
    WorkflowCompensationDispatch,
    WorkflowCompensationTarget,
)
from rescind.reference.host.compensation_frames import CompensationFrames
from rescind.reference.host.compensation_reconcile_frames import CompensationReconcileFrames
from rescind.reference.host.engine_core import EngineCore
from rescind.reference.host.host_frames import DispatchOutcome, HostFrames, PreparedFrame
from rescind.reference.host.ledger import WorkflowOperationLedger
from rescind.reference.host.plan import IdCounter, WorkflowPlan
from rescind.reference.messages import (
    OperationCompensationRequest,
    OperationCompensationResult,
    OperationDispatchRequest,
    OperationReconcileRequest,
    OperationReconcileResult,
)
from rescind.reference.payload import ToolPayload
from rescind.tables.operation import Phase

__all__ = ["DispatchOutcome", "PreparedFrame", "WorkflowEngine"]


class WorkflowEngine(EngineCore):
    """One host engine instance: its plans, its approvals and its telemetry."""

    def __init__(self, engine_ids: IdCounter | None = None) -> None:
        super().__init__(engine_ids)
        self._dispatch = HostFrames(self)
        self._compensation = CompensationFrames(self)
        self._reconcile = CompensationReconcileFrames(self, self._compensation)

    def operation_dispatch_request(
        self,
        plan: WorkflowPlan,
        ledger: WorkflowOperationLedger,
        operation_key: str,
        payload: ToolPayload,
        session_id: str,
        request_id: str,
    ) -> OperationDispatchRequest:
        return self._dispatch.operation_dispatch_request(
            plan, ledger, operation_key, payload, session_id, request_id
        )

    def prepare_authenticated_operation_dispatch(
        self,
        plan: WorkflowPlan,
        ledger: WorkflowOperationLedger,
        operation_key: str,
        payload: ToolPayload,
        request_id: str,
        authenticator: SessionAuthenticator,
    ) -> PreparedFrame[OperationDispatchRequest]:
        return self._dispatch.prepare_authenticated_operation_dispatch(
            plan, ledger, operation_key, payload, request_id, authenticator
        )

    def apply_verified_operation_dispatch_result(
        self,
        plan: WorkflowPlan,
        ledger: WorkflowOperationLedger,
        request: OperationDispatchRequest,
        result: OperationReconcileResult,
    ) -> Phase:
        return self._dispatch.apply_verified_operation_dispatch_result(
            plan, ledger, request, result
        )

    def apply_authenticated_operation_dispatch_result(
        self,
        plan: WorkflowPlan,
        ledger: WorkflowOperationLedger,
        request: OperationDispatchRequest,
        authenticator: SessionAuthenticator,
        frame: AuthenticatedFrame,
    ) -> DispatchOutcome:
        return self._dispatch.apply_authenticated_operation_dispatch_result(
            plan, ledger, request, authenticator, frame
        )

    def operation_reconcile_request(
        self,
        plan: WorkflowPlan,
        ledger: WorkflowOperationLedger,
        operation_key: str,
        canonical_input: bytes,
        session_id: str,
        request_id: str,
    ) -> OperationReconcileRequest:
        return self._dispatch.operation_reconcile_request(
            plan, ledger, operation_key, canonical_input, session_id, request_id
        )

    def prepare_authenticated_operation_reconciliation(
        self,
        plan: WorkflowPlan,
        ledger: WorkflowOperationLedger,
        operation_key: str,
        canonical_input: bytes,
        request_id: str,
        authenticator: SessionAuthenticator,
    ) -> PreparedFrame[OperationReconcileRequest]:
        return self._dispatch.prepare_authenticated_operation_reconciliation(
            plan, ledger, operation_key, canonical_input, request_id, authenticator
        )

    def apply_verified_operation_reconciliation(
        self,
        plan: WorkflowPlan,
        ledger: WorkflowOperationLedger,
        request: OperationReconcileRequest,
        result: OperationReconcileResult,
    ) -> Phase:
        return self._dispatch.apply_verified_operation_reconciliation(plan, ledger, request, result)

    def apply_authenticated_operation_reconciliation(
        self,
        plan: WorkflowPlan,
        ledger: WorkflowOperationLedger,
        request: OperationReconcileRequest,
        authenticator: SessionAuthenticator,
        frame: AuthenticatedFrame,
    ) -> Phase:
        return self._dispatch.apply_authenticated_operation_reconciliation(
            plan, ledger, request, authenticator, frame
        )

    def approve_compensation(
        self,
        plan: WorkflowPlan,
        ledger: WorkflowOperationLedger,
        target: WorkflowCompensationTarget,
        canonical_input: bytes,
        authenticator: SessionAuthenticator,
    ) -> Approval:
        return self._compensation.approve_compensation(
            plan, ledger, target, canonical_input, authenticator
        )

    def prepare_authenticated_operation_compensation(
        self,
        plan: WorkflowPlan,
        ledger: WorkflowOperationLedger,
        target: WorkflowCompensationTarget,
        approval: Approval,
        dispatch: WorkflowCompensationDispatch,
        authenticator: SessionAuthenticator,
    ) -> PreparedFrame[OperationCompensationRequest]:
        return self._compensation.prepare_authenticated_operation_compensation(
            plan, ledger, target, approval, dispatch, authenticator
        )

    def apply_verified_operation_compensation(
        self,
        plan: WorkflowPlan,
        ledger: WorkflowOperationLedger,
        request: OperationCompensationRequest,
        result: OperationCompensationResult,
    ) -> Phase:
        return self._compensation.apply_verified_operation_compensation(
            plan, ledger, request, result
        )

    def apply_authenticated_operation_compensation(
        self,
        plan: WorkflowPlan,
        ledger: WorkflowOperationLedger,
        request: OperationCompensationRequest,
        authenticator: SessionAuthenticator,
        frame: AuthenticatedFrame,
    ) -> Phase:
        return self._compensation.apply_authenticated_operation_compensation(
            plan, ledger, request, authenticator, frame
        )

    def compensation_reconcile_request(
        self,
        plan: WorkflowPlan,
        ledger: WorkflowOperationLedger,
        operation_key: str,
        payload: ToolPayload,
        session_id: str,
        request_id: str,
    ) -> OperationCompensationRequest:
        return self._reconcile.compensation_reconcile_request(
            plan, ledger, operation_key, payload, session_id, request_id
        )

    def prepare_authenticated_compensation_reconciliation(
        self,
        plan: WorkflowPlan,
        ledger: WorkflowOperationLedger,
        operation_key: str,
        payload: ToolPayload,
        request_id: str,
        authenticator: SessionAuthenticator,
    ) -> PreparedFrame[OperationCompensationRequest]:
        return self._reconcile.prepare_authenticated_compensation_reconciliation(
            plan, ledger, operation_key, payload, request_id, authenticator
        )

    def apply_authenticated_compensation_reconciliation(
        self,
        plan: WorkflowPlan,
        ledger: WorkflowOperationLedger,
        request: OperationCompensationRequest,
        authenticator: SessionAuthenticator,
        frame: AuthenticatedFrame,
    ) -> Phase:
        return self._reconcile.apply_authenticated_compensation_reconciliation(
            plan, ledger, request, authenticator, frame
        )
