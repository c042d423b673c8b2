"""CaseHub work-item compensation: a new linked item, never a change to the original's status.

``compensate`` checks, in order: the original exists, is COMPLETED, has no compensation activity
yet, and is not itself a compensating item (a compensation is a pair, never a chain). It then
marks the original COMPENSATING (its status stays COMPLETED) and creates a PENDING item linked
through ``compensates``. When that item completes, the original becomes COMPENSATED. If the
compensating item ends any other terminal way, nothing resets the original: it stays
COMPENSATING and a new ``compensate`` is refused (a known upstream dead end, reported by the
model as ``workitem-compensator-not-completed``). CaseHub's CompensationLifecycleObserver reacts
to any lifecycle event whose item is COMPLETED, so a compensator completed by the system
(``complete_from_system``) marks its original too.
"""

from __future__ import annotations

from typing import Any

import attrs

from rescind.reference.saga.errors import (
    CompensationAlreadyActive,
    CompensatorNotCompensable,
    WorkItemNotCompleted,
    WorkItemNotFound,
)
from rescind.reference.saga.identifiers import check_identifier
from rescind.reference.saga.transitions import fire
from rescind.tables.saga import (
    COMPENSATION_STATUS_TABLE,
    WORK_ITEM_TABLE,
    CompensationStatus,
    WorkItemStatus,
)

SYSTEM_ACTOR = "system"


@attrs.frozen
class WorkItem:
    item_id: str = attrs.field(validator=check_identifier)
    status: WorkItemStatus = WorkItemStatus.PENDING
    compensation_status: CompensationStatus = CompensationStatus.NONE
    compensates: str | None = None
    """The original this item compensates (upstream ``compensatesWorkItemId``)."""
    suspended_from: WorkItemStatus | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.item_id,
            "status": self.status.value,
            "compensationStatus": self.compensation_status.value,
            "compensates": self.compensates,
        }


@attrs.frozen
class Audit:
    item_id: str
    kind: str
    actor: str


@attrs.frozen
class WorkItems:
    items: tuple[WorkItem, ...] = ()
    audits: tuple[Audit, ...] = ()

    def get(self, item_id: str) -> WorkItem:
        for item in self.items:
            if item.item_id == item_id:
                return item
        raise WorkItemNotFound(item_id=item_id)

    def _put(self, item: WorkItem, *audits: Audit) -> WorkItems:
        known = any(other.item_id == item.item_id for other in self.items)
        items = (
            tuple(item if other.item_id == item.item_id else other for other in self.items)
            if known
            else (*self.items, item)
        )
        return WorkItems(items, (*self.audits, *audits))

    def compensate(self, original_id: str, *, new_id: str, triggered_by: str) -> WorkItems:
        original = self.get(original_id)
        if original.status is not WorkItemStatus.COMPLETED:
            raise WorkItemNotCompleted(item_id=original_id, status=original.status.value.lower())
        if original.compensation_status is not CompensationStatus.NONE:
            raise CompensationAlreadyActive(item_id=original_id)
        if original.compensates is not None:
            raise CompensatorNotCompensable(item_id=original_id)
        marked = attrs.evolve(
            original,
            compensation_status=fire(
                COMPENSATION_STATUS_TABLE, original.compensation_status, "compensate"
            ),
        )
        store = self._put(marked, Audit(original_id, "COMPENSATION_STARTED", triggered_by))
        return store._put(WorkItem(new_id, compensates=original_id))

    def apply(self, item_id: str, trigger: str, target: WorkItemStatus | None = None) -> WorkItems:
        """A lifecycle trigger on one item; a compensator that becomes COMPLETED (by any
        trigger) marks its original. ``resume`` goes back to the status the item was suspended
        from; ``decline_delegation`` needs the caller's ``target`` (the delegator or the pool)."""
        item = self.get(item_id)
        if trigger == "resume":
            after = fire(WORK_ITEM_TABLE, item.status, trigger, item.suspended_from)
            item = attrs.evolve(item, status=after, suspended_from=None)
        else:
            after = fire(WORK_ITEM_TABLE, item.status, trigger, target)
            if after is item.status:
                return self  # a system call on a finished item returns it unchanged
            saved = item.status if after is WorkItemStatus.SUSPENDED else None
            item = attrs.evolve(item, status=after, suspended_from=saved)
        store = self._put(item)
        if item.status is WorkItemStatus.COMPLETED and item.compensates is not None:
            store = store.mark_compensated(item.compensates)
        return store

    def mark_compensated(self, original_id: str) -> WorkItems:
        """CaseHub's ``markCompensated``: unguarded, whatever the current value (and whatever
        the item's status) the original becomes COMPENSATED, audited by ``system``."""
        original = self.get(original_id)
        status = fire(COMPENSATION_STATUS_TABLE, original.compensation_status, "mark_compensated")
        return self._put(
            attrs.evolve(original, compensation_status=status),
            Audit(original_id, "COMPENSATION_COMPLETED", SYSTEM_ACTOR),
        )
