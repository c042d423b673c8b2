"""A worker session under random resends, adapter outcomes, persistence failures (before and
after effects, lost acknowledgements, non-increasing revisions), restarts from the stored
journal and lease takeovers. After every step (docs/spec/session.md WS-23):

* no effect ran unless the admission of that key (or compensation) was durable first;
* each key's effect and each original's inverse ran at most once (``Existing`` is never a
  second execution, a restart never redispatches);
* every write that landed was made under the newest lease (superseded leases never write);
* a refused request that did not reach the adapter left the stored journal unchanged, and
  left the in-memory journal unchanged unless a write failed;
* an unpoisoned session's journal and revision equal the stored ones, and every effect that
  ran is remembered by the stored journal.
"""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Any

import attrs
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from rescind.conformance.interpreters.doubles import (
    AdapterCall,
    FaultyJournalStore,
    ScriptedAdapter,
)
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
from rescind.reference.storage.memory import MemoryBackend
from rescind.reference.storage.tag import StorageKey
from rescind.reference.worker.journal import WorkerOperationJournal
from rescind.reference.worker.journal_store import AuthenticatedWorkerJournalStore, JournalLease
from rescind.reference.worker.session import WorkerSession, WorkerSessionLimits
from rescind.reference.worker.session_errors import (
    AdapterIndeterminate,
    AdapterReportedFailure,
)
from rescind.reference.worker_message import (
    CompensateOperation,
    DispatchOperation,
    OpenSession,
    ReconcileOperation,
    WorkerMessage,
)
from rescind.tables.operation import Phase

TOOL = "text.echo"
SCOPE = "tenant"
KEY = bytes([0x31]) * 32
KEYS = ("op-1", "op-2", "op-3")
GRANT = CapabilityGrant(TOOL, PayloadFormat.TEXT, 10_000, 1024, 16, 8)
GRANT_FP = GRANT.compensation_fingerprint()

OUTCOMES = {
    "success": OperationStatus.succeeded(ToolPayload.text("done")),
    "running": OperationStatus.running(),
    "failed-status": OperationStatus.failed("boom"),
    "cancelled": OperationStatus.cancelled(),
    "oversized": OperationStatus.succeeded(ToolPayload.text("x" * 17)),
    "adapter-failed": AdapterReportedFailure(),
    "adapter-indeterminate": AdapterIndeterminate(),
}
FAULTS = ("unavailable", "conflict", "expired_lease", "non_increasing", "lost_ack")
Fault = tuple[int, str] | None
KEY_CHOICE = st.sampled_from(KEYS)
# Successes are drawn more often, so that originals live long enough to be compensated.
OUTCOME_CHOICE = st.sampled_from(["success", "success", *sorted(OUTCOMES)])
# The request's first (admission) or second (post-effect) write fails, or none does.
FAULT_CHOICE = st.none() | st.tuples(st.integers(1, 2), st.sampled_from(FAULTS))
# Outcomes that follow an effect call: the admission was written and may stay written.
REACHED_THE_ADAPTER = frozenset({"indeterminate_operation", "indeterminate_compensation"})
WRITE_FAILURES = frozenset({"journal_persistence_failed", "invalid_journal_revision"})


class WriteLog:
    """A journal store in front of the bridge that remembers, for every write that landed,
    the lease token used and the newest token admitted at that moment."""

    def __init__(self, inner: AuthenticatedWorkerJournalStore, newest: list[int]) -> None:
        self.inner = inner
        self.newest = newest
        self.writes: list[tuple[int, int]] = []

    def load(self) -> tuple[WorkerOperationJournal, int]:
        return self.inner.load()

    def persist(self, journal: WorkerOperationJournal, expected: int, lease: JournalLease) -> int:
        newest = self.newest[-1]
        revision = self.inner.persist(journal, expected, lease)
        self.writes.append((lease.token, newest))
        return revision


def _readdressed(message: WorkerMessage, session_id: str) -> WorkerMessage:
    """The same request for the session opened after a restart."""
    assert isinstance(message, DispatchOperation | CompensateOperation | ReconcileOperation)
    return attrs.evolve(message, request=attrs.evolve(message.request, session_id=session_id))


class SessionMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        keyring = Keyring.single("storage-v1", StorageKey(bytes([0x1D]) * 32))
        self.bridge = AuthenticatedWorkerJournalStore(
            AuthenticatedStore(MemoryBackend(), keyring), "worker-journal", SCOPE
        )
        self.tokens: list[int] = []
        self.log = WriteLog(self.bridge, self.tokens)
        self.store = FaultyJournalStore(self.log)
        self.adapter = ScriptedAdapter(before_effect=self._before_effect)
        self.violations: list[str] = []
        self.ids = itertools.count(1)
        self.sessions = itertools.count(1)
        self._open()

    # -- helpers ---------------------------------------------------------------------------

    def _open(self) -> None:
        session_id = f"worker-{next(self.sessions)}"
        host = SessionAuthenticator(session_id, KEY, SessionRole.HOST)
        frame = host.seal(OpenSession(SessionManifest.new(session_id, [GRANT])))
        journal, revision = self.bridge.load()
        admission = self.bridge.admission()

        class Recording:
            def admit(inner_self, manifest: SessionManifest, scope: str) -> int:
                token = admission.admit(manifest, scope)
                self.tokens.append(token)
                return token

        self.session = WorkerSession.open(
            SessionAuthenticator(session_id, KEY, SessionRole.WORKER),
            frame,
            {TOOL: self.adapter},
            journal,
            revision,
            Recording(),
            WorkerSessionLimits(10_000, 10_000),
        )
        self.host = host
        self.session_id = session_id
        self.fired_at_open = len(self.store.fired)

    def _before_effect(self, call: AdapterCall) -> None:
        """At the moment of an effect, the stored journal must already hold its admission."""
        stored, _ = self.bridge.load()
        record = stored.operation(call.operation_key)
        if call.kind == "dispatch":
            if record is None or record.state.phase is not Phase.PENDING:
                self.violations.append(f"dispatch of {call.operation_key} without admission")
        elif record is None or record.compensation is None:
            self.violations.append(f"compensation of {call.operation_key} without admission")
        elif record.compensation.compensation_key != call.compensation_key:
            self.violations.append(f"compensation of {call.operation_key} under another key")

    def _header(self, key: str) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "request_id": f"r{next(self.ids)}",
            "tool": TOOL,
            "operation_key": key,
        }

    def _refused_while_poisoned(self) -> None:
        """A poisoned session refuses unopened and untouched; the host then restarts."""
        stored_before, calls_before = self.bridge.load(), len(self.adapter.calls)
        probe = OperationReconcileRequest(**self._header(KEYS[0]))
        try:
            self.session.handle(self.host.seal(ReconcileOperation(probe)), self.store)
        except RescindError as error:
            assert error.code == "session_poisoned"
        else:
            raise AssertionError("a poisoned session answered")
        assert self.bridge.load() == stored_before and len(self.adapter.calls) == calls_before
        self._open()

    def _send(self, message: WorkerMessage, outcome: str, fault: Fault) -> None:
        if self.session.poisoned:
            self._refused_while_poisoned()
            message = _readdressed(message, self.session_id)
        if fault is not None:
            self.store.arm(*fault)
        stored_before = self.bridge.load()
        memory_before = self.session.journal
        fired_before = len(self.store.fired)
        self.adapter.clear()
        self.adapter.push(OUTCOMES[outcome])
        calls_before = len(self.adapter.calls)
        error: RescindError | None = None
        try:
            self.session.handle(self.host.seal(message), self.store)
        except RescindError as refusal:
            error = refusal
        self.adapter.clear()
        self.store.disarm()
        if error is None or error.code in REACHED_THE_ADAPTER:
            return
        effect_called = any(call.kind != "reconcile" for call in self.adapter.calls[calls_before:])
        if error.code == "adapter_failed" and effect_called:
            return  # the admission was written before the effect call
        lost_ack = "lost_ack" in self.store.fired[fired_before:]
        if not lost_ack:
            assert self.bridge.load() == stored_before, f"{error.code} changed the store"
        if error.code not in WRITE_FAILURES:
            assert self.session.journal == memory_before, f"{error.code} changed the journal"

    # -- rules -----------------------------------------------------------------------------

    @rule(key=KEY_CHOICE, outcome=OUTCOME_CHOICE, fault=FAULT_CHOICE)
    def dispatch(self, key: str, outcome: str, fault: Fault) -> None:
        payload = ToolPayload.text(f"release {key}")
        request = OperationDispatchRequest(**self._header(key), payload=payload)
        self._send(DispatchOperation(request), outcome, fault)

    @rule(key=KEY_CHOICE, outcome=OUTCOME_CHOICE)
    def dispatch_changed_input(self, key: str, outcome: str) -> None:
        request = OperationDispatchRequest(**self._header(key), payload=ToolPayload.text("other"))
        self._send(DispatchOperation(request), outcome, None)

    @rule(key=KEY_CHOICE, outcome=OUTCOME_CHOICE, fault=FAULT_CHOICE)
    def compensate(self, key: str, outcome: str, fault: Fault) -> None:
        request = OperationCompensationRequest(
            **self._header(key),
            compensation_key=f"cmp-{key}",
            tenant_scope=SCOPE,
            grant_fingerprint=GRANT_FP,
            payload=ToolPayload.text(f"undo {key}"),
        )
        self._send(CompensateOperation(request), outcome, fault)

    @rule(key=KEY_CHOICE, outcome=OUTCOME_CHOICE, fault=FAULT_CHOICE)
    def reconcile(self, key: str, outcome: str, fault: Fault) -> None:
        request = OperationReconcileRequest(**self._header(key))
        self._send(ReconcileOperation(request), outcome, fault)

    @rule()
    def restart(self) -> None:
        self._open()

    @rule()
    def takeover(self) -> None:
        """Another writer is admitted: the current session's lease is superseded."""
        self.tokens.append(self.bridge.store.reserve_fence(self.bridge.record_key))

    # -- invariants ------------------------------------------------------------------------

    @invariant()
    def effects_only_after_durable_admission(self) -> None:
        assert not self.violations, self.violations

    @invariant()
    def at_most_one_effect_and_one_inverse_per_key(self) -> None:
        counts = Counter((call.kind, call.operation_key) for call in self.adapter.calls)
        over = {key: n for key, n in counts.items() if key[0] != "reconcile" and n > 1}
        assert not over, over

    @invariant()
    def superseded_leases_never_write(self) -> None:
        assert all(token == newest for token, newest in self.log.writes), self.log.writes

    @invariant()
    def session_holds_the_last_durable_journal(self) -> None:
        """Healthy: exactly the stored journal and revision. Poisoned: restored to the last
        journal it wrote, which is the stored one unless a write's answer was lost."""
        stored, revision = self.bridge.load()
        if not self.session.poisoned:
            assert self.session.journal == stored
            assert self.session.revision == revision
        elif "lost_ack" not in self.store.fired[self.fired_at_open :]:
            assert self.session.journal == stored

    @invariant()
    def every_effect_is_remembered(self) -> None:
        stored, _ = self.bridge.load()
        for call in self.adapter.calls:
            record = stored.operation(call.operation_key)
            assert record is not None, call
            if call.kind == "compensate":
                assert record.compensation is not None, call


TestSessionOrdering = SessionMachine.TestCase
