"""CaseHub's case-level saga coordinator, sans-IO.

``compensate`` moves a COMPLETED (or, for a retry, COMPENSATION_FAULTED) case to COMPENSATING
and starts the next step; ``on_item_status`` feeds plan-item status changes back in. A *step*
undoes one completed plan item whose binding names a ``compensate`` binding, by creating a new
compensation plan item (keyed by plan-item id, never by binding name) and dispatching it.

Which steps remain: completed, non-compensation items with a ``compensate`` binding, minus the
originals of COMPLETED compensation items (a FAULTED one does not count, so a retry redoes
exactly the faulted step). One step is dispatched at a time (SG-100: CaseHub has no parallel
batches). Which one: upstream walks the plan items in hash order, so any remaining step that
no other remaining step depends on may go next, and a run undoes the steps in *some* order
consistent with the dependencies (``compensation_before`` gives those pairs); this reference
takes the first of ``dfs_reverse_postorder`` in item order, one such order. Only COMPLETED
compensation items count, so a retry dispatches a new item for a step whose older item is
still in flight (SG-93). Case status only ever changes through ``CASE_TABLE``.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any

import attrs

from rescind.reference.saga.bindings import Binding, CaseDefinition, TargetKind
from rescind.reference.saga.errors import CaseNotCompensable, CaseNotFound, UnknownPlanItem
from rescind.reference.saga.identifiers import check_identifier
from rescind.reference.saga.order import dfs_reverse_postorder, reaches
from rescind.reference.saga.transitions import fire
from rescind.tables.saga import CASE_COMPENSATION_ENTRY, CASE_TABLE, CaseStatus


class PlanItemStatus(enum.Enum):
    PENDING = "PENDING"
    DISPATCHING = "DISPATCHING"
    RUNNING = "RUNNING"
    COMPLETED = "COMPLETED"
    FAULTED = "FAULTED"
    REJECTED = "REJECTED"
    CANCELLED = "CANCELLED"
    OBSOLETE = "OBSOLETE"


IN_FLIGHT = frozenset({PlanItemStatus.PENDING, PlanItemStatus.DISPATCHING, PlanItemStatus.RUNNING})


class EventKind(enum.Enum):
    COMPENSATION_STARTED = "COMPENSATION_STARTED"
    COMPENSATION_STEP_STARTED = "COMPENSATION_STEP_STARTED"
    COMPENSATION_STEP_COMPLETED = "COMPENSATION_STEP_COMPLETED"
    COMPENSATION_COMPLETED = "COMPENSATION_COMPLETED"
    COMPENSATION_FAULTED = "COMPENSATION_FAULTED"


class FaultReason(enum.Enum):
    STEP_FAULTED = "step_faulted"
    DEFINITION_NOT_FOUND = "case_definition_not_found"
    BINDING_NOT_FOUND = "compensating_binding_not_found"
    WORKER_NOT_FOUND = "worker_not_found"
    NO_JUDGMENT_SCHEDULER = "no_judgment_scheduler"
    UNSUPPORTED_TARGET = "unsupported_target"


@attrs.frozen
class PlanItem:
    item_id: str = attrs.field(validator=check_identifier)
    binding: str = attrs.field(validator=check_identifier)
    status: PlanItemStatus = PlanItemStatus.COMPLETED
    compensation: bool = False
    compensates_item_id: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.item_id,
            "binding": self.binding,
            "status": self.status.value,
            "compensation": self.compensation,
            "compensatesItemId": self.compensates_item_id,
        }


@attrs.frozen
class Case:
    case_id: str = attrs.field(validator=check_identifier)
    status: CaseStatus = CaseStatus.COMPLETED
    definition: CaseDefinition | None = None
    """None models "case definition not found" at compensation time."""
    items: tuple[PlanItem, ...] = ()

    def item(self, item_id: str) -> PlanItem:
        for item in self.items:
            if item.item_id == item_id:
                return item
        raise UnknownPlanItem(item_id=item_id)


@attrs.frozen
class Event:
    kind: EventKind
    fields: tuple[tuple[str, str], ...] = ()

    def to_json(self) -> dict[str, str]:
        return {"type": self.kind.value, **dict(self.fields)}


@attrs.frozen
class Dispatch:
    case_id: str
    item_id: str
    binding: str
    target: TargetKind
    worker: str
    capability: str

    def to_json(self) -> dict[str, str]:
        # The case is the one the step was about, so the transcript leaves it implicit.
        return {
            "itemId": self.item_id,
            "binding": self.binding,
            "target": self.target.value,
            "worker": self.worker,
            "capability": self.capability,
        }


@attrs.frozen
class Transcript:
    """A case after one call, and everything the call published, in order."""

    case: Case
    changes: tuple[tuple[CaseStatus, CaseStatus], ...] = ()
    events: tuple[Event, ...] = ()
    dispatches: tuple[Dispatch, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.case.status.value,
            "statusChanges": [[old.value, new.value] for old, new in self.changes],
            "events": [event.to_json() for event in self.events],
            "dispatches": [dispatch.to_json() for dispatch in self.dispatches],
        }


@attrs.define
class _Progress:
    case: Case
    changes: list[tuple[CaseStatus, CaseStatus]] = attrs.field(factory=list)
    events: list[Event] = attrs.field(factory=list)
    dispatches: list[Dispatch] = attrs.field(factory=list)

    def move(self, trigger: str) -> None:
        old = self.case.status
        new = fire(CASE_TABLE, old, trigger)
        self.case = attrs.evolve(self.case, status=new)
        self.changes.append((old, new))

    def log(self, kind: EventKind, **fields: str) -> None:
        self.events.append(Event(kind, tuple(fields.items())))

    def fault(self, trigger: str, reason: FaultReason, binding: str) -> None:
        self.move(trigger)
        self.log(EventKind.COMPENSATION_FAULTED, reason=reason.value, binding=binding)

    def done(self) -> Transcript:
        return Transcript(
            self.case, tuple(self.changes), tuple(self.events), tuple(self.dispatches)
        )


@attrs.frozen
class Coordinator:
    judgment_scheduler: bool = True
    """Whether a JudgmentScheduler is available to dispatch judgment targets."""

    def compensate(
        self, cases: Mapping[str, Case], case_id: str, triggered_by: str, reason: str
    ) -> Transcript:
        case = cases.get(case_id)
        if case is None:
            raise CaseNotFound(case_id=case_id)
        if case.status not in CASE_COMPENSATION_ENTRY:
            # CaseHub's IllegalStateException names the valid entry points (SG-42).
            entry = " ".join(sorted(status.value for status in CASE_COMPENSATION_ENTRY))
            raise CaseNotCompensable(
                case_id=case_id, status=case.status.value.lower(), valid_entry_points=entry
            )
        progress = _Progress(case)
        progress.move("compensate")
        progress.log(EventKind.COMPENSATION_STARTED, triggeredBy=triggered_by, reason=reason)
        self._fire_next(progress)
        return progress.done()

    def on_item_status(self, case: Case, item_id: str, status: PlanItemStatus) -> Transcript:
        item = attrs.evolve(case.item(item_id), status=status)
        items = tuple(item if other.item_id == item_id else other for other in case.items)
        progress = _Progress(attrs.evolve(case, items=items))
        if not item.compensation or case.status is not CaseStatus.COMPENSATING:
            return progress.done()
        if status is PlanItemStatus.COMPLETED:
            # CaseHub logs the step only for an item that names its original (the binding
            # reads "unknown" when that original is gone); the next step starts either way.
            if item.compensates_item_id is not None:
                original = _find_item(case, item.compensates_item_id)
                progress.log(
                    EventKind.COMPENSATION_STEP_COMPLETED,
                    originalBinding="unknown" if original is None else original.binding,
                    compensatingBinding=item.binding,
                )
            self._fire_next(progress)
        elif status is PlanItemStatus.FAULTED:
            progress.fault("step_faulted", FaultReason.STEP_FAULTED, item.binding)
        return progress.done()

    def _fire_next(self, progress: _Progress) -> None:
        definition = progress.case.definition
        if definition is None:
            progress.fault("dispatch_failed", FaultReason.DEFINITION_NOT_FOUND, "")
            return
        remaining = remaining_steps(progress.case)
        if not remaining:
            progress.move("steps_exhausted")
            progress.log(EventKind.COMPENSATION_COMPLETED)
            return
        # SG-93: only COMPLETED compensation items count, so a retry dispatches a new item
        # even while an older one is still in flight.
        self._dispatch(progress, definition, self.next_step(definition, remaining))

    def next_step(self, definition: CaseDefinition, remaining: tuple[PlanItem, ...]) -> PlanItem:
        """The one step to start now: a remaining step no other remaining step depends on
        (this reference: the first of the DFS order in item order; CaseHub: whichever its
        hash order yields, SG-100)."""
        ids = [item.item_id for item in remaining]
        by_id = {item.item_id: item for item in remaining}
        return by_id[dfs_reverse_postorder(ids, item_graph(definition, remaining))[0]]

    def _dispatch(
        self, progress: _Progress, definition: CaseDefinition, original: PlanItem
    ) -> None:
        binding = definition.binding(original.binding)
        reference = "" if binding is None or binding.compensate is None else binding.compensate
        undo = definition.binding(reference)
        if undo is None:
            # Nothing is created or logged when the compensating binding is missing.
            progress.fault("dispatch_failed", FaultReason.BINDING_NOT_FOUND, reference)
            return
        count = sum(
            1 for item in progress.case.items if item.compensates_item_id == original.item_id
        )
        item = PlanItem(
            item_id=f"{original.item_id}-cmp-{count + 1}",
            binding=undo.name,
            status=PlanItemStatus.DISPATCHING,
            compensation=True,
            compensates_item_id=original.item_id,
        )
        progress.case = attrs.evolve(progress.case, items=(*progress.case.items, item))
        progress.log(
            EventKind.COMPENSATION_STEP_STARTED,
            originalBinding=original.binding,
            compensatingBinding=undo.name,
        )
        # SG-101: the target is checked only when the item is dispatched, after the item exists
        # and COMPENSATION_STEP_STARTED is logged; a failure leaves the item DISPATCHING.
        failure = _dispatch_failure(undo, definition, self.judgment_scheduler)
        if failure is not None:
            progress.fault("dispatch_failed", failure, undo.name)
            return
        progress.dispatches.append(
            Dispatch(
                progress.case.case_id,
                item.item_id,
                undo.name,
                undo.target,
                undo.worker,
                undo.capability,
            )
        )


def _find_item(case: Case, item_id: str) -> PlanItem | None:
    return next((item for item in case.items if item.item_id == item_id), None)


def _dispatch_failure(
    undo: Binding, definition: CaseDefinition, judgment_scheduler: bool
) -> FaultReason | None:
    if undo.target is TargetKind.CAPABILITY:
        return None if undo.worker in definition.workers else FaultReason.WORKER_NOT_FOUND
    if undo.target is TargetKind.JUDGMENT:
        return None if judgment_scheduler else FaultReason.NO_JUDGMENT_SCHEDULER
    return FaultReason.UNSUPPORTED_TARGET


def remaining_steps(case: Case) -> tuple[PlanItem, ...]:
    """Completed compensable originals without a COMPLETED compensation item, in item order."""
    definition = case.definition or CaseDefinition(())
    done = {
        item.compensates_item_id
        for item in case.items
        if item.compensation and item.status is PlanItemStatus.COMPLETED
    }
    return tuple(
        item
        for item in case.items
        if item.status is PlanItemStatus.COMPLETED
        and not item.compensation
        and _compensable(definition.binding(item.binding))
        and item.item_id not in done
    )


def _compensable(binding: Binding | None) -> bool:
    return binding is not None and binding.compensate is not None


def item_graph(
    definition: CaseDefinition, items: tuple[PlanItem, ...]
) -> dict[str, tuple[str, ...]]:
    """item -> items it needs, from the bindings' produces/consumes, over ``items`` only."""
    bindings = {binding.name: binding for binding in definition.bindings}
    graph: dict[str, tuple[str, ...]] = {}
    for consumer in items:
        wanted = bindings[consumer.binding].consumes if consumer.binding in bindings else ()
        graph[consumer.item_id] = tuple(
            producer.item_id
            for producer in items
            if producer.item_id != consumer.item_id
            and producer.binding in bindings
            and any(channel in bindings[producer.binding].produces for channel in wanted)
        )
    return graph


def compensation_before(
    definition: CaseDefinition, items: tuple[PlanItem, ...]
) -> tuple[tuple[str, str], ...]:
    """(x, y) pairs, x undone before y, that every run respects: x depends on y and y does not
    depend back on x through a cycle (on a produces/consumes cycle the DFS skips the back
    edge, so either may come first). Sorted."""
    graph = item_graph(definition, items)
    return tuple(
        sorted(
            (consumer, producer)
            for consumer, producers in graph.items()
            for producer in producers
            if not reaches(graph, producer, consumer)
        )
    )
