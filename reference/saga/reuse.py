"""What compensation means for retrying, repairing or resuming the *source* run.

A source task with an effect whose latest reconciliation is ``compensated``, or one still
started or uncertain without a later ``applied`` record, is an unresolved reused effect: its
recorded result does not hold (or is not known to), so a retry may not reuse that task; it must
run again. A failed-only retry reuses every succeeded task and is therefore incompatible after
a compensation; restarting from the compensated root (with ``restart_successful``) reruns the
root and everything downstream of it and is compatible.
"""

from __future__ import annotations

import attrs

from rescind.reference.saga.effects import Effect
from rescind.reference.saga.errors import SagaInvalidInput
from rescind.reference.saga.lineage import Lineage
from rescind.reference.saga.order import dependents_of
from rescind.tables.saga import (
    RUN_TABLE,
    EffectStatus,
    ReconciliationStatus,
    TaskState,
)

_COMPENSATED = ReconciliationStatus.COMPENSATED.value
_APPLIED = ReconciliationStatus.APPLIED.value
_RESETTING = frozenset({_COMPENSATED, ReconciliationStatus.NOT_APPLIED.value})


@attrs.frozen
class RetryCheck:
    compatible: bool
    rerun: tuple[str, ...]
    """Tasks that run again, in compiled order."""
    unresolved: tuple[str, ...]
    """Reused tasks with an unresolved effect (the reason for incompatibility)."""


def _downstream(lineage: Lineage, roots: set[str]) -> set[str]:
    ids = [task.task_id for task in lineage.source.tasks]
    users = dependents_of(ids, {task.task_id: task.needs for task in lineage.source.tasks})
    found = set(roots)
    frontier = list(roots)
    while frontier:
        for user in users[frontier.pop()]:
            if user not in found:
                found.add(user)
                frontier.append(user)
    return found


def _unresolved(lineage: Lineage, effect: Effect) -> bool:
    """agentctl's ``unresolved_reuse_effects``: compensated, or still in flight (started or
    uncertain) without a later ``applied`` record."""
    latest = lineage.overlay.latest_status(effect.effect_id)
    in_flight = effect.status in (EffectStatus.STARTED, EffectStatus.UNCERTAIN)
    return latest == _COMPENSATED or (in_flight and latest != _APPLIED)


def retry_check(
    lineage: Lineage, *, from_tasks: tuple[str, ...] = (), restart_successful: bool = False
) -> RetryCheck:
    """Failed-only retry when ``from_tasks`` is empty, else a restart from those roots.

    A succeeded root only restarts with ``restart_successful``; without it the root is reused.
    """
    tasks = lineage.source.by_id
    for task_id in from_tasks:
        if task_id not in tasks:
            raise SagaInvalidInput(field="from_tasks", reason="unknown task")
    roots = {task_id for task_id, task in tasks.items() if task.state is not TaskState.SUCCEEDED}
    roots |= {
        task_id
        for task_id in from_tasks
        if restart_successful or tasks[task_id].state is not TaskState.SUCCEEDED
    }
    rerun = _downstream(lineage, roots)
    unresolved = tuple(
        task_id
        for task_id in lineage.source.compiled_order
        if task_id not in rerun and any(_unresolved(lineage, e) for e in tasks[task_id].effects)
    )
    ordered = tuple(task_id for task_id in lineage.source.compiled_order if task_id in rerun)
    return RetryCheck(compatible=not unresolved, rerun=ordered, unresolved=unresolved)


def tasks_reset_on_resume(lineage: Lineage) -> tuple[str, ...]:
    """On resuming a non-terminal source run, tasks whose effect was reconciled compensated or
    not_applied get a fresh attempt."""
    if lineage.source.state in RUN_TABLE.terminal:
        return ()
    return tuple(
        task.task_id
        for task in lineage.source.tasks
        if any(
            lineage.overlay.latest_status(effect.effect_id) in _RESETTING for effect in task.effects
        )
    )
