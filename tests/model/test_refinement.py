"""Refinement: every step of the reference worker is a transition the model allows.

A Hypothesis state machine drives the reference ``WorkerSession`` over its authenticated
journal store (dispatches, compensations with the right or a wrong scope, key or grant
fingerprint, reconciliations, adapter outcomes, store faults before and after the effect,
restarts, attenuated restarts, lease takeovers, writes under superseded leases). After every
step the concrete state is mapped to the model (``rescind.model.refinement.abstraction``) and z3 must
find a path of model actions that explains the change. A disagreement fails with the shrunk
sequence of steps and both snapshots.
"""

from __future__ import annotations

import contextlib
import itertools
from collections import Counter
from typing import Any

import attrs
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, precondition, rule

from rescind.conformance.interpreters.doubles import FaultyJournalStore, ScriptedAdapter
from rescind.model.refinement.abstraction import (
    JOURNAL_STEPS,
    Abstraction,
    CompensationView,
    RecordView,
    WorkerObservation,
    authorizer_identities,
    describe,
)
from rescind.reference.errors import RescindError
from rescind.reference.frames import SessionAuthenticator, SessionRole
from rescind.reference.grants import CapabilityGrant, GrantAttenuation
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
from rescind.reference.worker.journal_store import AuthenticatedWorkerJournalStore, issue_lease
from rescind.reference.worker.records import OperationRecord, WorkerOperationState
from rescind.reference.worker.session import WorkerSession, WorkerSessionLimits
from rescind.reference.worker.session_errors import AdapterIndeterminate, AdapterReportedFailure
from rescind.reference.worker_message import (
    CompensateOperation,
    DispatchOperation,
    OpenSession,
    ReconcileOperation,
    WorkerMessage,
)
from tests.model.grant_views import grant_view

TOOL = "text.echo"
SCOPE = "tenant"
SESSION_KEY = bytes([0x52]) * 32
KEYS = ("op-1", "op-2")
ROOT_GRANT = CapabilityGrant(TOOL, PayloadFormat.TEXT, 10_000, 1024, 16, 8)
NARROWER = ROOT_GRANT.attenuate(GrantAttenuation(max_compensations=2, max_calls=5_000))
OUTCOMES = {
    "success": OperationStatus.succeeded(ToolPayload.text("done")),
    "other-success": OperationStatus.succeeded(ToolPayload.text("else")),
    "running": OperationStatus.running(),
    "failed-status": OperationStatus.failed("boom"),
    "cancelled": OperationStatus.cancelled(),
    "oversized": OperationStatus.succeeded(ToolPayload.text("x" * 17)),
    "adapter-failed": AdapterReportedFailure(),
    "adapter-indeterminate": AdapterIndeterminate(),
}
FAULTS = ("unavailable", "conflict", "expired_lease", "non_increasing", "lost_ack")
KEY_CHOICE = st.sampled_from(KEYS)
OUTCOME_CHOICE = st.sampled_from(["success", "success", *sorted(OUTCOMES)])
# A store fault in about one request out of four.
FAULT_CHOICE = st.one_of(
    st.none(), st.none(), st.none(), st.tuples(st.integers(1, 2), st.sampled_from(FAULTS))
)
VARIANT_CHOICE = st.sampled_from(["exact", "exact", "other-key", "other-scope", "stale-grant"])

PROFILE = settings()
REFINEMENT_SETTINGS = settings(
    parent=PROFILE,
    max_examples=max(10, PROFILE.max_examples // 3),
    stateful_step_count=12,
)


def _state_view(state: WorkerOperationState) -> tuple[str, str | None]:
    if state.payload is not None:
        return state.phase.value, f"payload:{state.payload!r}"
    if state.message is not None:
        return state.phase.value, f"message:{state.message}"
    return state.phase.value, None


def _record_view(record: OperationRecord) -> RecordView:
    phase, result = _state_view(record.state)
    compensation = None
    if record.compensation is not None:
        c_phase, c_result = _state_view(record.compensation.state)
        compensation = CompensationView(
            record.compensation.compensation_key,
            record.compensation.input_fingerprint,
            record.compensation.grant_fingerprint,
            c_phase,
            c_result,
        )
    return RecordView(record.tool, record.input_fingerprint, phase, result, compensation)


def _journal_view(journal: WorkerOperationJournal) -> dict[str, RecordView]:
    return {record.operation_key: _record_view(record) for record in journal.records}


class RefinementMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        keyring = Keyring.single("storage-v1", StorageKey(bytes([0x1D]) * 32))
        self.bridge = AuthenticatedWorkerJournalStore(
            AuthenticatedStore(MemoryBackend(), keyring), "worker-journal", SCOPE
        )
        self.store = FaultyJournalStore(self.bridge)
        self.adapter = ScriptedAdapter()
        self.abstraction = Abstraction()
        self.ids = itertools.count(1)
        self.sessions = itertools.count(1)
        self.tokens: list[int] = []
        self.grant = ROOT_GRANT
        self.history: list[str] = []
        self._open(self.grant)
        self.seen = self.observe()

    # -- the concrete side ---------------------------------------------------------------

    def _open(self, grant: CapabilityGrant) -> None:
        session_id = f"worker-{next(self.sessions)}"
        host = SessionAuthenticator(session_id, SESSION_KEY, SessionRole.HOST)
        frame = host.seal(OpenSession(SessionManifest.new(session_id, [grant])))
        journal, revision = self.bridge.load()
        admission = self.bridge.admission()
        tokens = self.tokens

        class Recording:
            def admit(self, manifest: SessionManifest, scope: str) -> int:
                token = admission.admit(manifest, scope)
                tokens.append(token)
                return token

        self.session = WorkerSession.open(
            SessionAuthenticator(session_id, SESSION_KEY, SessionRole.WORKER),
            frame,
            {TOOL: self.adapter},
            journal,
            revision,
            Recording(),
            WorkerSessionLimits(10_000, 10_000),
        )
        self.session_token = self.tokens[-1]
        self.host = host
        self.session_id = session_id
        self.grant = grant

    def _header(self, key: str) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "request_id": f"r{next(self.ids)}",
            "tool": TOOL,
            "operation_key": key,
        }

    def _send(self, message: WorkerMessage, outcome: str, fault: tuple[int, str] | None) -> None:
        if fault is not None:
            self.store.arm(*fault)
        self.adapter.clear()
        self.adapter.push(OUTCOMES[outcome])
        # Refusals are steps too: the model must allow whatever they left behind.
        with contextlib.suppress(RescindError):
            self.session.handle(self.host.seal(message), self.store)
        self.adapter.clear()
        self.store.disarm()

    def observe(self) -> WorkerObservation:
        fence = self.bridge.store.current_fence(self.bridge.record_key)
        stored, _ = self.bridge.load()
        current = self.session_token == fence
        calls = Counter((call.kind, call.operation_key) for call in self.adapter.calls)
        effects = {key: calls[("dispatch", key)] for key in KEYS}
        inverse = {key: calls[("compensate", key)] for key in KEYS}
        grants = {TOOL: grant_view(self.grant)}
        if current and not self.session.poisoned:
            used = {TOOL: self.session.authorizer.compensations_for(TOOL)}
            return WorkerObservation(
                SCOPE,
                _journal_view(stored),
                _journal_view(self.session.journal),
                True,
                self.session_token,
                fence,
                effects,
                inverse,
                used,
                grants,
                authorizer_identities(self.session.authorizer),
            )
        if current:  # poisoned: the session is dead until the host opens a new one
            return WorkerObservation(
                SCOPE,
                _journal_view(stored),
                None,
                False,
                fence,
                fence,
                effects,
                inverse,
                None,
                grants,
            )
        # A newer writer holds the lease; it loaded the stored journal and has not acted yet,
        # so its authorizer has spent nothing.
        stored_view = _journal_view(stored)
        return WorkerObservation(
            SCOPE,
            stored_view,
            stored_view,
            True,
            fence,
            fence,
            effects,
            inverse,
            {TOOL: 0},
            grants,
            frozenset(),
        )

    def check(self, kind: str, label: str) -> None:
        self.history.append(label)
        after = self.observe()
        path = self.abstraction.explain(self.seen, after, JOURNAL_STEPS[kind])
        assert path is not None, (
            "the model allows no transition for this reference step\n"
            + "\n".join(f"  {n}. {step}" for n, step in enumerate(self.history, 1))
            + f"\nbefore: {self.seen}\nafter:  {after}"
        )
        self.explained = describe(path)
        self.seen = after

    # -- rules -----------------------------------------------------------------------------

    @initialize()
    def an_original_succeeds(self) -> None:
        """Start from one succeeded original, so compensations have something to undo."""
        self.dispatch(KEYS[0], "success", None)

    @rule(key=KEY_CHOICE, outcome=OUTCOME_CHOICE, fault=FAULT_CHOICE)
    def dispatch(self, key: str, outcome: str, fault: tuple[int, str] | None) -> None:
        request = OperationDispatchRequest(
            **self._header(key), payload=ToolPayload.text(f"do {key}")
        )
        self._send(DispatchOperation(request), outcome, fault)
        self.check("dispatch", f"dispatch {key} adapter={outcome} fault={fault}")

    @rule(key=KEY_CHOICE, outcome=OUTCOME_CHOICE, fault=FAULT_CHOICE, variant=VARIANT_CHOICE)
    def compensate(
        self, key: str, outcome: str, fault: tuple[int, str] | None, variant: str
    ) -> None:
        grant = ROOT_GRANT if variant == "stale-grant" else self.grant
        request = OperationCompensationRequest(
            **self._header(key),
            compensation_key=f"cmp-{key}-b" if variant == "other-key" else f"cmp-{key}",
            tenant_scope="other-tenant" if variant == "other-scope" else SCOPE,
            grant_fingerprint=grant.compensation_fingerprint(),
            payload=ToolPayload.text(f"undo {key}"),
        )
        self._send(CompensateOperation(request), outcome, fault)
        self.check("compensate", f"compensate {key} {variant} adapter={outcome} fault={fault}")

    @rule(key=KEY_CHOICE, outcome=OUTCOME_CHOICE, fault=FAULT_CHOICE)
    def reconcile(self, key: str, outcome: str, fault: tuple[int, str] | None) -> None:
        request = OperationReconcileRequest(**self._header(key))
        self._send(ReconcileOperation(request), outcome, fault)
        self.check("reconcile", f"reconcile {key} adapter={outcome} fault={fault}")

    def healthy(self) -> bool:
        fence = self.bridge.store.current_fence(self.bridge.record_key)
        return self.session_token == fence and not self.session.poisoned

    @precondition(lambda self: not self.healthy())
    @rule()
    def restart(self) -> None:
        self._open(self.grant)
        self.check("restart", "restart")

    @precondition(lambda self: self.grant == ROOT_GRANT and not self.healthy())
    @rule()
    def restart_attenuated(self) -> None:
        self._open(NARROWER)
        self.check("restart_attenuated", "restart under an attenuated grant")

    @precondition(lambda self: self.healthy())
    @rule()
    def takeover(self) -> None:
        self.tokens.append(self.bridge.store.reserve_fence(self.bridge.record_key))
        self.check("takeover", "another writer reserves the next lease")

    @precondition(lambda self: len(self.tokens) > 1)
    @rule(data=st.data())
    def superseded_write(self, data: st.DataObject) -> None:
        fence = self.bridge.store.current_fence(self.bridge.record_key)
        old = data.draw(st.sampled_from([t for t in self.tokens if t < fence]))
        _, revision = self.bridge.load()
        with contextlib.suppress(RescindError):
            self.bridge.persist(WorkerOperationJournal.new(SCOPE), revision, issue_lease(old))
        self.check("superseded_write", f"write an empty journal under lease {old}")


RefinementMachine.TestCase.settings = REFINEMENT_SETTINGS
TestReferenceRefinesModel = RefinementMachine.TestCase


# -- the harness itself: it must reject what the model forbids -------------------------------


def _empty(**changes: Any) -> WorkerObservation:
    base = WorkerObservation(
        SCOPE, {}, {}, True, 1, 1, {}, {}, {TOOL: 0}, {TOOL: grant_view(ROOT_GRANT)}, frozenset()
    )
    return attrs.evolve(base, **changes)


PENDING = RecordView(TOOL, "a" * 64, "pending")
SUCCEEDED = RecordView(TOOL, "a" * 64, "succeeded", "payload:done")


def test_harness_explains_a_persisted_admission_and_its_effect() -> None:
    after = _empty(stored={"op-1": PENDING}, memory={"op-1": PENDING}, effects={"op-1": 1})
    path = Abstraction().explain(_empty(), after, JOURNAL_STEPS["dispatch"])
    assert path is not None
    assert describe(path) == ["admit", "persist", "dispatch_effect"]


def test_harness_rejects_an_effect_without_a_stored_admission() -> None:
    after = _empty(memory={"op-1": PENDING}, effects={"op-1": 1})
    assert Abstraction().explain(_empty(), after, JOURNAL_STEPS["dispatch"]) is None


def test_harness_rejects_a_stored_terminal_state_going_back() -> None:
    before = _empty(stored={"op-1": SUCCEEDED}, memory={"op-1": SUCCEEDED})
    after = _empty(stored={"op-1": PENDING}, memory={"op-1": PENDING})
    assert Abstraction().explain(before, after, JOURNAL_STEPS["reconcile"]) is None


def test_harness_rejects_a_second_effect() -> None:
    before = _empty(stored={"op-1": SUCCEEDED}, memory={"op-1": SUCCEEDED}, effects={"op-1": 1})
    after = attrs.evolve(before, effects={"op-1": 2})
    assert Abstraction().explain(before, after, JOURNAL_STEPS["dispatch"]) is None


def test_a_reference_that_runs_the_effect_twice_is_caught() -> None:
    machine = RefinementMachine()
    adapter = machine.adapter
    original = adapter.dispatch_operation

    def twice(request: OperationDispatchRequest) -> OperationStatus:
        status = original(request)
        adapter.calls.append(adapter.calls[-1])  # the effect ran a second time
        return status

    adapter.dispatch_operation = twice  # type: ignore[method-assign]
    with pytest.raises(AssertionError, match="allows no transition"):
        machine.dispatch("op-2", "success", None)
