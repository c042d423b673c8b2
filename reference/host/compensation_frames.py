"""Approving, sealing and applying compensations (HL-18, HL-21 .. HL-24).

The path of one compensation after its intent is recorded (and persisted by the host):

1. ``approve_compensation`` re-checks the current grant and policy, the record and the
   caller's input, asks the action verifier, and issues a one-use, process-local approval
   bound to the ledger revision and the host session;
2. ``prepare_authenticated_operation_compensation`` consumes that approval *on entry*,
   re-checks everything, asks the action verifier again and seals ``compensate_operation``
   with the recorded ``cmp-`` key;
3. ``apply_authenticated_operation_compensation`` opens the ``compensation_result`` and
   moves the compensation's state (the original stays succeeded).

After a restart the host re-approves the *existing* intent in a new session; the frame reuses
the same key and the worker's journal answers with what it already knows.
"""

from __future__ import annotations

from rescind.reference.frames import AuthenticatedFrame, SessionAuthenticator
from rescind.reference.host.approvals import (
    Approval,
    ApprovalKind,
    CompensationBinding,
    issue_approval,
)
from rescind.reference.host.compensation import (
    WorkflowCompensationDispatch,
    WorkflowCompensationTarget,
)
from rescind.reference.host.engine_core import EngineCore
from rescind.reference.host.errors import (
    ApprovalMismatch,
    CompensationDispatchRequiresHostAuthenticator,
    CompensationPolicyMismatch,
    UnexpectedCompensationMessage,
    UnknownCompensation,
)
from rescind.reference.host.events import CompensationApproved, CompensationObserved
from rescind.reference.host.host_frames import PreparedFrame, open_reply, require_host
from rescind.reference.host.ledger import WorkflowOperationLedger, require_compensable
from rescind.reference.host.ledger_records import CompensationRecord, OperationRecord
from rescind.reference.host.plan import WorkflowPlan
from rescind.reference.messages import (
    OperationCompensationRequest,
    OperationCompensationResult,
)
from rescind.reference.worker_message import CompensateOperation, CompensationResult
from rescind.tables.operation import Phase


def _mismatch(reason: str) -> ApprovalMismatch:
    return ApprovalMismatch(reason=reason)


class CompensationFrames:
    """Approve, prepare and apply compensations."""

    def __init__(self, core: EngineCore) -> None:
        self.core = core

    def approve_compensation(
        self,
        plan: WorkflowPlan,
        ledger: WorkflowOperationLedger,
        target: WorkflowCompensationTarget,
        canonical_input: bytes,
        authenticator: SessionAuthenticator,
    ) -> Approval:
        """Role, ledger, grant check (G), operation lookup, succeeded, tool, intent exists,
        stored tenant and grant equal the policy's, input fingerprint, action check (A),
        then issue. The compensation's own state is not looked at, and no sequence number
        is used (only the role and session id are read)."""
        require_host(authenticator, CompensationDispatchRequiresHostAuthenticator)
        self.core.validate_operation_ledger(plan, ledger)
        target.check_grant()
        operation = ledger.require_operation(target.operation_key)
        require_compensable(operation, target.policy)
        compensation = require_compensation(operation)
        if (
            compensation.tenant_scope != target.policy.tenant_scope
            or compensation.grant_fingerprint != target.policy.grant_fingerprint
        ):
            raise CompensationPolicyMismatch(operation_key=operation.operation_key)
        compensation.verify_input(canonical_input)
        target.check_action(plan.fingerprint, operation, canonical_input)
        approval = issue_approval(
            engine_id=self.core.engine_id,
            plan_id=plan.plan_id,
            nonce=self.core.next_approval_nonce(),
            kind=ApprovalKind.COMPENSATION,
            binding=CompensationBinding(
                ledger_revision=ledger.revision,
                operation_key=operation.operation_key,
                compensation_key=compensation.compensation_key,
                input_fingerprint=compensation.input_fingerprint,
                tenant_scope=compensation.tenant_scope,
                grant_fingerprint=compensation.grant_fingerprint,
                session_id=authenticator.session_id,
            ),
        )
        self.core.emit(
            CompensationApproved(
                plan.plan_id, operation.operation_key, compensation.compensation_key
            )
        )
        return approval

    def prepare_authenticated_operation_compensation(
        self,
        plan: WorkflowPlan,
        ledger: WorkflowOperationLedger,
        target: WorkflowCompensationTarget,
        approval: Approval,
        dispatch: WorkflowCompensationDispatch,
        authenticator: SessionAuthenticator,
    ) -> PreparedFrame[OperationCompensationRequest]:
        """Consume the approval, then: role, ledger, grant check (G), approval binding,
        operation and intent, build the request, input fingerprint of the dispatch payload,
        action check (A), seal."""
        approval.consume()
        require_host(authenticator, CompensationDispatchRequiresHostAuthenticator)
        self.core.validate_operation_ledger(plan, ledger)
        target.check_grant()
        self._check_approval(plan, ledger, target, approval, authenticator)
        operation = ledger.require_operation(target.operation_key)
        policy = target.policy
        if operation.state is not Phase.SUCCEEDED or operation.tool != policy.tool:
            raise _mismatch("operation not compensable under this policy")
        compensation = require_compensation(operation)
        binding = approval.binding
        assert binding is not None  # a compensation approval always carries one
        if compensation.compensation_key != binding.compensation_key:
            raise _mismatch("compensation key")
        if compensation.input_fingerprint != binding.input_fingerprint:
            raise _mismatch("compensation input")
        if (
            compensation.tenant_scope != policy.tenant_scope
            or compensation.grant_fingerprint != policy.grant_fingerprint
        ):
            raise _mismatch("stored policy")
        request = OperationCompensationRequest(
            session_id=authenticator.session_id,
            request_id=dispatch.request_id,
            tool=operation.tool,
            operation_key=operation.operation_key,
            compensation_key=compensation.compensation_key,
            tenant_scope=compensation.tenant_scope,
            grant_fingerprint=compensation.grant_fingerprint,
            payload=dispatch.payload,
        ).checked()
        compensation_input = request.payload.canonical_input_bytes()
        compensation.verify_input(compensation_input)
        target.check_action(plan.fingerprint, operation, compensation_input)
        return PreparedFrame(request, authenticator.seal(CompensateOperation(request)))

    def _check_approval(
        self,
        plan: WorkflowPlan,
        ledger: WorkflowOperationLedger,
        target: WorkflowCompensationTarget,
        approval: Approval,
        authenticator: SessionAuthenticator,
    ) -> None:
        """Every binding failure is the same ``approval_mismatch`` (the reason detail is
        informative only)."""
        if (
            not self.core.owns(plan)
            or approval.engine_id != self.core.engine_id
            or approval.plan_id != plan.plan_id
            or approval.nonce == 0
        ):
            raise _mismatch("engine or plan")
        binding = approval.binding
        if approval.kind is not ApprovalKind.COMPENSATION or binding is None:
            raise _mismatch("not a compensation approval")
        if binding.ledger_revision != ledger.revision:
            raise _mismatch("ledger revision")
        if binding.operation_key != target.operation_key:
            raise _mismatch("operation key")
        if binding.tenant_scope != target.policy.tenant_scope:
            raise _mismatch("tenant scope")
        if binding.grant_fingerprint != target.policy.grant_fingerprint:
            raise _mismatch("grant fingerprint")
        if binding.session_id != authenticator.session_id:
            raise _mismatch("session")

    def apply_verified_operation_compensation(
        self,
        plan: WorkflowPlan,
        ledger: WorkflowOperationLedger,
        request: OperationCompensationRequest,
        result: OperationCompensationResult,
    ) -> Phase:
        self.core.validate_operation_ledger(plan, ledger)
        state = ledger.apply_verified_compensation(request, result)
        self.core.emit(
            CompensationObserved(
                plan.plan_id, request.operation_key, request.compensation_key, state
            )
        )
        return state

    def apply_authenticated_operation_compensation(
        self,
        plan: WorkflowPlan,
        ledger: WorkflowOperationLedger,
        request: OperationCompensationRequest,
        authenticator: SessionAuthenticator,
        frame: AuthenticatedFrame,
    ) -> Phase:
        """Role, open (a failure leaves everything untouched), message kind (the sequence
        is already used), then the verified apply (HL-21)."""
        require_host(authenticator, CompensationDispatchRequiresHostAuthenticator)
        unexpected = UnexpectedCompensationMessage
        message = open_reply(authenticator, frame, CompensationResult, unexpected)
        return self.apply_verified_operation_compensation(plan, ledger, request, message.result)


def require_compensation(operation: OperationRecord) -> CompensationRecord:
    """The operation's recorded compensation, else ``unknown_compensation``."""
    if operation.compensation is None:
        raise UnknownCompensation(operation_key=operation.operation_key)
    return operation.compensation
