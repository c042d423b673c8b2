"""SG-60..SG-64: CaseHub work-item compensation (CH-S15..CH-S18)."""

from __future__ import annotations

import pytest

from rescind.reference.saga.errors import (
    CompensationAlreadyActive,
    CompensatorNotCompensable,
    IllegalTransition,
    WorkItemNotCompleted,
    WorkItemNotFound,
)
from rescind.reference.saga.workitems import WorkItem, WorkItems
from rescind.tables.saga import (
    COMPENSATOR_STRANDING,
    WORK_ITEM_TABLE,
    CompensationStatus,
    WorkItemStatus,
)

W = WorkItemStatus
CS = CompensationStatus


def started() -> WorkItems:
    return WorkItems((WorkItem("w", W.COMPLETED),)).compensate("w", new_id="c", triggered_by="op")


def run(store: WorkItems, item: str, *triggers: str) -> WorkItems:
    for trigger in triggers:
        store = store.apply(item, trigger)
    return store


def test_classification_matches_digest() -> None:
    assert WORK_ITEM_TABLE.terminal == {
        W.COMPLETED,
        W.REJECTED,
        W.FAULTED,
        W.CANCELLED,
        W.EXPIRED,
        W.ESCALATED,
        W.OBSOLETE,
    }
    assert WORK_ITEM_TABLE.active == {
        W.PENDING,
        W.ASSIGNED,
        W.IN_PROGRESS,
        W.DELEGATED,
        W.SUSPENDED,
    }


def test_ch_s15_happy_path() -> None:
    store = started()
    original, compensator = store.get("w"), store.get("c")
    assert (original.status, original.compensation_status) == (W.COMPLETED, CS.COMPENSATING)
    assert (compensator.status, compensator.compensates) == (W.PENDING, "w")
    store = run(store, "c", "claim", "start", "complete")
    assert (store.get("w").status, store.get("w").compensation_status) == (
        W.COMPLETED,
        CS.COMPENSATED,
    )
    assert [(a.kind, a.actor) for a in store.audits] == [
        ("COMPENSATION_STARTED", "op"),
        ("COMPENSATION_COMPLETED", "system"),
    ]


def test_ch_s16_guards_in_order() -> None:
    with pytest.raises(WorkItemNotCompleted):
        WorkItems((WorkItem("p", W.PENDING),)).compensate("p", new_id="c", triggered_by="op")
    with pytest.raises(CompensationAlreadyActive):
        started().compensate("w", new_id="c2", triggered_by="op")
    done = run(started(), "c", "claim", "start", "complete")
    with pytest.raises(CompensatorNotCompensable):
        done.compensate("c", new_id="c3", triggered_by="op")
    with pytest.raises(WorkItemNotFound):
        done.compensate("ghost", new_id="c4", triggered_by="op")
    # Guard order: a non-COMPLETED compensator is refused as not completed first.
    with pytest.raises(WorkItemNotCompleted):
        started().compensate("c", new_id="c5", triggered_by="op")


def test_ch_s17_suspend_resume() -> None:
    store = run(started(), "c", "claim", "suspend")
    assert (
        store.get("c").status is W.SUSPENDED
        and store.get("w").compensation_status is CS.COMPENSATING
    )
    store = run(store, "c", "resume")
    assert store.get("c").status is W.ASSIGNED  # back to where it was suspended
    store = run(store, "c", "start", "suspend", "resume")
    assert store.get("c").status is W.IN_PROGRESS
    store = run(store, "c", "complete")
    assert store.get("w").compensation_status is CS.COMPENSATED


@pytest.mark.parametrize(
    "ending", [("claim", "reject"), ("cancel",), ("claim", "start", "fault"), ("expire",)]
)
def test_ch_s18_dead_end(ending: tuple[str, ...]) -> None:
    store = run(started(), "c", *ending)
    assert store.get("c").status in COMPENSATOR_STRANDING
    assert store.get("w").compensation_status is CS.COMPENSATING
    with pytest.raises(CompensationAlreadyActive):
        store.compensate("w", new_id="c2", triggered_by="op")


def test_completed_status_never_moves() -> None:
    for trigger in ("claim", "start", "cancel", "reject", "resume"):
        with pytest.raises(IllegalTransition):
            started().apply("w", trigger)
