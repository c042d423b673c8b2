"""The host side of compensation reconciliation (CR-10) through authenticated frames: a host
ledger driver over a store, a worker session over its journal, the compensation's answer lost,
the host recovered; it then reconciles without a new approval and the ledger settles."""

from __future__ import annotations

import attrs
import pytest

from rescind.conformance.interpreters.trace_support import ScriptedVerifier
from rescind.reference.errors import RescindError
from rescind.reference.frames import AuthenticatedFrame, SessionAuthenticator, SessionRole
from rescind.reference.host.compensation import (
    WorkflowCompensationPolicy,
    WorkflowCompensationTarget,
)
from rescind.reference.host.engine import WorkflowEngine
from rescind.reference.host.events import CompensationApproved
from rescind.reference.host.ledger_driver import HostLedgerDriver
from rescind.reference.manifest import SessionManifest
from rescind.reference.payload import ToolPayload
from rescind.reference.storage.authenticated import AuthenticatedStore
from rescind.reference.storage.keyring import Keyring
from rescind.reference.storage.memory import MemoryBackend
from rescind.reference.storage.tag import RecordKey, StorageKey
from rescind.reference.worker.extension import COMPENSATION_RECONCILE_PROFILE, WorkerExtensions
from rescind.reference.worker.session import WorkerSession
from rescind.reference.worker_message import OpenSession, WireProfile
from rescind.tables.operation import Phase
from tests.extension.support import GRANT, KEY, SCOPE, TOOL, UNDONE, Worker

STEPS = [("publish", "let published = true")]
RECORD = RecordKey("workflow-ledger", "crash-1")
KEYRING = Keyring.single("storage-v1", StorageKey(bytes([0x2E]) * 32))
DO = ToolPayload.text("do")
UNDO = ToolPayload.text("undo")
ON = WorkerExtensions.for_profile(COMPENSATION_RECONCILE_PROFILE)


@attrs.define
class Link:
    """One host session with one worker session (the same session id and key)."""

    host: SessionAuthenticator
    worker: WorkerSession


class World:
    def __init__(self) -> None:
        self.store = AuthenticatedStore(MemoryBackend(), KEYRING)
        self.worker = Worker()
        self.sessions = 0
        self.verifier = ScriptedVerifier()
        self.driver = HostLedgerDriver.start(WorkflowEngine(), STEPS, self.store, RECORD)

    def link(self, profile: WireProfile = WireProfile.COMPENSATION_RECONCILE) -> Link:
        self.sessions += 1
        session_id = f"host-{self.sessions}"
        host = SessionAuthenticator(session_id, KEY, SessionRole.HOST, profile=profile)
        frame = host.seal(OpenSession(SessionManifest.new(session_id, [GRANT])))
        journal, revision = self.worker.bridge.load()
        worker = WorkerSession.open(
            SessionAuthenticator(session_id, KEY, SessionRole.WORKER, profile=ON.wire_profile),
            frame,
            {TOOL: self.worker.adapter},
            journal,
            revision,
            self.worker.bridge.admission(),
            extensions=ON,
        )
        return Link(host, worker)

    def send(self, link: Link, frame: AuthenticatedFrame) -> AuthenticatedFrame:
        return link.worker.handle_line(frame.to_json_line(), self.worker.bridge)

    def target(self, key: str) -> WorkflowCompensationTarget:
        policy = WorkflowCompensationPolicy.create(SCOPE, GRANT)
        return WorkflowCompensationTarget(key, policy, GRANT, self.verifier, self.verifier)

    def recover(self) -> None:
        self.driver = HostLedgerDriver.recover(WorkflowEngine(), STEPS, self.store, RECORD)

    def approvals(self) -> int:
        return sum(isinstance(event, CompensationApproved) for event in self.driver.events)


def lost_compensation() -> tuple[World, str]:
    """Dispatched and succeeded; the compensation's inverse ran, its answer never arrived;
    the host process is gone and recovered from its store."""
    world = World()
    link = world.link()
    key = world.driver.record_operation("publish", TOOL, DO, b"nonce-1")
    prepared = world.driver.dispatch(key, DO, "d1", link.host)
    world.driver.apply_dispatch_result(prepared, link.host, world.send(link, prepared.frame))
    world.driver.record_compensation(world.target(key), UNDO, b"undo-1")
    sent = world.driver.compensate(world.target(key), UNDO, "c1", link.host)
    world.worker.adapter.inverse_answer = None
    with pytest.raises(RescindError):
        world.send(link, sent.frame)
    world.worker.adapter.inverse_answer = UNDONE
    world.recover()
    return world, key


def compensation_state(world: World, key: str) -> Phase:
    compensation = world.driver.ledger.require_operation(key).compensation
    assert compensation is not None
    return compensation.state


def test_a_recovered_host_settles_the_lost_compensation_without_an_approval() -> None:
    world, key = lost_compensation()
    assert compensation_state(world, key) is Phase.PENDING
    link = world.link()
    prepared = world.driver.reconcile_compensation(key, UNDO, "q1", link.host)
    assert prepared.frame.message.kind == "reconcile_compensation"
    reply = world.send(link, prepared.frame)
    assert world.driver.apply_compensation_reconciliation(prepared, link.host, reply) is (
        Phase.SUCCEEDED
    )
    assert compensation_state(world, key) is Phase.SUCCEEDED
    assert world.approvals() == 0
    assert (world.worker.adapter.inverse_calls, world.worker.adapter.lookups) == (1, 1)
    recovered = HostLedgerDriver.recover(WorkflowEngine(), STEPS, world.store, RECORD)
    assert recovered.ledger == world.driver.ledger
    with pytest.raises(RescindError) as terminal:
        world.driver.reconcile_compensation(key, UNDO, "q2", link.host)
    assert terminal.value.code == "compensation_already_terminal"


def test_the_request_is_the_recorded_compensation() -> None:
    world, key = lost_compensation()
    link = world.link()
    with pytest.raises(RescindError) as other_input:
        world.driver.reconcile_compensation(key, ToolPayload.text("undo more"), "q1", link.host)
    assert other_input.value.code == "compensation_input_fingerprint_mismatch"
    prepared = world.driver.reconcile_compensation(key, UNDO, "q1", link.host)
    request = prepared.request
    compensation = world.driver.ledger.require_operation(key).compensation
    assert compensation is not None
    assert (request.compensation_key, request.tenant_scope, request.grant_fingerprint) == (
        compensation.compensation_key,
        compensation.tenant_scope,
        compensation.grant_fingerprint,
    )
    assert request.session_id == link.host.session_id and request.request_id == "q1"


def test_an_upstream_host_authenticator_cannot_seal_the_request() -> None:
    world, key = lost_compensation()
    link = world.link(profile=WireProfile.UPSTREAM)
    with pytest.raises(RescindError) as refused:
        world.driver.reconcile_compensation(key, UNDO, "q1", link.host)
    assert refused.value.code == "serialization"
    assert link.host.next_outgoing == 2 and not world.driver.poisoned


def test_another_reply_kind_is_refused_and_the_ledger_kept() -> None:
    world, key = lost_compensation()
    link = world.link()
    resent = world.driver.dispatch(key, DO, "d2", link.host)
    operation_reply = world.send(link, resent.frame)
    prepared = world.driver.reconcile_compensation(key, UNDO, "q1", link.host)
    before = world.driver.ledger.copy()
    with pytest.raises(RescindError) as unexpected:
        world.driver.apply_compensation_reconciliation(prepared, link.host, operation_reply)
    assert unexpected.value.code == "unexpected_compensation_reconciliation_message"
    assert world.driver.ledger == before


def test_a_worker_role_authenticator_is_refused_first() -> None:
    world, key = lost_compensation()
    worker_role = SessionAuthenticator(
        "host-9", KEY, SessionRole.WORKER, profile=WireProfile.COMPENSATION_RECONCILE
    )
    with pytest.raises(RescindError) as refused:
        world.driver.reconcile_compensation(key, UNDO, "q1", worker_role)
    assert refused.value.code == "reconciliation_requires_host_authenticator"


def test_cr10_vector_refuses_a_reply_of_another_kind_then_settles() -> None:
    # CR-10 by hand: a compensation_result answering a reconcile_compensation frame is
    # refused; the reconciled_compensation that follows is applied as the compensation's
    # result (succeeded); the compensation is then terminal and is not asked about again.
    from rescind.conformance.vectors.sets import session_scenarios

    (test,) = [t for t in session_scenarios.build().tests if t.id.startswith("recovery.cr-10.")]
    assert test.profile == "splash-v5+compensation-reconcile"
    calls = [step["call"] for step in test.input["scenario"]["steps"]]
    outcomes = test.expected["steps"]
    applies = [
        i for i, call in enumerate(calls) if call == "driver_apply_compensation_reconciliation"
    ]
    assert [outcomes[i].get("error", outcomes[i].get("result")) for i in applies] == [
        "unexpected_compensation_reconciliation_message",
        "succeeded",
    ]
    assert outcomes[calls.index("driver_reconcile_compensation", applies[-1])]["error"] == (
        "compensation_already_terminal"
    )
    assert not any(call == "approve_compensation" for call in calls)
