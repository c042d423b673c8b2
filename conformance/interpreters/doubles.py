"""Test doubles for worker sessions: a counting, scripted adapter and a journal store that fails
on purpose. The scenario interpreter, the stateful tests and the crash test drive sessions
through these; they are reference code because the vectors' expected values depend on them.

Store faults (``FAULT_KINDS``), each for one persist call:

* ``unavailable``: refused before anything is written (``store_unavailable``);
* ``conflict``: a revision conflict, nothing written (``write_conflict``);
* ``expired_lease``: the lease is refused, nothing written (``fencing_token_rejected``);
* ``non_increasing``: the store claims success but answers the expected revision itself and
  writes nothing (the session must treat it as ``invalid_journal_revision``);
* ``lost_ack``: the write *is* committed, then the call fails as if the answer was lost
  (``store_outcome_unknown``). The durable journal is ahead of what the session believes.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable

import attrs

from rescind.reference.messages import (
    OperationCompensationRequest,
    OperationDispatchRequest,
    OperationReconcileRequest,
    OperationStatus,
)
from rescind.reference.storage.errors import (
    FencingTokenRejected,
    StoreOutcomeUnknown,
    StoreUnavailable,
    WriteConflict,
)
from rescind.reference.worker.adapter import AdapterDeclarations
from rescind.reference.worker.journal import WorkerOperationJournal
from rescind.reference.worker.journal_store import JournalLease, JournalStore
from rescind.reference.worker.session_errors import WorkerAdapterError

FAULT_KINDS = ("unavailable", "conflict", "expired_lease", "non_increasing", "lost_ack")

Outcome = OperationStatus | WorkerAdapterError
AdapterRequest = OperationDispatchRequest | OperationCompensationRequest | OperationReconcileRequest


@attrs.frozen
class AdapterCall:
    """One call an adapter received: ``kind`` is ``dispatch``, ``compensate`` or
    ``reconcile``; ``compensation_key`` is set for compensations only."""

    kind: str
    operation_key: str
    compensation_key: str | None = None


class ScriptedAdapter:
    """Answers each call with the next scripted outcome and remembers every call.

    ``before_effect`` (if given) runs at the start of every dispatch or compensation call,
    before the outcome is taken: tests use it to check what is durable at that moment, the
    crash test to stop the process there. A call with no outcome left raises ``LookupError``
    and sets ``underflow``."""

    def __init__(
        self,
        outcomes: Iterable[Outcome] = (),
        *,
        declarations: AdapterDeclarations | None = None,
        before_effect: Callable[[AdapterCall], None] | None = None,
    ) -> None:
        self._outcomes: deque[Outcome] = deque(outcomes)
        self._declarations = declarations or AdapterDeclarations()
        self.before_effect = before_effect
        self.calls: list[AdapterCall] = []
        self.underflow = False

    @property
    def declarations(self) -> AdapterDeclarations:
        return self._declarations

    def push(self, *outcomes: Outcome) -> None:
        self._outcomes.extend(outcomes)

    @property
    def pending_outcomes(self) -> int:
        return len(self._outcomes)

    def clear(self) -> None:
        self._outcomes.clear()

    def count(self, kind: str) -> int:
        return sum(1 for call in self.calls if call.kind == kind)

    def _answer(self, call: AdapterCall) -> OperationStatus:
        self.calls.append(call)
        if call.kind != "reconcile" and self.before_effect is not None:
            self.before_effect(call)
        if not self._outcomes:
            self.underflow = True
            raise LookupError("the adapter script has no outcome left")
        outcome = self._outcomes.popleft()
        if isinstance(outcome, WorkerAdapterError):
            raise outcome
        return outcome

    def dispatch_operation(self, request: OperationDispatchRequest) -> OperationStatus:
        return self._answer(AdapterCall("dispatch", request.operation_key))

    def compensate_operation(self, request: OperationCompensationRequest) -> OperationStatus:
        return self._answer(
            AdapterCall("compensate", request.operation_key, request.compensation_key)
        )

    def reconcile_operation(self, request: OperationReconcileRequest) -> OperationStatus:
        return self._answer(AdapterCall("reconcile", request.operation_key))


class FaultyJournalStore:
    """Wraps a ``JournalStore``; counts persist attempts and successful writes
    (``snapshots``), and fails the persist calls it was armed for."""

    def __init__(self, inner: JournalStore) -> None:
        self.inner = inner
        self.attempts = 0
        self.snapshots = 0
        self.fired: list[str] = []
        self._faults: dict[int, str] = {}

    def arm(self, offset: int, kind: str) -> None:
        """Fail the ``offset``-th persist call from now (1 = the next one)."""
        if kind not in FAULT_KINDS:
            raise ValueError(f"unknown store fault {kind!r}")
        if offset < 1:
            raise ValueError("a fault is armed for a future persist call (offset >= 1)")
        self._faults[self.attempts + offset] = kind

    def disarm(self) -> None:
        self._faults.clear()

    @property
    def armed(self) -> bool:
        return bool(self._faults)

    def load(self) -> tuple[WorkerOperationJournal, int]:
        return self.inner.load()

    def persist(
        self, journal: WorkerOperationJournal, expected_revision: int, lease: JournalLease
    ) -> int:
        self.attempts += 1
        fault = self._faults.pop(self.attempts, None)
        if fault is not None:
            self.fired.append(fault)
        if fault == "unavailable":
            raise StoreUnavailable(operation="persist", reason="injected")
        if fault == "conflict":
            actual = expected_revision + 1
            raise WriteConflict(expected=expected_revision, actual=actual, revision_floor=actual)
        if fault == "expired_lease":
            raise FencingTokenRejected(current=lease.token + 1, supplied=lease.token)
        if fault == "non_increasing":
            return expected_revision
        revision = self.inner.persist(journal, expected_revision, lease)
        self.snapshots += 1
        if fault == "lost_ack":
            raise StoreOutcomeUnknown(operation="persist", reason="injected")
        return revision
