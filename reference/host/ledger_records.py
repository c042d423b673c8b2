"""The host ledger's records, its bounds, its structural validation and its transition rule.

Records are frozen values that hold what the ledger persists and nothing more: identifiers,
fingerprints and state kinds. Raw input, output, failure text, nonces and approvals never
enter a record. Records are built without validation on purpose: a decoded or hand-edited
ledger must be representable so that ``validate_structure`` can reject it with the right
error in the right order (docs/spec/ledger.md HL-3).
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from rescind.reference.digests import (
    MAX_OPERATION_INPUT_BYTES,
    HostInputTooLarge,
    InvalidStepId,
    host_input_fingerprint_of_bytes,
    is_step_id,
)
from rescind.reference.host.errors import (
    CompensationInputFingerprintMismatch,
    CompensationRequiresSucceededOperation,
    DuplicateOperationKey,
    InputFingerprintMismatch,
    InvalidCompensationGrantFingerprint,
    InvalidCompensationKey,
    InvalidCompensationStateTransition,
    InvalidCompensationTenantScope,
    InvalidInputFingerprint,
    InvalidOperationKey,
    InvalidPlanFingerprint,
    InvalidStateTransition,
    InvalidTool,
    LedgerUnsupportedVersion,
    TooManyOperations,
)
from rescind.reference.tokens import COMPENSATION_KEY_PREFIX, is_hex64, is_token
from rescind.tables.operation import OPERATION_LIFECYCLE, Phase, Verdict

LEDGER_FORMAT_VERSION = 2
MAX_LEDGER_BYTES = 65_536
MAX_OPERATIONS = 64
MAX_REVISION = 2**64 - 1
MAX_INPUT_BYTES = MAX_OPERATION_INPUT_BYTES


def is_operation_key(value: str) -> bool:
    """A workflow operation key: a token that does not start with ``cmp-``."""
    return is_token(value) and not value.startswith(COMPENSATION_KEY_PREFIX)


def is_compensation_key(value: str) -> bool:
    return is_token(value) and value.startswith(COMPENSATION_KEY_PREFIX)


def check_input_size(canonical_input: bytes) -> None:
    if len(canonical_input) > MAX_INPUT_BYTES:
        raise HostInputTooLarge(actual=len(canonical_input), maximum=MAX_INPUT_BYTES)


def _fingerprint_matches(canonical_input: bytes, fingerprint: str) -> bool:
    return host_input_fingerprint_of_bytes(canonical_input) == fingerprint


@attrs.frozen
class CompensationRecord:
    """One compensation intent: the inverse effect approved for a succeeded operation."""

    compensation_key: str
    input_fingerprint: str
    tenant_scope: str
    grant_fingerprint: str
    state: Phase = Phase.PENDING

    def matches_input(self, canonical_input: bytes) -> bool:
        return len(canonical_input) <= MAX_INPUT_BYTES and _fingerprint_matches(
            canonical_input, self.input_fingerprint
        )

    def verify_input(self, canonical_input: bytes) -> None:
        """Size first, then the fingerprint (named by the compensation key)."""
        check_input_size(canonical_input)
        if not _fingerprint_matches(canonical_input, self.input_fingerprint):
            raise CompensationInputFingerprintMismatch(compensation_key=self.compensation_key)

    def validate(self) -> None:
        if not is_compensation_key(self.compensation_key):
            raise InvalidCompensationKey(compensation_key=self.compensation_key)
        if not is_hex64(self.input_fingerprint):
            raise InvalidInputFingerprint()
        if not is_token(self.tenant_scope):
            raise InvalidCompensationTenantScope(tenant_scope=self.tenant_scope)
        if not is_hex64(self.grant_fingerprint):
            raise InvalidCompensationGrantFingerprint()


@attrs.frozen
class OperationRecord:
    """One operation: the step and tool it belongs to, its key, its input fingerprint, its
    state kind and at most one compensation."""

    step_id: str
    tool: str
    operation_key: str
    input_fingerprint: str
    state: Phase = Phase.PENDING
    compensation: CompensationRecord | None = None

    @property
    def is_terminal(self) -> bool:
        return OPERATION_LIFECYCLE.is_terminal(self.state)

    def matches_input(self, canonical_input: bytes) -> bool:
        return len(canonical_input) <= MAX_INPUT_BYTES and _fingerprint_matches(
            canonical_input, self.input_fingerprint
        )

    def verify_input(self, canonical_input: bytes) -> None:
        """Size first, then the fingerprint (named by the operation key)."""
        check_input_size(canonical_input)
        if not _fingerprint_matches(canonical_input, self.input_fingerprint):
            raise InputFingerprintMismatch(operation_key=self.operation_key)

    def validate(self) -> None:
        """HL-3 per-operation order: step, tool, key, fingerprint, then the compensation
        (state first, then its own fields)."""
        if not is_step_id(self.step_id):
            raise InvalidStepId(step_id=self.step_id)
        if not is_token(self.tool):
            raise InvalidTool(tool=self.tool)
        if not is_operation_key(self.operation_key):
            raise InvalidOperationKey(operation_key=self.operation_key)
        if not is_hex64(self.input_fingerprint):
            raise InvalidInputFingerprint()
        if self.compensation is not None:
            if self.state is not Phase.SUCCEEDED:
                raise CompensationRequiresSucceededOperation(
                    operation_key=self.operation_key, state=self.state.value
                )
            self.compensation.validate()


def validate_structure(
    format_version: int, plan_fingerprint: str, operations: Sequence[OperationRecord]
) -> None:
    """The structural checks (HL-3), first failure wins. Compensation keys are deliberately
    not checked for uniqueness across operations, and the revision is not compared with the
    number of operations: upstream does neither."""
    if format_version != LEDGER_FORMAT_VERSION:
        raise LedgerUnsupportedVersion(version=format_version)
    if not is_hex64(plan_fingerprint):
        raise InvalidPlanFingerprint()
    if len(operations) > MAX_OPERATIONS:
        raise TooManyOperations(maximum=MAX_OPERATIONS)
    seen: set[str] = set()
    for operation in operations:
        operation.validate()
        if operation.operation_key in seen:
            raise DuplicateOperationKey(operation_key=operation.operation_key)
        seen.add(operation.operation_key)


def operation_transition(current: Phase, observed: Phase) -> bool:
    """Execute the shared lifecycle for an operation; True when the state changes.

    The host compares state kinds only, so ``stay_if_same`` always accepts here."""
    verdict = OPERATION_LIFECYCLE.verdict(current, observed)
    if verdict is Verdict.REJECT:
        raise InvalidStateTransition(current=current.value, observed=observed.value)
    return verdict is Verdict.ADVANCE


def compensation_transition(compensation_key: str, current: Phase, observed: Phase) -> bool:
    """The same rule for a compensation, with the compensation's own error."""
    verdict = OPERATION_LIFECYCLE.verdict(current, observed)
    if verdict is Verdict.REJECT:
        raise InvalidCompensationStateTransition(
            compensation_key=compensation_key, current=current.value, observed=observed.value
        )
    return verdict is Verdict.ADVANCE
