"""Crash campaign: SIGKILL a worker session over a SQLite journal at random points, recover,
and count what went wrong, per profile (``splash-v5`` and ``splash-v5+compensation-reconcile``).

Each *schedule* runs one durable operation and its compensation to the end through a series
of worker lives. A life is a real subprocess (forked, with the reference already imported)
that opens a ``WorkerSession`` over the schedule's SQLite journal and serves the host (this
process) over pipes. Before a life starts the schedule's RNG picks a crash point: the n-th
instrumented point the life passes (journal write about to start or just done, adapter
effect about to run or just done, for originals and inverse effects alike). When the life
reaches it, it says so and blocks; this process sends it SIGKILL and starts the next life.
After at most ``--max-crashes`` crashes a life runs without one (recovery).

The host follows the protocol of the profile: dispatch, then reconcile an original whose
outcome it has not got; once the original succeeded, one approval and one compensation, then
under ``splash-v5`` resends of that same compensation (all upstream offers) and under the
extension ``reconcile_compensation`` (docs/spec/compensation-reconcile.md).

Adapters append every effect to a file (fsync'd) before answering, so effects survive the
kill and can be counted. Checked per schedule: no original effect twice, no second inverse,
no terminal result the host received that the journal lost or changed. Counted: schedules
whose compensation is still not terminal when recovery gives up (``stuck``: a finding under
``splash-v5``, and must be 0 under the extension).

    python benchmarks/crash_campaign.py --schedules 1000           # table
    python benchmarks/crash_campaign.py --schedules 1000 --json    # machine-readable
    python benchmarks/crash_campaign.py --seed 7 --schedules 20     # reproduce

Exit code 1 when a safety count is not 0 or the extension leaves a compensation stuck.
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
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rescind.reference.errors import RescindError
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
from rescind.reference.storage.tag import StorageKey
from rescind.reference.worker.adapter import AdapterDeclarations
from rescind.reference.worker.extension import WorkerExtensions
from rescind.reference.worker.journal import WorkerOperationJournal
from rescind.reference.worker.journal_store import AuthenticatedWorkerJournalStore, JournalLease
from rescind.reference.worker.session import WorkerSession
from rescind.reference.worker_message import (
    CompensateOperation,
    CompensationResult,
    DispatchOperation,
    OpenSession,
    OperationResult,
    ReconciledOperation,
    ReconcileOperation,
)
from rescind.stores.sqlite import SqliteBackend

PROFILES = ("splash-v5", "splash-v5+compensation-reconcile")
TOOL = "text.echo"
SCOPE = "tenant"
KEY = "op-1"
SESSION_KEY = bytes([0x31]) * 32
KEYRING = Keyring.single("storage-v1", StorageKey(bytes([0x1D]) * 32))
GRANT = CapabilityGrant(TOOL, PayloadFormat.TEXT, 1000, 1024, 64, 8)
DONE = "done"
UNDONE = "undone"
POINTS_PER_LIFE = 14
"""Crash points are drawn from 0..13: a dispatch and a compensation pass about twelve."""
STEPS_PER_LIFE = 8
TERMINAL = {"succeeded", "failed", "cancelled"}


# ---- the worker life (child process) ---------------------------------------------------------


class Points:
    """Numbered crash points; at the chosen one, tell the parent and wait to be killed."""

    def __init__(self, kill_at: int | None, out: Any, wait: Callable[[], object]) -> None:
        self.kill_at, self.out, self.wait, self.passed = kill_at, out, wait, 0

    def hit(self, where: str) -> None:
        if self.passed == self.kill_at:
            self.out.write(json.dumps({"at": where, "point": self.passed}) + "\n")
            self.out.flush()
            self.wait()
            os._exit(3)  # only if the parent never kills: the campaign then reports it
        self.passed += 1


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


class PointStore:
    """The SQLite journal store, with a crash point on each side of every write."""

    def __init__(self, bridge: AuthenticatedWorkerJournalStore, points: Points) -> None:
        self.bridge, self.points = bridge, points

    def persist(self, journal: WorkerOperationJournal, revision: int, lease: JournalLease) -> int:
        self.points.hit("before-persist")
        written = self.bridge.persist(journal, revision, lease)
        self.points.hit("after-persist")
        return written


def _bridge(database: Path) -> AuthenticatedWorkerJournalStore:
    store = AuthenticatedStore(SqliteBackend(str(database)), KEYRING)
    return AuthenticatedWorkerJournalStore(store, "worker-journal", SCOPE)


def _status(status: OperationStatus) -> dict[str, Any]:
    text = status.payload.wire_json() if status.payload is not None else None
    return {"status": status.phase.value, "text": text}


def life(
    commands: Any, out: Any, folder: Path, profile: str, kill_at: int | None, number: int
) -> None:
    """One worker process: open a session (a new lease), then serve commands until EOF."""
    points = Points(kill_at, out, commands.readline)
    adapter = EffectAdapter(folder / "effects", points)
    bridge = _bridge(folder / "journal.sqlite")
    store = PointStore(bridge, points)
    session_id = f"life-{number}"
    host = SessionAuthenticator(session_id, SESSION_KEY, SessionRole.HOST)
    journal, revision = bridge.load()
    session = WorkerSession.open(
        SessionAuthenticator(session_id, SESSION_KEY, SessionRole.WORKER),
        host.seal(OpenSession(SessionManifest.new(session_id, [GRANT]))),
        {TOOL: adapter},
        journal,
        revision,
        bridge.admission(),
        extensions=WorkerExtensions.for_profile(profile),
    )
    for serial, line in enumerate(commands, start=1):
        header = {"session_id": session_id, "request_id": f"r{serial}", "tool": TOOL}
        command = line.strip()
        compensation = OperationCompensationRequest(
            **header,
            operation_key=KEY,
            compensation_key=f"cmp-{KEY}",
            tenant_scope=SCOPE,
            grant_fingerprint=GRANT.compensation_fingerprint(),
            payload=ToolPayload.text("undo"),
        )
        try:
            if command == "dispatch":
                request = OperationDispatchRequest(
                    **header, operation_key=KEY, payload=ToolPayload.text("do")
                )
                reply = host.open(session.handle(host.seal(DispatchOperation(request)), store))
                assert isinstance(reply, OperationResult)
                answer = _status(reply.result.status)
            elif command == "reconcile":
                ask = OperationReconcileRequest(**header, operation_key=KEY)
                reply = host.open(session.handle(host.seal(ReconcileOperation(ask)), store))
                assert isinstance(reply, ReconciledOperation)
                answer = _status(reply.result.status)
            elif command == "compensate":
                sealed = host.seal(CompensateOperation(compensation))
                reply = host.open(session.handle(sealed, store))
                assert isinstance(reply, CompensationResult)
                answer = _status(reply.result.status)
            else:
                answer = _status(session.reconcile_compensation(compensation, store).status)
        except RescindError as error:
            answer = {"error": error.code}
        out.write(json.dumps(answer) + "\n")
        out.flush()


# ---- the host (this process) ----------------------------------------------------------------


class Life:
    """A forked worker life and the two pipes to it."""

    def __init__(self, folder: Path, profile: str, kill_at: int | None, number: int) -> None:
        to_child_r, to_child_w = os.pipe()
        from_child_r, from_child_w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: serve, never return into the campaign
            os.close(to_child_w)
            os.close(from_child_r)
            status = 0
            try:
                with os.fdopen(to_child_r, "r") as commands, os.fdopen(from_child_w, "w") as out:
                    life(commands, out, folder, profile, kill_at, number)
            except BaseException:
                status = 2
            os._exit(status)
        os.close(to_child_r)
        os.close(from_child_w)
        self.pid = pid
        self.commands = os.fdopen(to_child_w, "w")
        self.replies = os.fdopen(from_child_r, "r")
        self.killed = False

    def ask(self, command: str) -> dict[str, Any] | None:
        """The answer, or None when the life reached its crash point and was killed."""
        self.commands.write(command + "\n")
        self.commands.flush()
        line = self.replies.readline()
        if not line:
            raise RuntimeError(f"worker life {self.pid} died unasked: {self.end()}")
        answer: dict[str, Any] = json.loads(line)
        if "at" in answer:
            os.kill(self.pid, signal.SIGKILL)
            self.killed = True
            return None
        return answer

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


class Host:
    """The host's view of one operation and its compensation (one approval, used once)."""

    def __init__(self, profile: str) -> None:
        self.profile = profile
        self.op: dict[str, Any] | None = None
        self.cmp: dict[str, Any] | None = None
        self.dispatched = False
        self.compensation_sent = False
        self.approvals_used = 0

    @property
    def settled(self) -> bool:
        """Compensated, or nothing to compensate (the original did not succeed)."""
        return self.cmp is not None or (self.op is not None and self.op["status"] != "succeeded")

    @property
    def compensating(self) -> bool:
        return self.op is not None and self.op["status"] == "succeeded"

    def next_command(self) -> str:
        if self.op is None:
            return "reconcile" if self.dispatched else "dispatch"
        if not self.compensation_sent:
            if self.approvals_used == 0:
                self.approvals_used = 1  # the approval is used when the frame is prepared
            return "compensate"
        if self.profile == PROFILES[1]:
            return "reconcile_compensation"
        return "compensate"  # upstream: resend the same compensation, all it can do

    def apply(self, command: str, answer: dict[str, Any]) -> None:
        error = answer.get("error")
        if command == "dispatch":
            self.dispatched = True
        if command == "compensate":
            self.compensation_sent = True
        if error == "unknown_operation":
            self.dispatched = False  # the admission never became durable: dispatch again
        if error == "unknown_compensation":
            self.compensation_sent = False  # the attachment was lost: send it again
        if answer.get("status") in TERMINAL:
            target = "op" if command in ("dispatch", "reconcile") else "cmp"
            setattr(self, target, {"status": answer["status"], "text": answer["text"]})


def run_schedule(profile: str, rng: random.Random, max_crashes: int) -> dict[str, Any]:
    host = Host(profile)
    crashes = lives = 0
    with tempfile.TemporaryDirectory(prefix="rescind-crash-") as name:
        folder = Path(name)
        while not host.settled:
            crash = crashes < max_crashes and rng.random() < 0.85
            kill_at = rng.randrange(POINTS_PER_LIFE) if crash else None
            lives += 1
            worker = Life(folder, profile, kill_at, lives)
            for _ in range(STEPS_PER_LIFE):
                if host.settled:
                    break
                command = host.next_command()
                answer = worker.ask(command)
                if answer is None:
                    break
                host.apply(command, answer)
            worker.end()
            if worker.killed:
                crashes += 1
                continue
            if kill_at is None:
                break  # a recovery life ran out of steps: what is left is stuck
        verdict = verify(folder, host)
    verdict.update(profile=profile, crashes=crashes, lives=lives)
    return verdict


def verify(folder: Path, host: Host) -> dict[str, Any]:
    effects_file = folder / "effects"
    effects = Counter(effects_file.read_text("utf-8").splitlines() if effects_file.exists() else [])
    journal, _ = _bridge(folder / "journal.sqlite").load()
    record = journal.operation(KEY)
    lost = 0
    for seen, stored in (
        (host.op, record.state if record else None),
        (host.cmp, record.compensation.state if record and record.compensation else None),
    ):
        if seen is None:
            continue
        if (
            stored is None
            or stored.kind != seen["status"]
            or (stored.payload is not None and stored.payload.wire_json() != seen["text"])
        ):
            lost += 1
    stuck_state = None
    if host.compensating and host.cmp is None and record and record.compensation:
        stuck_state = record.compensation.state.kind
    return {
        "duplicate_effects": max(0, effects[f"forward {KEY}"] - 1),
        "second_inverses": max(0, effects[f"inverse {KEY}"] - 1),
        "lost_terminal_results": lost,
        "stuck": host.compensating and host.cmp is None,
        "compensated": host.compensating,
        "stuck_state": stuck_state,
        "inverse_effects": effects[f"inverse {KEY}"],
        "approvals_used": host.approvals_used,
    }


def campaign(profile: str, schedules: int, seed: int, max_crashes: int) -> dict[str, Any]:
    started = time.perf_counter()
    totals: Counter[str] = Counter()
    stuck_states: Counter[str] = Counter()
    for index in range(schedules):
        rng = random.Random(f"{seed}:{profile}:{index}")
        verdict = run_schedule(profile, rng, max_crashes)
        for name in ("duplicate_effects", "second_inverses", "lost_terminal_results"):
            totals[name] += verdict[name]
        totals["crashes"] += verdict["crashes"]
        totals["lives"] += verdict["lives"]
        totals["approvals_used"] += verdict["approvals_used"]
        totals["compensations"] += verdict["compensated"]
        if verdict["stuck"]:
            totals["stuck_pending_compensation"] += 1
            stuck_states[str(verdict["stuck_state"])] += 1
    return {
        "profile": profile,
        "schedules": schedules,
        "crashes": totals["crashes"],
        "worker_lives": totals["lives"],
        "approvals_used": totals["approvals_used"],
        "compensations": totals["compensations"],
        "duplicate_effects": totals["duplicate_effects"],
        "second_inverses": totals["second_inverses"],
        "lost_terminal_results": totals["lost_terminal_results"],
        "stuck_compensations": totals["stuck_pending_compensation"],
        "stuck_by_state": dict(stuck_states),
        "seconds": round(time.perf_counter() - started, 2),
    }


COLUMNS = (
    ("profile", "profile"),
    ("schedules", "schedules"),
    ("crashes", "SIGKILLs"),
    ("compensations", "compensations"),
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
        for name in ("duplicate_effects", "second_inverses", "lost_terminal_results"):
            if row[name]:
                found.append(f"{row['profile']}: {name} = {row[name]}")
        if row["profile"] == PROFILES[1] and row["stuck_compensations"]:
            found.append(f"{row['profile']}: {row['stuck_compensations']} stuck compensations")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--schedules", type=int, default=1000, help="per profile")
    parser.add_argument("--seed", type=int, default=None, help="default: random, printed")
    parser.add_argument("--max-crashes", type=int, default=3, help="SIGKILLs per schedule")
    parser.add_argument("--profile", choices=PROFILES, action="append")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    rows = [
        campaign(profile, args.schedules, seed, args.max_crashes)
        for profile in (args.profile or PROFILES)
    ]
    problems = failures(rows)
    if args.json:
        print(json.dumps({"seed": seed, "profiles": rows, "failures": problems}, indent=2))
    else:
        print(f"seed {seed} (reproduce with --seed {seed})")
        print(table(rows))
        for row in rows:
            print(f"{row['profile']}: stuck by stored state {row['stuck_by_state']}")
        for problem in problems:
            print(f"FAIL {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
