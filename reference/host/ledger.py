"""The host workflow operation ledger (upstream ``WorkflowOperationLedger``), sans-IO.

The ledger is the host's durable memory of which effects it asked for under which keys, and
what it has learned about them. It holds metadata only (HL-1). It only grows: at most 64
operations, at most one compensation per operation, no delete or reset.

Mutation discipline: every mutating method validates the whole ledger and every argument
first, computes the new operations tuple, and then commits revision and operations in one
assignment. A raised error therefore leaves the ledger exactly as it was (HL-5), which the
property tests check through ``to_json``.

The revision counts state-changing mutations: recording an operation, recording a
compensation, and an observation that changes a state. Idempotent observations do not count,
and a change at revision 2**64-1 is refused (HL-4).
"""

from __future__ import annotations

from collections.abc import Iterator

import attrs

from rescind.reference.digests import host_input_fingerprint_of_bytes, is_step_id
from rescind.reference.host.compensation import WorkflowCompensationPolicy
from rescind.reference.host.errors import (
    CompensationAlreadyRecorded,
    CompensationPolicyMismatch,
    CompensationRequestMismatch,
    CompensationRequiresSucceededOperation,
    DuplicateOperationKey,
    InvalidCompensationKey,
    InvalidOperationKey,
    InvalidStepId,
    InvalidTool,
    LedgerRevisionExhausted,
    PlanMismatch,
    ReconciliationMismatch,
    StaleRevision,
    TooManyOperations,
    UnknownCompensation,
    UnknownOperation,
    UnknownStep,
)
from rescind.reference.host.ledger_codec import (
    check_estimate,
    check_length,
    decode_ledger,
    encode_ledger,
)
from rescind.reference.host.ledger_records import (
    LEDGER_FORMAT_VERSION,
    MAX_OPERATIONS,
    MAX_REVISION,
    CompensationRecord,
    OperationRecord,
    check_input_size,
    compensation_transition,
    is_compensation_key,
    is_operation_key,
    operation_transition,
    validate_structure,
)
from rescind.reference.host.plan import WorkflowPlan
from rescind.reference.messages import (
    OperationCompensationRequest,
    OperationCompensationResult,
    OperationReconcileRequest,
    OperationReconcileResult,
)
from rescind.reference.tokens import is_token
from rescind.tables.operation import Phase


class WorkflowOperationLedger:
    """Operation and compensation intents of one plan, with a monotonic revision."""

    __slots__ = ("_format_version", "_operations", "_plan_fingerprint", "_revision")

    def __init__(
        self,
        plan_fingerprint: str,
        *,
        revision: int = 0,
        operations: tuple[OperationRecord, ...] = (),
        format_version: int = LEDGER_FORMAT_VERSION,
    ) -> None:
        """A ledger with the given contents, *not* validated (validation is HL-3's job and
        runs before every use). New ledgers come from ``WorkflowEngine.operation_ledger``."""
        self._format_version = format_version
        self._revision = revision
        self._plan_fingerprint = plan_fingerprint
        self._operations = tuple(operations)

    # -- reading -------------------------------------------------------------------------

    @property
    def format_version(self) -> int:
        return self._format_version

    @property
    def revision(self) -> int:
        return self._revision

    @property
    def plan_fingerprint(self) -> str:
        return self._plan_fingerprint

    @property
    def operations(self) -> tuple[OperationRecord, ...]:
        return self._operations

    def __iter__(self) -> Iterator[OperationRecord]:
        return iter(self._operations)

    def __len__(self) -> int:
        return len(self._operations)

    def operation(self, operation_key: str) -> OperationRecord | None:
        for operation in self._operations:
            if operation.operation_key == operation_key:
                return operation
        return None

    def require_operation(self, operation_key: str) -> OperationRecord:
        operation = self.operation(operation_key)
        if operation is None:
            raise UnknownOperation(operation_key=operation_key)
        return operation

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, WorkflowOperationLedger):
            return NotImplemented
        return self._fields() == other._fields()

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return (
            f"WorkflowOperationLedger(revision={self._revision}, "
            f"plan_fingerprint={self._plan_fingerprint!r}, operations={len(self._operations)})"
        )

    def _fields(self) -> tuple[int, int, str, tuple[OperationRecord, ...]]:
        return (self._format_version, self._revision, self._plan_fingerprint, self._operations)

    def copy(self) -> WorkflowOperationLedger:
        return WorkflowOperationLedger(
            self._plan_fingerprint,
            revision=self._revision,
            operations=self._operations,
            format_version=self._format_version,
        )

    # -- validation ----------------------------------------------------------------------

    def validate(self) -> None:
        """Structural validation (HL-3)."""
        validate_structure(self._format_version, self._plan_fingerprint, self._operations)

    def validate_for(self, plan: WorkflowPlan) -> None:
        """Structural validation, then plan fingerprint, then every step id (HL-11)."""
        self.validate()
        if self._plan_fingerprint != plan.fingerprint:
            raise PlanMismatch()
        step_ids = set(plan.step_ids)
        for operation in self._operations:
            if operation.step_id not in step_ids:
                raise UnknownStep(step_id=operation.step_id)

    def require_minimum_revision(self, minimum: int) -> None:
        if self._revision < minimum:
            raise StaleRevision(actual=self._revision, minimum=minimum)

    # -- encoding ------------------------------------------------------------------------

    def to_json(self) -> str:
        """Validate, refuse on the size *estimate*, serialize, refuse on the real size."""
        self.validate()
        check_estimate(self._operations)
        text = encode_ledger(*self._fields())
        check_length(text)
        return text

    @classmethod
    def from_json(cls, text: str | bytes) -> WorkflowOperationLedger:
        """Size bound, typed decoding (``ledger_invalid_encoding``), then HL-3."""
        decoded = decode_ledger(text)
        ledger = cls(
            decoded.plan_fingerprint,
            revision=decoded.revision,
            operations=decoded.operations,
            format_version=decoded.format_version,
        )
        ledger.validate()
        return ledger

    # -- mutation ------------------------------------------------------------------------

    def _next_revision(self) -> int:
        if self._revision >= MAX_REVISION:
            raise LedgerRevisionExhausted(revision=self._revision)
        return self._revision + 1

    def _commit(self, revision: int, operations: tuple[OperationRecord, ...]) -> None:
        self._revision, self._operations = revision, operations

    def _replace(self, operation_key: str, record: OperationRecord) -> tuple[OperationRecord, ...]:
        return tuple(
            record if operation.operation_key == operation_key else operation
            for operation in self._operations
        )

    def record(self, step_id: str, tool: str, operation_key: str, canonical_input: bytes) -> None:
        """Record a pending operation (HL-6 order): structure, input size, count, revision,
        step, tool, key, duplicate key; then push and bump the revision."""
        self.validate()
        check_input_size(canonical_input)
        if len(self._operations) >= MAX_OPERATIONS:
            raise TooManyOperations(maximum=MAX_OPERATIONS)
        revision = self._next_revision()
        if not is_step_id(step_id):
            raise InvalidStepId(step_id=step_id)
        if not is_token(tool):
            raise InvalidTool(tool=tool)
        if not is_operation_key(operation_key):
            raise InvalidOperationKey(operation_key=operation_key)
        if self.operation(operation_key) is not None:
            raise DuplicateOperationKey(operation_key=operation_key)
        record = OperationRecord(
            step_id=step_id,
            tool=tool,
            operation_key=operation_key,
            input_fingerprint=host_input_fingerprint_of_bytes(canonical_input),
        )
        self._commit(revision, (*self._operations, record))

    def record_compensation(
        self,
        operation_key: str,
        policy: WorkflowCompensationPolicy,
        compensation_key: str,
        canonical_input: bytes,
    ) -> None:
        """Record the one compensation intent of a succeeded operation (HL-7 order)."""
        self.validate()
        policy.validate_syntax()
        check_input_size(canonical_input)
        operation = self.require_operation(operation_key)
        require_compensable(operation, policy)
        if operation.compensation is not None:
            raise CompensationAlreadyRecorded(operation_key=operation_key)
        if not is_compensation_key(compensation_key):
            raise InvalidCompensationKey(compensation_key=compensation_key)
        revision = self._next_revision()
        compensation = CompensationRecord(
            compensation_key=compensation_key,
            input_fingerprint=host_input_fingerprint_of_bytes(canonical_input),
            tenant_scope=policy.tenant_scope,
            grant_fingerprint=policy.grant_fingerprint,
        )
        record = attrs.evolve(operation, compensation=compensation)
        self._commit(revision, self._replace(operation_key, record))

    # -- requests and observations ------------------------------------------------------

    def reconcile_request(
        self, operation_key: str, canonical_input: bytes, session_id: str, request_id: str
    ) -> OperationReconcileRequest:
        """Structure, key is a token (a ``cmp-`` key passes and is then unknown), the
        operation exists, the caller's current input matches, then the request."""
        self.validate()
        if not is_token(operation_key):
            raise InvalidOperationKey(operation_key=operation_key)
        operation = self.require_operation(operation_key)
        operation.verify_input(canonical_input)
        return OperationReconcileRequest(
            session_id=session_id,
            request_id=request_id,
            tool=operation.tool,
            operation_key=operation.operation_key,
        ).checked()

    def apply_verified_reconciliation(
        self, request: OperationReconcileRequest, result: OperationReconcileResult
    ) -> Phase:
        """Apply a reconcile (or dispatch) result whose frame was already authenticated
        (HL-15 order). Returns the observed state; no output is kept."""
        self.validate()
        request.validate()
        result.validate()
        if not result.matches_request(request):
            raise ReconciliationMismatch(operation_key=request.operation_key)
        operation = self.require_operation(request.operation_key)
        if operation.tool != request.tool:
            raise ReconciliationMismatch(operation_key=request.operation_key)
        observed = result.status.phase
        if operation_transition(operation.state, observed):
            revision = self._next_revision()
            record = attrs.evolve(operation, state=observed)
            self._commit(revision, self._replace(operation.operation_key, record))
        return observed

    def apply_verified_compensation(
        self, request: OperationCompensationRequest, result: OperationCompensationResult
    ) -> Phase:
        """Apply a compensation result whose frame was already authenticated (HL-21 order).
        Only the compensation's state can change; the original stays succeeded."""
        self.validate()
        request.validate()
        result.validate()
        if not result.matches_request(request):
            raise CompensationRequestMismatch(operation_key=request.operation_key)
        operation = self.require_operation(request.operation_key)
        if operation.tool != request.tool:
            raise CompensationRequestMismatch(operation_key=request.operation_key)
        compensation = operation.compensation
        if compensation is None:
            raise UnknownCompensation(operation_key=operation.operation_key)
        compensation.verify_input(request.payload.canonical_input_bytes())
        if (
            compensation.compensation_key != request.compensation_key
            or compensation.tenant_scope != request.tenant_scope
            or compensation.grant_fingerprint != request.grant_fingerprint
        ):
            raise CompensationRequestMismatch(operation_key=request.operation_key)
        observed = result.status.phase
        if compensation_transition(compensation.compensation_key, compensation.state, observed):
            revision = self._next_revision()
            updated = attrs.evolve(compensation, state=observed)
            record = attrs.evolve(operation, compensation=updated)
            self._commit(revision, self._replace(operation.operation_key, record))
        return observed


def require_compensable(operation: OperationRecord, policy: WorkflowCompensationPolicy) -> None:
    """The original must have succeeded and its tool must be the policy's tool."""
    if operation.state is not Phase.SUCCEEDED:
        raise CompensationRequiresSucceededOperation(
            operation_key=operation.operation_key, state=operation.state.value
        )
    if operation.tool != policy.tool:
        raise CompensationPolicyMismatch(operation_key=operation.operation_key)
