"""A real worker process is killed with SIGKILL between persistence and effect (and, in a
second run, between the effect and its persistence), then a new worker process is started on
the same SQLite file with a fresh lease. The new process must follow the recovery policy
(docs/spec/session.md WS-16, WS-19): the old lease is refused by the fence, the journal says
``pending``, a resent dispatch is answered ``pending_operation`` instead of being run again,
and reconciliation records what really happened. The effect, counted in a side file the
adapter appends to, happens at most once.
"""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from rescind.reference.frames import SessionAuthenticator, SessionRole
from rescind.reference.grants import CapabilityGrant
from rescind.reference.manifest import SessionManifest
from rescind.reference.messages import OperationDispatchRequest, OperationReconcileRequest
from rescind.reference.payload import ToolPayload
from rescind.reference.payload_format import PayloadFormat
from rescind.reference.storage.errors import FencingTokenRejected
from rescind.reference.worker_message import DispatchOperation, OpenSession, ReconcileOperation
from tests.sessions.crash_worker import open_bridge

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")

WORKER = Path(__file__).with_name("crash_worker.py")
KEY = bytes([0x5A]) * 32
GRANT = CapabilityGrant("text.echo", PayloadFormat.TEXT, 3, 16384, 16, 1)
GUARD_SECONDS = 60  # only against a hung child; no result depends on timing
PENDING = {"state": "pending"}


class WorkerProcess:
    """One ``crash_worker.py`` child and the host end of its session."""

    def __init__(self, database: Path, effects: Path, pause: str, session_id: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, str(WORKER), str(database), str(effects), pause, KEY.hex()],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.host = SessionAuthenticator(session_id, KEY, SessionRole.HOST)
        self.session_id = session_id

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)

    def send(self, message: Any) -> dict[str, Any]:
        assert self.process.stdin is not None
        self.process.stdin.write(self.host.seal(message).to_json() + "\n")
        self.process.stdin.flush()
        answer: dict[str, Any] = json.loads(self.lines.get(timeout=GUARD_SECONDS))
        return answer

    def open(self) -> dict[str, Any]:
        return self.send(OpenSession(SessionManifest.new(self.session_id, [GRANT])))

    def dispatch(self, request_id: str) -> dict[str, Any]:
        request = OperationDispatchRequest(
            session_id=self.session_id,
            request_id=request_id,
            tool="text.echo",
            operation_key="op-1",
            payload=ToolPayload.text("release"),
        )
        return self.send(DispatchOperation(request))

    def reconcile(self, request_id: str) -> dict[str, Any]:
        request = OperationReconcileRequest(
            session_id=self.session_id,
            request_id=request_id,
            tool="text.echo",
            operation_key="op-1",
        )
        return self.send(ReconcileOperation(request))

    def kill(self) -> int:
        self.process.send_signal(signal.SIGKILL)
        return self.process.wait(timeout=GUARD_SECONDS)

    def close(self) -> None:
        if self.process.poll() is None:
            assert self.process.stdin is not None
            self.process.stdin.close()
            self.process.wait(timeout=GUARD_SECONDS)


def stored_state(database: Path) -> tuple[int, Any]:
    """The stored revision and op-1's state, read through a separate connection."""
    journal, revision = open_bridge(str(database)).load()
    record = journal.operation("op-1")
    state = None if record is None else json.loads(record.state.to_json())
    return revision, state


def effects_of(effects: Path) -> list[str]:
    return effects.read_text(encoding="utf-8").split() if effects.exists() else []


@pytest.mark.parametrize(
    ("pause", "effects_after_kill", "reconciled"),
    [
        ("before-effect", 0, {"state": "cancelled"}),
        ("after-effect", 1, {"state": "succeeded", "payload": {"format": "text", "value": "done"}}),
    ],
)
def test_sigkill_between_persistence_and_effect(
    tmp_path: Path, pause: str, effects_after_kill: int, reconciled: dict[str, Any]
) -> None:
    database, effects = tmp_path / "journal.sqlite", tmp_path / "effects.txt"
    first = WorkerProcess(database, effects, pause, "crash-1")
    try:
        assert first.open() == {"opened": {"fence": 1}}
        assert first.dispatch("d1") == {"paused": pause}
        # The admission is durable before any effect can start.
        assert stored_state(database) == (1, PENDING)
        assert first.kill() == -signal.SIGKILL
    finally:
        if first.process.poll() is None:
            first.kill()
    assert len(effects_of(effects)) == effects_after_kill
    assert stored_state(database) == (1, PENDING)

    second = WorkerProcess(database, effects, "none", "crash-2")
    try:
        assert second.open() == {"opened": {"fence": 2}}
        # The dead process's lease (fence 1) can no longer write.
        bridge = open_bridge(str(database))
        with pytest.raises(FencingTokenRejected) as refused:
            bridge.store.compare_and_swap_fenced(bridge.record_key, 1, b"{}", 1)
        assert dict(refused.value.details) == {"current": 2, "supplied": 1}
        # The same dispatch under a new request id is not run again: the journal says pending.
        assert second.dispatch("d2") == {
            "error": "pending_operation",
            "details": {"operation_key": "op-1"},
        }
        assert len(effects_of(effects)) == effects_after_kill
        # Reconciliation asks what happened and records it.
        reply = second.reconcile("r1")["reply"]["message"]
        assert reply["type"] == "reconciled_operation"
        assert reply["result"]["status"] == reconciled
        assert stored_state(database) == (2, reconciled)
        # From now on a resend is answered from the journal.
        replay = second.dispatch("d3")["reply"]["message"]["result"]["status"]
        assert replay == reconciled
    finally:
        second.close()
    assert effects_of(effects) == ["op-1"] * effects_after_kill
