"""The host refinement machine: a Hypothesis state machine over the reference host whose
every step is checked against the model (used by ``test_refinement_host``).

It drives a ``WorkflowEngine`` behind a ``HostLedgerDriver`` over an authenticated store:
recording operations under derived keys; worker results through real authenticated frames
(after a dispatch or a reconciliation, contradictions, a result for another request id);
compensation intents (a second one, one under a stale policy); approvals with the recorded
or a drifted input; prepares that use a fresh approval, reuse one, come after the revision
moved or from an older engine, or aim at another operation; compensation results (also for
frames of a dead session); store faults that poison the driver; restarts that recover from
the last persisted ledger, sometimes under a narrower grant. After every step the host is
mapped to the model (``rescind.model.refinement.host``) and z3 must explain the change by
the one model action that kind of step allows, or by none. A disagreement fails with the
numbered steps and both snapshots.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Iterator, Sequence
from typing import TypeVar

import attrs
from hypothesis import event, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
from hypothesis.stateful import RuleBasedStateMachine, initialize, precondition, rule

from rescind.conformance.interpreters.trace_support import ScriptedVerifier
from rescind.model.refinement.abstraction import Abstraction, describe
from rescind.model.refinement.host import (
    ApprovalView,
    HostCompensationView,
    HostObservation,
    HostOperationView,
    explain_host_step,
    render,
)
from rescind.reference.errors import RescindError
from rescind.reference.frames import AuthenticatedFrame, SessionAuthenticator, SessionRole
from rescind.reference.grants import CapabilityGrant, GrantAttenuation
from rescind.reference.host.approvals import Approval
from rescind.reference.host.compensation import (
    WorkflowCompensationDispatch,
    WorkflowCompensationPolicy,
    WorkflowCompensationTarget,
)
from rescind.reference.host.engine import WorkflowEngine
from rescind.reference.host.host_frames import PreparedFrame
from rescind.reference.host.ledger import WorkflowOperationLedger
from rescind.reference.host.ledger_driver import HostLedgerDriver, LedgerRecordMissing
from rescind.reference.host.plan import IdCounter
from rescind.reference.messages import (
    OperationCompensationRequest,
    OperationCompensationResult,
    OperationReconcileResult,
    OperationStatus,
)
from rescind.reference.payload import ToolPayload
from rescind.reference.payload_format import PayloadFormat
from rescind.reference.storage.authenticated import AuthenticatedRecord, AuthenticatedStore
from rescind.reference.storage.errors import StoreOutcomeUnknown, StoreUnavailable
from rescind.reference.storage.keyring import Keyring
from rescind.reference.storage.memory import MemoryBackend
from rescind.reference.storage.tag import RecordKey, StorageKey
from rescind.reference.worker_message import (
    CompensationResult,
    OperationResult,
    ReconciledOperation,
    WorkerMessage,
)
from tests.model.grant_views import grant_view

TOOL = "release.publish"
SCOPE = "tenant-release"
SESSION_KEY = bytes([0x5A]) * 32
KEYRING = Keyring.single("storage-v1", StorageKey(bytes([0x1D]) * 32))
RECORD = RecordKey("workflow-ledger", "refinement")
STEPS = (("publish", "release.publish(version)"), ("announce", "release.publish(notes)"))
ROOT_GRANT = CapabilityGrant(TOOL, PayloadFormat.TEXT, 10_000, 1024, 64, 4)
NARROWER = ROOT_GRANT.attenuate(GrantAttenuation(max_compensations=2))
NO_COMPENSATION = NARROWER.attenuate(GrantAttenuation(max_compensations=0))
GRANT_CHAIN = (ROOT_GRANT, NARROWER, NO_COMPENSATION)
# label -> (step, input, nonce); recording a label twice derives the same key again.
OPERATIONS = {
    "a": ("publish", "1.2.3", b"nonce-a"),
    "b": ("publish", "1.2.4", b"nonce-b"),
    "c": ("announce", "notes", b"nonce-c"),
}
INTENTS = {"first": ("undo 1.2.3", b"intent-1"), "second": ("undo again", b"intent-2")}
DRIFTED = ToolPayload.text("undo something else")
STATUSES = {
    "running": OperationStatus.running(),
    "succeeded": OperationStatus.succeeded(ToolPayload.text("published")),
    "failed": OperationStatus.failed("boom"),
    "cancelled": OperationStatus.cancelled(),
}
FAULTS = ("unavailable", "lost_ack", "takeover")

LABEL = st.sampled_from(sorted(OPERATIONS))
# Compensation steps mostly aim at "a", the original that starts succeeded.
MOSTLY_A = st.sampled_from(["a", "a", "a", "b", "c"])
OUTCOME = st.sampled_from(["succeeded", "succeeded", *sorted(STATUSES)])
VIA = st.sampled_from(["dispatch", "reconcile", "reconcile", "mismatched"])
CHOICE = st.integers(0, 7)
ONE_IN_THREE = st.sampled_from([False, False, True])
PICKS = ("new", "again", "any")
INTENT_VARIANT = st.sampled_from(["first", "first", "second", "stale-policy"])
STAGES = ("succeeded", "intent", "approved", "sealed")

PROFILE = settings()
HOST_REFINEMENT_SETTINGS = settings(
    parent=PROFILE,
    max_examples=max(10, PROFILE.max_examples // 2),
    stateful_step_count=20,
)


T = TypeVar("T")


def latest_first(items: Sequence[T], choice: int) -> T:
    """Choice 0 is the newest item (Hypothesis favours small choices), larger ones reach
    back to older approvals and frames."""
    return items[len(items) - 1 - choice % len(items)]


def note(text: str) -> None:
    """A Hypothesis statistics event (``--hypothesis-show-statistics``); tests that call the
    rules directly run outside Hypothesis, where there is nothing to record."""
    with contextlib.suppress(InvalidArgument):
        event(text)


class FaultyLedgerStore(AuthenticatedStore):
    """Fails the next fenced write once, before it lands or after (a lost acknowledgement)."""

    def __init__(self) -> None:
        super().__init__(MemoryBackend(), KEYRING)
        self.fault: str | None = None
        self.fired: str | None = None

    def compare_and_swap_fenced(
        self, key: RecordKey, expected: int | None, payload: bytes, token: int
    ) -> AuthenticatedRecord:
        fault, self.fault = self.fault, None
        self.fired = fault
        if fault == "unavailable":
            raise StoreUnavailable(operation="write", reason="injected")
        record = super().compare_and_swap_fenced(key, expected, payload, token)
        if fault == "lost_ack":
            raise StoreOutcomeUnknown(operation="write", reason="injected")
        return record


class HostRefinementMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.store = FaultyLedgerStore()
        self.engine_ids = IdCounter()
        self.session_numbers = itertools.count(1)
        self.request_numbers = itertools.count(1)
        self.grant = ROOT_GRANT
        self.verifier = ScriptedVerifier()
        self.approvals: list[tuple[str, Approval]] = []
        self.last_used: tuple[str, Approval] | None = None
        self.uses: dict[str, int] = {}
        self.prepared: list[PreparedFrame[OperationCompensationRequest]] = []
        self.intents_seen: dict[str, set[tuple[str, str, str, str]]] = {}
        self.watermark = 0
        self.history: list[str] = []
        self.refusal: str | None = None
        self.explanations: list[list[str]] = []
        self.abstraction = Abstraction()
        self.driver = HostLedgerDriver.start(
            WorkflowEngine(self.engine_ids), STEPS, self.store, RECORD
        )
        self._open_session()
        self.keys = {
            label: self.driver.engine.derive_operation_key(
                self.driver.plan, step, TOOL, ToolPayload.text(text).canonical_input_bytes(), nonce
            )
            for label, (step, text, nonce) in OPERATIONS.items()
        }
        self.labels = {key: label for label, key in self.keys.items()}
        self.seen = self.observe()

    # -- the concrete side ---------------------------------------------------------------

    def _open_session(self) -> None:
        session_id = f"host-{next(self.session_numbers)}"
        self.auth = SessionAuthenticator(session_id, SESSION_KEY, SessionRole.HOST)

    def _request_id(self) -> str:
        return f"r{next(self.request_numbers)}"

    def _worker_frame(self, session_id: str, message: WorkerMessage) -> AuthenticatedFrame:
        """What a worker of ``session_id`` would send next: its outgoing sequence is the one
        the host expects, so only the content decides whether the host accepts it."""
        worker = SessionAuthenticator(
            session_id, SESSION_KEY, SessionRole.WORKER, next_outgoing=self.auth.next_incoming
        )
        return worker.seal(message)

    def _target(
        self, key: str, policy_grant: CapabilityGrant | None = None
    ) -> WorkflowCompensationTarget:
        policy = WorkflowCompensationPolicy.create(SCOPE, policy_grant or self.grant)
        return WorkflowCompensationTarget(key, policy, self.grant, self.verifier, self.verifier)

    def _intent_payload(self, key: str) -> ToolPayload:
        """The input of the intent the ledger holds for ``key`` (the host knows what it
        recorded), or the first intent's input when there is none."""
        operation = self.driver.ledger.operation(key)
        for text, _ in INTENTS.values():
            payload = ToolPayload.text(text)
            intent = operation.compensation if operation is not None else None
            if intent is not None and intent.matches_input(payload.canonical_input_bytes()):
                return payload
        return ToolPayload.text(INTENTS["first"][0])

    def durable(self) -> WorkflowOperationLedger:
        record = self.store.load(RECORD)
        if record is None:
            return WorkflowOperationLedger(self.driver.plan.fingerprint)
        return WorkflowOperationLedger.from_json(record.payload)

    def observe(self) -> HostObservation:
        """The ledger a restart would recover (the model's host ledger is durable at every
        mutation), the approvals issued so far and the grant in use."""
        ledger = self.durable()
        if not self.driver.poisoned:
            assert self.driver.ledger == ledger, (
                "the host works on a ledger that differs from the persisted one\n" + self._trace()
            )
        self.watermark = max(self.watermark, ledger.revision)
        operations = {}
        for operation in ledger:
            seen = self.intents_seen.setdefault(operation.operation_key, set())
            view = None
            intent = operation.compensation
            if intent is not None:
                seen.add(
                    (
                        intent.compensation_key,
                        intent.input_fingerprint,
                        intent.tenant_scope,
                        intent.grant_fingerprint,
                    )
                )
                view = HostCompensationView(
                    intent.compensation_key,
                    intent.tenant_scope,
                    intent.grant_fingerprint,
                    intent.state.value,
                )
            operations[operation.operation_key] = HostOperationView(
                operation.tool, operation.state.value, view, len(seen)
            )
        approvals = {}
        for name, approval in self.approvals:
            binding = approval.binding
            assert binding is not None
            approvals[name] = ApprovalView(
                binding.operation_key, binding.ledger_revision, approval.consumed, self.uses[name]
            )
        return HostObservation(
            ledger.revision, operations, approvals, {TOOL: grant_view(self.grant)}
        )

    def _trace(self) -> str:
        legend = ", ".join(f"{label} = {key}" for label, key in sorted(self.keys.items()))
        steps = "\n".join(f"  {n}. {step}" for n, step in enumerate(self.history, 1))
        return f"{steps}\n  (keys: {legend})"

    def check(self, kind: str, label: str) -> None:
        self.history.append(label)
        after = self.observe()
        if after == self.seen:
            # Nothing observable changed: the model stays put (a stutter), and this snapshot
            # was already accepted as an earlier step's target (or is the initial, empty
            # ledger). Skipping z3 here halves the run and keeps shrinking affordable.
            self.explanations.append([])
            return
        path = explain_host_step(self.abstraction, self.seen, after, kind)
        assert path is not None, (
            f"the model allows no transition for this reference step ({kind})\n"
            + self._trace()
            + "\nbefore:\n    "
            + "\n    ".join(render(self.seen))
            + "\nafter:\n    "
            + "\n    ".join(render(after))
        )
        self.explanations.append(describe(path))
        self.seen = after

    @property
    def healthy(self) -> bool:
        return not self.driver.poisoned

    # -- rules -----------------------------------------------------------------------------

    @contextlib.contextmanager
    def _driver_call(self) -> Iterator[None]:
        """One driver call. Any refusal is part of the step (the model must allow what it
        left behind); the trace names the refusal and any store fault that fired."""
        self.refusal = None
        self.store.fired = None
        try:
            yield
        except RescindError as error:
            self.refusal = error.code

    def _outcome(self) -> str:
        fired = self.store.fired
        label = "" if fired is None else f" [store: {fired}]"
        return label if self.refusal is None else f"{label}: refused ({self.refusal})"

    @initialize(stage=st.sampled_from(STAGES))
    def an_original_succeeds(self, stage: str = "succeeded") -> None:
        """Start from one succeeded original and, depending on ``stage``, its intent, an
        approval, a sealed compensation frame: every step on the way is checked like any
        other. Hypothesis runs only a random subset of the rules in each example (swarm
        testing), so a deep start is what lets the compensation rules meet each other."""
        self.record_operation("a")
        self.worker_result("a", "succeeded", "dispatch")
        depth = STAGES.index(stage)
        if depth >= 1:
            self.record_compensation("a", "first")
        if depth >= 2:
            self.approve("a", False)
        if depth >= 3:
            self.prepare(0, False, "any")

    @rule(label=LABEL)
    def record_operation(self, label: str) -> None:
        step, text, nonce = OPERATIONS[label]
        with self._driver_call():
            self.driver.record_operation(step, TOOL, ToolPayload.text(text), nonce)
        self.check("record_operation", f"record operation {label}{self._outcome()}")

    @rule(label=LABEL, outcome=OUTCOME, via=VIA)
    def worker_result(self, label: str, outcome: str, via: str) -> None:
        """A worker result through the driver: after a dispatch or a reconciliation, or one
        that answers another request id. Contradictions come from the outcome draw."""
        key, payload = self.keys[label], ToolPayload.text(OPERATIONS[label][1])
        status = STATUSES[outcome]
        before = self.driver.ledger.operation(key)
        if before is not None and before.is_terminal and before.state.value != outcome:
            note("host: contradicting result")
        with self._driver_call():
            if via == "reconcile":
                asked = self.driver.reconcile(
                    key, payload.canonical_input_bytes(), self._request_id(), self.auth
                )
                result = OperationReconcileResult.for_request(asked.request, status)
                frame = self._worker_frame(asked.request.session_id, ReconciledOperation(result))
                self.driver.apply_reconciliation(asked, self.auth, frame)
            else:
                sent = self.driver.dispatch(key, payload, self._request_id(), self.auth)
                result = OperationReconcileResult.for_request(sent.request, status)
                if via == "mismatched":
                    result = attrs.evolve(result, request_id=f"{result.request_id}-other")
                frame = self._worker_frame(sent.request.session_id, OperationResult(result))
                self.driver.apply_dispatch_result(sent, self.auth, frame)
        self.check(
            "worker_result",
            f"worker result {label} {outcome} via {via}{self._outcome()}",
        )

    @rule(label=MOSTLY_A, variant=INTENT_VARIANT)
    def record_compensation(self, label: str, variant: str) -> None:
        key = self.keys[label]
        text, nonce = INTENTS["second" if variant == "second" else "first"]
        existing = self.driver.ledger.operation(key)
        if existing is not None and existing.compensation is not None:
            note("host: another intent for a compensated original")
        with self._driver_call():
            target = self._target(key, ROOT_GRANT if variant == "stale-policy" else None)
            self.driver.record_compensation(target, ToolPayload.text(text), nonce)
        self.check(
            "record_compensation",
            f"record compensation intent {label} ({variant}){self._outcome()}",
        )

    @precondition(lambda self: self.healthy)
    @rule(label=MOSTLY_A, drifted=ONE_IN_THREE)
    def approve(self, label: str, drifted: bool) -> None:
        """Approve with the driver's plan and ledger (a healthy driver's ledger is the
        persisted one, which is what the driver's own ``compensate`` requires)."""
        key = self.keys[label]
        payload = DRIFTED if drifted else self._intent_payload(key)
        try:
            approval = self.driver.engine.compensations.approve_compensation(
                self.driver.plan,
                self.driver.ledger,
                self._target(key),
                payload.canonical_input_bytes(),
                self.auth,
            )
        except RescindError as error:
            name = f"refused ({error.code})"
        else:
            name = f"e{approval.engine_id}-n{approval.nonce}"
            self.approvals.append((name, approval))
            self.uses[name] = 0
            note("host: approval issued")
        self.check("approve", f"approve {label}{' (drifted input)' if drifted else ''}: {name}")

    @precondition(lambda self: self.healthy)
    @rule(choice=CHOICE, retarget=ONE_IN_THREE, pick=st.sampled_from(PICKS))
    def prepare(self, choice: int, retarget: bool, pick: str) -> None:
        """Prepare, sometimes aimed at another operation, with: an approval issued just now
        (``new``: approved first, checked as its own step), the approval the last prepare
        used (``again``), or any approval issued so far (``any``: unused, already used,
        bound to an older revision or another engine)."""
        if pick == "again" and self.last_used is not None:
            name, approval = self.last_used
        else:
            if pick == "new" or not self.approvals:
                self.approve("a", False)
                if not self.approvals:
                    return
                choice = 0
            name, approval = latest_first(self.approvals, choice)
        self.last_used = (name, approval)
        binding = approval.binding
        assert binding is not None
        key = binding.operation_key
        if retarget:
            key = self.keys[min(label for label, other in self.keys.items() if other != key)]
        notes = [
            text
            for text, present in (
                ("already used", approval.consumed),
                ("revision moved", binding.ledger_revision != self.driver.ledger.revision),
                ("older engine", approval.engine_id != self.driver.engine.engine_id),
                ("other operation", retarget),
            )
            if present
        ]
        for text in notes:
            note(f"host: prepare, {text}")
        was_consumed = approval.consumed
        dispatch = WorkflowCompensationDispatch(self._request_id(), self._intent_payload(key))
        try:
            prepared = (
                self.driver.engine.compensations.prepare_authenticated_operation_compensation(
                    self.driver.plan,
                    self.driver.ledger,
                    self._target(key),
                    approval,
                    dispatch,
                    self.auth,
                )
            )
        except RescindError as error:
            outcome = f"refused ({error.code})"
        else:
            self.prepared.append(prepared)
            outcome = "sealed"
            note("host: compensation sealed")
        if outcome == "sealed" or (approval.consumed and not was_consumed):
            self.uses[name] += 1
        label = self.labels[key]
        self.check(
            "prepare",
            f"prepare {label} with {name} ({', '.join(notes) or 'unused'}): {outcome}",
        )

    @precondition(lambda self: self.prepared or self.healthy)
    @rule(choice=CHOICE, outcome=OUTCOME, fresh=st.booleans())
    def compensation_result(self, choice: int, outcome: str, fresh: bool) -> None:
        """The worker's answer to a sealed compensation frame: one sealed earlier (perhaps
        before a restart, in a session the host no longer has), or one sealed just now
        (``fresh``, while the driver is healthy: approve and prepare first, each checked as
        its own step)."""
        if (fresh and self.healthy) or not self.prepared:
            sealed = len(self.prepared)
            self.prepare(0, False, "new")
            if len(self.prepared) == sealed:
                return
            choice = 0
        prepared = latest_first(self.prepared, choice)
        request = prepared.request
        result = OperationCompensationResult.for_request(request, STATUSES[outcome])
        frame = self._worker_frame(request.session_id, CompensationResult(result))
        before = self.durable().revision
        with self._driver_call():
            self.driver.apply_compensation(prepared, self.auth, frame)
        if self.durable().revision != before:
            note("host: compensation result changed the ledger")
        label = self.labels[request.operation_key]
        self.check(
            "compensation_result",
            f"compensation result {label} {outcome} ({request.session_id})" + self._outcome(),
        )

    @precondition(lambda self: self.healthy and self.store.fault is None)
    @rule(fault=st.sampled_from(FAULTS))
    def store_fault(self, fault: str) -> None:
        """The host's next write fails before it lands or lands without an acknowledgement,
        or another host takes the fence now (so the next write is refused). Each poisons the
        driver at its next write; only a restart recovers."""
        note(f"host: store fault {fault}")
        if fault == "takeover":
            self.store.reserve_fence(RECORD)
        else:
            self.store.fault = fault
        self.check("store_fault", f"store fault armed: {fault}")

    @rule(narrow=ONE_IN_THREE)
    def restart(self, narrow: bool) -> None:
        """A new host process: new engine, recovery from the last persisted ledger at or
        after the highest revision seen, a new session, perhaps under a narrower grant. Old
        approvals and frames stay in the test's hands, as a buggy host might present them."""
        if self.driver.poisoned:
            note("host: restart of a poisoned driver")
        self.store.fault = None  # an armed fault belonged to the old process's next write
        engine = WorkflowEngine(self.engine_ids)
        try:
            self.driver = HostLedgerDriver.recover(
                engine, STEPS, self.store, RECORD, self.watermark
            )
        except LedgerRecordMissing:
            self.driver = HostLedgerDriver.start(engine, STEPS, self.store, RECORD)
        self._open_session()
        if narrow and self.grant is not GRANT_CHAIN[-1]:
            self.grant = GRANT_CHAIN[GRANT_CHAIN.index(self.grant) + 1]
            label = f"restart under a grant with {self.grant.max_compensations} compensations"
            self.check("restart_narrowed", label)
        else:
            self.check("restart", "restart")
