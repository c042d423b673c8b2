"""A worker session over an in-memory authenticated store, with a scripted adapter that can
also look compensations up (extension CR-6), and a host that seals frames for it."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import attrs

from rescind.reference.frames import SessionAuthenticator, SessionRole
from rescind.reference.grants import CapabilityGrant
from rescind.reference.manifest import SessionManifest
from rescind.reference.messages import (
    OperationCompensationRequest,
    OperationDispatchRequest,
    OperationReconcileRequest,
    OperationStatus,
)
from rescind.reference.payload import ToolPayload
from rescind.reference.payload_format import PayloadFormat
from rescind.reference.storage.authenticated import AuthenticatedStore
from rescind.reference.storage.keyring import Keyring
from rescind.reference.storage.memory import MemoryBackend
from rescind.reference.storage.tag import StorageKey
from rescind.reference.worker.adapter import AdapterDeclarations
from rescind.reference.worker.extension import WorkerExtensions
from rescind.reference.worker.journal_store import AuthenticatedWorkerJournalStore
from rescind.reference.worker.session import WorkerSession
from rescind.reference.worker_message import (
    CompensateOperation,
    DispatchOperation,
    OpenSession,
    WireProfile,
)

TOOL = "text.echo"
SCOPE = "tenant"
KEY = bytes([0x31]) * 32
GRANT = CapabilityGrant(TOOL, PayloadFormat.TEXT, 100, 1024, 64, 4)
DONE = OperationStatus.succeeded(ToolPayload.text("done"))
UNDONE = OperationStatus.succeeded(ToolPayload.text("undone"))


class LostAnswer(Exception):
    """Stands in for a crash right after the inverse effect: its answer never arrives."""


@attrs.define
class LookupAdapter:
    """Counts every call; ``inverse_answer`` is what the inverse call says (or raises), and
    ``lookup`` what a compensation reconciliation reports."""

    declarations: AdapterDeclarations = attrs.field(
        factory=lambda: AdapterDeclarations(compensation_reconciliation=True)
    )
    inverse_answer: OperationStatus | None = UNDONE
    lookup: OperationStatus = UNDONE
    inverse_calls: int = 0
    lookups: int = 0
    effects: int = 0

    def dispatch_operation(self, request: OperationDispatchRequest) -> OperationStatus:
        self.effects += 1
        return DONE

    def compensate_operation(self, request: OperationCompensationRequest) -> OperationStatus:
        self.inverse_calls += 1
        if self.inverse_answer is None:
            raise LostAnswer()
        return self.inverse_answer

    def reconcile_operation(self, request: OperationReconcileRequest) -> OperationStatus:
        return DONE

    def reconcile_compensation(self, request: OperationCompensationRequest) -> OperationStatus:
        self.lookups += 1
        return self.lookup


class Worker:
    """One journal store; ``open`` starts a new session (a restart) over what it holds."""

    def __init__(self, adapter: LookupAdapter | None = None) -> None:
        keyring = Keyring.single("storage-v1", StorageKey(bytes([0x1D]) * 32))
        self.bridge = AuthenticatedWorkerJournalStore(
            AuthenticatedStore(MemoryBackend(), keyring), "worker-journal", SCOPE
        )
        self.adapter = adapter or LookupAdapter()
        self.sessions = itertools.count(1)
        self.ids: Iterator[int] = itertools.count(1)
        self.session_id = ""

    def open(self, extensions: WorkerExtensions | None = None) -> WorkerSession:
        self.session_id = f"worker-{next(self.sessions)}"
        # The host speaks the extension; the worker's authenticator has the session's profile.
        self.host = SessionAuthenticator(
            self.session_id, KEY, SessionRole.HOST, profile=WireProfile.COMPENSATION_RECONCILE
        )
        frame = self.host.seal(OpenSession(SessionManifest.new(self.session_id, [GRANT])))
        journal, revision = self.bridge.load()
        wire = (extensions or WorkerExtensions()).wire_profile
        return WorkerSession.open(
            SessionAuthenticator(self.session_id, KEY, SessionRole.WORKER, profile=wire),
            frame,
            {TOOL: self.adapter},
            journal,
            revision,
            self.bridge.admission(),
            extensions=extensions,
        )

    def dispatch(self, session: WorkerSession, key: str = "op-1") -> None:
        request = OperationDispatchRequest(
            session_id=self.session_id,
            request_id=f"d{next(self.ids)}",
            tool=TOOL,
            operation_key=key,
            payload=ToolPayload.text("do"),
        )
        session.handle(self.host.seal(DispatchOperation(request)), self.bridge)

    def compensation(self, key: str = "op-1", **changes: object) -> OperationCompensationRequest:
        values: dict[str, object] = {
            "session_id": self.session_id,
            "request_id": f"c{next(self.ids)}",
            "tool": TOOL,
            "operation_key": key,
            "compensation_key": f"cmp-{key}",
            "tenant_scope": SCOPE,
            "grant_fingerprint": GRANT.compensation_fingerprint(),
            "payload": ToolPayload.text("undo"),
        }
        values.update(changes)
        return OperationCompensationRequest(**values)  # type: ignore[arg-type]

    def compensate(self, session: WorkerSession, request: OperationCompensationRequest) -> None:
        session.handle(self.host.seal(CompensateOperation(request)), self.bridge)

    def stored_compensation(self, key: str = "op-1") -> str:
        journal, _ = self.bridge.load()
        record = journal.operation(key)
        assert record is not None and record.compensation is not None
        return record.compensation.state.kind
