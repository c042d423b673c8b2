"""Host recovery scenarios: ledger traces plus durable storage, host drivers, crashes and real
worker sessions (docs/spec/recovery.md, section "Scenarios").

A scenario is a ledger trace (``trace``'s vocabulary: engines, plans, sessions, grants,
verifiers, policies, targets, approvals, prepared frames, applies) with these additions:

* one authenticated in-memory store holds the ledger record; ``save_store`` /
  ``restore_store`` copy its raw state (a restored backup) and ``stored`` reads it;
* ``driver_*`` calls run a ``HostLedgerDriver`` (start, recover, record, dispatch,
  reconcile, compensate, apply, persist); each driver's engine, plan and ledger are bound
  to the names the start or recover call gives, so every trace call works on them;
* ``worker_start`` opens a real ``WorkerSession`` (scripted adapter, its own journal store)
  behind a host session, and ``deliver`` hands it a sealed frame and binds its reply.

``run_host_scenario`` gives ``{"steps": [{"result": ..} | {"error": code, "details": ..}],
"final": {..}}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from rescind.conformance.interpreters.doubles import ScriptedAdapter
from rescind.conformance.interpreters.host_trace import TraceRun
from rescind.conformance.interpreters.trace_support import (
    Json,
    TraceFormatError,
    input_arg,
    payload_arg,
)
from rescind.conformance.interpreters.worker_scenario import (
    STORAGE_KEYRING,
    error_outcome,
    outcome_arg,
)
from rescind.reference.errors import RescindError
from rescind.reference.frames import SessionAuthenticator, SessionRole
from rescind.reference.grants import CapabilityGrant
from rescind.reference.host.compensation import WorkflowCompensationTarget
from rescind.reference.host.engine import WorkflowEngine
from rescind.reference.host.host_frames import PreparedFrame
from rescind.reference.host.ledger_driver import HostLedgerDriver
from rescind.reference.manifest import SessionManifest
from rescind.reference.storage.authenticated import AuthenticatedStore
from rescind.reference.storage.memory import MemoryBackend
from rescind.reference.storage.store import KeyState
from rescind.reference.storage.tag import RecordKey
from rescind.reference.worker.journal_store import (
    DEFAULT_JOURNAL_NAMESPACE,
    AuthenticatedWorkerJournalStore,
)
from rescind.reference.worker.session import WorkerSession
from rescind.reference.worker_message import OpenSession, message_json

LEDGER_RECORD = RecordKey("workflow-ledger", "release-42")


@attrs.define
class _DriverNames:
    driver: HostLedgerDriver
    engine: str
    plan: str
    ledger: str


@attrs.define
class _Worker:
    bridge: AuthenticatedWorkerJournalStore
    adapter: ScriptedAdapter
    session: WorkerSession | None = None


class HostScenarioRun(TraceRun):
    def __init__(self) -> None:
        super().__init__()
        self.backend = MemoryBackend()
        self.store = AuthenticatedStore(self.backend, STORAGE_KEYRING)
        self.drivers: dict[str, _DriverNames] = {}
        self.saved: dict[str, KeyState] = {}
        self.workers: dict[str, _Worker] = {}
        self.session_keys: dict[str, tuple[str, bytes]] = {}

    def setup(self, setup: Mapping[str, Json]) -> None:
        super().setup({"engines": [], **setup})
        for name, spec in setup.get("sessions", {}).items():
            self.session_keys[name] = (str(spec["session_id"]), bytes.fromhex(spec["key"]))

    # -- drivers ---------------------------------------------------------------------------

    def _driver(self, args: Mapping[str, Json]) -> HostLedgerDriver:
        name = str(args["driver"])
        if name not in self.drivers:
            raise TraceFormatError(f"unknown driver {name!r}")
        return self.drivers[name].driver

    def _bind_driver(self, args: Mapping[str, Json], driver: HostLedgerDriver) -> Json:
        names = _DriverNames(driver, str(args["engine"]), str(args["plan"]), str(args["ledger"]))
        self.drivers[str(args["driver"])] = names
        self.names[names.engine] = driver.engine
        self.names[names.plan] = driver.plan
        self._sync()
        return self._driver_state(driver)

    def _sync(self) -> None:
        """Names follow each driver's current ledger (a failed write swaps it back)."""
        for names in self.drivers.values():
            self.names[names.ledger] = names.driver.ledger
            if names.ledger not in self.ledger_names:
                self.ledger_names.append(names.ledger)

    @staticmethod
    def _driver_state(driver: HostLedgerDriver) -> Json:
        return {
            "ledger_revision": driver.ledger.revision,
            "storage_revision": driver.storage_revision,
            "fence": driver.fence,
            "poisoned": driver.poisoned,
        }

    def do_driver_start(self, args: Mapping[str, Json]) -> Json:
        steps = [(str(step[0]), str(step[1])) for step in args["steps"]]
        driver = HostLedgerDriver.start(WorkflowEngine(self.ids), steps, self.store, LEDGER_RECORD)
        return self._bind_driver(args, driver)

    def do_driver_recover(self, args: Mapping[str, Json]) -> Json:
        steps = [(str(step[0]), str(step[1])) for step in args["steps"]]
        driver = HostLedgerDriver.recover(
            WorkflowEngine(self.ids),
            steps,
            self.store,
            LEDGER_RECORD,
            int(args.get("watermark", 0)),
        )
        return self._bind_driver(args, driver)

    def do_driver_state(self, args: Mapping[str, Json]) -> Json:
        driver = self._driver(args)
        state = self._driver_state(driver)
        state["events"] = [event.to_json()["type"] for event in driver.events]
        return state

    def do_driver_persist(self, args: Mapping[str, Json]) -> Json:
        return self._driver(args).persist()

    def do_driver_record_operation(self, args: Mapping[str, Json]) -> Json:
        key = self._driver(args).record_operation(
            self.text(args["step_id"]),
            self.text(args["tool"]),
            payload_arg(args["input"]),
            str(args["nonce"]).encode("utf-8"),
        )
        self.bind(args, key)
        return key

    def _session(self, args: Mapping[str, Json]) -> SessionAuthenticator:
        session: SessionAuthenticator = self.get(args["session"], SessionAuthenticator)
        return session

    def do_driver_dispatch(self, args: Mapping[str, Json]) -> Json:
        prepared = self._driver(args).dispatch(
            self.text(args["operation_key"]),
            payload_arg(args["payload"]),
            self.text(args["request_id"]),
            self._session(args),
        )
        return self._prepared(prepared, args)

    def do_driver_reconcile(self, args: Mapping[str, Json]) -> Json:
        prepared = self._driver(args).reconcile(
            self.text(args["operation_key"]),
            input_arg(args["input"]),
            self.text(args["request_id"]),
            self._session(args),
        )
        return self._prepared(prepared, args)

    def do_driver_record_compensation(self, args: Mapping[str, Json]) -> Json:
        key = self._driver(args).record_compensation(
            self.get(args["target"], WorkflowCompensationTarget),
            payload_arg(args["input"]),
            str(args["nonce"]).encode("utf-8"),
        )
        self.bind(args, key)
        return key

    def do_driver_compensate(self, args: Mapping[str, Json]) -> Json:
        prepared = self._driver(args).compensate(
            self.get(args["target"], WorkflowCompensationTarget),
            payload_arg(args["payload"]),
            self.text(args["request_id"]),
            self._session(args),
        )
        return self._prepared(prepared, args)

    def _apply(self, args: Mapping[str, Json], method: str) -> Json:
        prepared = self.get(args["request"], PreparedFrame)
        frame = self._frame(args["frame"])
        phase = getattr(self._driver(args), method)(prepared, self._session(args), frame)
        return phase.value

    def do_driver_apply_dispatch(self, args: Mapping[str, Json]) -> Json:
        return self._apply(args, "apply_dispatch_result")

    def do_driver_apply_reconciliation(self, args: Mapping[str, Json]) -> Json:
        return self._apply(args, "apply_reconciliation")

    def do_driver_apply_compensation(self, args: Mapping[str, Json]) -> Json:
        return self._apply(args, "apply_compensation")

    # -- extension: compensation reconciliation (CR-10) ------------------------------------

    def do_driver_reconcile_compensation(self, args: Mapping[str, Json]) -> Json:
        prepared = self._driver(args).reconcile_compensation(
            self.text(args["operation_key"]),
            payload_arg(args["payload"]),
            self.text(args["request_id"]),
            self._session(args),
        )
        return self._prepared(prepared, args)

    def do_driver_apply_compensation_reconciliation(self, args: Mapping[str, Json]) -> Json:
        return self._apply(args, "apply_compensation_reconciliation")

    # -- the store -------------------------------------------------------------------------

    def do_stored(self, args: Mapping[str, Json]) -> Json:
        record = self.store.load(LEDGER_RECORD)
        if record is None:
            return None
        return {"revision": record.revision, "ledger": record.payload.decode("utf-8")}

    def do_reserve_fence(self, args: Mapping[str, Json]) -> Json:
        return self.store.reserve_fence(LEDGER_RECORD)

    def do_save_store(self, args: Mapping[str, Json]) -> Json:
        self.saved[str(args["as"])] = self.backend.raw_state(
            LEDGER_RECORD.namespace, LEDGER_RECORD.name
        )
        return None

    def do_restore_store(self, args: Mapping[str, Json]) -> Json:
        """Put a saved record back. ``with_floor`` false: only the record is old (the
        rollback floor still remembers the newer write); true: record and floor are both old
        (a whole-store restore that storage alone cannot notice). The fence never goes back."""
        saved = self.saved[str(args["from"])]
        current = self.backend.raw_state(LEDGER_RECORD.namespace, LEDGER_RECORD.name)
        floor = saved.floor if args.get("with_floor") else current.floor
        self.backend.inject_state(
            LEDGER_RECORD.namespace,
            LEDGER_RECORD.name,
            KeyState(record=saved.record, floor=floor, fence=current.fence),
        )
        return None

    # -- worker peers ----------------------------------------------------------------------

    def do_worker_start(self, args: Mapping[str, Json]) -> Json:
        """(Re)open worker ``worker`` behind host session ``session``: the host seals
        ``open_session`` with ``grants``; the worker loads its journal (kept across
        restarts, like its adapter's counters) and is admitted with a fresh lease."""
        name = str(args["worker"])
        worker = self.workers.get(name)
        if worker is None:
            store = AuthenticatedStore(MemoryBackend(), STORAGE_KEYRING)
            bridge = AuthenticatedWorkerJournalStore(
                store, DEFAULT_JOURNAL_NAMESPACE, self.text(args["scope"])
            )
            worker = self.workers[name] = _Worker(bridge, ScriptedAdapter())
        host = self._session(args)
        session_id, key = self.session_keys[str(args["session"])]
        grants = [self.get(grant, CapabilityGrant) for grant in args["grants"]]
        frame = host.seal(OpenSession(SessionManifest.new(session_id, grants)))
        journal, revision = worker.bridge.load()
        worker.session = None
        worker.session = WorkerSession.open(
            SessionAuthenticator(session_id, key, SessionRole.WORKER),
            frame,
            {grant.tool: worker.adapter for grant in grants},
            journal,
            revision,
            worker.bridge.admission(),
        )
        return {"journal_revision": revision}

    def do_deliver(self, args: Mapping[str, Json]) -> Json:
        """The worker handles a sealed host frame; ``adapter`` scripts what its adapter
        answers (all of it must be used). The reply frame is bound to ``as``."""
        worker = self.workers[str(args["worker"])]
        if worker.session is None:
            raise TraceFormatError("the worker has no open session")
        worker.adapter.clear()
        worker.adapter.push(*(outcome_arg(spec) for spec in args.get("adapter", [])))
        refusal: RescindError | None = None
        try:
            reply = worker.session.handle(self._frame(args["frame"]), worker.bridge)
        except RescindError as error:
            refusal = error
        if worker.adapter.pending_outcomes or worker.adapter.underflow:
            raise TraceFormatError("the worker's adapter script and calls disagree")
        if refusal is not None:
            raise refusal
        self.bind(args, reply)
        return message_json(reply.message)

    def do_worker_calls(self, args: Mapping[str, Json]) -> Json:
        adapter = self.workers[str(args["worker"])].adapter
        return {kind: adapter.count(kind) for kind in ("dispatch", "compensate", "reconcile")}

    def do_worker_journal(self, args: Mapping[str, Json]) -> Json:
        journal, revision = self.workers[str(args["worker"])].bridge.load()
        return {"revision": revision, "journal": journal.to_json()}

    # -- running ---------------------------------------------------------------------------

    def final(self) -> dict[str, Json]:
        """The stored record (or null), every driver's state and every worker's counts.
        When the store refuses to open the record (a record put back, or removed, under a
        newer rollback floor: RC-13) ``stored`` is that refusal as a step outcome
        (``{"error": code, "details": ..}``): it is the store's answer, not a broken run."""
        try:
            stored = self.do_stored({})
        except RescindError as error:
            stored = error_outcome(error)
        return {
            "stored": stored,
            "drivers": {
                name: self._driver_state(names.driver) for name, names in self.drivers.items()
            },
            "workers": {name: self.do_worker_calls({"worker": name}) for name in self.workers},
        }


def run_host_scenario(spec: Mapping[str, Any]) -> dict[str, Json]:
    run = HostScenarioRun()
    run.setup(spec.get("setup", {}))
    outcomes: list[Json] = []
    for step in spec["steps"]:
        try:
            outcome: Json = {"result": run.step(str(step["call"]), step.get("args", {}))}
        except RescindError as error:
            outcome = error_outcome(error)
        run._sync()
        outcomes.append(outcome)
    return {"steps": outcomes, "final": run.final()}
