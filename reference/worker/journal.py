"""The worker operation journal (upstream ``WorkerOperationJournal``), sans-IO and immutable.

Every method first re-checks the whole journal (``validate_and_bound``), then its own
preconditions in upstream's order (docs/spec/journal.md WJ-n). A call that changes something
builds a candidate journal, re-checks the candidate in full and returns it in ``Applied``;
the journal it was called on is never touched, so a rejected call leaves nothing behind and
the caller commits by keeping ``applied.journal`` (after persisting it, in a session).

Observations execute ``OPERATION_LIFECYCLE``: ``advance`` replaces the state, ``stay`` and an
accepted ``stay_if_same`` (structural payload / exact message equality) return the observed
state and change nothing, anything else raises the transition error. Terminal states
therefore never change.
"""

from __future__ import annotations

from typing import Generic, TypeAlias, TypeVar

import attrs

from rescind.reference.digests import worker_input_fingerprint
from rescind.reference.jsonencode import encode_string
from rescind.reference.messages import OperationStatus
from rescind.reference.numbers import NumberMode
from rescind.reference.protocol_errors import (
    CompensationIdentityMismatch,
    CompensationRequiresSucceededOperation,
    CompensationToolMismatch,
    DuplicateOperationKey,
    InvalidWorkerCompensationTransition,
    InvalidWorkerOperationTransition,
    OperationIdentityMismatch,
    OperationJournalScopeMismatch,
    OperationJournalTooLarge,
    TooManyWorkerOperations,
    UnknownCompensation,
    UnknownOperation,
    UnsupportedOperationJournalVersion,
)
from rescind.reference.tokens import require_token
from rescind.reference.wirejson import Struct, as_list, as_str, as_uint, read_document
from rescind.reference.worker.authorized import (
    AuthorizedCompensation,
    AuthorizedCompensationReconciliation,
    AuthorizedDispatch,
    AuthorizedReconciliation,
)
from rescind.reference.worker.records import (
    CompensationRecord,
    OperationRecord,
    WorkerOperationState,
)
from rescind.reference.worker_message import text_size
from rescind.tables.operation import OPERATION_LIFECYCLE, Phase, Verdict

JOURNAL_FORMAT_VERSION = 2
MAX_JOURNAL_BYTES = 262_144
MAX_JOURNAL_RECORDS = 64
SCOPE_FIELD = "operation journal scope"
JOURNAL_FIELDS = ("format_version", "scope", "records")

T = TypeVar("T")


@attrs.frozen
class Dispatch:
    """Admission of a new record: persist the journal, then run the effect exactly once."""

    @property
    def kind(self) -> str:
        return "dispatch"


@attrs.frozen
class Existing:
    """The exact request is already journaled: report ``state``, never run the effect again."""

    state: WorkerOperationState

    @property
    def kind(self) -> str:
        return "existing"


Admission: TypeAlias = Dispatch | Existing


@attrs.frozen
class Applied(Generic[T]):
    """A method's answer and the journal to keep (the same object when nothing changed)."""

    result: T
    journal: WorkerOperationJournal


@attrs.frozen
class WorkerOperationJournal:
    scope: str
    records: tuple[OperationRecord, ...] = ()
    format_version: int = JOURNAL_FORMAT_VERSION

    # -- construction, encoding, loading ----------------------------------------------------

    @classmethod
    def new(cls, scope: str) -> WorkerOperationJournal:
        require_token(SCOPE_FIELD, scope)
        return cls(scope)

    def encode_unchecked(self) -> str:
        records = ",".join(record.to_json() for record in self.records)
        return (
            f'{{"format_version":{self.format_version},"scope":{encode_string(self.scope)}'
            f',"records":[{records}]}}'
        )

    def to_json(self) -> str:
        """The compact format-version-2 text, after the full check."""
        self.validate_and_bound()
        return self.encode_unchecked()

    @classmethod
    def from_json(
        cls, text: str | bytes, mode: NumberMode = NumberMode.AP
    ) -> WorkerOperationJournal:
        """Bound the input (256 KiB) before parsing, decode strictly, then check in full."""
        size = text_size(text)
        if size > MAX_JOURNAL_BYTES:
            raise OperationJournalTooLarge(actual=size, maximum=MAX_JOURNAL_BYTES)
        document = read_document(text, mode)
        struct = Struct(document, JOURNAL_FIELDS, deny_unknown=True, what="journal")
        version = as_uint(struct.required("format_version"), 8)
        scope = as_str(struct.required("scope"))
        records = tuple(
            OperationRecord.from_node(item, mode) for item in as_list(struct.required("records"))
        )
        journal = cls(scope, records, version)
        journal.validate_and_bound()
        return journal

    @classmethod
    def from_json_for_scope(
        cls, text: str | bytes, expected_scope: str, mode: NumberMode = NumberMode.AP
    ) -> WorkerOperationJournal:
        journal = cls.from_json(text, mode)
        journal.validate_scope(expected_scope)
        return journal

    def validate_scope(self, expected_scope: str) -> None:
        require_token(SCOPE_FIELD, expected_scope)
        if self.scope != expected_scope:
            raise OperationJournalScopeMismatch(expected=expected_scope, actual=self.scope)

    def validate_and_bound(self) -> None:
        """Version, scope, record count, each record (then key uniqueness), encoded size."""
        if self.format_version != JOURNAL_FORMAT_VERSION:
            raise UnsupportedOperationJournalVersion(version=self.format_version)
        require_token(SCOPE_FIELD, self.scope)
        if len(self.records) > MAX_JOURNAL_RECORDS:
            raise TooManyWorkerOperations(maximum=MAX_JOURNAL_RECORDS)
        seen: set[str] = set()
        for record in self.records:
            record.validate()
            if record.operation_key in seen:
                raise DuplicateOperationKey(operation_key=record.operation_key)
            seen.add(record.operation_key)
        size = len(self.encode_unchecked().encode("utf-8"))
        if size > MAX_JOURNAL_BYTES:
            raise OperationJournalTooLarge(actual=size, maximum=MAX_JOURNAL_BYTES)

    # -- lookups -------------------------------------------------------------------------------

    def operation(self, operation_key: str) -> OperationRecord | None:
        for record in self.records:
            if record.operation_key == operation_key:
                return record
        return None

    def _index(self, operation_key: str) -> int:
        for index, record in enumerate(self.records):
            if record.operation_key == operation_key:
                return index
        raise UnknownOperation(operation_key=operation_key)

    def _replace(self, index: int, record: OperationRecord) -> WorkerOperationJournal:
        records = (*self.records[:index], record, *self.records[index + 1 :])
        candidate = attrs.evolve(self, records=records)
        candidate.validate_and_bound()
        return candidate

    # -- operations ----------------------------------------------------------------------------

    def admit(self, authorized: AuthorizedDispatch) -> Applied[Admission]:
        self.validate_and_bound()
        request = authorized.request
        fingerprint = worker_input_fingerprint(request.payload)
        record = self.operation(request.operation_key)
        if record is not None:
            _require_identity(record, request.tool, fingerprint, request.operation_key)
            record.state.validate_for_grant(authorized.grant)
            return Applied(Existing(record.state), self)
        # The record limit is checked only for a new key, so a full journal still answers
        # duplicates of what it holds.
        if len(self.records) >= MAX_JOURNAL_RECORDS:
            raise TooManyWorkerOperations(maximum=MAX_JOURNAL_RECORDS)
        new_record = OperationRecord(
            request.tool, request.operation_key, fingerprint, WorkerOperationState.pending()
        )
        candidate = attrs.evolve(self, records=(*self.records, new_record))
        candidate.validate_and_bound()
        return Applied(Dispatch(), candidate)

    def observe(
        self, authorized: AuthorizedDispatch, status: OperationStatus
    ) -> Applied[WorkerOperationState]:
        self.validate_and_bound()
        status.validate_for_grant(authorized.grant)
        request = authorized.request
        fingerprint = worker_input_fingerprint(request.payload)
        index = self._index(request.operation_key)
        record = self.records[index]
        _require_identity(record, request.tool, fingerprint, request.operation_key)
        return self._apply_operation(index, record, status)

    def validate_reconciliation(self, authorized: AuthorizedReconciliation) -> None:
        """The key must be journaled (reconciliation is no lookup oracle for foreign keys),
        under the same tool, and its stored state must still fit the current grant."""
        self.validate_and_bound()
        request = authorized.request
        record = self.records[self._index(request.operation_key)]
        if record.tool != request.tool:
            raise OperationIdentityMismatch(operation_key=request.operation_key)
        record.state.validate_for_grant(authorized.grant)

    def observe_reconciliation(
        self, authorized: AuthorizedReconciliation, status: OperationStatus
    ) -> Applied[WorkerOperationState]:
        self.validate_reconciliation(authorized)
        status.validate_for_grant(authorized.grant)
        index = self._index(authorized.request.operation_key)
        return self._apply_operation(index, self.records[index], status)

    def _apply_operation(
        self, index: int, record: OperationRecord, status: OperationStatus
    ) -> Applied[WorkerOperationState]:
        observed = WorkerOperationState.from_status(status)
        if not _accepts(record.state, observed):
            raise InvalidWorkerOperationTransition(
                operation_key=record.operation_key,
                current=record.state.kind,
                observed=observed.kind,
            )
        if _is_noop(record.state, observed):
            return Applied(observed, self)
        return Applied(observed, self._replace(index, attrs.evolve(record, state=observed)))

    # -- compensations -------------------------------------------------------------------------

    def admit_compensation(self, authorized: AuthorizedCompensation) -> Applied[Admission]:
        self.validate_and_bound()
        request = authorized.request
        self._require_scope(request.tenant_scope)
        fingerprint = worker_input_fingerprint(request.payload)
        index = self._index(request.operation_key)
        record = self.records[index]
        if record.tool != request.tool:
            raise CompensationToolMismatch(operation_key=request.operation_key)
        if record.state.phase is not Phase.SUCCEEDED:
            raise CompensationRequiresSucceededOperation(
                operation_key=request.operation_key, state=record.state.kind
            )
        existing = record.compensation
        if existing is not None:
            if not existing.same_identity(
                request.compensation_key, fingerprint, request.grant_fingerprint
            ):
                raise CompensationIdentityMismatch(operation_key=request.operation_key)
            existing.state.validate_for_grant(authorized.grant)
            return Applied(Existing(existing.state), self)
        compensation = CompensationRecord(
            request.compensation_key,
            fingerprint,
            request.grant_fingerprint,
            WorkerOperationState.pending(),
        )
        candidate = self._replace(index, attrs.evolve(record, compensation=compensation))
        return Applied(Dispatch(), candidate)

    def observe_compensation(
        self,
        authorized: AuthorizedCompensation | AuthorizedCompensationReconciliation,
        status: OperationStatus,
    ) -> Applied[WorkerOperationState]:
        self.validate_and_bound()
        status.validate_for_grant(authorized.grant)
        index, record, compensation = self._attached(authorized)
        request = authorized.request
        observed = WorkerOperationState.from_status(status)
        if not _accepts(compensation.state, observed):
            raise InvalidWorkerCompensationTransition(
                operation_key=request.operation_key,
                current=compensation.state.kind,
                observed=observed.kind,
            )
        if _is_noop(compensation.state, observed):
            return Applied(observed, self)
        updated = attrs.evolve(record, compensation=attrs.evolve(compensation, state=observed))
        return Applied(observed, self._replace(index, updated))

    def validate_compensation_reconciliation(
        self, authorized: AuthorizedCompensationReconciliation
    ) -> None:
        """Extension (CR-5): the compensation must be attached here under exactly this
        identity (tenant, tool, key, compensation key, input, grant fingerprint), and its
        stored state must still fit the current grant."""
        self.validate_and_bound()
        _, _, compensation = self._attached(authorized)
        compensation.state.validate_for_grant(authorized.grant)

    def _attached(
        self, authorized: AuthorizedCompensation | AuthorizedCompensationReconciliation
    ) -> tuple[int, OperationRecord, CompensationRecord]:
        """Scope, key, tool, an attached compensation, then its full identity."""
        request = authorized.request
        self._require_scope(request.tenant_scope)
        fingerprint = worker_input_fingerprint(request.payload)
        index = self._index(request.operation_key)
        record = self.records[index]
        if record.tool != request.tool:
            raise CompensationToolMismatch(operation_key=request.operation_key)
        compensation = record.compensation
        if compensation is None:
            raise UnknownCompensation(operation_key=request.operation_key)
        if not compensation.same_identity(
            request.compensation_key, fingerprint, request.grant_fingerprint
        ):
            raise CompensationIdentityMismatch(operation_key=request.operation_key)
        return index, record, compensation

    def _require_scope(self, tenant_scope: str) -> None:
        # Only compensations carry a tenant scope; the journal compares it before any lookup,
        # so a foreign tenant learns nothing about which keys exist here.
        if tenant_scope != self.scope:
            raise OperationJournalScopeMismatch(expected=tenant_scope, actual=self.scope)


def _require_identity(
    record: OperationRecord, tool: str, fingerprint: str, operation_key: str
) -> None:
    if record.tool != tool or record.input_fingerprint != fingerprint:
        raise OperationIdentityMismatch(operation_key=operation_key)


def _accepts(current: WorkerOperationState, observed: WorkerOperationState) -> bool:
    verdict = OPERATION_LIFECYCLE.verdict(current.phase, observed.phase)
    if verdict is Verdict.STAY_IF_SAME:
        return current.same_as(observed)
    return verdict is not Verdict.REJECT


def _is_noop(current: WorkerOperationState, observed: WorkerOperationState) -> bool:
    verdict = OPERATION_LIFECYCLE.verdict(current.phase, observed.phase)
    return verdict in (Verdict.STAY, Verdict.STAY_IF_SAME)
