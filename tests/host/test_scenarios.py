"""Scenarios of docs/spec/ledger.md (HL-16..HL-25) that need the Python objects themselves (approval
locality, printed forms, ownership, counters, check order), beyond the trace vectors."""

from __future__ import annotations

import copy
import pickle

import attrs
import pytest

from rescind.conformance.interpreters.trace_support import ScriptedVerifier
from rescind.reference.errors import RescindError
from rescind.reference.frames import SessionAuthenticator, SessionRole
from rescind.reference.grants import CapabilityGrant
from rescind.reference.host.approvals import Approval, ApprovalKind
from rescind.reference.host.compensation import (
    WorkflowCompensationDispatch,
    WorkflowCompensationPolicy,
    WorkflowCompensationTarget,
)
from rescind.reference.host.engine import WorkflowEngine
from rescind.reference.host.ledger import WorkflowOperationLedger
from rescind.reference.host.plan import MAX_ID, IdCounter, WorkflowPlan
from rescind.reference.messages import OperationReconcileResult, OperationStatus
from rescind.reference.payload import ToolPayload

TOOL = "release.publish"
VERSION = ToolPayload.json_text('{"version":"1.2.3"}').canonical_input_bytes()
UNDO_PAYLOAD = ToolPayload.json_text('{"undo":"release"}')
UNDO = UNDO_PAYLOAD.canonical_input_bytes()
GRANT = CapabilityGrant.json(TOOL).with_compensation_limit(1)


def _code(call: object) -> str:
    assert callable(call)
    with pytest.raises(RescindError) as caught:
        call()
    return caught.value.code


@attrs.define
class World:
    engine: WorkflowEngine
    plan: WorkflowPlan
    ledger: WorkflowOperationLedger
    host: SessionAuthenticator
    verifier: ScriptedVerifier
    target: WorkflowCompensationTarget
    key: str


def _world(compensated: bool = True) -> World:
    engine = WorkflowEngine(IdCounter())
    plan = engine.plan([("publish", "let release = true")])
    ledger = engine.operation_ledger(plan)
    key = engine.record_derived_operation(plan, ledger, "publish", TOOL, VERSION, b"nonce-1")
    host = SessionAuthenticator("worker-1", bytes([13]) * 32, SessionRole.HOST)
    request = engine.operations.operation_reconcile_request(
        plan, ledger, key, VERSION, "worker-1", "r-1"
    )
    engine.operations.apply_verified_operation_reconciliation(
        plan,
        ledger,
        request,
        OperationReconcileResult.for_request(request, OperationStatus.succeeded(UNDO_PAYLOAD)),
    )
    verifier = ScriptedVerifier()
    policy = WorkflowCompensationPolicy.create("tenant-release", GRANT)
    target = WorkflowCompensationTarget(key, policy, GRANT, verifier, verifier)
    if compensated:
        engine.record_derived_compensation_with_action_verifier(plan, ledger, target, UNDO, b"u-1")
    return World(engine, plan, ledger, host, verifier, target, key)


def test_recorded_ledger_has_four_members_and_no_raw_text() -> None:
    # HL-1 (upstream test operation_ledger_persists_metadata_without_raw_input_or_source).
    engine = WorkflowEngine(IdCounter())
    plan = engine.plan([("publish", "let release = true")])
    ledger = engine.operation_ledger(plan)
    engine.record_operation(plan, ledger, "publish", TOOL, "release-2026-1", VERSION)
    encoded = ledger.to_json()
    assert encoded.count('"format_version"') == 1
    assert encoded.startswith('{"format_version":2,"revision":1,"plan_fingerprint":')
    for absent in ("1.2.3", "let release", "approval", "nonce"):
        assert absent not in encoded
    record = ledger.operations[0]
    assert record.matches_input(VERSION)
    assert not record.matches_input(VERSION + b" ")
    assert not record.matches_input(b"a" * 262_145)


def test_approvals_are_process_local_and_one_use() -> None:
    world = _world()
    approval = world.engine.compensations.approve_compensation(
        world.plan, world.ledger, world.target, UNDO, world.host
    )
    assert approval.kind is ApprovalKind.COMPENSATION and approval.nonce >= 1
    with pytest.raises(TypeError):
        pickle.dumps(approval)
    with pytest.raises(TypeError):
        copy.copy(approval)
    with pytest.raises(TypeError):
        copy.deepcopy(approval)
    with pytest.raises(TypeError):
        approval._consumed = True  # type: ignore[misc]
    with pytest.raises(TypeError):
        Approval(object(), engine_id=1, plan_id=1, nonce=1, kind=ApprovalKind.PLAN, binding=None)
    dispatch = WorkflowCompensationDispatch("undo-1", UNDO_PAYLOAD)
    prepare = world.engine.compensations.prepare_authenticated_operation_compensation
    prepare(world.plan, world.ledger, world.target, approval, dispatch, world.host)
    assert approval.consumed
    reuse = lambda: prepare(world.plan, world.ledger, world.target, approval, dispatch, world.host)  # noqa: E731
    assert _code(reuse) == "approval_mismatch"


def test_prepare_consumes_the_approval_even_when_sealing_fails() -> None:
    world = _world()
    # An authenticator at the last outgoing sequence cannot seal (sequence_exhausted).
    exhausted = SessionAuthenticator(
        "worker-1", bytes([13]) * 32, SessionRole.HOST, next_outgoing=2**64 - 1
    )
    approval = world.engine.compensations.approve_compensation(
        world.plan, world.ledger, world.target, UNDO, exhausted
    )
    dispatch = WorkflowCompensationDispatch("undo-1", UNDO_PAYLOAD)
    prepare = world.engine.compensations.prepare_authenticated_operation_compensation
    args = (world.plan, world.ledger, world.target, approval, dispatch, exhausted)
    assert _code(lambda: prepare(*args)) == "sequence_exhausted"
    assert approval.consumed
    assert _code(lambda: prepare(*args)) == "approval_mismatch"


def test_action_context_prints_only_the_input_length() -> None:
    # HL-19 (upstream `WorkflowCompensationAction`'s Debug): the printed action never contains the payload.
    world = _world()
    world.engine.compensations.approve_compensation(
        world.plan, world.ledger, world.target, UNDO, world.host
    )
    seen = repr(world.verifier.actions[-1])
    assert "undo" not in seen
    # The object the verifier received (re-created here from what it saw) prints a length.
    from rescind.reference.host.compensation import WorkflowCompensationAction

    action = WorkflowCompensationAction(
        world.plan.fingerprint, world.key, "publish", TOOL, "0" * 64, "tenant-release", GRANT, UNDO
    )
    printed = repr(action) + str(action)
    assert "undo" not in printed and 'release"}' not in printed
    assert f"compensation_input_len={len(UNDO)}" in printed
    target_text = repr(world.target)
    assert "ScriptedVerifier" not in target_text and "<host verifier>" in target_text


def test_plan_ownership_is_by_issuing_engine() -> None:
    engine = WorkflowEngine(IdCounter())
    plan = engine.plan([("publish", "let release = true")])
    forged = attrs.evolve(plan, steps=(), fingerprint="0" * 64)
    assert _code(lambda: engine.operation_ledger(forged)) == "plan_ownership_mismatch"
    other = WorkflowEngine(IdCounter())
    assert _code(lambda: other.operation_ledger(plan)) == "plan_ownership_mismatch"
    same_steps = other.plan([("publish", "let release = true")])
    assert same_steps.fingerprint == plan.fingerprint and same_steps.plan_id == 1


def test_engine_and_plan_ids() -> None:
    ids = IdCounter()
    first, second = WorkflowEngine(ids), WorkflowEngine(ids)
    assert (first.engine_id, second.engine_id) == (1, 2)
    plans = [first.plan([(f"s{index}", "")]) for index in range(3)]
    assert [plan.plan_id for plan in plans] == [1, 2, 3]
    saturating = IdCounter(MAX_ID - 1)
    assert [saturating.take() for _ in range(3)] == [MAX_ID - 1, MAX_ID, MAX_ID]
    process_wide = WorkflowEngine().engine_id
    assert WorkflowEngine().engine_id == process_wide + 1


def test_role_is_checked_before_anything_else() -> None:
    world = _world(compensated=False)
    worker = SessionAuthenticator("worker-1", bytes([13]) * 32, SessionRole.WORKER)
    unknown = attrs.evolve(world.target, operation_key="op-unknown")
    approve = world.engine.compensations.approve_compensation
    assert (
        _code(lambda: approve(world.plan, world.ledger, unknown, b"", worker))
        == "compensation_dispatch_requires_host_authenticator"
    )
    assert world.verifier.grant_calls == []  # refused before the grant check


def test_grant_check_order() -> None:
    # HL-17: policy syntax first, then the policy against the grant, then the verifier.
    world = _world(compensated=False)
    approve = world.engine.compensations.approve_compensation
    bad_tool = attrs.evolve(world.target, policy=attrs.evolve(world.target.policy, tool="Bad"))
    assert _code(lambda: approve(world.plan, world.ledger, bad_tool, UNDO, world.host)) == (
        "invalid_tool"
    )
    no_calls = attrs.evolve(GRANT, max_calls=0)
    invalid = attrs.evolve(world.target, grant=no_calls)
    assert _code(lambda: approve(world.plan, world.ledger, invalid, UNDO, world.host)) == (
        "invalid_grant"
    )
    calls_before = len(world.verifier.grant_calls)
    zero_budget = attrs.evolve(world.target, grant=GRANT.with_compensation_limit(0))
    assert _code(lambda: approve(world.plan, world.ledger, zero_budget, UNDO, world.host)) == (
        "compensation_policy_mismatch"
    )
    assert len(world.verifier.grant_calls) == calls_before


def test_direct_ledger_calls_emit_no_events() -> None:
    world = _world(compensated=False)
    world.engine.drain_events()
    world.ledger.record("publish", TOOL, "op-direct", VERSION)
    assert world.engine.events == ()
    world.engine.record_operation(world.plan, world.ledger, "publish", TOOL, "op-engine", VERSION)
    assert [event.type for event in world.engine.events] == ["operation_recorded"]


def test_refused_mutations_change_nothing() -> None:
    world = _world()
    before = world.ledger.to_json()
    attempts = [
        lambda: world.ledger.record("publish", TOOL, world.key, VERSION),
        lambda: world.ledger.record("publish", "bad tool", "op-new", VERSION),
        lambda: world.ledger.record_compensation(world.key, world.target.policy, "cmp-x", UNDO),
        lambda: world.ledger.record_compensation("op-missing", world.target.policy, "cmp-x", UNDO),
    ]
    for attempt in attempts:
        with pytest.raises(RescindError):
            attempt()
        assert world.ledger.to_json() == before
