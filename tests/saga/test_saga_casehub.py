"""SG-40..SG-48: CaseHub case statuses and the saga coordinator (CH-S1..CH-S12, CH-S14)."""

from __future__ import annotations

import pytest

from rescind.reference.saga.bindings import Binding, CaseDefinition, TargetKind
from rescind.reference.saga.casehub import (
    Case,
    Coordinator,
    EventKind,
    PlanItem,
    PlanItemStatus,
    Transcript,
)
from rescind.reference.saga.errors import CaseNotCompensable, CaseNotFound, IllegalTransition
from rescind.reference.saga.transitions import fire
from rescind.tables.saga import CASE_ACTIVE_EARLIER, CASE_TABLE, CaseStatus

C = CaseStatus
P = PlanItemStatus

# The status table behind SG-40 (docs/spec/saga.md), copied by hand: (terminal, active now, active in the earlier variant).
CLASSIFICATION = {
    C.STARTING: (False, True, True),
    C.RUNNING: (False, True, True),
    C.WAITING: (False, True, True),
    C.SUSPENDED: (False, True, False),
    C.COMPLETED: (True, False, False),
    C.FAULTED: (True, False, False),
    C.CANCELLED: (True, False, False),
    C.COMPENSATING: (False, True, True),
    C.COMPENSATED: (True, False, False),
    C.COMPENSATION_FAULTED: (False, True, True),
}


@pytest.mark.parametrize("status", list(C))
def test_ch_s14_status_predicates(status: CaseStatus) -> None:
    terminal, active, earlier = CLASSIFICATION[status]
    assert (status in CASE_TABLE.terminal, status in (CASE_TABLE.active or ())) == (
        terminal,
        active,
    )
    assert (status in CASE_ACTIVE_EARLIER) is earlier


def test_completed_is_terminal_not_final() -> None:
    assert C.COMPLETED in CASE_TABLE.terminal and C.COMPLETED not in CASE_TABLE.final
    assert fire(CASE_TABLE, C.COMPLETED, "compensate") is C.COMPENSATING
    assert [e.name for e in CASE_TABLE.exceptions] == ["casehub-post-terminal-compensation"]
    for status in (C.COMPENSATED, C.FAULTED, C.CANCELLED):
        assert CASE_TABLE.outgoing(status) == ()
    for trigger in ("suspend", "cancel"):
        with pytest.raises(IllegalTransition):
            fire(CASE_TABLE, C.COMPENSATING, trigger)


ONE_STEP = CaseDefinition(
    (
        Binding("step-a", capability="cap-a", worker="w-a", compensate="undo-step-a"),
        Binding(
            "undo-step-a", compensation=True, capability="undo-cap", worker="undo-step-a-worker"
        ),
    ),
    workers=("w-a", "undo-step-a-worker"),
)
CHAIN = CaseDefinition(
    (
        Binding("step-a", compensate="undo-a", produces=("step-a-output",)),
        Binding("step-b", compensate="undo-b", consumes=("step-a-output",)),
        Binding("undo-a", compensation=True, worker="w"),
        Binding("undo-b", compensation=True, worker="w"),
    ),
    workers=("w",),
)
PAIR = CaseDefinition(
    (
        Binding("step-a", compensate="undo-a"),
        Binding("step-b", compensate="undo-b"),
        Binding("undo-a", compensation=True, worker="w"),
        Binding("undo-b", compensation=True, worker="w"),
    ),
    workers=("w",),
)


def case(
    definition: CaseDefinition | None, *items: PlanItem, status: CaseStatus = C.COMPLETED
) -> Case:
    return Case("case-1", status, definition, items)


def start(c: Case, coordinator: Coordinator | None = None) -> Transcript:
    return (coordinator or Coordinator()).compensate(
        {c.case_id: c}, c.case_id, "operator", "undo it"
    )


def kinds(t: Transcript) -> list[str]:
    return [e.kind.value for e in t.events]


def test_ch_s1_single_step() -> None:
    t = start(case(ONE_STEP, PlanItem("i-a", "step-a")))
    assert t.changes == ((C.COMPLETED, C.COMPENSATING),)
    (dispatch,) = t.dispatches
    assert (dispatch.binding, dispatch.worker, dispatch.capability) == (
        "undo-step-a",
        "undo-step-a-worker",
        "undo-cap",
    )
    assert t.case.item(dispatch.item_id).status is P.DISPATCHING
    assert t.case.item(dispatch.item_id).compensates_item_id == "i-a"
    assert kinds(t) == ["COMPENSATION_STARTED", "COMPENSATION_STEP_STARTED"]
    assert dict(t.events[0].fields) == {"triggeredBy": "operator", "reason": "undo it"}


def test_ch_s2_and_s3_step_outcomes() -> None:
    first = start(case(ONE_STEP, PlanItem("i-a", "step-a")))
    item = first.dispatches[0].item_id
    done = Coordinator().on_item_status(first.case, item, P.COMPLETED)
    assert kinds(done) == ["COMPENSATION_STEP_COMPLETED", "COMPENSATION_COMPLETED"]
    assert done.changes == ((C.COMPENSATING, C.COMPENSATED),)
    faulted = Coordinator().on_item_status(first.case, item, P.FAULTED)
    assert faulted.changes == ((C.COMPENSATING, C.COMPENSATION_FAULTED),)
    (event,) = faulted.events
    assert (
        event.kind is EventKind.COMPENSATION_FAULTED and ("binding", "undo-step-a") in event.fields
    )


def test_ch_s4_reverse_dependency_order() -> None:
    t = start(case(CHAIN, PlanItem("i-a", "step-a"), PlanItem("i-b", "step-b")))
    assert [d.binding for d in t.dispatches] == ["undo-b"]
    t = Coordinator().on_item_status(t.case, t.dispatches[0].item_id, P.COMPLETED)
    assert [d.binding for d in t.dispatches] == ["undo-a"]
    t = Coordinator().on_item_status(t.case, t.dispatches[0].item_id, P.COMPLETED)
    assert t.case.status is C.COMPENSATED


def test_ch_s5_independent_steps_go_one_at_a_time() -> None:
    # SG-100: one step in flight; which independent step goes first is CaseHub's hash order,
    # this reference takes the DFS in item order.
    items = (PlanItem("i-a", "step-a"), PlanItem("i-b", "step-b"))
    first = start(case(PAIR, *items))
    (dispatch,) = first.dispatches
    second = Coordinator().on_item_status(first.case, dispatch.item_id, P.COMPLETED)
    (other,) = second.dispatches
    assert {dispatch.binding, other.binding} == {"undo-a", "undo-b"}
    done = Coordinator().on_item_status(second.case, other.item_id, P.COMPLETED)
    assert done.case.status is C.COMPENSATED and done.dispatches == ()


def test_ch_s6_nothing_to_compensate() -> None:
    plain = CaseDefinition((Binding("plain"),))
    t = start(case(plain, PlanItem("i-p", "plain")))
    assert t.changes == ((C.COMPLETED, C.COMPENSATING), (C.COMPENSATING, C.COMPENSATED))
    assert kinds(t) == ["COMPENSATION_STARTED", "COMPENSATION_COMPLETED"] and not t.dispatches


@pytest.mark.parametrize(
    "status",
    [
        C.RUNNING,
        C.WAITING,
        C.SUSPENDED,
        C.FAULTED,
        C.CANCELLED,
        C.COMPENSATING,
        C.COMPENSATED,
        C.STARTING,
    ],
)
def test_ch_s7_invalid_entry_states(status: CaseStatus) -> None:
    with pytest.raises(CaseNotCompensable):
        start(case(ONE_STEP, PlanItem("i-a", "step-a"), status=status))


def test_ch_s7_unknown_case() -> None:
    with pytest.raises(CaseNotFound):
        Coordinator().compensate({}, "ghost", "op", "r")


def test_ch_s8_retry_resumes_at_the_faulted_step() -> None:
    c = case(
        CHAIN,
        PlanItem("i-a", "step-a"),
        PlanItem("i-b", "step-b"),
        PlanItem("i-b-cmp-1", "undo-b", P.COMPLETED, True, "i-b"),
        PlanItem("i-a-cmp-1", "undo-a", P.FAULTED, True, "i-a"),
        status=C.COMPENSATION_FAULTED,
    )
    t = start(c)
    assert t.changes == ((C.COMPENSATION_FAULTED, C.COMPENSATING),)
    assert kinds(t)[0] == "COMPENSATION_STARTED"
    (dispatch,) = t.dispatches
    assert dispatch.binding == "undo-a" and dispatch.item_id not in {"i-a-cmp-1", "i-b-cmp-1"}
    done = Coordinator().on_item_status(t.case, dispatch.item_id, P.COMPLETED)
    assert done.case.status is C.COMPENSATED


@pytest.mark.parametrize(
    ("undo", "scheduler", "workers", "reason"),
    [
        (
            Binding("undo-a", compensation=True, target=TargetKind.SUB_CASE),
            True,
            (),
            "unsupported_target",
        ),
        (
            Binding("undo-a", compensation=True, target=TargetKind.JUDGMENT),
            False,
            (),
            "no_judgment_scheduler",
        ),
        (Binding("undo-a", compensation=True, worker="nobody"), True, (), "worker_not_found"),
    ],
)
def test_ch_s9_s10_dispatch_failures(
    undo: Binding, scheduler: bool, workers: tuple[str, ...], reason: str
) -> None:
    definition = CaseDefinition((Binding("step-a", compensate="undo-a"), undo), workers)
    t = start(
        case(definition, PlanItem("i-a", "step-a")), Coordinator(judgment_scheduler=scheduler)
    )
    assert t.changes[-1] == (C.COMPENSATING, C.COMPENSATION_FAULTED)
    assert dict(t.events[-1].fields)["reason"] == reason
    # SG-101: the item exists and the step is logged before the target is found unusable.
    assert kinds(t) == ["COMPENSATION_STARTED", "COMPENSATION_STEP_STARTED", "COMPENSATION_FAULTED"]
    assert t.dispatches == ()
    assert t.case.item("i-a-cmp-1").status is P.DISPATCHING


def test_ch_s10_judgment_dispatch() -> None:
    definition = CaseDefinition(
        (
            Binding("step-a", compensate="undo-step-a"),
            Binding("undo-step-a", compensation=True, target=TargetKind.JUDGMENT),
        )
    )
    (dispatch,) = start(case(definition, PlanItem("i-a", "step-a"))).dispatches
    assert dispatch.target is TargetKind.JUDGMENT and dispatch.binding == "undo-step-a"


def test_ch_s11_irrelevant_events() -> None:
    t = start(case(ONE_STEP, PlanItem("i-a", "step-a"), PlanItem("i-x", "step-a", P.RUNNING)))
    ignored = Coordinator().on_item_status(t.case, "i-x", P.COMPLETED)
    assert ignored.changes == () and ignored.events == () and ignored.case.status is C.COMPENSATING
    running = case(
        ONE_STEP, PlanItem("i-c", "undo-step-a", P.DISPATCHING, True, "i-a"), status=C.RUNNING
    )
    ignored = Coordinator().on_item_status(running, "i-c", P.COMPLETED)
    assert ignored.changes == () and ignored.case.status is C.RUNNING
    for other in (P.REJECTED, P.CANCELLED, P.OBSOLETE):
        quiet = Coordinator().on_item_status(t.case, t.dispatches[0].item_id, other)
        assert quiet.changes == () and quiet.case.status is C.COMPENSATING


def test_ch_s12_missing_binding_and_definition() -> None:
    ghost = CaseDefinition((Binding("step-a", compensate="ghost"),))
    t = start(case(ghost, PlanItem("i-a", "step-a")))
    assert t.case.status is C.COMPENSATION_FAULTED
    assert dict(t.events[-1].fields) == {
        "reason": "compensating_binding_not_found",
        "binding": "ghost",
    }
    lost = start(case(None, PlanItem("i-a", "step-a")))
    assert dict(lost.events[-1].fields)["reason"] == "case_definition_not_found"


@pytest.mark.parametrize("old", [P.PENDING, P.DISPATCHING, P.RUNNING])
def test_sg93_sequential_retry_dispatches_beside_an_item_in_flight(old: PlanItemStatus) -> None:
    # CaseHub's fireNextCompensationStep counts only COMPLETED compensation items: the
    # original stays remaining and is dispatched again, next to the one still in flight.
    c = case(
        ONE_STEP,
        PlanItem("i-a", "step-a"),
        PlanItem("i-a-cmp-1", "undo-step-a", old, True, "i-a"),
        status=C.COMPENSATION_FAULTED,
    )
    t = start(c)
    (dispatch,) = t.dispatches
    assert dispatch.binding == "undo-step-a" and dispatch.item_id != "i-a-cmp-1"
    linked = [i for i in t.case.items if i.compensates_item_id == "i-a"]
    assert [i.status for i in linked] == [old, P.DISPATCHING]
