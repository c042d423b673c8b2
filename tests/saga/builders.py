"""Small constructors for saga test worlds (agentctl source runs, CaseHub definitions)."""

from __future__ import annotations

from rescind.reference.saga.effects import Effect, EffectClass
from rescind.reference.saga.lineage import Lineage
from rescind.reference.saga.workflow import (
    CompensateDeclaration,
    CompensationPolicy,
    PolicyApproval,
    RetryPolicy,
    SourceRun,
    SourceTask,
)
from rescind.tables.saga import EffectStatus, RunState, TaskState

SOURCE = "src-1"
UNDO = CompensateDeclaration(uses="action:restore")


def effect(
    effect_id: str,
    task_id: str,
    status: EffectStatus = EffectStatus.SUCCEEDED,
    *,
    confirmed: bool | None = None,
    effect_class: EffectClass = EffectClass.WORKSPACE,
    attempt: int = 1,
    run_id: str = SOURCE,
) -> Effect:
    ok = status is EffectStatus.SUCCEEDED if confirmed is None else confirmed
    return Effect(effect_id, run_id, task_id, status, effect_class, ok, attempt)


def declared(max_attempts: int = 1, backoff_ms: int = 0) -> CompensateDeclaration:
    return CompensateDeclaration(uses="action:restore", retry=RetryPolicy(max_attempts, backoff_ms))


def ag_s1(second: CompensateDeclaration = UNDO, **run: object) -> Lineage:
    """first (write) -> second (write) -> fail (assert false), source failed."""
    tasks = (
        SourceTask("first", compensate=UNDO, effects=(effect("e-first", "first"),)),
        SourceTask(
            "second", needs=("first",), compensate=second, effects=(effect("e-second", "second"),)
        ),
        SourceTask("fail", needs=("second",), state=TaskState.FAILED),
    )
    return source(*tasks, **run)


def source(
    *tasks: SourceTask,
    state: RunState = RunState.FAILED,
    policy: CompensationPolicy | None = None,
    approval: PolicyApproval = PolicyApproval.NEVER,
    **extra: str,
) -> Lineage:
    run = SourceRun(
        run_id=SOURCE,
        state=state,
        tasks=tasks,
        policy=policy or CompensationPolicy(),
        policy_approval=approval,
        **extra,
    )
    return Lineage(run)


def one_task(*effects: Effect, task_id: str = "t", **run: object) -> Lineage:
    return source(SourceTask(task_id, compensate=UNDO, effects=effects), **run)


def source_file(*tasks: dict[str, object], **members: object) -> dict[str, object]:
    """A plan file (the JSON ``read_lineage`` reads) of a failed source run of ``src-1`` that
    never asks approval; ``members`` adds top-level members such as ``selection``."""
    run = {"runId": SOURCE, "state": "failed", "policyApproval": "never", "tasks": list(tasks)}
    return {"sourceRun": run, **members}


def compensable(
    task_id: str,
    effect_status: str = "succeeded",
    *,
    uses: str = "action:restore",
    with_: dict[str, object] | None = None,
) -> dict[str, object]:
    """A plan-file task with one effect ``e-<task_id>``, compensated by ``uses`` (given
    ``with_`` as its ``with``)."""
    compensate: dict[str, object] = {"uses": uses}
    if with_ is not None:
        compensate["with"] = with_
    return {
        "id": task_id,
        "compensate": compensate,
        "effects": [{"id": f"e-{task_id}", "status": effect_status}],
    }
