"""Compensation reconciliation (docs/spec/compensation-reconcile.md, CR-1..CR-10) in the
reference worker session: gated by the profile, identity and grant checked like a
compensation, no budget, no second inverse, the lifecycle table, persist before answering."""

from __future__ import annotations

import pytest

from rescind.reference.errors import RescindError
from rescind.reference.messages import OperationStatus
from rescind.reference.payload import ToolPayload
from rescind.reference.worker.adapter import AdapterDeclarations
from rescind.reference.worker.extension import (
    COMPENSATION_RECONCILE_PROFILE,
    ExtensionNotEnabled,
    UnknownWorkerProfile,
    WorkerExtensions,
)
from rescind.reference.worker.session import WorkerSession, WorkerSessionLimits
from rescind.reference.worker_message import CompensateOperation, CompensationResult
from tests.extension.support import UNDONE, LookupAdapter, Worker

ON = WorkerExtensions.for_profile(COMPENSATION_RECONCILE_PROFILE)


def stuck(worker: Worker, extensions: WorkerExtensions | None = ON) -> WorkerSession:
    """Dispatch, then a compensation whose inverse ran but whose answer was lost; returns a
    fresh session (the restart) over the stored journal, compensation durable and pending."""
    session = worker.open(extensions)
    worker.dispatch(session)
    worker.adapter.inverse_answer = None
    with pytest.raises(RescindError) as lost:
        worker.compensate(session, worker.compensation())
    assert lost.value.code == "indeterminate_compensation"
    worker.adapter.inverse_answer = UNDONE
    assert worker.stored_compensation() == "pending"
    return worker.open(extensions)


def code_of(call: object) -> str:
    with pytest.raises(RescindError) as refused:
        call()  # type: ignore[operator]
    return refused.value.code


def test_the_gate_refuses_without_the_profile_before_anything_happens() -> None:
    worker = Worker()
    session = stuck(worker, extensions=None)
    before = (worker.bridge.load(), session.authorizer.counters(), worker.adapter.lookups)
    error_code = code_of(
        lambda: session.reconcile_compensation(worker.compensation(), worker.bridge)
    )
    assert error_code == ExtensionNotEnabled.code
    assert (worker.bridge.load(), session.authorizer.counters(), worker.adapter.lookups) == before
    assert session.extensions.profile == "splash-v5" and not session.poisoned


def test_upstream_leaves_the_compensation_pending_for_good() -> None:
    worker = Worker()
    session = stuck(worker, extensions=None)
    resend = worker.compensation()
    assert code_of(lambda: worker.compensate(session, resend)) == "pending_compensation"
    assert worker.adapter.inverse_calls == 1 and worker.stored_compensation() == "pending"


def test_the_lost_outcome_is_reconciled_without_a_second_inverse() -> None:
    worker = Worker()
    session = stuck(worker)
    result = session.reconcile_compensation(worker.compensation(), worker.bridge)
    assert result.status == UNDONE
    assert worker.stored_compensation() == "succeeded"
    assert (worker.adapter.inverse_calls, worker.adapter.lookups) == (1, 1)
    # An exact resend of the compensation now answers the stored outcome, still one inverse.
    reply = session.handle(
        worker.host.seal(CompensateOperation(worker.compensation())), worker.bridge
    )
    answered = worker.host.open(reply)
    assert isinstance(answered, CompensationResult) and answered.result.status == UNDONE
    assert worker.adapter.inverse_calls == 1


def test_no_compensation_budget_is_spent_and_the_request_id_is_reserved() -> None:
    worker = Worker()
    session = stuck(worker)
    request = worker.compensation()
    spent = session.authorizer.compensations_for(request.tool)
    worker.adapter.lookup = OperationStatus.running()
    session.reconcile_compensation(request, worker.bridge)
    assert session.authorizer.compensations_for(request.tool) == spent
    assert not session.authorizer.compensation_identities
    assert code_of(lambda: session.reconcile_compensation(request, worker.bridge)) == (
        "duplicate_request"
    )


@pytest.mark.parametrize(
    ("changes", "code"),
    [
        ({"compensation_key": "cmp-other"}, "compensation_identity_mismatch"),
        ({"payload": ToolPayload.text("other undo")}, "compensation_identity_mismatch"),
        ({"tenant_scope": "other-tenant"}, "operation_journal_scope_mismatch"),
        ({"operation_key": "op-unknown"}, "unknown_operation"),
        ({"grant_fingerprint": "0" * 64}, "compensation_grant_mismatch"),
        ({"tool": "other.tool"}, "unknown_tool"),
    ],
)
def test_only_the_attached_identity_is_reconciled(changes: dict[str, object], code: str) -> None:
    worker = Worker()
    session = stuck(worker)
    before = worker.bridge.load()
    assert (
        code_of(
            lambda: session.reconcile_compensation(worker.compensation(**changes), worker.bridge)
        )
        == code
    )
    assert worker.bridge.load() == before and worker.adapter.lookups == 0
    assert session.reconciliation_total == 0


def test_a_key_without_a_compensation_is_unknown_compensation() -> None:
    worker = Worker()
    session = worker.open(ON)
    worker.dispatch(session)
    request = worker.compensation()
    assert code_of(lambda: session.reconcile_compensation(request, worker.bridge)) == (
        "unknown_compensation"
    )
    assert worker.adapter.lookups == 0


def test_an_adapter_must_declare_compensation_reconciliation() -> None:
    worker = Worker(LookupAdapter(declarations=AdapterDeclarations()))
    session = stuck(worker)
    assert (
        code_of(lambda: session.reconcile_compensation(worker.compensation(), worker.bridge))
        == "compensation_reconciliation_not_declared"
    )
    assert worker.adapter.lookups == 0 and session.reconciliation_total == 0


def test_terminal_states_never_change_and_running_moves_on() -> None:
    worker = Worker()
    session = stuck(worker)
    worker.adapter.lookup = OperationStatus.running()
    session.reconcile_compensation(worker.compensation(), worker.bridge)
    assert worker.stored_compensation() == "running"
    worker.adapter.lookup = OperationStatus.failed("inverse failed")
    session.reconcile_compensation(worker.compensation(), worker.bridge)
    assert worker.stored_compensation() == "failed"
    worker.adapter.lookup = UNDONE
    error_code = code_of(
        lambda: session.reconcile_compensation(worker.compensation(), worker.bridge)
    )
    assert error_code == "invalid_worker_compensation_transition"
    assert worker.stored_compensation() == "failed" and not session.poisoned


def test_the_journal_is_written_even_when_nothing_changed() -> None:
    worker = Worker()
    session = stuck(worker)
    session.reconcile_compensation(worker.compensation(), worker.bridge)
    _, revision = worker.bridge.load()
    session.reconcile_compensation(worker.compensation(), worker.bridge)
    assert worker.bridge.load()[1] > revision


def test_a_superseded_session_cannot_answer() -> None:
    worker = Worker()
    old = stuck(worker)
    request = worker.compensation()
    worker.open(ON)  # a newer session takes the lease
    assert code_of(lambda: old.reconcile_compensation(request, worker.bridge)) == (
        "journal_persistence_failed"
    )
    assert old.poisoned and worker.stored_compensation() == "pending"


def test_reconciliation_budgets_are_shared_with_originals() -> None:
    worker = Worker()
    stuck(worker)
    session = worker.open(ON)
    limited = WorkerSession(
        authenticator=session.authenticator,
        authorizer=session.authorizer,
        adapters={"text.echo": worker.adapter},
        journal=session.journal,
        revision=session.revision,
        lease=session._lease,
        limits=WorkerSessionLimits(1, 1),
        extensions=ON,
    )
    worker.adapter.lookup = OperationStatus.running()
    limited.reconcile_compensation(worker.compensation(), worker.bridge)
    assert (
        code_of(lambda: limited.reconcile_compensation(worker.compensation(), worker.bridge))
        == "reconciliation_session_budget_exhausted"
    )


def test_profiles_map_to_extensions() -> None:
    assert WorkerExtensions.for_profile("splash-v5") == WorkerExtensions()
    assert ON.compensation_reconcile and ON.profile == COMPENSATION_RECONCILE_PROFILE
    with pytest.raises(UnknownWorkerProfile):
        WorkerExtensions.for_profile("splash-v6")
