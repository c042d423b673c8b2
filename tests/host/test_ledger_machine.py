"""A Hypothesis state machine over the host engine: records, compensation intents,
observations of both, approvals and prepares with random drift in between.

The model is written from the spec (docs/spec/ledger.md HL-10, HL-4, HL-22, HL-23), not from the
reference: its own transition table, its own revision count, its own notion of which
approval is still usable. After every step it checks that the revision moved exactly on
state-changing calls, that each operation has at most one compensation, that terminal
states never change, and the rule implicit in every step: a refused call leaves the ledger's
encoding unchanged; an approval is never usable twice.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from rescind.conformance.interpreters.trace_support import ScriptedVerifier
from rescind.reference.errors import RescindError
from rescind.reference.frames import SessionAuthenticator, SessionRole
from rescind.reference.grants import CapabilityGrant
from rescind.reference.host.approvals import Approval
from rescind.reference.host.compensation import (
    WorkflowCompensationDispatch,
    WorkflowCompensationPolicy,
    WorkflowCompensationTarget,
)
from rescind.reference.host.engine import WorkflowEngine
from rescind.reference.host.plan import IdCounter
from rescind.reference.messages import (
    OperationCompensationRequest,
    OperationCompensationResult,
    OperationReconcileResult,
    OperationStatus,
)
from rescind.reference.payload import ToolPayload

TOOL = "release.publish"
KEYS = ("op-a", "op-b", "op-c", "op-d", "cmp-bad", "Op-Bad")
UNKNOWN = ("op-z", "cmp-bad", "Op-Bad")
STATES = ("running", "succeeded", "failed", "cancelled")
TERMINAL = {"succeeded", "failed", "cancelled"}
# HL-10, written out: the accepted (current, observed) pairs.
ACCEPTED = (
    {("pending", observed) for observed in STATES}
    | {("running", observed) for observed in STATES}
    | {(state, state) for state in TERMINAL}
)
UNDO = ToolPayload.json_text('{"undo":"release"}')
DRIFTED_UNDO = ToolPayload.json_text('{"undo":"other"}')


def _status(state: str, variant: int) -> OperationStatus:
    if state == "running":
        return OperationStatus.running()
    if state == "succeeded":
        return OperationStatus.succeeded(ToolPayload.python({"n": variant}))
    if state == "failed":
        return OperationStatus.failed(f"failure {variant}")
    return OperationStatus.cancelled()


def _input(variant: int) -> bytes:
    return ToolPayload.python({"version": variant}).canonical_input_bytes()


@dataclass
class ModelOperation:
    input: bytes
    state: str = "pending"
    compensation: str | None = None


@dataclass
class ModelApproval:
    approval: Approval
    revision: int
    operation_key: str
    session: str
    used: bool = False


@dataclass
class Model:
    revision: int = 0
    operations: dict[str, ModelOperation] = field(default_factory=dict)


class HostLedgerMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.engine = WorkflowEngine(IdCounter())
        self.plan = self.engine.plan([("publish", "let release = true"), ("build", "make")])
        self.ledger = self.engine.operation_ledger(self.plan)
        key = bytes([0x0D]) * 32
        self.sessions = {
            "a": SessionAuthenticator("worker-1", key, SessionRole.HOST),
            "b": SessionAuthenticator("worker-2", key, SessionRole.HOST),
        }
        grant = CapabilityGrant.json(TOOL).with_compensation_limit(1)
        self.verifier = ScriptedVerifier()
        self.policy = WorkflowCompensationPolicy.create("tenant-release", grant)
        self.grant = grant
        self.model = Model()
        self.approvals: list[ModelApproval] = []
        self.requests: list[OperationCompensationRequest] = []
        self.terminal_seen: dict[str, str] = {}
        self.terminal_compensations: dict[str, str] = {}

    def _target(self, operation_key: str) -> WorkflowCompensationTarget:
        return WorkflowCompensationTarget(
            operation_key, self.policy, self.grant, self.verifier, self.verifier
        )

    def _attempt(self, expected_ok: bool, action: object) -> object:
        """Run ``action``; a refusal must leave the encoding as it was."""
        before = self.ledger.to_json()
        assert callable(action)
        try:
            result = action()
        except RescindError:
            assert self.ledger.to_json() == before
            assert not expected_ok
            return None
        assert expected_ok
        return result

    # -- rules ---------------------------------------------------------------------------

    def _keys(self, data: st.DataObject, wanted: str | None = None) -> str:
        """Mostly a recorded key (preferring ones in the ``wanted`` condition), sometimes an
        unknown or malformed one."""
        recorded = sorted(self.model.operations)
        preferred = [key for key in recorded if wanted and self._condition(key) == wanted]
        choices = [st.sampled_from(UNKNOWN)]
        if recorded:
            choices += [st.sampled_from(recorded)] * 2
        if preferred:
            choices += [st.sampled_from(preferred)] * 4
        return data.draw(st.one_of(*choices))

    def _condition(self, key: str) -> str:
        model = self.model.operations[key]
        if model.compensation is not None:
            return "compensated"
        return "succeeded" if model.state == "succeeded" else "other"

    @rule(
        key=st.sampled_from(KEYS),
        step=st.sampled_from(["publish", "build", "deploy"]),
        variant=st.integers(0, 2),
    )
    def record(self, key: str, step: str, variant: int) -> None:
        valid = key.startswith("op-") and step != "deploy"
        expected = valid and key not in self.model.operations
        canonical = _input(variant)
        self._attempt(
            expected,
            lambda: self.engine.record_operation(
                self.plan, self.ledger, step, TOOL, key, canonical
            ),
        )
        if expected:
            self.model.operations[key] = ModelOperation(canonical)
            self.model.revision += 1

    @precondition(lambda self: bool(self.model.operations))
    @rule(
        data=st.data(),
        state=st.sampled_from(("succeeded", *STATES)),
        variant=st.integers(0, 2),
    )
    def observe(self, data: st.DataObject, state: str, variant: int) -> None:
        key = self._keys(data)
        model = self.model.operations.get(key)
        expected = model is not None and (model.state, state) in ACCEPTED
        canonical = model.input if model else _input(0)

        def apply() -> object:
            request = self.engine.operations.operation_reconcile_request(
                self.plan, self.ledger, key, canonical, "worker-1", "reconcile-1"
            )
            result = OperationReconcileResult.for_request(request, _status(state, variant))
            return self.engine.operations.apply_verified_operation_reconciliation(
                self.plan, self.ledger, request, result
            )

        self._attempt(expected, apply)
        if expected and model is not None and model.state != state:
            model.state = state
            self.model.revision += 1

    @precondition(lambda self: any(m.state == "succeeded" for m in self.model.operations.values()))
    @rule(data=st.data(), nonce=st.sampled_from([b"undo-1", b"undo-2"]))
    def record_compensation(self, data: st.DataObject, nonce: bytes) -> None:
        key = self._keys(data, "succeeded")
        model = self.model.operations.get(key)
        expected = model is not None and model.state == "succeeded" and model.compensation is None
        self._attempt(
            expected,
            lambda: self.engine.record_derived_compensation_with_action_verifier(
                self.plan, self.ledger, self._target(key), UNDO.canonical_input_bytes(), nonce
            ),
        )
        if expected and model is not None:
            model.compensation = "pending"
            self.model.revision += 1

    @precondition(lambda self: any(m.compensation for m in self.model.operations.values()))
    @rule(data=st.data(), session=st.sampled_from(["a", "b"]))
    def approve(self, data: st.DataObject, session: str) -> None:
        key = self._keys(data, "compensated")
        model = self.model.operations.get(key)
        expected = model is not None and model.compensation is not None
        approval = self._attempt(
            expected,
            lambda: self.engine.compensations.approve_compensation(
                self.plan,
                self.ledger,
                self._target(key),
                UNDO.canonical_input_bytes(),
                self.sessions[session],
            ),
        )
        if isinstance(approval, Approval):
            self.approvals.append(ModelApproval(approval, self.model.revision, key, session))

    @precondition(lambda self: bool(self.approvals))
    @rule(
        data=st.data(),
        session=st.sampled_from(["a", "a", "a", "b"]),
        drift=st.sampled_from([False, False, False, True]),
    )
    def prepare(self, data: st.DataObject, session: str, drift: bool) -> None:
        # Mostly the newest approval, so that "approve, change something, prepare" is common.
        newest = st.just(self.approvals[-1])
        entry = data.draw(st.one_of(newest, newest, st.sampled_from(self.approvals)))
        expected = (
            not entry.used
            and entry.revision == self.model.revision
            and entry.session == session
            and not drift
        )
        payload = DRIFTED_UNDO if drift else UNDO
        prepared = self._attempt(
            expected,
            lambda: self.engine.compensations.prepare_authenticated_operation_compensation(
                self.plan,
                self.ledger,
                self._target(entry.operation_key),
                entry.approval,
                WorkflowCompensationDispatch("undo-1", payload),
                self.sessions[session],
            ),
        )
        was_used, entry.used = entry.used, True
        assert entry.approval.consumed
        if was_used:
            assert prepared is None, "an approval was usable twice"
        if prepared is not None:
            self.requests.append(prepared.request)  # type: ignore[attr-defined]

    @precondition(lambda self: bool(self.requests))
    @rule(data=st.data(), state=st.sampled_from(STATES), variant=st.integers(0, 2))
    def observe_compensation(self, data: st.DataObject, state: str, variant: int) -> None:
        request = data.draw(st.sampled_from(self.requests))
        model = self.model.operations[request.operation_key]
        assert model.compensation is not None
        expected = (model.compensation, state) in ACCEPTED
        result = OperationCompensationResult.for_request(request, _status(state, variant))
        self._attempt(
            expected,
            lambda: self.engine.compensations.apply_verified_operation_compensation(
                self.plan, self.ledger, request, result
            ),
        )
        if expected and model.compensation != state:
            model.compensation = state
            self.model.revision += 1

    # -- invariants ----------------------------------------------------------------------

    @invariant()
    def ledger_matches_model(self) -> None:
        assert self.ledger.revision == self.model.revision
        recorded = {op.operation_key: op for op in self.ledger.operations}
        assert set(recorded) == set(self.model.operations)
        for key, model in self.model.operations.items():
            operation = recorded[key]
            assert operation.state.value == model.state
            compensation = operation.compensation
            assert (compensation.state.value if compensation else None) == model.compensation

    @invariant()
    def terminal_states_never_change(self) -> None:
        for operation in self.ledger.operations:
            key, state = operation.operation_key, operation.state.value
            if key in self.terminal_seen:
                assert state == self.terminal_seen[key]
            elif state in TERMINAL:
                self.terminal_seen[key] = state
            if operation.compensation is not None:
                assert state == "succeeded"
                cstate = operation.compensation.state.value
                if key in self.terminal_compensations:
                    assert cstate == self.terminal_compensations[key]
                elif cstate in TERMINAL:
                    self.terminal_compensations[key] = cstate

    @invariant()
    def at_most_one_compensation_key_per_operation(self) -> None:
        keys = [
            op.compensation.compensation_key for op in self.ledger.operations if op.compensation
        ]
        assert len(keys) == len(
            {op.operation_key for op in self.ledger.operations if op.compensation}
        )
        assert self.ledger.to_json() == type(self.ledger).from_json(self.ledger.to_json()).to_json()


TestHostLedgerMachine = HostLedgerMachine.TestCase
