"""Crash campaign: SIGKILL the worker or the host at random points, recover, and count what
went wrong, per profile (``splash-v5`` and ``splash-v5+compensation-reconcile``) and side.

Each *schedule* runs one durable operation and its compensation to the end. Both parties are
real subprocesses, forked with the reference already imported, and this process relays every
frame line between them:

* a **host life** runs a ``HostLedgerDriver`` over the schedule's SQLite ledger (through the
  authenticated store): it starts the workflow, or recovers it from the store, then records,
  dispatches, reconciles, approves and compensates through authenticated frames;
* a **worker life** opens a ``WorkerSession`` over the schedule's SQLite journal for one host
  session and answers its frame lines (``handle_line``).

Before a life starts the schedule's RNG may pick a crash point for it: the n-th instrumented
point the life passes. Worker points: journal write about to start or just done, adapter
effect about to run or just done (originals and inverse effects). Host points: ledger write
about to start or just done, frame sealed but not yet sent (for a compensation: approved and
not sent), reply received but not yet applied (for a compensation: between its approval and
its recorded outcome). At the point the life says so and blocks; this process SIGKILLs it. A
killed worker is a lost connection: the host opens a new session with a new worker life. A
killed host ends its worker's session too; the next host life recovers from the store. After
``--max-crashes`` kills on the crashing side, lives run without one (recovery).

``--side worker`` crashes only worker lives, ``--side host`` only host lives, ``both`` (the
default) runs both campaigns. The host follows the profile: under ``splash-v5`` it resends a
compensation whose outcome it lacks (all upstream offers, each resend a new approval); under
the extension it sends ``reconcile_compensation`` frames instead (CR-10) and approves again
only when the worker answers ``unknown_compensation``.

Adapters append every effect to a file (fsync'd) before answering, so effects survive the
kill and can be counted. Checked per schedule: no original effect twice, no second inverse,
no terminal result the host received that the journal lost or changed, and no terminal state
in the final host ledger that the journal contradicts. Counted: schedules whose compensation
is still not terminal in the host ledger when recovery gives up (``stuck``: a finding under
``splash-v5``, and must be 0 under the extension).

    python benchmarks/crash_campaign.py --schedules 1000                # table, both sides
    python benchmarks/crash_campaign.py --schedules 1000 --side host    # host crashes only
    python benchmarks/crash_campaign.py --schedules 1000 --json         # machine-readable
    python benchmarks/crash_campaign.py --seed 7 --schedules 20         # reproduce

Exit code 1 when a safety count is not 0, the host hit an unexpected error, or the extension
leaves a compensation stuck.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import signal
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any, Protocol

from rescind.reference.errors import RescindError
from rescind.reference.frames import AuthenticatedFrame, SessionAuthenticator, SessionRole
from rescind.reference.grants import CapabilityGrant
from rescind.reference.host.compensation import (
    WorkflowCompensationAction,
    WorkflowCompensationPolicy,
    WorkflowCompensationTarget,
)
from rescind.reference.host.engine import WorkflowEngine
from rescind.reference.host.host_frames import PreparedFrame
from rescind.reference.host.ledger import WorkflowOperationLedger
from rescind.reference.host.ledger_driver import HostLedgerDriver
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
from rescind.reference.storage.envelope import AuthenticatedRecord
from rescind.reference.storage.keyring import Keyring
from rescind.reference.storage.tag import RecordKey, StorageKey
from rescind.reference.worker.adapter import AdapterDeclarations
from rescind.reference.worker.extension import WorkerExtensions
from rescind.reference.worker.journal import WorkerOperationJournal
from rescind.reference.worker.journal_store import AuthenticatedWorkerJournalStore, JournalLease
from rescind.reference.worker.session import WorkerSession
from rescind.reference.worker_message import (
    CompensationResult,
    OpenSession,
    OperationResult,
    ReconciledCompensation,
    ReconciledOperation,
    WireProfile,
)
from rescind.stores.sqlite import SqliteBackend
from rescind.tables.operation import OPERATION_LIFECYCLE, Phase

PROFILES = ("splash-v5", "splash-v5+compensation-reconcile")
SIDES = ("worker", "host")
TOOL = "text.echo"
SCOPE = "tenant"
STEP = ("publish", "let published = true")
SESSION_KEY = bytes([0x31]) * 32
KEYRING = Keyring.single("storage-v1", StorageKey(bytes([0x1D]) * 32))
LEDGER = RecordKey("workflow-ledger", "crash-campaign")
GRANT = CapabilityGrant(TOOL, PayloadFormat.TEXT, 1000, 1024, 64, 8)
DO = ToolPayload.text("do")
UNDO = ToolPayload.text("undo")
DONE = "done"
UNDONE = "undone"
POINTS = {"worker": 14, "host": 14}
"""Crash points are drawn from 0..13: a first worker life passes about ten on a dispatch and
a compensation, a first host life about twelve."""
STEPS_PER_LIFE = 8
MAX_HOST_LIVES = 12
ANSWERS = (OperationResult, ReconciledOperation, CompensationResult, ReconciledCompensation)


# ---- crash points (in a child) ----------------------------------------------------------------


class Points:
    """Numbered crash points; at the chosen one, tell the parent and wait to be killed."""

    def __init__(self, kill_at: int | None, out: IO[str], wait: Callable[[], object]) -> None:
        self.kill_at, self.out, self.wait, self.passed = kill_at, out, wait, 0

    def hit(self, where: str) -> None:
        if self.passed == self.kill_at:
            self.out.write(json.dumps({"at": where, "point": self.passed}) + "\n")
            self.out.flush()
            self.wait()
            os._exit(3)  # only if the parent never kills: the campaign then reports it
        self.passed += 1


# ---- the worker life (child process) ----------------------------------------------------------


class EffectAdapter:
    """Effects are appended to a file and synced before the answer; lookups read it."""

    def __init__(self, effects: Path, points: Points) -> None:
        self.effects, self.points = effects, points

    @property
    def declarations(self) -> AdapterDeclarations:
        return AdapterDeclarations(compensation_reconciliation=True)

    def _record(self, line: str) -> None:
        self.points.hit(f"before-{line.split()[0]}-effect")
        with self.effects.open("a", encoding="utf-8") as file:
            file.write(line + "\n")
            file.flush()
            os.fsync(file.fileno())
        self.points.hit(f"after-{line.split()[0]}-effect")

    def _done(self, line: str) -> bool:
        return self.effects.exists() and line in self.effects.read_text("utf-8").splitlines()

    def dispatch_operation(self, request: OperationDispatchRequest) -> OperationStatus:
        self._record(f"forward {request.operation_key}")
        return OperationStatus.succeeded(ToolPayload.text(DONE))

    def compensate_operation(self, request: OperationCompensationRequest) -> OperationStatus:
        self._record(f"inverse {request.operation_key}")
        return OperationStatus.succeeded(ToolPayload.text(UNDONE))

    def reconcile_operation(self, request: OperationReconcileRequest) -> OperationStatus:
        # An effect that never ran never will (the session calls it once, after admission).
        if self._done(f"forward {request.operation_key}"):
            return OperationStatus.succeeded(ToolPayload.text(DONE))
        return OperationStatus.cancelled()

    def reconcile_compensation(self, request: OperationCompensationRequest) -> OperationStatus:
        if self._done(f"inverse {request.operation_key}"):
            return OperationStatus.succeeded(ToolPayload.text(UNDONE))
        return OperationStatus.cancelled()


class PointJournalStore:
    """The SQLite journal store, with a crash point on each side of every write."""

    def __init__(self, bridge: AuthenticatedWorkerJournalStore, points: Points) -> None:
        self.bridge, self.points = bridge, points

    def load(self) -> tuple[WorkerOperationJournal, int]:
        return self.bridge.load()

    def persist(self, journal: WorkerOperationJournal, revision: int, lease: JournalLease) -> int:
        self.points.hit("before-persist")
        written = self.bridge.persist(journal, revision, lease)
        self.points.hit("after-persist")
        return written


def _journal(database: Path) -> AuthenticatedWorkerJournalStore:
    store = AuthenticatedStore(SqliteBackend(str(database)), KEYRING)
    return AuthenticatedWorkerJournalStore(store, "worker-journal", SCOPE)


def worker_life(
    commands: IO[str], out: IO[str], folder: Path, profile: str, kill_at: int | None
) -> None:
    """One worker process for one host session: the opening frame line, then frame lines
    until EOF, each answered with the sealed reply line or the refusal's code."""
    points = Points(kill_at, out, commands.readline)
    adapter = EffectAdapter(folder / "effects", points)
    bridge = _journal(folder / "journal.sqlite")
    store = PointJournalStore(bridge, points)
    extensions = WorkerExtensions.for_profile(profile)
    opening = json.loads(commands.readline())
    session_id = str(opening["session_id"])
    authenticator = SessionAuthenticator(
        session_id, SESSION_KEY, SessionRole.WORKER, profile=extensions.wire_profile
    )
    journal, revision = bridge.load()
    session = WorkerSession.open(
        authenticator,
        AuthenticatedFrame.from_json_line(opening["frame"], profile=extensions.wire_profile),
        {TOOL: adapter},
        journal,
        revision,
        bridge.admission(),
        extensions=extensions,
    )
    _say(out, {"opened": session_id})
    for line in commands:
        try:
            answer: dict[str, Any] = {"frame": session.handle_line(line, store).to_json_line()}
        except RescindError as error:
            answer = {"error": error.code}
        _say(out, answer)


def _say(out: IO[str], message: dict[str, Any]) -> None:
    out.write(json.dumps(message) + "\n")
    out.flush()


# ---- the host life (child process) ------------------------------------------------------------


class PointLedgerStore(AuthenticatedStore):
    """The authenticated SQLite ledger store, with a crash point on each side of every write."""

    def __init__(self, backend: SqliteBackend, points: Points) -> None:
        super().__init__(backend, KEYRING)
        self.points = points

    def compare_and_swap_fenced(
        self, key: RecordKey, expected: int | None, payload: bytes, token: int
    ) -> AuthenticatedRecord:
        self.points.hit("before-ledger-write")
        record = super().compare_and_swap_fenced(key, expected, payload, token)
        self.points.hit("after-ledger-write")
        return record


class AllowAll:
    """The host's grant and action verifiers: this campaign is about crashes, not policy."""

    def verify_compensation_grant(self, tenant_scope: str, grant: CapabilityGrant) -> None:
        return None

    def verify_compensation_action(self, action: WorkflowCompensationAction) -> None:
        return None


class Relay(Protocol):
    def __call__(self, message: dict[str, Any]) -> dict[str, Any]: ...


class HostLife:
    """One host process: the ledger driver, its current worker session, and what it knows
    only in memory (lost with the process): whether to dispatch or compensate next."""

    def __init__(
        self, folder: Path, profile: str, points: Points, number: int, relay: Relay, out: IO[str]
    ) -> None:
        self.profile, self.points, self.number, self.relay, self.out = (
            profile,
            points,
            number,
            relay,
            out,
        )
        self.extension = profile == PROFILES[1]
        store = PointLedgerStore(SqliteBackend(str(folder / "ledger.sqlite")), points)
        engine = WorkflowEngine()
        if store.load(LEDGER) is None:
            self.driver = HostLedgerDriver.start(engine, [STEP], store, LEDGER)
        else:
            self.driver = HostLedgerDriver.recover(engine, [STEP], store, LEDGER)
        self.sessions = 0
        self.requests = 0
        self.dispatch_next = False
        self.compensate_next = False
        self.verifier = AllowAll()
        self.open_session()

    @property
    def ledger(self) -> WorkflowOperationLedger:
        return self.driver.ledger

    def open_session(self) -> None:
        self.sessions += 1
        session_id = f"host{self.number}-s{self.sessions}"
        wire = WireProfile(self.profile)
        self.host = SessionAuthenticator(session_id, SESSION_KEY, SessionRole.HOST, profile=wire)
        frame = self.host.seal(OpenSession(SessionManifest.new(session_id, [GRANT])))
        reply = self.relay({"open": session_id, "frame": frame.to_json_line()})
        if "opened" not in reply:
            raise RuntimeError(f"worker did not open: {reply}")

    def request_id(self) -> str:
        self.requests += 1
        return f"r{self.requests}"

    def target(self, key: str) -> WorkflowCompensationTarget:
        policy = WorkflowCompensationPolicy.create(SCOPE, GRANT)
        return WorkflowCompensationTarget(key, policy, GRANT, self.verifier, self.verifier)

    def exchange(self, frame: AuthenticatedFrame) -> dict[str, Any]:
        self.points.hit("sealed-not-sent")
        answer = self.relay({"frame": frame.to_json_line()})
        if "lost" in answer:
            self.open_session()
        else:
            self.points.hit("reply-not-applied")
        return answer

    def saw(self, what: str, line: str) -> None:
        """Tell the parent a terminal result this host has authenticated and applied."""
        message = AuthenticatedFrame.from_json_line(line, profile=WireProfile(self.profile))
        inner = message.message
        assert isinstance(
            inner,
            OperationResult | ReconciledOperation | CompensationResult | ReconciledCompensation,
        )
        status = inner.result.status
        if OPERATION_LIFECYCLE.is_terminal(status.phase):
            _say(self.out, {"saw": what, **_status(status)})

    # -- the workflow ------------------------------------------------------------------------

    def settled(self) -> bool:
        operations = self.ledger.operations
        if not operations:
            return False
        operation = operations[0]
        if not OPERATION_LIFECYCLE.is_terminal(operation.state):
            return False
        if operation.state is not Phase.SUCCEEDED:
            return True
        compensation = operation.compensation
        return compensation is not None and OPERATION_LIFECYCLE.is_terminal(compensation.state)

    def step(self) -> None:
        operations = self.ledger.operations
        if not operations:
            self.driver.record_operation(STEP[0], TOOL, DO, b"nonce-1")
            self.dispatch_next = True
            return
        operation = operations[0]
        key = operation.operation_key
        if not OPERATION_LIFECYCLE.is_terminal(operation.state):
            self.original(key)
        elif operation.compensation is None:
            self.driver.record_compensation(self.target(key), UNDO, b"undo-1")
            self.compensate_next = True
        elif self.extension and not self.compensate_next:
            self.reconcile_compensation(key)
        else:
            self.compensate(key)

    def original(self, key: str) -> None:
        if self.dispatch_next:
            dispatched = self.driver.dispatch(key, DO, self.request_id(), self.host)
            answer = self.exchange(dispatched.frame)
            if "frame" in answer:
                frame = self.frame(answer)
                self.driver.apply_dispatch_result(dispatched, self.host, frame)
                self.saw("op", answer["frame"])
        else:
            asked = self.driver.reconcile(
                key, DO.canonical_input_bytes(), self.request_id(), self.host
            )
            answer = self.exchange(asked.frame)
            if "frame" in answer:
                self.driver.apply_reconciliation(asked, self.host, self.frame(answer))
                self.saw("op", answer["frame"])
        # Only a worker that never made the admission durable may be sent it again.
        self.dispatch_next = answer.get("error") == "unknown_operation"

    def compensate(self, key: str) -> None:
        prepared = self.driver.compensate(self.target(key), UNDO, self.request_id(), self.host)
        _say(self.out, {"approved": 1})
        self.apply_compensation(prepared, self.exchange(prepared.frame), reconciliation=False)

    def reconcile_compensation(self, key: str) -> None:
        asked = self.driver.reconcile_compensation(key, UNDO, self.request_id(), self.host)
        self.apply_compensation(asked, self.exchange(asked.frame), reconciliation=True)

    def apply_compensation(
        self,
        prepared: PreparedFrame[OperationCompensationRequest],
        answer: dict[str, Any],
        *,
        reconciliation: bool,
    ) -> None:
        if "frame" in answer:
            frame = self.frame(answer)
            if reconciliation:
                self.driver.apply_compensation_reconciliation(prepared, self.host, frame)
            else:
                self.driver.apply_compensation(prepared, self.host, frame)
            self.saw("cmp", answer["frame"])
        # Send the compensation itself only when the worker holds none: the approval and
        # the admission were lost before the attachment became durable.
        self.compensate_next = answer.get("error") == "unknown_compensation"

    def frame(self, answer: dict[str, Any]) -> AuthenticatedFrame:
        return AuthenticatedFrame.from_json_line(answer["frame"], profile=self.host.profile)

    def run(self) -> dict[str, Any]:
        errors: list[str] = []
        for _ in range(STEPS_PER_LIFE):
            if self.settled():
                break
            try:
                self.step()
            except RescindError as error:
                errors.append(error.code)
        return {"settled": self.settled(), "host_errors": errors}


def host_life(
    commands: IO[str], out: IO[str], folder: Path, profile: str, kill_at: int | None, number: int
) -> None:
    points = Points(kill_at, out, commands.readline)

    def relay(message: dict[str, Any]) -> dict[str, Any]:
        _say(out, message)
        answer: dict[str, Any] = json.loads(commands.readline())
        return answer

    life = HostLife(folder, profile, points, number, relay, out)
    _say(out, {"done": life.run()})


# ---- the campaign (this process) --------------------------------------------------------------


class Child:
    """A forked life and the two pipes to it."""

    def __init__(self, body: Callable[[IO[str], IO[str]], None]) -> None:
        to_child_r, to_child_w = os.pipe()
        from_child_r, from_child_w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: serve, never return into the campaign
            os.close(to_child_w)
            os.close(from_child_r)
            status = 0
            try:
                with os.fdopen(to_child_r, "r") as commands, os.fdopen(from_child_w, "w") as out:
                    body(commands, out)
            except BaseException:
                traceback.print_exc()
                status = 2
            os._exit(status)
        os.close(to_child_r)
        os.close(from_child_w)
        self.pid = pid
        self.commands = os.fdopen(to_child_w, "w")
        self.replies = os.fdopen(from_child_r, "r")
        self.killed = False

    def send(self, message: dict[str, Any] | str) -> None:
        self.commands.write((message if isinstance(message, str) else json.dumps(message)) + "\n")
        self.commands.flush()

    def read(self) -> dict[str, Any]:
        line = self.replies.readline()
        if not line:
            raise RuntimeError(f"life {self.pid} died unasked: {self.end()}")
        message: dict[str, Any] = json.loads(line)
        return message

    def kill(self) -> None:
        os.kill(self.pid, signal.SIGKILL)
        self.killed = True

    def end(self) -> int:
        for stream in (self.commands, self.replies):
            with contextlib.suppress(OSError):
                stream.close()
        _, status = os.waitpid(self.pid, 0)
        if self.killed and not (os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL):
            raise RuntimeError(f"life {self.pid} was not ended by SIGKILL: {status}")
        if not self.killed and status != 0:
            raise RuntimeError(f"life {self.pid} failed: status {status}")
        return status


class RandomLike(Protocol):
    def random(self) -> float: ...

    def randrange(self, stop: int, /) -> int: ...


class Schedule:
    """One schedule: host lives in turn, each with its worker lives, until settled."""

    def __init__(
        self, folder: Path, profile: str, side: str, rng: RandomLike, max_crashes: int
    ) -> None:
        self.folder, self.profile, self.side, self.rng = folder, profile, side, rng
        self.max_crashes = max_crashes
        self.crashes: Counter[str] = Counter()
        self.lives: Counter[str] = Counter()
        self.seen: list[dict[str, Any]] = []
        self.approvals = 0
        self.host_errors: list[str] = []
        self.crashed_now = False
        self.points: Counter[str] = Counter()

    def kill_point(self, side: str) -> int | None:
        if side != self.side or self.crashes[side] >= self.max_crashes:
            return None
        return self.rng.randrange(POINTS[side]) if self.rng.random() < 0.85 else None

    def run(self) -> bool:
        """True when the last host life settled the workflow."""
        while self.lives["host"] < MAX_HOST_LIVES:
            self.crashed_now = False
            settled = self.host_life()
            if settled:
                return True
            if not self.crashed_now:
                return False  # a life without a crash could not settle it: stuck
        return False

    def host_life(self) -> bool:
        self.lives["host"] += 1
        kill_at = self.kill_point("host")
        number, folder, profile = self.lives["host"], self.folder, self.profile
        host = Child(lambda c, o: host_life(c, o, folder, profile, kill_at, number))
        worker: Child | None = None
        settled = False
        try:
            while True:
                message = host.read()
                if "at" in message:
                    self.points[f"host:{message['at']}"] += 1
                    host.kill()
                    self.crashes["host"] += 1
                    self.crashed_now = True
                    break
                if "saw" in message:
                    self.seen.append(message)
                elif "approved" in message:
                    self.approvals += 1
                elif "done" in message:
                    settled = bool(message["done"]["settled"])
                    self.host_errors += message["done"]["host_errors"]
                    break
                elif "open" in message:
                    if worker is not None:
                        worker.end()
                    worker = self.worker_life()
                    worker.send({"session_id": message["open"], "frame": message["frame"]})
                    host.send(worker.read())
                else:
                    assert worker is not None
                    worker.send(str(message["frame"]))
                    answer = worker.read()
                    if "at" in answer:
                        self.points[f"worker:{answer['at']}"] += 1
                        worker.kill()
                        worker.end()
                        worker = None
                        self.crashes["worker"] += 1
                        self.crashed_now = True
                        answer = {"lost": True}
                    host.send(answer)
        finally:
            if worker is not None:
                worker.end()
            host.end()
        return settled

    def worker_life(self) -> Child:
        self.lives["worker"] += 1
        kill_at = self.kill_point("worker")
        folder, profile = self.folder, self.profile
        return Child(lambda c, o: worker_life(c, o, folder, profile, kill_at))


def run_schedule(
    profile: str, rng: RandomLike, max_crashes: int, side: str = "worker"
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="rescind-crash-") as name:
        schedule = Schedule(Path(name), profile, side, rng, max_crashes)
        settled = schedule.run()
        verdict = verify(Path(name), schedule.seen)
    verdict.update(
        profile=profile,
        side=side,
        settled=settled,
        crashes=schedule.crashes[side],
        host_lives=schedule.lives["host"],
        worker_lives=schedule.lives["worker"],
        approvals=schedule.approvals,
        host_errors=len(schedule.host_errors),
        host_error_codes=sorted(set(schedule.host_errors)),
        crash_points=dict(schedule.points),
    )
    return verdict


def _status(status: OperationStatus) -> dict[str, Any]:
    text = status.payload.wire_json() if status.payload is not None else None
    return {"status": status.phase.value, "text": text}


def verify(folder: Path, seen: list[dict[str, Any]]) -> dict[str, Any]:
    effects_file = folder / "effects"
    effects = Counter(effects_file.read_text("utf-8").splitlines() if effects_file.exists() else [])
    journal, _ = _journal(folder / "journal.sqlite").load()
    stored_ledger = AuthenticatedStore(SqliteBackend(str(folder / "ledger.sqlite")), KEYRING).load(
        LEDGER
    )
    ledger = WorkflowOperationLedger.from_json(stored_ledger.payload) if stored_ledger else None
    operation = ledger.operations[0] if ledger and ledger.operations else None
    key = operation.operation_key if operation else None
    record = journal.operation(key) if key else None
    journal_state = {
        "op": record.state if record else None,
        "cmp": record.compensation.state if record and record.compensation else None,
    }
    lost = 0
    for result in seen:
        stored = journal_state[result["saw"]]
        if (
            stored is None
            or stored.kind != result["status"]
            or (stored.payload is not None and stored.payload.wire_json() != result["text"])
        ):
            lost += 1
    # The host's durable terminal states must be the journal's.
    ledger_states = {
        "op": operation.state if operation else None,
        "cmp": operation.compensation.state if operation and operation.compensation else None,
    }
    for what, phase in ledger_states.items():
        stored = journal_state[what]
        if phase is None or not OPERATION_LIFECYCLE.is_terminal(phase):
            continue
        if stored is None or stored.kind != phase.value:
            lost += 1
    compensating = operation is not None and operation.state is Phase.SUCCEEDED
    compensation = ledger_states["cmp"]
    stuck = compensating and (
        compensation is None or not OPERATION_LIFECYCLE.is_terminal(compensation)
    )
    stuck_state = None
    if stuck:
        stored_cmp = journal_state["cmp"]
        stuck_state = stored_cmp.kind if stored_cmp is not None else "none"
    return {
        "duplicate_effects": max(0, sum(n - 1 for line, n in effects.items() if "forward" in line)),
        "second_inverses": max(0, sum(n - 1 for line, n in effects.items() if "inverse" in line)),
        "lost_terminal_results": lost,
        "stuck": stuck,
        "compensated": compensating,
        "stuck_state": stuck_state,
        "inverse_effects": sum(n for line, n in effects.items() if "inverse" in line),
    }


SUMS = (
    "duplicate_effects",
    "second_inverses",
    "lost_terminal_results",
    "crashes",
    "host_lives",
    "worker_lives",
    "approvals",
    "host_errors",
)


def campaign(
    profile: str, schedules: int, seed: int, max_crashes: int, side: str
) -> dict[str, Any]:
    started = time.perf_counter()
    totals: Counter[str] = Counter()
    stuck_states: Counter[str] = Counter()
    error_codes: set[str] = set()
    points: Counter[str] = Counter()
    for index in range(schedules):
        rng = random.Random(f"{seed}:{side}:{profile}:{index}")
        verdict = run_schedule(profile, rng, max_crashes, side)
        for name in SUMS:
            totals[name] += verdict[name]
        totals["compensations"] += verdict["compensated"]
        error_codes.update(verdict["host_error_codes"])
        points.update(verdict["crash_points"])
        if verdict["stuck"]:
            totals["stuck"] += 1
            stuck_states[str(verdict["stuck_state"])] += 1
    return {
        "side": side,
        "profile": profile,
        "schedules": schedules,
        **{name: totals[name] for name in SUMS},
        "compensations": totals["compensations"],
        "stuck_compensations": totals["stuck"],
        "stuck_by_state": dict(stuck_states),
        "host_error_codes": sorted(error_codes),
        "crash_points": dict(sorted(points.items())),
        "seconds": round(time.perf_counter() - started, 2),
    }


COLUMNS = (
    ("side", "crashing"),
    ("profile", "profile"),
    ("schedules", "schedules"),
    ("crashes", "SIGKILLs"),
    ("compensations", "compensations"),
    ("approvals", "approvals"),
    ("duplicate_effects", "dup effects"),
    ("second_inverses", "2nd inverses"),
    ("lost_terminal_results", "lost results"),
    ("stuck_compensations", "stuck compensations"),
    ("seconds", "seconds"),
)


def table(rows: list[dict[str, Any]]) -> str:
    cells = [[title for _, title in COLUMNS]]
    cells += [[str(row[key]) for key, _ in COLUMNS] for row in rows]
    widths = [max(len(line[i]) for line in cells) for i in range(len(COLUMNS))]
    return "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)) for line in cells
    )


def failures(rows: list[dict[str, Any]]) -> list[str]:
    found = []
    for row in rows:
        name_of = f"{row['side']}/{row['profile']}"
        for name in ("duplicate_effects", "second_inverses", "lost_terminal_results"):
            if row[name]:
                found.append(f"{name_of}: {name} = {row[name]}")
        if row["host_errors"]:
            found.append(f"{name_of}: host errors {row['host_error_codes']}")
        if row["profile"] == PROFILES[1] and row["stuck_compensations"]:
            found.append(f"{name_of}: {row['stuck_compensations']} stuck compensations")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--schedules", type=int, default=1000, help="per side and profile")
    parser.add_argument("--seed", type=int, default=None, help="default: random, printed")
    parser.add_argument("--max-crashes", type=int, default=3, help="SIGKILLs per schedule")
    parser.add_argument("--side", choices=(*SIDES, "both"), default="both")
    parser.add_argument("--profile", choices=PROFILES, action="append")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    sides = SIDES if args.side == "both" else (args.side,)
    rows = [
        campaign(profile, args.schedules, seed, args.max_crashes, side)
        for side in sides
        for profile in (args.profile or PROFILES)
    ]
    problems = failures(rows)
    if args.json:
        print(json.dumps({"seed": seed, "rows": rows, "failures": problems}, indent=2))
    else:
        print(f"seed {seed} (reproduce with --seed {seed})")
        print(table(rows))
        for row in rows:
            name = f"{row['side']}/{row['profile']}"
            print(f"{name}: stuck by stored state {row['stuck_by_state']}")
            print(f"{name}: kills by point {row['crash_points']}")
        for problem in problems:
            print(f"FAIL {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
