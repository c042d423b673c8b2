"""Worker session scenarios: a JSON-described run of one worker over its journal store, with a
scripted adapter, scripted store faults, restarts and lease takeovers.

``run_scenario(spec)`` returns, for every step, its outcome (``{"result": ..}`` or
``{"error": code, "details": {..}}``) and the state after it; the vocabulary is specified in
docs/spec/session.md, section "Scenarios". Every wire value (grants, messages, statuses,
journals) is exact JSON text. The store is an ``AuthenticatedWorkerJournalStore`` over the
in-memory backend, wrapped by ``FaultyJournalStore``; one ``ScriptedAdapter`` serves every
granted tool and keeps counting across restarts (it stands for the external system).

A scenario is malformed (``ScenarioFormatError``, a bug in the scenario, never an outcome)
when a step scripts adapter outcomes or store faults that are not all used, or the adapter
is called with nothing scripted.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from rescind.conformance.interpreters.doubles import FaultyJournalStore, Outcome, ScriptedAdapter
from rescind.reference.errors import RescindError
from rescind.reference.frames import AuthenticatedFrame, SessionAuthenticator, SessionRole
from rescind.reference.grants import CapabilityGrant
from rescind.reference.manifest import SessionManifest
from rescind.reference.messages import OperationStatus
from rescind.reference.storage.authenticated import AuthenticatedStore
from rescind.reference.storage.keyring import Keyring
from rescind.reference.storage.memory import MemoryBackend
from rescind.reference.storage.store import Snapshot
from rescind.reference.storage.tag import StorageKey
from rescind.reference.wirejson import read_document
from rescind.reference.worker.adapter import AdapterDeclarations, WorkerAdapter
from rescind.reference.worker.journal import WorkerOperationJournal
from rescind.reference.worker.journal_store import (
    DEFAULT_JOURNAL_NAMESPACE,
    AuthenticatedWorkerJournalStore,
    FenceAdmission,
    WorkerAdmission,
    issue_lease,
)
from rescind.reference.worker.session import WorkerSession, WorkerSessionLimits
from rescind.reference.worker.session_errors import ADAPTER_ERRORS
from rescind.reference.worker_message import (
    OpenSession,
    WorkerMessage,
    decode_message_line,
    message_json,
)

Json = Any

SESSION_KEY = bytes([0x07]) * 32
STORAGE_KEYRING = Keyring.single("storage-v1", StorageKey(bytes([0x1D]) * 32))
STEP_KINDS = ("send", "open", "restart", "takeover", "store_persist", "stored")
_UNSTABLE_DETAILS = frozenset({"offset"})


class ScenarioFormatError(ValueError):
    """The scenario itself is malformed or inconsistent with what ran."""


def error_outcome(error: RescindError) -> dict[str, Json]:
    details = {k: v for k, v in error.details.items() if k not in _UNSTABLE_DETAILS}
    return {"error": error.code, "details": details}


def outcome_arg(spec: Mapping[str, Json]) -> Outcome:
    """``{"status": "<status JSON text>"}`` or ``{"error": "<adapter error kind>"}``."""
    if "status" in spec:
        return OperationStatus.from_node(read_document(str(spec["status"])))
    kind = str(spec["error"])
    if kind not in ADAPTER_ERRORS:
        raise ScenarioFormatError(f"unknown adapter error kind {kind!r}")
    return ADAPTER_ERRORS[kind]()


def _limits(spec: Mapping[str, Json] | None) -> WorkerSessionLimits:
    spec = spec or {}
    return WorkerSessionLimits(
        int(spec.get("per_tool", 16)),
        int(spec.get("per_session", 64)),
    )


class _ZeroAdmission:
    """An admission that answers the invalid token 0."""

    def admit(self, manifest: SessionManifest, scope: str) -> int:
        return 0


@attrs.define
class _LoggingAdmission:
    """A fence admission that remembers every token it handed out (for ``store_persist``)."""

    inner: FenceAdmission
    tokens: list[int]

    def admit(self, manifest: SessionManifest, scope: str) -> int:
        token = self.inner.admit(manifest, scope)
        self.tokens.append(token)
        return token


class ScenarioRun:
    def __init__(self, setup: Mapping[str, Json]) -> None:
        self.session_id = str(setup.get("session_id", "worker-1"))
        self.scope = str(setup.get("scope", "tenant"))
        self.grants = [CapabilityGrant.from_json(str(text)) for text in setup["grants"]]
        self.limits_spec: Mapping[str, Json] | None = setup.get("limits")
        self.missing = set(setup.get("missing_adapters", []))
        declared = setup.get("declarations", {})
        self.adapter = ScriptedAdapter(
            declarations=AdapterDeclarations(
                durable_operations=bool(declared.get("durable", True)),
                invocation_safety=bool(declared.get("safety", True)),
            )
        )
        self.store = AuthenticatedStore(MemoryBackend(), STORAGE_KEYRING)
        self.bridge = AuthenticatedWorkerJournalStore(
            self.store, str(setup.get("namespace", DEFAULT_JOURNAL_NAMESPACE)), self.scope
        )
        self.faulty = FaultyJournalStore(self.bridge)
        self.tokens: list[int] = []
        self.session: WorkerSession | None = None
        self.host: SessionAuthenticator | None = None
        self.last_open: tuple[AuthenticatedFrame, WorkerAdmission, str] | None = None
        self._opened: tuple[tuple[Snapshot, Keyring], int] | None = None
        if setup.get("open", True):
            self.do_open({})

    # -- sessions --------------------------------------------------------------------------

    def do_open(self, args: Mapping[str, Json]) -> Json:
        """Open a session over the freshly loaded journal. ``replay`` re-opens the last
        opening frame with the same admission; otherwise a new host/worker pair is made and
        ``message`` (default: ``open_session`` with the grants) is sealed as frame 1."""
        self.session = None
        session_id = str(args.get("session_id", self.session_id))
        role = SessionRole(str(args.get("role", "worker")))
        admission: WorkerAdmission
        if args.get("replay"):
            if self.last_open is None:
                raise ScenarioFormatError("nothing was opened before, so nothing to replay")
            frame, admission, session_id = self.last_open
        else:
            grants = [CapabilityGrant.from_json(str(t)) for t in args.get("grants", [])]
            message: WorkerMessage = (
                decode_message_line(str(args["message"]))
                if "message" in args
                else OpenSession(SessionManifest.new(session_id, grants or self.grants))
            )
            self.host = SessionAuthenticator(session_id, SESSION_KEY, SessionRole.HOST)
            frame = self.host.seal(message)
            if args.get("admission") == "zero":
                admission = _ZeroAdmission()
            else:
                admission = _LoggingAdmission(self.bridge.admission(), self.tokens)
        self.last_open = (frame, admission, session_id)
        worker = SessionAuthenticator(session_id, SESSION_KEY, role)
        journal, revision = self.bridge.load()
        opened_grants = (
            frame.message.manifest.grants if isinstance(frame.message, OpenSession) else ()
        )
        adapters: dict[str, WorkerAdapter] = {
            grant.tool: self.adapter for grant in opened_grants if grant.tool not in self.missing
        }
        limits = _limits(args.get("limits", self.limits_spec))
        self.session = WorkerSession.open(
            worker, frame, adapters, journal, revision, admission, limits
        )
        return {"revision": revision, "fence": self.store.current_fence(self.bridge.record_key)}

    def do_restart(self, args: Mapping[str, Json]) -> Json:
        """The worker process is gone: a new session over what the store holds, with a fresh
        lease from a new admission (``grants``, ``session_id``, ``limits`` may change)."""
        self.faulty.disarm()
        return self.do_open({key: value for key, value in args.items() if key != "replay"})

    def do_takeover(self, args: Mapping[str, Json]) -> Json:
        """Another writer is admitted for the same journal: it reserves the next fence."""
        token = self.store.reserve_fence(self.bridge.record_key)
        self.tokens.append(token)
        return {"fence": token}

    # -- the store directly ----------------------------------------------------------------

    def do_store_persist(self, args: Mapping[str, Json]) -> Json:
        """Persist through the bridge under the lease of the n-th admitted token (1-based):
        ``journal`` text (default: the stored journal) at ``expected_revision`` (default: the
        stored revision)."""
        stored, stored_revision = self.bridge.load()
        number = int(args["lease"])
        if not 1 <= number <= len(self.tokens):
            raise ScenarioFormatError(f"no admitted lease number {number}")
        journal = (
            WorkerOperationJournal.from_json(str(args["journal"])) if "journal" in args else stored
        )
        expected = int(args.get("expected_revision", stored_revision))
        revision = self.bridge.persist(journal, expected, issue_lease(self.tokens[number - 1]))
        return {"revision": revision}

    def do_stored(self, args: Mapping[str, Json]) -> Json:
        journal, revision = self.bridge.load()
        return {"revision": revision, "journal": journal.to_json()}

    # -- frames ----------------------------------------------------------------------------

    def do_send(self, step: Mapping[str, Json]) -> Json:
        if self.session is None or self.host is None:
            raise ScenarioFormatError("no open session to send to")
        message = decode_message_line(str(step["send"]))
        if step.get("tamper") == "flip_tag":
            # Sealed by a copy so the host's own counter does not move: the next genuine
            # frame still carries the sequence the worker expects.
            copy = SessionAuthenticator(
                self.host.session_id,
                SESSION_KEY,
                SessionRole.HOST,
                next_outgoing=self.host.next_outgoing,
            )
            sealed = copy.seal(message)
            flipped = ("1" if sealed.auth_tag[0] == "0" else "0") + sealed.auth_tag[1:]
            frame = attrs.evolve(sealed, auth_tag=flipped)
        else:
            frame = self.host.seal(message)
        reply = self.session.handle(frame, self.faulty)
        return message_json(reply.message)

    # -- running ---------------------------------------------------------------------------

    def step(self, step: Mapping[str, Json]) -> dict[str, Json]:
        kinds = [kind for kind in STEP_KINDS if kind in step]
        if len(kinds) != 1:
            raise ScenarioFormatError(f"a step has exactly one of {STEP_KINDS}: {step!r}")
        kind = kinds[0]
        self.adapter.clear()
        self.adapter.underflow = False
        self.adapter.push(*(outcome_arg(spec) for spec in step.get("adapter", [])))
        for fault in step.get("faults", []):
            self.faulty.arm(int(fault["persist"]), str(fault["kind"]))
        try:
            if kind == "send":
                outcome: dict[str, Json] = {"result": self.do_send(step)}
            else:
                outcome = {"result": getattr(self, f"do_{kind}")(step[kind])}
        except RescindError as error:
            outcome = error_outcome(error)
        self._check_script_used(step)
        outcome["after"] = self.state()
        return outcome

    def _check_script_used(self, step: Mapping[str, Json]) -> None:
        if self.adapter.underflow or self.adapter.pending_outcomes:
            raise ScenarioFormatError(f"adapter script and calls disagree in {step!r}")
        if self.faulty.armed:
            raise ScenarioFormatError(f"a store fault was never reached in {step!r}")

    def state(self) -> dict[str, Json]:
        session = self.session
        return {
            "poisoned": None if session is None else session.poisoned,
            "revision": None if session is None else session.revision,
            "stored_revision": self._stored_revision(),
            "snapshots": self.faulty.snapshots,
            "persist_attempts": self.faulty.attempts,
            "dispatch_calls": self.adapter.count("dispatch"),
            "compensate_calls": self.adapter.count("compensate"),
            "reconcile_calls": self.adapter.count("reconcile"),
            "journal": None if session is None else session.journal.to_json(),
        }

    def _stored_revision(self) -> int:
        """The stored record's revision, opened with every storage check; the journal it
        holds is left undecoded (only the bridge writes it, always a valid journal). Most
        steps write nothing, so an unchanged snapshot reuses the last opening (opening is
        a function of the snapshot and the keyring alone)."""
        key = self.bridge.record_key
        snapshot = self.store.backend.load(key.namespace, key.name)
        if self._opened is None or self._opened[0] != (snapshot, self.store.keyring):
            record = self.store.open(key, snapshot)
            self._opened = (
                (snapshot, self.store.keyring),
                0 if record is None else record.revision,
            )
        return self._opened[1]

    def final(self) -> dict[str, Json]:
        journal, revision = self.bridge.load()
        return {
            "stored_revision": revision,
            "stored_journal": journal.to_json(),
            "fence": self.store.current_fence(self.bridge.record_key),
            "adapter_calls": [attrs.asdict(call) for call in self.adapter.calls],
        }


def run_scenario(spec: Mapping[str, Json]) -> dict[str, Json]:
    """Run a scenario; the answer is ``{"steps": [...], "final": {...}}`` and, when the
    setup opens a session and that fails, ``{"open": <error outcome>, ...}``."""
    try:
        run = ScenarioRun(spec["setup"])
    except RescindError as error:
        return {"open": error_outcome(error), "steps": [], "final": None}
    steps = [run.step(step) for step in spec.get("steps", [])]
    return {"steps": steps, "final": run.final()}
