"""Everything known about one source run: the run, its compensation runs, the overlay.

Compensation runs are separate, source-linked runs; the source run and its effects are never
changed. ``finalize`` is the only writer of runtime reconciliations: for each compensation task
whose latest effect is confirmed applied, it appends ``compensated`` to every listed source
effect that is not compensated yet, so running it twice appends nothing the second time.
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from rescind.reference.saga.effects import Effect
from rescind.reference.saga.errors import SagaInvalidInput, UnknownRun
from rescind.reference.saga.identifiers import check_identifier, check_identifiers
from rescind.reference.saga.reconciliation import (
    DECLARED_COMPENSATION,
    RUNTIME_ACTOR,
    EffectRegistry,
    Overlay,
    reconcile,
)
from rescind.reference.saga.workflow import COMPENSATION_TASK_PREFIX, RetryPolicy, SourceRun
from rescind.tables.saga import RUN_TABLE, ReconciliationStatus, RunState, TaskState


@attrs.frozen
class CompensationTask:
    """One planned inverse inside a compensation run, with what happened to it so far."""

    source_task_id: str = attrs.field(validator=check_identifier)
    source_effect_ids: tuple[str, ...] = attrs.field(validator=check_identifiers)
    action: str = "undo"
    input_json: str = "{}"
    retry: RetryPolicy = attrs.field(factory=RetryPolicy)
    timeout_seconds: int = 120
    state: TaskState = TaskState.PENDING
    effects: tuple[Effect, ...] = ()
    """Every dispatch, in order; each attempt is a new effect with a new id."""

    @property
    def compensation_task_id(self) -> str:
        return COMPENSATION_TASK_PREFIX + self.source_task_id

    @property
    def latest_effect(self) -> Effect | None:
        return self.effects[-1] if self.effects else None

    @property
    def attempts(self) -> int:
        return max((effect.attempt for effect in self.effects), default=0)


@attrs.frozen
class CompensationRun:
    run_id: str = attrs.field(validator=check_identifier)
    source_run_id: str = attrs.field(validator=check_identifier)
    state: RunState
    tasks: tuple[CompensationTask, ...]
    approval_required: bool = False

    @property
    def terminal(self) -> bool:
        return self.state in RUN_TABLE.terminal

    def effects(self) -> tuple[Effect, ...]:
        return tuple(effect for task in self.tasks for effect in task.effects)


@attrs.frozen
class Lineage:
    source: SourceRun
    runs: tuple[CompensationRun, ...] = ()
    overlay: Overlay = attrs.field(factory=Overlay)

    def __attrs_post_init__(self) -> None:
        seen = set(self.source.effect_ids())
        for run in self.runs:
            if run.source_run_id != self.source.run_id:
                raise SagaInvalidInput(field="compensationruns", reason="other source run")
            for effect in run.effects():
                if effect.effect_id in seen or effect.run_id != run.run_id:
                    raise SagaInvalidInput(field="effects", reason="duplicate or foreign effect")
                seen.add(effect.effect_id)

    @property
    def registry(self) -> EffectRegistry:
        effects: dict[str, Effect] = {}
        for task in self.source.tasks:
            effects.update((effect.effect_id, effect) for effect in task.effects)
        for run in self.runs:
            effects.update((effect.effect_id, effect) for effect in run.effects())
        sources: Mapping[str, str] = {run.run_id: run.source_run_id for run in self.runs}
        return EffectRegistry(effects=effects, compensation_sources=sources)

    def run(self, run_id: str) -> CompensationRun:
        for run in self.runs:
            if run.run_id == run_id:
                return run
        raise UnknownRun(run_id=run_id)

    def replace_run(self, run: CompensationRun) -> Lineage:
        if all(existing.run_id != run.run_id for existing in self.runs):
            return attrs.evolve(self, runs=(*self.runs, run))
        runs = tuple(run if existing.run_id == run.run_id else existing for existing in self.runs)
        return attrs.evolve(self, runs=runs)


def finalize(lineage: Lineage, run: CompensationRun) -> Lineage:
    """Append ``compensated`` for every source effect a confirmed inverse covers (idempotent)."""
    overlay = lineage.overlay
    registry = lineage.registry
    for task in run.tasks:
        inverse = task.latest_effect
        if inverse is None or not overlay.confirmed_applied(inverse):
            continue
        for effect_id in task.source_effect_ids:
            if overlay.latest_status(effect_id) == ReconciliationStatus.COMPENSATED.value:
                continue
            overlay = reconcile(
                overlay,
                registry,
                effect_id=effect_id,
                status=ReconciliationStatus.COMPENSATED,
                actor=RUNTIME_ACTOR,
                reason=f"declared compensation {task.compensation_task_id} in {run.run_id}",
                evidence_source=DECLARED_COMPENSATION,
                compensation_effect_id=inverse.effect_id,
            )
    return attrs.evolve(lineage, overlay=overlay)


def finalize_terminal_runs(lineage: Lineage) -> Lineage:
    for run in lineage.runs:
        if run.terminal:
            lineage = finalize(lineage, run)
    return lineage
