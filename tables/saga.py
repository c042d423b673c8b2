"""Every saga state machine and decision table, as data, in one place.

The reference executes these tables and ``rescind.model.saga.proofs`` reads the very same objects to
prove its properties, so a rule is stated once. Each transition carries the evidence it rests on
(``code``, ``test`` or ``doc``: the kind of upstream source; docs/spec/saga.md lists them and
what they leave unconfirmed; ``assumed`` where Rescind had to fill a gap;
``assumed`` rows only ever touch forward flow, never a compensation state).

Two words are kept apart on purpose (a Rescind decision, docs/spec/saga.md):

* ``terminal`` is the upstream system's own predicate ("done, as far as forward consumers care");
* ``final`` is Rescind's: no outgoing transition at all.

CaseHub calls COMPLETED terminal yet lets a completed case move to COMPENSATING. The case table
keeps that edge exactly as CaseHub defines it and lists it as a named ``DocumentedException``;
COMPLETED is terminal but not final. A self-loop (a no-op "stay") is not an outgoing transition.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Generic, Literal, TypeVar

import attrs

Evidence = Literal["code", "test", "doc", "assumed"]

S = TypeVar("S", bound=enum.Enum)


# --- state enumerations -------------------------------------------------------------------


class RunState(enum.Enum):
    """agentctl ``RunState``."""

    RUNNING = "running"
    PAUSED = "paused"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"


class TaskState(enum.Enum):
    """agentctl ``TaskState``."""

    PENDING = "pending"
    READY = "ready"
    RUNNING = "running"
    WAITING_FOR_APPROVAL = "waiting_for_approval"
    WAITING_FOR_EFFECT = "waiting_for_effect"
    RETRY_SCHEDULED = "retry_scheduled"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    SKIPPED = "skipped"
    CANCELLED = "cancelled"


class EffectStatus(enum.Enum):
    """agentctl raw ``EffectStatus`` (the immutable record; reconciliation is an overlay)."""

    REQUESTED = "requested"
    WAITING_FOR_APPROVAL = "waiting_for_approval"
    STARTED = "started"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"
    UNCERTAIN = "uncertain"


class ReconciliationStatus(enum.Enum):
    APPLIED = "applied"
    NOT_APPLIED = "not_applied"
    COMPENSATED = "compensated"


class CaseStatus(enum.Enum):
    STARTING = "STARTING"
    RUNNING = "RUNNING"
    WAITING = "WAITING"
    SUSPENDED = "SUSPENDED"
    COMPLETED = "COMPLETED"
    FAULTED = "FAULTED"
    CANCELLED = "CANCELLED"
    COMPENSATING = "COMPENSATING"
    COMPENSATED = "COMPENSATED"
    COMPENSATION_FAULTED = "COMPENSATION_FAULTED"


class WorkItemStatus(enum.Enum):
    PENDING = "PENDING"
    ASSIGNED = "ASSIGNED"
    IN_PROGRESS = "IN_PROGRESS"
    DELEGATED = "DELEGATED"
    SUSPENDED = "SUSPENDED"
    COMPLETED = "COMPLETED"
    REJECTED = "REJECTED"
    FAULTED = "FAULTED"
    CANCELLED = "CANCELLED"
    EXPIRED = "EXPIRED"
    ESCALATED = "ESCALATED"
    OBSOLETE = "OBSOLETE"


class CompensationStatus(enum.Enum):
    """Denormalised onto the *original* work item; its status stays COMPLETED throughout."""

    NONE = "NONE"
    COMPENSATING = "COMPENSATING"
    COMPENSATED = "COMPENSATED"


# --- generic table ------------------------------------------------------------------------


@attrs.frozen
class Transition(Generic[S]):
    source: S
    trigger: str
    target: S
    evidence: Evidence


@attrs.frozen
class DocumentedException(Generic[S]):
    """An edge that leaves a terminal state on purpose, with the upstream reason."""

    name: str
    source: S
    target: S
    reason: str


def _check_table(table: StateTable[S]) -> None:
    declared = set(table.states)
    seen: dict[tuple[S, str], S] = {}
    for row in table.transitions:
        if row.source not in declared or row.target not in declared:
            raise ValueError(f"{table.name}: {row} uses an undeclared state")
        if table.resolved_by_caller(row.trigger):
            continue
        previous = seen.setdefault((row.source, row.trigger), row.target)
        if previous != row.target:
            raise ValueError(f"{table.name}: ({row.source}, {row.trigger}) has two targets")
    for group in (table.initial, table.terminal, table.final, table.active or frozenset()):
        if not group <= declared:
            raise ValueError(f"{table.name}: a classification names an undeclared state")


@attrs.frozen
class StateTable(Generic[S]):
    """A lifecycle as data; ``rescind.reference.saga.transitions.fire`` executes it."""

    name: str
    states: tuple[S, ...]
    initial: frozenset[S]
    terminal: frozenset[S]
    final: frozenset[S]
    transitions: tuple[Transition[S], ...]
    active: frozenset[S] | None = None
    exceptions: tuple[DocumentedException[S], ...] = ()
    forbidden: tuple[tuple[S, S], ...] = ()
    """Edges the upstream design says must never exist (checked, not just omitted)."""
    caller_resolved: frozenset[str] = frozenset()
    """Triggers whose target the caller picks among the rows (e.g. resume to a saved state)."""

    def __attrs_post_init__(self) -> None:
        _check_table(self)

    def resolved_by_caller(self, trigger: str) -> bool:
        return trigger in self.caller_resolved

    def targets(self, source: S, trigger: str) -> tuple[S, ...]:
        return tuple(
            row.target
            for row in self.transitions
            if row.source == source and row.trigger == trigger
        )

    def target_of(self, source: S, trigger: str, target: S | None = None) -> S | None:
        """The one state ``trigger`` leads to from ``source`` (``target`` picks among rows
        the caller resolves), or ``None`` when the table has no such single row."""
        targets = self.targets(source, trigger)
        if target is not None:
            targets = tuple(candidate for candidate in targets if candidate == target)
        return targets[0] if len(targets) == 1 else None

    def outgoing(self, source: S) -> tuple[Transition[S], ...]:
        """Rows that leave ``source`` for another state (self-loops are stays, not exits)."""
        return tuple(row for row in self.transitions if row.source == source != row.target)


def _rows(
    evidence: Evidence, trigger: str, sources: tuple[S, ...], target: S
) -> tuple[Transition[S], ...]:
    return tuple(Transition(source, trigger, target, evidence) for source in sources)


def _fan(source: TaskState, *targets: TaskState) -> tuple[Transition[TaskState], ...]:
    """agentctl names no task triggers; the trigger is the target state's name."""
    return tuple(Transition(source, target.value, target, "code") for target in targets)


# --- agentctl run and task ---------------------------------------------------------------

_R = RunState
RUN_TABLE: StateTable[RunState] = StateTable(
    name="agentctl-run",
    states=tuple(RunState),
    initial=frozenset({_R.RUNNING}),
    terminal=frozenset({_R.SUCCEEDED, _R.FAILED, _R.CANCELLED}),
    final=frozenset({_R.SUCCEEDED, _R.FAILED, _R.CANCELLED}),
    transitions=(
        *_rows("code", "pause", (_R.RUNNING,), _R.PAUSED),
        *_rows("code", "succeed", (_R.RUNNING,), _R.SUCCEEDED),
        *_rows("code", "fail", (_R.RUNNING, _R.PAUSED), _R.FAILED),
        *_rows("code", "cancel", (_R.RUNNING, _R.PAUSED), _R.CANCELLED),
        *_rows("code", "resume", (_R.PAUSED,), _R.RUNNING),
    ),
)

_T = TaskState
TASK_TABLE: StateTable[TaskState] = StateTable(
    name="agentctl-task",
    states=tuple(TaskState),
    initial=frozenset({_T.PENDING}),
    terminal=frozenset({_T.SUCCEEDED, _T.FAILED, _T.SKIPPED, _T.CANCELLED}),
    final=frozenset({_T.SUCCEEDED, _T.FAILED, _T.SKIPPED, _T.CANCELLED}),
    transitions=(
        *_fan(_T.PENDING, _T.READY, _T.SKIPPED, _T.CANCELLED),
        *_fan(_T.READY, _T.RUNNING, _T.CANCELLED),
        *_fan(_T.RUNNING, _T.WAITING_FOR_APPROVAL, _T.WAITING_FOR_EFFECT, _T.SUCCEEDED),
        *_fan(_T.RUNNING, _T.FAILED, _T.RETRY_SCHEDULED, _T.CANCELLED),
        *_fan(_T.WAITING_FOR_APPROVAL, _T.RUNNING, _T.FAILED, _T.CANCELLED),
        *_fan(_T.WAITING_FOR_EFFECT, _T.RUNNING, _T.FAILED, _T.CANCELLED),
        *_fan(_T.RETRY_SCHEDULED, _T.READY, _T.CANCELLED),
    ),
)

# --- agentctl effect ----------------------------------------------------------------------

_E = EffectStatus
EFFECT_TABLE: StateTable[EffectStatus] = StateTable(
    name="agentctl-effect",
    states=tuple(EffectStatus),
    # Created requested when policy allows, waiting_for_approval when approval is required.
    initial=frozenset({_E.REQUESTED, _E.WAITING_FOR_APPROVAL}),
    # The raw record never changes after these; uncertainty is resolved by reconciliation.
    terminal=frozenset({_E.SUCCEEDED, _E.FAILED, _E.CANCELLED, _E.UNCERTAIN}),
    final=frozenset({_E.SUCCEEDED, _E.FAILED, _E.CANCELLED, _E.UNCERTAIN}),
    transitions=(
        *_rows("code", "approve", (_E.WAITING_FOR_APPROVAL,), _E.REQUESTED),
        *_rows("code", "reject", (_E.WAITING_FOR_APPROVAL,), _E.CANCELLED),
        *_rows("code", "dispatch", (_E.REQUESTED,), _E.STARTED),
        *_rows("code", "succeed", (_E.STARTED,), _E.SUCCEEDED),
        *_rows("code", "fail", (_E.STARTED,), _E.FAILED),
        *_rows("code", "lose", (_E.STARTED,), _E.UNCERTAIN),
    ),
)

# --- reconciliation overlay ----------------------------------------------------------------

_REC = ReconciliationStatus

_UNSETTLED = frozenset(
    (status, confirmed) for status in (_E.STARTED, _E.UNCERTAIN) for confirmed in (False, True)
)
FIRST_RECONCILIATION: Mapping[ReconciliationStatus, frozenset[tuple[EffectStatus, bool]]] = (
    MappingProxyType(
        {
            _REC.APPLIED: _UNSETTLED,
            _REC.NOT_APPLIED: _UNSETTLED,
            _REC.COMPENSATED: frozenset({(_E.SUCCEEDED, True)}),
        }
    )
)
"""Which raw (status, confirmed) pairs admit each status as an effect's first record."""

LATER_RECONCILIATION: Mapping[ReconciliationStatus, frozenset[ReconciliationStatus]] = (
    MappingProxyType(
        {
            _REC.APPLIED: frozenset({_REC.APPLIED, _REC.COMPENSATED}),
            _REC.NOT_APPLIED: frozenset({_REC.NOT_APPLIED}),
            _REC.COMPENSATED: frozenset({_REC.COMPENSATED}),
        }
    )
)
"""Latest status -> statuses a new (superseding) record may carry; anything else contradicts."""


# --- planner decision rows -----------------------------------------------------------------


class Eligibility(enum.Enum):
    """What the planner does with one compensation-relevant source effect."""

    ELIGIBLE = "eligible"
    ALREADY_COMPENSATED = "already_compensated"
    IGNORED = "ignored"
    BLOCK_UNRECONCILED = "unreconciled_source_effect"
    BLOCK_UNCONFIRMED = "unconfirmed_source_effect"


class PriorOutcome(enum.Enum):
    """What the latest effect of a prior compensation task does to its source task."""

    NO_BLOCK = "none"
    BLOCK_REVERSED = "compensation_effect_reversed"
    BLOCK_UNRECONCILED = "unreconciled_compensation_effect"
    BLOCK_UNCONFIRMED = "unconfirmed_compensation_effect"


R_ = TypeVar("R_", bound=enum.Enum)


@attrs.frozen
class DecisionRow(Generic[R_]):
    """First matching row wins. ``None`` in a match field is a wildcard; ``latest`` uses the
    string "none" for "no reconciliation yet"."""

    latest: frozenset[str] | None
    statuses: frozenset[EffectStatus] | None
    confirmed: bool | None
    outcome: R_

    def matches(self, latest: str, status: EffectStatus, confirmed: bool) -> bool:
        return (
            (self.latest is None or latest in self.latest)
            and (self.statuses is None or status in self.statuses)
            and (self.confirmed is None or confirmed == self.confirmed)
        )


def decide(
    rows: tuple[DecisionRow[R_], ...], latest: str, status: EffectStatus, confirmed: bool
) -> R_:
    for row in rows:
        if row.matches(latest, status, confirmed):
            return row.outcome
    raise ValueError("decision rows must end with a catch-all row")


NO_RECONCILIATION = "none"
LATEST_VALUES: tuple[str, ...] = (NO_RECONCILIATION, *(status.value for status in _REC))

_NONE = frozenset({NO_RECONCILIATION})
_IN_FLIGHT = frozenset({_E.STARTED, _E.UNCERTAIN})
_SUCCEEDED = frozenset({_E.SUCCEEDED})

SOURCE_EFFECT_ROWS: tuple[DecisionRow[Eligibility], ...] = (
    DecisionRow(frozenset({"compensated"}), None, None, Eligibility.ALREADY_COMPENSATED),
    DecisionRow(frozenset({"not_applied"}), None, None, Eligibility.IGNORED),
    DecisionRow(frozenset({"applied"}), None, None, Eligibility.ELIGIBLE),
    DecisionRow(_NONE, _IN_FLIGHT, None, Eligibility.BLOCK_UNRECONCILED),
    DecisionRow(_NONE, _SUCCEEDED, True, Eligibility.ELIGIBLE),
    DecisionRow(_NONE, _SUCCEEDED, False, Eligibility.BLOCK_UNCONFIRMED),
    DecisionRow(None, None, None, Eligibility.IGNORED),
)
"""Planner classification of a relevant source effect (its latest record, raw status)."""

PRIOR_EFFECT_ROWS: tuple[DecisionRow[PriorOutcome], ...] = (
    DecisionRow(frozenset({"applied", "not_applied"}), None, None, PriorOutcome.NO_BLOCK),
    DecisionRow(frozenset({"compensated"}), None, None, PriorOutcome.BLOCK_REVERSED),
    DecisionRow(_NONE, _IN_FLIGHT, None, PriorOutcome.BLOCK_UNRECONCILED),
    DecisionRow(_NONE, _SUCCEEDED, False, PriorOutcome.BLOCK_UNCONFIRMED),
    DecisionRow(None, None, None, PriorOutcome.NO_BLOCK),
)
"""Block on a source task from the latest effect of a terminal prior compensation task."""

IRRELEVANT_EFFECT_CLASSES: frozenset[str] = frozenset({"pure", "observe", "model"})

# --- CaseHub case --------------------------------------------------------------------------

_C = CaseStatus
CASE_ACTIVE_EARLIER: frozenset[CaseStatus] = frozenset(
    {_C.STARTING, _C.RUNNING, _C.WAITING, _C.COMPENSATING, _C.COMPENSATION_FAULTED}
)
"""The earlier ``isActive`` variant (SUSPENDED is neither terminal nor active there)."""

CASE_COMPENSATION_ENTRY: frozenset[CaseStatus] = frozenset({_C.COMPLETED, _C.COMPENSATION_FAULTED})

CASE_TABLE: StateTable[CaseStatus] = StateTable(
    name="casehub-case",
    states=tuple(CaseStatus),
    initial=frozenset({_C.STARTING}),
    terminal=frozenset({_C.COMPLETED, _C.FAULTED, _C.CANCELLED, _C.COMPENSATED}),
    final=frozenset({_C.FAULTED, _C.CANCELLED, _C.COMPENSATED}),
    # The current isActive variant: every status is exactly one of terminal or active.
    active=frozenset(
        {
            _C.STARTING,
            _C.RUNNING,
            _C.WAITING,
            _C.SUSPENDED,
            _C.COMPENSATING,
            _C.COMPENSATION_FAULTED,
        }
    ),
    transitions=(
        # Forward flow: the digest gives no table for it; these rows are Rescind's assumption
        # and exist so non-terminal states are not mistaken for final ones.
        *_rows("assumed", "start", (_C.STARTING,), _C.RUNNING),
        *_rows("assumed", "wait", (_C.RUNNING,), _C.WAITING),
        *_rows("assumed", "wake", (_C.WAITING,), _C.RUNNING),
        *_rows("assumed", "suspend", (_C.RUNNING, _C.WAITING), _C.SUSPENDED),
        *_rows("assumed", "resume", (_C.SUSPENDED,), _C.RUNNING),
        *_rows("assumed", "complete", (_C.RUNNING, _C.WAITING), _C.COMPLETED),
        *_rows("assumed", "fault", (_C.STARTING, _C.RUNNING, _C.WAITING), _C.FAULTED),
        *_rows(
            "assumed", "cancel", (_C.STARTING, _C.RUNNING, _C.WAITING, _C.SUSPENDED), _C.CANCELLED
        ),
        # Compensation: all from the digest (B3). The coordinator undoes one step at a time
        # (SG-100), so COMPENSATING holds at most one step in flight; dispatch_failed fires
        # after that step's item exists and COMPENSATION_STEP_STARTED is logged, except for a
        # missing compensating binding (SG-101).
        *_rows("code", "compensate", (_C.COMPLETED, _C.COMPENSATION_FAULTED), _C.COMPENSATING),
        *_rows("test", "steps_exhausted", (_C.COMPENSATING,), _C.COMPENSATED),
        *_rows("test", "step_faulted", (_C.COMPENSATING,), _C.COMPENSATION_FAULTED),
        *_rows("code", "dispatch_failed", (_C.COMPENSATING,), _C.COMPENSATION_FAULTED),
    ),
    exceptions=(
        DocumentedException(
            name="casehub-post-terminal-compensation",
            source=_C.COMPLETED,
            target=_C.COMPENSATING,
            reason="CaseHub design D7: a completed case may be compensated after the fact",
        ),
    ),
    forbidden=((_C.COMPENSATING, _C.SUSPENDED), (_C.COMPENSATING, _C.CANCELLED)),
)

# --- CaseHub work item -----------------------------------------------------------------------

_W = WorkItemStatus
_W_DONE = frozenset(
    {_W.COMPLETED, _W.REJECTED, _W.FAULTED, _W.CANCELLED, _W.EXPIRED, _W.ESCALATED, _W.OBSOLETE}
)
_W_OPEN = (_W.PENDING, _W.ASSIGNED, _W.IN_PROGRESS, _W.DELEGATED, _W.SUSPENDED)
"""Every non-terminal status: the ones ``isTerminal`` guards let through."""


def _system(trigger: str, target: WorkItemStatus) -> tuple[Transition[WorkItemStatus], ...]:
    """A ``...FromSystem`` call: any open item moves to ``target``; a terminal one is returned
    unchanged without an error (a stay, not an exit)."""
    return (
        *_rows("code", trigger, _W_OPEN, target),
        *(Transition(done, trigger, done, "code") for done in sorted(_W_DONE, key=_value)),
    )


def _value(status: WorkItemStatus) -> str:
    return status.value


# Rows read in CaseHub's WorkItemService (the version that has compensate/markCompensated) and
# ExpiryLifecycleService; "test" where its WorkItemServiceTest asserts the row
# (docs/upstream-readings.md lists the methods and tests).
WORK_ITEM_TABLE: StateTable[WorkItemStatus] = StateTable(
    name="casehub-work-item",
    states=tuple(WorkItemStatus),
    initial=frozenset({_W.PENDING}),
    terminal=_W_DONE,
    final=_W_DONE,
    active=frozenset(_W_OPEN),
    transitions=(
        *_rows("test", "claim", (_W.PENDING,), _W.ASSIGNED),
        *_rows("test", "start", (_W.ASSIGNED,), _W.IN_PROGRESS),
        *_rows("test", "complete", (_W.IN_PROGRESS,), _W.COMPLETED),
        *_rows("test", "release", (_W.ASSIGNED,), _W.PENDING),
        *_rows("test", "suspend", (_W.ASSIGNED, _W.IN_PROGRESS), _W.SUSPENDED),
        # Resume returns to the state the item was suspended from (kept on the record).
        *_rows("test", "resume", (_W.SUSPENDED,), _W.ASSIGNED),
        *_rows("test", "resume", (_W.SUSPENDED,), _W.IN_PROGRESS),
        *_rows("test", "delegate", (_W.ASSIGNED, _W.IN_PROGRESS), _W.DELEGATED),
        # Only the named delegatee acts on a DELEGATED item; claim refuses it.
        *_rows("test", "accept_delegation", (_W.DELEGATED,), _W.ASSIGNED),
        # Declining goes back to the delegator (DELEGATOR target with a chain) or the pool.
        *_rows("test", "decline_delegation", (_W.DELEGATED,), _W.ASSIGNED),
        *_rows("test", "decline_delegation", (_W.DELEGATED,), _W.PENDING),
        *_rows("test", "reject", (_W.ASSIGNED, _W.IN_PROGRESS), _W.REJECTED),
        *_rows(
            "test", "cancel", (_W.PENDING, _W.ASSIGNED, _W.IN_PROGRESS, _W.SUSPENDED), _W.CANCELLED
        ),
        *_rows("code", "cancel", (_W.DELEGATED,), _W.CANCELLED),
        *_rows("test", "fault", _W_OPEN, _W.FAULTED),
        *_rows("test", "obsolete", (_W.PENDING, _W.IN_PROGRESS), _W.OBSOLETE),
        *_rows("code", "obsolete", (_W.ASSIGNED, _W.DELEGATED, _W.SUSPENDED), _W.OBSOLETE),
        # The public escalate call puts the item back in the pool of a new group.
        *_rows("code", "escalate_manually", _W_OPEN, _W.PENDING),
        # An SLA breach (expiry or claim deadline passed on an open item) runs the breach
        # policy: Fail expires the item, EscalateTo reassigns it, an exhausted policy escalates.
        *_rows("code", "expire", _W_OPEN, _W.EXPIRED),
        *_rows("code", "sla_reassign", _W_OPEN, _W.PENDING),
        *_rows("code", "escalate", _W_OPEN, _W.ESCALATED),
        *_system("complete_from_system", _W.COMPLETED),
        *_system("reject_from_system", _W.REJECTED),
        *_system("fault_from_system", _W.FAULTED),
        *_system("cancel_from_system", _W.CANCELLED),
        *_system("obsolete_from_system", _W.OBSOLETE),
    ),
    caller_resolved=frozenset({"resume", "decline_delegation"}),
)

_CS = CompensationStatus
COMPENSATION_STATUS_TABLE: StateTable[CompensationStatus] = StateTable(
    name="casehub-compensation-status",
    states=tuple(CompensationStatus),
    initial=frozenset({_CS.NONE}),
    terminal=frozenset({_CS.COMPENSATED}),
    final=frozenset({_CS.COMPENSATED}),
    transitions=(
        *_rows("code", "compensate", (_CS.NONE,), _CS.COMPENSATING),
        # markCompensated is unguarded upstream: it sets COMPENSATED from any value.
        *_rows("code", "mark_compensated", tuple(CompensationStatus), _CS.COMPENSATED),
    ),
)

COMPENSATOR_STRANDING: frozenset[WorkItemStatus] = WORK_ITEM_TABLE.terminal - {_W.COMPLETED}
"""Terminal compensator states that leave the original COMPENSATING for good (a known dead end:
no upstream path resets the original, and a second compensate is refused)."""

ALL_TABLES: tuple[StateTable[Any], ...] = (
    RUN_TABLE,
    TASK_TABLE,
    EFFECT_TABLE,
    CASE_TABLE,
    WORK_ITEM_TABLE,
    COMPENSATION_STATUS_TABLE,
)
