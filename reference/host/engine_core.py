"""The host engine's core: plans, ownership, ledger validation, recording and derivation.

``WorkflowEngine`` (in ``engine``) is this class plus the handlers of the authenticated frame
APIs, each given the core explicitly.
Every engine API that takes a plan first checks that this engine made the plan
(``plan_ownership_mismatch``), then validates the ledger against the plan (HL-11), then does
its own checks in the order docs/spec/ledger.md gives. Successful calls append telemetry
events (HL-25); failed calls append nothing.
"""

from __future__ import annotations

from collections.abc import Iterable

from rescind.reference.digests import (
    PlanStep,
    derive_compensation_key,
    derive_operation_key,
    plan_fingerprint,
)
from rescind.reference.host.approvals import Approval, ApprovalKind, issue_approval
from rescind.reference.host.compensation import (
    WorkflowCompensationPolicy,
    WorkflowCompensationTarget,
)
from rescind.reference.host.errors import (
    InvalidTool,
    OperationAlreadyTerminal,
    OperationBindingMismatch,
    PlanOwnershipMismatch,
    UnknownStep,
)
from rescind.reference.host.events import (
    Approved,
    CompensationRecorded,
    OperationLedgerCreated,
    OperationRecorded,
    Planned,
    WorkflowEvent,
)
from rescind.reference.host.ledger import WorkflowOperationLedger, require_compensable
from rescind.reference.host.ledger_records import check_input_size
from rescind.reference.host.plan import (
    MAX_ID,
    PROCESS_ENGINE_IDS,
    IdCounter,
    WorkflowPlan,
)
from rescind.reference.tokens import is_token

StepLike = PlanStep | tuple[str, str]


class EngineCore:
    """Plans and the record/derive half of the host engine."""

    def __init__(self, engine_ids: IdCounter | None = None) -> None:
        """``engine_ids`` defaults to the process-wide counter; pass a fresh ``IdCounter``
        for deterministic ids in tests and traces."""
        self.engine_id = (engine_ids or PROCESS_ENGINE_IDS).take()
        self._plan_ids = IdCounter()
        self._approval_nonces = IdCounter()
        self._plans: dict[int, WorkflowPlan] = {}
        self._events: list[WorkflowEvent] = []

    # -- telemetry -----------------------------------------------------------------------

    @property
    def events(self) -> tuple[WorkflowEvent, ...]:
        return tuple(self._events)

    def drain_events(self) -> tuple[WorkflowEvent, ...]:
        drained, self._events = tuple(self._events), []
        return drained

    def emit(self, event: WorkflowEvent) -> None:
        self._events.append(event)

    # -- plans and ownership -------------------------------------------------------------

    def plan(self, steps: Iterable[StepLike]) -> WorkflowPlan:
        """A plan of ordered steps. The fingerprint depends on the steps only; the plan id
        is this engine's next id."""
        ordered = tuple(step if isinstance(step, PlanStep) else PlanStep(*step) for step in steps)
        fingerprint = plan_fingerprint(ordered)  # validates before an id is spent
        plan = WorkflowPlan(self.engine_id, self._plan_ids.take(), ordered, fingerprint)
        self._plans[plan.plan_id] = plan
        self.emit(Planned(plan_id=plan.plan_id, step_count=len(ordered)))
        return plan

    def owns(self, plan: WorkflowPlan) -> bool:
        return plan.engine_id == self.engine_id and self._plans.get(plan.plan_id) == plan

    def require_owned(self, plan: WorkflowPlan) -> None:
        if not self.owns(plan):
            raise PlanOwnershipMismatch(plan_id=plan.plan_id)

    def approve_plan(self, plan: WorkflowPlan) -> Approval:
        """A general (non-compensation) approval for a plan of this engine. The compensation
        preparer refuses it; it exists so that wrong-kind approvals can be exercised."""
        self.require_owned(plan)
        approval = issue_approval(
            engine_id=self.engine_id,
            plan_id=plan.plan_id,
            nonce=self.next_approval_nonce(),
            kind=ApprovalKind.PLAN,
        )
        self.emit(Approved(plan_id=plan.plan_id))
        return approval

    def next_approval_nonce(self) -> int:
        nonce = self._approval_nonces.take()
        assert 0 < nonce <= MAX_ID
        return nonce

    # -- ledgers -------------------------------------------------------------------------

    def operation_ledger(self, plan: WorkflowPlan) -> WorkflowOperationLedger:
        """A new, empty ledger (revision 0) bound to the plan's fingerprint."""
        self.require_owned(plan)
        ledger = WorkflowOperationLedger(plan.fingerprint)
        self.emit(OperationLedgerCreated(plan.plan_id))
        return ledger

    def validate_operation_ledger(
        self, plan: WorkflowPlan, ledger: WorkflowOperationLedger
    ) -> None:
        self.require_owned(plan)
        ledger.validate_for(plan)

    def validate_operation_ledger_at_or_after(
        self, plan: WorkflowPlan, ledger: WorkflowOperationLedger, minimum_revision: int
    ) -> None:
        """Full validation first, then the watermark (``stale_revision``)."""
        self.validate_operation_ledger(plan, ledger)
        ledger.require_minimum_revision(minimum_revision)

    # -- operations ----------------------------------------------------------------------

    def record_operation(
        self,
        plan: WorkflowPlan,
        ledger: WorkflowOperationLedger,
        step_id: str,
        tool: str,
        operation_key: str,
        canonical_input: bytes,
    ) -> None:
        """Record a host-chosen key: ownership, ledger, step in plan, then the ledger's own
        checks (HL-6)."""
        self.validate_operation_ledger(plan, ledger)
        if not plan.has_step(step_id):
            raise UnknownStep(step_id=step_id)
        ledger.record(step_id, tool, operation_key, canonical_input)
        self.emit(OperationRecorded(plan.plan_id, step_id, tool))

    def derive_operation_key(
        self,
        plan: WorkflowPlan,
        step_id: str,
        tool: str,
        canonical_input: bytes,
        nonce: bytes,
    ) -> str:
        """The ``op-`` key for a step, tool, input and durable nonce (HK rules)."""
        self.require_owned(plan)
        if not plan.has_step(step_id):
            raise UnknownStep(step_id=step_id)
        if not is_token(tool):
            raise InvalidTool(tool=tool)
        return derive_operation_key(plan.fingerprint, step_id, tool, canonical_input, nonce)

    def record_derived_operation(
        self,
        plan: WorkflowPlan,
        ledger: WorkflowOperationLedger,
        step_id: str,
        tool: str,
        canonical_input: bytes,
        nonce: bytes,
    ) -> str:
        """Derive, then record under the derived key; returns the key."""
        key = self.derive_operation_key(plan, step_id, tool, canonical_input, nonce)
        self.record_operation(plan, ledger, step_id, tool, key, canonical_input)
        return key

    # -- compensation intents ------------------------------------------------------------

    def record_compensation(
        self,
        plan: WorkflowPlan,
        ledger: WorkflowOperationLedger,
        operation_key: str,
        policy: WorkflowCompensationPolicy,
        compensation_key: str,
        canonical_input: bytes,
    ) -> None:
        """Plain record: no verifier runs (HL-18)."""
        self.validate_operation_ledger(plan, ledger)
        ledger.record_compensation(operation_key, policy, compensation_key, canonical_input)
        self.emit(CompensationRecorded(plan.plan_id, operation_key, compensation_key))

    def derive_compensation_key(
        self,
        plan: WorkflowPlan,
        ledger: WorkflowOperationLedger,
        operation_key: str,
        policy: WorkflowCompensationPolicy,
        canonical_input: bytes,
        nonce: bytes,
    ) -> str:
        """The ``cmp-`` key (HK rules). Does not check for an existing compensation and
        calls no verifier."""
        self.validate_operation_ledger(plan, ledger)
        policy.validate_syntax()
        operation = ledger.require_operation(operation_key)
        require_compensable(operation, policy)
        return derive_compensation_key(
            plan.fingerprint,
            operation.operation_key,
            operation.tool,
            policy.tenant_scope,
            policy.grant_fingerprint,
            canonical_input,
            nonce,
        )

    def record_derived_compensation(
        self,
        plan: WorkflowPlan,
        ledger: WorkflowOperationLedger,
        operation_key: str,
        policy: WorkflowCompensationPolicy,
        canonical_input: bytes,
        nonce: bytes,
    ) -> str:
        key = self.derive_compensation_key(
            plan, ledger, operation_key, policy, canonical_input, nonce
        )
        self.record_compensation(plan, ledger, operation_key, policy, key, canonical_input)
        return key

    def record_compensation_with_action_verifier(
        self,
        plan: WorkflowPlan,
        ledger: WorkflowOperationLedger,
        target: WorkflowCompensationTarget,
        compensation_key: str,
        canonical_input: bytes,
    ) -> None:
        """Ownership, ledger, grant check (G), input size, operation lookup, action check
        (A), then the ledger's record (state, tool, duplicate, key syntax). Both verifiers
        therefore run before the ledger refuses a pending original or a second intent
        (HL-18)."""
        self.validate_operation_ledger(plan, ledger)
        target.check_grant()
        check_input_size(canonical_input)
        operation = ledger.require_operation(target.operation_key)
        target.check_action(plan.fingerprint, operation, canonical_input)
        ledger.record_compensation(
            target.operation_key, target.policy, compensation_key, canonical_input
        )
        self.emit(CompensationRecorded(plan.plan_id, target.operation_key, compensation_key))

    def record_derived_compensation_with_action_verifier(
        self,
        plan: WorkflowPlan,
        ledger: WorkflowOperationLedger,
        target: WorkflowCompensationTarget,
        canonical_input: bytes,
        nonce: bytes,
    ) -> str:
        """Derive (state, tool, size, nonce), then the verified record above."""
        key = self.derive_compensation_key(
            plan, ledger, target.operation_key, target.policy, canonical_input, nonce
        )
        self.record_compensation_with_action_verifier(plan, ledger, target, key, canonical_input)
        return key

    # -- external operations ---------------------------------------------------------------

    def prepare_external_operation(
        self,
        plan: WorkflowPlan,
        ledger: WorkflowOperationLedger,
        step_id: str,
        tool: str,
        canonical_input: bytes,
        nonce: bytes,
    ) -> str:
        """The ledger half of upstream's ``prepare_next_external_operation``: derive the key,
        then record it, or, when it is already recorded, re-check it (step or tool drift,
        a terminal state, input drift). Re-preparing a live operation is idempotent and does
        not change the revision. The runtime half (claiming a suspended invocation) needs a
        Splash runtime and is not modelled."""
        key = self.derive_operation_key(plan, step_id, tool, canonical_input, nonce)
        self.validate_operation_ledger(plan, ledger)
        existing = ledger.operation(key)
        if existing is None:
            self.record_operation(plan, ledger, step_id, tool, key, canonical_input)
            return key
        if existing.step_id != step_id or existing.tool != tool:
            raise OperationBindingMismatch(operation_key=key)
        if existing.is_terminal:
            raise OperationAlreadyTerminal(operation_key=key, state=existing.state.value)
        existing.verify_input(canonical_input)
        return key
