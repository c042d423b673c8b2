"""A worker process for the crash test: one WorkerSession over a SQLite journal file.

Usage: ``python crash_worker.py <sqlite file> <effects file> <pause> <session key hex>``.

It reads authenticated frames, one JSON line each, from stdin (the first opens the
session) and writes one JSON line per frame to stdout: ``{"opened": {"fence": n}}``,
``{"reply": <frame JSON>}`` or ``{"error": code, "details": {...}}``.

The adapter's effect appends the operation key to the effects file (flushed and synced),
so the test can count effects across processes. ``pause`` stops the process inside the
adapter and reports ``{"paused": "before-effect" | "after-effect"}``: *before* the effect
means the admission is durable and the effect has not happened; *after* means the effect
happened and its outcome is not yet durable. The process then waits for input that never
comes, until the test kills it. Reconciliation reports ``succeeded`` when the effects file
holds the key and ``cancelled`` otherwise (the effect never ran, so it never will).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from rescind.reference.errors import RescindError
from rescind.reference.frames import AuthenticatedFrame, SessionAuthenticator, SessionRole
from rescind.reference.messages import (
    OperationCompensationRequest,
    OperationDispatchRequest,
    OperationReconcileRequest,
    OperationStatus,
)
from rescind.reference.payload import ToolPayload
from rescind.reference.storage.authenticated import AuthenticatedStore
from rescind.reference.storage.keyring import Keyring
from rescind.reference.storage.tag import StorageKey
from rescind.reference.worker.adapter import AdapterDeclarations
from rescind.reference.worker.journal_store import AuthenticatedWorkerJournalStore
from rescind.reference.worker.session import WorkerSession
from rescind.reference.worker_message import OpenSession
from rescind.stores.sqlite import SqliteBackend

STORAGE_KEYRING = Keyring.single("storage-v1", StorageKey(bytes([0x1D]) * 32))
NAMESPACE = "worker-journal"
SCOPE = "tenant"
DONE = OperationStatus.succeeded(ToolPayload.text("done"))


def emit(document: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(document) + "\n")
    sys.stdout.flush()


def open_bridge(path: str) -> AuthenticatedWorkerJournalStore:
    store = AuthenticatedStore(SqliteBackend(path), STORAGE_KEYRING)
    return AuthenticatedWorkerJournalStore(store, NAMESPACE, SCOPE)


class EffectAdapter:
    def __init__(self, effects: Path, pause: str) -> None:
        self.effects = effects
        self.pause = pause

    @property
    def declarations(self) -> AdapterDeclarations:
        return AdapterDeclarations()

    def _stop(self, where: str) -> None:
        if self.pause == where:
            emit({"paused": where})
            sys.stdin.readline()  # the test kills the process while it waits here
            raise SystemExit("resumed: the crash test should have killed this process")

    def _effects(self) -> list[str]:
        if not self.effects.exists():
            return []
        return self.effects.read_text(encoding="utf-8").split()

    def dispatch_operation(self, request: OperationDispatchRequest) -> OperationStatus:
        self._stop("before-effect")
        with self.effects.open("a", encoding="utf-8") as file:
            file.write(request.operation_key + "\n")
            file.flush()
            os.fsync(file.fileno())
        self._stop("after-effect")
        return DONE

    def compensate_operation(self, request: OperationCompensationRequest) -> OperationStatus:
        raise NotImplementedError("the crash test compensates nothing")

    def reconcile_operation(self, request: OperationReconcileRequest) -> OperationStatus:
        if request.operation_key in self._effects():
            return DONE
        return OperationStatus.cancelled()


def main(path: str, effects: str, pause: str, key_hex: str) -> None:
    bridge = open_bridge(path)
    adapter = EffectAdapter(Path(effects), pause)
    opening = AuthenticatedFrame.from_json_line(sys.stdin.readline())
    assert isinstance(opening.message, OpenSession)
    session_id = opening.message.manifest.session_id
    journal, revision = bridge.load()
    session = WorkerSession.open(
        SessionAuthenticator(session_id, bytes.fromhex(key_hex), SessionRole.WORKER),
        opening,
        {"text.echo": adapter},
        journal,
        revision,
        bridge.admission(),
    )
    emit({"opened": {"fence": bridge.store.current_fence(bridge.record_key)}})
    for line in sys.stdin:
        try:
            reply = session.handle(AuthenticatedFrame.from_json_line(line), bridge)
        except RescindError as error:
            emit({"error": error.code, "details": dict(error.details)})
        else:
            emit({"reply": json.loads(reply.to_json())})


if __name__ == "__main__":
    main(*sys.argv[1:5])
