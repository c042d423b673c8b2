"""The host driver: one host process's handle on a persisted workflow ledger
(docs/spec/recovery.md RC-n).

The engine's APIs cannot see durability, so the ordering duties of the crash and recovery
policy live here:

* **Persist before send.** Every ledger change (a recorded operation, a recorded
  compensation intent) is written with a fenced compare-and-swap before the driver approves
  or seals anything; a frame is sealed only while the in-memory ledger equals the last
  durable one (``ledger_not_persisted`` otherwise).
* **Apply, then persist.** A worker result is applied and the ledger written straight
  away, even when nothing changed: the write proves the driver still holds the fence.
  Events are published only after that write succeeded.
* **A failed write poisons.** The in-memory ledger goes back to the last durable one and the
  driver refuses further calls; the host recovers with a new driver.
* **Recovery** rebuilds the plan (same steps, same fingerprint), reserves a fresh fence,
  loads the authenticated record, parses the ledger and checks it at or after the host's
  watermark. A compensation intent that already exists is re-approved and re-sealed with the
  same ``cmp-`` key; the worker's journal answers with what it already knows.

The driver owns no I/O of its own: it calls the ``AuthenticatedStore`` it is given.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

from rescind.reference.errors import RescindError
from rescind.reference.frames import AuthenticatedFrame, SessionAuthenticator
from rescind.reference.host.compensation import (
    WorkflowCompensationDispatch,
    WorkflowCompensationTarget,
)
from rescind.reference.host.engine import WorkflowEngine
from rescind.reference.host.engine_core import StepLike
from rescind.reference.host.events import WorkflowEvent
from rescind.reference.host.host_frames import PreparedFrame
from rescind.reference.host.ledger import WorkflowOperationLedger
from rescind.reference.host.plan import WorkflowPlan
from rescind.reference.messages import (
    OperationCompensationRequest,
    OperationDispatchRequest,
    OperationReconcileRequest,
)
from rescind.reference.payload import ToolPayload
from rescind.reference.storage.authenticated import AuthenticatedStore
from rescind.reference.storage.tag import RecordKey
from rescind.tables.operation import Phase

T = TypeVar("T")
Sent = TypeVar(
    "Sent", OperationDispatchRequest, OperationReconcileRequest, OperationCompensationRequest
)
ApplyReply = Callable[
    [WorkflowPlan, WorkflowOperationLedger, Sent, SessionAuthenticator, AuthenticatedFrame], T
]


class HostDriverError(RescindError):
    """A refusal of the host driver itself (the engine's and store's errors pass through)."""


class HostDriverPoisoned(HostDriverError):
    """A write failed earlier; this driver must be replaced by a recovered one."""

    code = "host_driver_poisoned"


class LedgerNotPersisted(HostDriverError):
    """The in-memory ledger differs from the last durable one, so nothing may be sent."""

    code = "ledger_not_persisted"


class LedgerRecordMissing(HostDriverError):
    """Recovery found no stored ledger for the record key."""

    code = "ledger_record_missing"


class HostLedgerDriver:
    """Use ``start`` for a new workflow or ``recover`` after a restart."""

    def __init__(
        self,
        engine: WorkflowEngine,
        plan: WorkflowPlan,
        ledger: WorkflowOperationLedger,
        store: AuthenticatedStore,
        record_key: RecordKey,
        fence: int,
        storage_revision: int | None,
        persisted: str | None,
    ) -> None:
        self.engine = engine
        self.plan = plan
        self.ledger = ledger
        self._store = store
        self._key = record_key
        self.fence = fence
        self.storage_revision = storage_revision
        self._persisted = persisted
        self._poisoned = False
        self.events: list[WorkflowEvent] = []

    # -- lifecycle -------------------------------------------------------------------------

    @classmethod
    def start(
        cls,
        engine: WorkflowEngine,
        steps: Iterable[StepLike],
        store: AuthenticatedStore,
        record_key: RecordKey,
    ) -> HostLedgerDriver:
        """A new plan and an empty ledger under a freshly reserved fence. Nothing is written
        yet: the first change creates the record (storage revision 1)."""
        plan = engine.plan(steps)
        ledger = engine.operation_ledger(plan)
        fence = store.reserve_fence(record_key)
        driver = cls(engine, plan, ledger, store, record_key, fence, None, ledger.to_json())
        driver.events.extend(engine.drain_events())
        return driver

    @classmethod
    def recover(
        cls,
        engine: WorkflowEngine,
        steps: Iterable[StepLike],
        store: AuthenticatedStore,
        record_key: RecordKey,
        watermark: int = 0,
    ) -> HostLedgerDriver:
        """Rebuild the plan, reserve a fence (superseding every earlier writer), load and
        open the record (``rollback_detected`` and the other storage checks), parse the
        ledger, then validate it for the plan at or after ``watermark``
        (``stale_revision``)."""
        plan = engine.plan(steps)
        fence = store.reserve_fence(record_key)
        record = store.load(record_key)
        if record is None:
            raise LedgerRecordMissing(namespace=record_key.namespace, name=record_key.name)
        ledger = WorkflowOperationLedger.from_json(record.payload)
        engine.validate_operation_ledger_at_or_after(plan, ledger, watermark)
        text = ledger.to_json()
        return cls(engine, plan, ledger, store, record_key, fence, record.revision, text)

    @property
    def poisoned(self) -> bool:
        return self._poisoned

    @property
    def record_key(self) -> RecordKey:
        return self._key

    # -- persistence -----------------------------------------------------------------------

    def _require_usable(self) -> None:
        if self._poisoned:
            raise HostDriverPoisoned()

    def _require_persisted(self) -> None:
        self._require_usable()
        if self.ledger.to_json() != self._persisted:
            raise LedgerNotPersisted(revision=self.ledger.revision)

    def persist(self) -> int:
        """Write the in-memory ledger under this driver's fence; returns the storage
        revision. On failure: restore the last durable ledger, drop unpublished events,
        poison, and re-raise the store's error."""
        self._require_usable()
        return self._write(None)

    def _write(self, snapshot: WorkflowOperationLedger | None) -> int:
        try:
            payload = self.ledger.to_json()
            record = self._store.compare_and_swap_fenced(
                self._key, self.storage_revision, payload.encode("utf-8"), self.fence
            )
        except BaseException:
            if snapshot is not None:
                self.ledger = snapshot
            self.engine.drain_events()
            self._poisoned = True
            raise
        self.storage_revision = record.revision
        self._persisted = payload
        self.events.extend(self.engine.drain_events())
        return record.revision

    def _change(self, change: Callable[[], T]) -> T:
        """One engine call that may change the ledger, then the write. A refused call
        changes nothing (the engine checks before it mutates) and writes nothing."""
        self._require_usable()
        snapshot = self.ledger.copy()
        try:
            value = change()
        except BaseException:
            self.engine.drain_events()
            raise
        self._write(snapshot)
        return value

    def _apply_reply(
        self,
        apply: ApplyReply[Sent, T],
        prepared: PreparedFrame[Sent],
        authenticator: SessionAuthenticator,
        frame: AuthenticatedFrame,
    ) -> T:
        """The worker's reply to a frame this driver sealed, applied as one ``_change``."""
        return self._change(
            lambda: apply(self.plan, self.ledger, prepared.request, authenticator, frame)
        )

    def _send(self, seal: Callable[[], T]) -> T:
        self._require_persisted()
        try:
            value = seal()
        except BaseException:
            self.engine.drain_events()
            raise
        self.events.extend(self.engine.drain_events())
        return value

    # -- operations ------------------------------------------------------------------------

    def record_operation(self, step_id: str, tool: str, payload: ToolPayload, nonce: bytes) -> str:
        """Derive and record the ``op-`` key, then persist; returns the key."""
        canonical = payload.canonical_input_bytes()
        return self._change(
            lambda: self.engine.record_derived_operation(
                self.plan, self.ledger, step_id, tool, canonical, nonce
            )
        )

    def dispatch(
        self,
        operation_key: str,
        payload: ToolPayload,
        request_id: str,
        authenticator: SessionAuthenticator,
    ) -> PreparedFrame[OperationDispatchRequest]:
        return self._send(
            lambda: self.engine.operations.prepare_authenticated_operation_dispatch(
                self.plan, self.ledger, operation_key, payload, request_id, authenticator
            )
        )

    def apply_dispatch_result(
        self,
        prepared: PreparedFrame[OperationDispatchRequest],
        authenticator: SessionAuthenticator,
        frame: AuthenticatedFrame,
    ) -> Phase:
        apply = self.engine.operations.apply_authenticated_operation_dispatch_result
        return self._apply_reply(apply, prepared, authenticator, frame).state

    def reconcile(
        self,
        operation_key: str,
        canonical_input: bytes,
        request_id: str,
        authenticator: SessionAuthenticator,
    ) -> PreparedFrame[OperationReconcileRequest]:
        return self._send(
            lambda: self.engine.operations.prepare_authenticated_operation_reconciliation(
                self.plan, self.ledger, operation_key, canonical_input, request_id, authenticator
            )
        )

    def apply_reconciliation(
        self,
        prepared: PreparedFrame[OperationReconcileRequest],
        authenticator: SessionAuthenticator,
        frame: AuthenticatedFrame,
    ) -> Phase:
        apply = self.engine.operations.apply_authenticated_operation_reconciliation
        return self._apply_reply(apply, prepared, authenticator, frame)

    # -- compensation ----------------------------------------------------------------------

    def record_compensation(
        self, target: WorkflowCompensationTarget, payload: ToolPayload, nonce: bytes
    ) -> str:
        """Both verifiers, record the ``pending`` intent under a derived ``cmp-`` key, then
        persist: the intent is durable before it is ever approved."""
        canonical = payload.canonical_input_bytes()
        return self._change(
            lambda: self.engine.record_derived_compensation_with_action_verifier(
                self.plan, self.ledger, target, canonical, nonce
            )
        )

    def compensate(
        self,
        target: WorkflowCompensationTarget,
        payload: ToolPayload,
        request_id: str,
        authenticator: SessionAuthenticator,
    ) -> PreparedFrame[OperationCompensationRequest]:
        """Approve the recorded intent for this session and revision, then seal it. Also the
        recovery path: a new session re-approves the existing intent and the frame carries
        the recorded key."""

        def approve_and_seal() -> PreparedFrame[OperationCompensationRequest]:
            approval = self.engine.compensations.approve_compensation(
                self.plan, self.ledger, target, payload.canonical_input_bytes(), authenticator
            )
            return self.engine.compensations.prepare_authenticated_operation_compensation(
                self.plan,
                self.ledger,
                target,
                approval,
                WorkflowCompensationDispatch(request_id, payload),
                authenticator,
            )

        return self._send(approve_and_seal)

    def apply_compensation(
        self,
        prepared: PreparedFrame[OperationCompensationRequest],
        authenticator: SessionAuthenticator,
        frame: AuthenticatedFrame,
    ) -> Phase:
        apply = self.engine.compensations.apply_authenticated_operation_compensation
        return self._apply_reply(apply, prepared, authenticator, frame)

    # -- extension: compensation reconciliation (CR-10) ------------------------------------

    def reconcile_compensation(
        self,
        operation_key: str,
        payload: ToolPayload,
        request_id: str,
        authenticator: SessionAuthenticator,
    ) -> PreparedFrame[OperationCompensationRequest]:
        """Profile ``splash-v5+compensation-reconcile``: ask about the recorded, not yet
        terminal compensation without a new approval; sealed only while the ledger is durable."""
        return self._send(
            lambda: (
                self.engine.compensation_reconcile.prepare_authenticated_compensation_reconciliation(
                    self.plan, self.ledger, operation_key, payload, request_id, authenticator
                )
            )
        )

    def apply_compensation_reconciliation(
        self,
        prepared: PreparedFrame[OperationCompensationRequest],
        authenticator: SessionAuthenticator,
        frame: AuthenticatedFrame,
    ) -> Phase:
        apply = self.engine.compensation_reconcile.apply_authenticated_compensation_reconciliation
        return self._apply_reply(apply, prepared, authenticator, frame)
