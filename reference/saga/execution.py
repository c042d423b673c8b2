"""Running a compensation plan, sans-IO: what the inverse actions do comes in as a ``Script``.

``compensate`` re-plans from scratch (only the source and the selection are taken from the
caller); a plan that is not executable creates no run. Otherwise one compensation run is
created and its tasks run one at a time, in plan order, with continue-on-failure:

* a failed attempt is retried while attempts remain and the error is retryable (I/O errors and
  provider errors flagged retryable), after a fixed ``backoffMs`` wait; every attempt is a new
  effect with a new id;
* an uncertain dispatch is never repeated: the task fails and the next plan blocks its source
  task until the *compensation* effect is reconciled;
* when approval is required each dispatch waits for it, and the run pauses; a rejected
  approval fails that task and the run when the run is resumed (nothing after it runs);
* a run cancelled before it starts dispatches nothing.

The run fails when any task failed, else it succeeds. ``finalize`` runs after every drive, on
pause and on failure too, and again on ``resume``.
"""

from __future__ import annotations

import enum
import hashlib
import json
from collections.abc import Mapping
from typing import Any

import attrs

from rescind.reference.saga.effects import Effect, EffectClass, open_effect
from rescind.reference.saga.errors import RunNotPaused
from rescind.reference.saga.lineage import CompensationRun, CompensationTask, Lineage, finalize
from rescind.reference.saga.planner import Block, CompensationPlan, plan_compensation
from rescind.reference.saga.transitions import fire
from rescind.reference.saga.workflow import (
    ACTION_PREFIX,
    DEFAULT_TIMEOUT_SECONDS,
    OnFailure,
    RetryPolicy,
    RunMode,
    approval_required,
    effective_approval,
)
from rescind.tables.saga import (
    RUN_TABLE,
    TASK_TABLE,
    EffectStatus,
    RunState,
    TaskState,
)


class ActionOutcome(enum.Enum):
    """What one attempt of an inverse action does."""

    SUCCEEDED = "succeeded"
    IO_ERROR = "io_error"
    PROVIDER_ERROR_RETRYABLE = "provider_error_retryable"
    PROVIDER_ERROR = "provider_error"
    TASK_ERROR = "task_error"
    UNCERTAIN = "uncertain"
    POLICY_DENIED = "policy_denied"
    TEMPLATE_ERROR = "template_error"

    @property
    def retryable(self) -> bool:
        return self in (ActionOutcome.IO_ERROR, ActionOutcome.PROVIDER_ERROR_RETRYABLE)

    @property
    def before_dispatch(self) -> bool:
        """Refused before any effect is recorded."""
        return self in (ActionOutcome.POLICY_DENIED, ActionOutcome.TEMPLATE_ERROR)


def _frozen_outcomes(
    value: Mapping[str, tuple[ActionOutcome, ...]],
) -> Mapping[str, tuple[ActionOutcome, ...]]:
    return {key: tuple(outcomes) for key, outcomes in value.items()}


@attrs.frozen
class Script:
    """Per compensation task id, the outcome of attempt 1, 2, ...; later attempts succeed."""

    outcomes: Mapping[str, tuple[ActionOutcome, ...]] = attrs.field(
        factory=dict, converter=_frozen_outcomes
    )
    effect_class: EffectClass = EffectClass.WORKSPACE

    def outcome(self, compensation_task_id: str, attempt: int) -> ActionOutcome:
        planned = self.outcomes.get(compensation_task_id, ())
        return planned[attempt - 1] if attempt <= len(planned) else ActionOutcome.SUCCEEDED


class AgentctlExit(enum.Enum):
    """agentctl's exit status names; ``code`` is the number its CLI exits with."""

    OK = "OK"
    POLICY = "POLICY"
    CANCELLED = "CANCELLED"
    RUN_FAILED = "RUN_FAILED"

    @property
    def code(self) -> int:
        return _EXIT_CODES[self]


_EXIT_CODES = {
    AgentctlExit.OK: 0,
    AgentctlExit.POLICY: 3,
    AgentctlExit.RUN_FAILED: 4,
    AgentctlExit.CANCELLED: 130,
}


@attrs.frozen
class CompensationOutcome:
    source_run_id: str
    run_id: str | None
    state: RunState | None
    compensated_tasks: tuple[str, ...] = ()
    failed_tasks: tuple[str, ...] = ()
    blocked: tuple[Block, ...] = ()
    backoffs_ms: tuple[int, ...] = ()
    """Every fixed wait before a retry, in order (sans-IO: the caller sleeps)."""

    @property
    def exit_status(self) -> AgentctlExit:
        if self.state is None or self.state is RunState.SUCCEEDED:
            return AgentctlExit.POLICY if self.blocked else AgentctlExit.OK
        return {
            RunState.PAUSED: AgentctlExit.POLICY,
            RunState.CANCELLED: AgentctlExit.CANCELLED,
        }.get(self.state, AgentctlExit.RUN_FAILED)

    def to_json(self) -> dict[str, Any]:
        return {
            "runId": self.run_id,
            "sourceRunId": self.source_run_id,
            "state": None if self.state is None else self.state.value,
            "compensatedTasks": list(self.compensated_tasks),
            "failedTasks": list(self.failed_tasks),
            "blocked": [block.to_json() for block in self.blocked],
        }


def plan_exit_status(plan: CompensationPlan) -> AgentctlExit:
    """``--plan`` (or a plan that cannot run): OK only when nothing is blocked."""
    return AgentctlExit.OK if plan.complete else AgentctlExit.POLICY


def _step(state: TaskState, *targets: TaskState) -> TaskState:
    for target in targets:
        state = fire(TASK_TABLE, state, target.value)
    return state


def _input_digest(task: CompensationTask) -> str:
    return hashlib.sha256(task.input_json.encode("utf-8")).hexdigest()


def _drive_task(
    run: CompensationRun, task: CompensationTask, script: Script
) -> tuple[CompensationTask, bool, list[int]]:
    """Advance one task as far as it goes: (task, paused, backoff waits)."""
    effects = list(task.effects)
    waits: list[int] = []
    state = task.state
    pending: Effect | None = None
    if state is TaskState.PENDING:
        state = _step(state, TaskState.READY, TaskState.RUNNING)
    elif state is TaskState.WAITING_FOR_APPROVAL:
        if effects[-1].status is EffectStatus.WAITING_FOR_APPROVAL:
            return task, True, waits
        pending = effects[-1]
        state = _step(state, TaskState.RUNNING)
    while True:
        attempt = len(effects) + (0 if pending is not None else 1)
        outcome = script.outcome(task.compensation_task_id, attempt)
        if pending is None:
            if outcome.before_dispatch:
                state = _step(state, TaskState.FAILED)
                break
            pending = open_effect(
                run_id=run.run_id,
                task_id=task.compensation_task_id,
                attempt=attempt,
                operation=task.action.removeprefix(ACTION_PREFIX),
                input_digest=_input_digest(task),
                effect_class=script.effect_class,
                approval_required=run.approval_required,
            )
            effects.append(pending)
            if pending.status is EffectStatus.WAITING_FOR_APPROVAL:
                state = _step(state, TaskState.WAITING_FOR_APPROVAL)
                return attrs.evolve(task, state=state, effects=tuple(effects)), True, waits
        trigger = {ActionOutcome.SUCCEEDED: "succeed", ActionOutcome.UNCERTAIN: "lose"}
        effects[-1] = pending.advance("dispatch").advance(trigger.get(outcome, "fail"))
        pending = None
        if outcome is ActionOutcome.SUCCEEDED:
            state = _step(state, TaskState.SUCCEEDED)
            break
        if outcome.retryable and attempt < task.retry.max_attempts:
            waits.append(task.retry.backoff_ms)
            state = _step(state, TaskState.RETRY_SCHEDULED, TaskState.READY, TaskState.RUNNING)
            continue
        state = _step(state, TaskState.FAILED)
        break
    return attrs.evolve(task, state=state, effects=tuple(effects)), False, waits


def _drive(
    lineage: Lineage, run: CompensationRun, script: Script
) -> tuple[Lineage, CompensationOutcome]:
    tasks = list(run.tasks)
    waits: list[int] = []
    paused = False
    for index, task in enumerate(tasks):
        if task.state in TASK_TABLE.terminal:
            continue
        tasks[index], paused, task_waits = _drive_task(run, task, script)
        waits.extend(task_waits)
        if paused:
            break
    if paused:
        state = fire(RUN_TABLE, run.state, "pause")
    else:
        failed = any(task.state is TaskState.FAILED for task in tasks)
        state = fire(RUN_TABLE, run.state, "fail" if failed else "succeed")
    run = attrs.evolve(run, state=state, tasks=tuple(tasks))
    lineage = finalize(lineage.replace_run(run), run)
    return lineage, _outcome(run, waits)


def _outcome(
    run: CompensationRun, waits: list[int], blocked: tuple[Block, ...] = ()
) -> CompensationOutcome:
    return CompensationOutcome(
        source_run_id=run.source_run_id,
        run_id=run.run_id,
        state=run.state,
        compensated_tasks=tuple(
            task.source_task_id for task in run.tasks if task.state is TaskState.SUCCEEDED
        ),
        failed_tasks=tuple(
            task.source_task_id for task in run.tasks if task.state is TaskState.FAILED
        ),
        blocked=blocked,
        backoffs_ms=tuple(waits),
    )


def new_run(lineage: Lineage, plan: CompensationPlan, run_id: str) -> CompensationRun:
    """The generated compensation run: plan tasks in plan order, declared retry and timeout."""
    source = lineage.source
    tasks = []
    for entry in plan.tasks:
        declaration = source.by_id[entry.source_task_id].compensate
        retry = RetryPolicy() if declaration is None else declaration.retry
        timeout = None if declaration is None else declaration.timeout_seconds
        tasks.append(
            CompensationTask(
                source_task_id=entry.source_task_id,
                source_effect_ids=entry.source_effect_ids,
                action=entry.action,
                input_json=entry.input_json,
                retry=retry,
                timeout_seconds=DEFAULT_TIMEOUT_SECONDS if timeout is None else timeout,
            )
        )
    approval = effective_approval(source.policy.approval, source.policy_approval)
    return CompensationRun(
        run_id=run_id,
        source_run_id=source.run_id,
        state=next(iter(RUN_TABLE.initial)),
        tasks=tuple(tasks),
        approval_required=approval_required(approval),
    )


LINEAGE_INPUT = "__agentctlCompensation"
SOURCE_LABEL = "agentctl.dev/compensation-source"


def generated_workflow(lineage: Lineage, run: CompensationRun) -> dict[str, Any]:
    """The workflow a compensation run executes, in agentctl's field names (wire JSON)."""
    source = lineage.source
    approval = effective_approval(source.policy.approval, source.policy_approval)
    return {
        "name": f"{source.workflow_name}-compensation",
        "labels": {SOURCE_LABEL: source.run_id},
        "inputs": {
            LINEAGE_INPUT: {
                task.compensation_task_id: {
                    "sourceTaskId": task.source_task_id,
                    "sourceEffectIds": list(task.source_effect_ids),
                }
                for task in run.tasks
            }
        },
        "outputs": {},
        "runtime": {"maxConcurrency": 1},
        "policy": {"approval": approval.value},
        "compensation": {"onFailure": OnFailure.MANUAL.value},
        "tasks": [
            {
                "id": task.compensation_task_id,
                "uses": task.action,
                "with": json.loads(task.input_json),
                "needs": [],
                "failure": "continue",
                "retry": {
                    "maxAttempts": task.retry.max_attempts,
                    "backoffMs": task.retry.backoff_ms,
                },
                "timeoutSeconds": task.timeout_seconds,
            }
            for task in run.tasks
        ],
    }


def compensate(
    lineage: Lineage,
    *,
    run_id: str,
    selection: tuple[str, ...] = (),
    script: Script | None = None,
    cancelled: bool = False,
) -> tuple[Lineage, CompensationOutcome]:
    """Plan afresh and, when executable, create and drive one compensation run."""
    lineage, plan = plan_compensation(lineage, selection)
    if not plan.executable:
        outcome = CompensationOutcome(lineage.source.run_id, None, None, blocked=plan.blocked)
        return lineage, outcome
    run = new_run(lineage, plan, run_id)
    if cancelled:
        cancelled_tasks = tuple(
            attrs.evolve(task, state=_step(task.state, TaskState.CANCELLED)) for task in run.tasks
        )
        run = attrs.evolve(run, state=fire(RUN_TABLE, run.state, "cancel"), tasks=cancelled_tasks)
        return lineage.replace_run(run), _outcome(run, [], plan.blocked)
    lineage, outcome = _drive(lineage, run, script or Script())
    return lineage, attrs.evolve(outcome, blocked=plan.blocked)


def _paused(lineage: Lineage, run_id: str) -> tuple[CompensationRun, int]:
    run = lineage.run(run_id)
    if run.state is not RunState.PAUSED:
        raise RunNotPaused(run_id=run_id, state=run.state.value)
    for index, task in enumerate(run.tasks):
        if task.state is TaskState.WAITING_FOR_APPROVAL:
            return run, index
    raise RunNotPaused(run_id=run_id, state=run.state.value)


def decide_approval(lineage: Lineage, run_id: str, *, approved: bool) -> Lineage:
    """Approve (the effect becomes requested) or reject (cancelled). Only the effect changes;
    the task keeps waiting until the run is resumed (agentctl's approval store)."""
    run, index = _paused(lineage, run_id)
    task = run.tasks[index]
    effect = task.effects[-1].advance("approve" if approved else "reject")
    task = attrs.evolve(task, effects=(*task.effects[:-1], effect))
    tasks = (*run.tasks[:index], task, *run.tasks[index + 1 :])
    return lineage.replace_run(attrs.evolve(run, tasks=tasks))


def resume(
    lineage: Lineage, run_id: str, script: Script | None = None
) -> tuple[Lineage, CompensationOutcome]:
    """agentctl's ``resume``: a rejected approval fails its task and the whole run at once,
    before anything else runs and without finalizing; otherwise the run is driven on and
    finalized."""
    run = lineage.run(run_id)
    if run.state is not RunState.PAUSED:
        raise RunNotPaused(run_id=run_id, state=run.state.value)
    for index, task in enumerate(run.tasks):
        rejected = (
            task.state is TaskState.WAITING_FOR_APPROVAL
            and task.effects[-1].status is EffectStatus.CANCELLED
        )
        if rejected:
            failed = attrs.evolve(task, state=_step(task.state, TaskState.FAILED))
            tasks = (*run.tasks[:index], failed, *run.tasks[index + 1 :])
            run = attrs.evolve(run, state=fire(RUN_TABLE, run.state, "fail"), tasks=tasks)
            return lineage.replace_run(run), _outcome(run, [])
    run = attrs.evolve(run, state=fire(RUN_TABLE, run.state, "resume"))
    return _drive(lineage, run, script or Script())


def automatic_trigger(lineage: Lineage) -> bool:
    """Only a *failed* source that opted in, and never a compensation run itself."""
    source = lineage.source
    return (
        source.policy.on_failure is OnFailure.AUTOMATIC
        and source.state is RunState.FAILED
        and source.mode is not RunMode.COMPENSATION
    )


def compensate_automatically(
    lineage: Lineage, *, run_id: str, script: Script | None = None
) -> tuple[Lineage, CompensationOutcome | None]:
    """After a source drive: plan with no selection and run it if executable, else nothing."""
    if not automatic_trigger(lineage):
        return lineage, None
    lineage, plan = plan_compensation(lineage)
    if not plan.executable:
        return lineage, None
    return compensate(lineage, run_id=run_id, script=script)
