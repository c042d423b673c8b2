"""SG-22..SG-30: executing compensation plans (AG-S1, S3, S6..S12, S19)."""

from __future__ import annotations

import pytest

from rescind.reference.saga.errors import RunNotPaused, UnknownRun
from rescind.reference.saga.execution import (
    ActionOutcome,
    AgentctlExit,
    Script,
    automatic_trigger,
    compensate,
    compensate_automatically,
    decide_approval,
    generated_workflow,
    new_run,
    resume,
)
from rescind.reference.saga.lineage import Lineage, finalize
from rescind.reference.saga.planner import plan_compensation
from rescind.reference.saga.reconciliation import reconcile
from rescind.reference.saga.reuse import retry_check, tasks_reset_on_resume
from rescind.reference.saga.workflow import (
    ApprovalMode,
    CompensateDeclaration,
    CompensationPolicy,
    OnFailure,
    PolicyApproval,
    RetryPolicy,
    RunMode,
    SourceTask,
)
from rescind.tables.saga import (
    EffectStatus,
    ReconciliationStatus,
    RunState,
    TaskState,
)

from .builders import UNDO, ag_s1, declared, effect, source

Out = ActionOutcome


def script(**outcomes: list[ActionOutcome]) -> Script:
    return Script({f"compensate--{task}": tuple(values) for task, values in outcomes.items()})


def latest(lineage: Lineage, effect_id: str) -> str:
    return lineage.overlay.latest_status(effect_id)


def test_ag_s1_runs_in_reverse_and_reconciles() -> None:
    lineage, outcome = compensate(ag_s1(), run_id="cmp-1")
    assert outcome.state is RunState.SUCCEEDED and outcome.exit_status is AgentctlExit.OK
    assert outcome.compensated_tasks == ("second", "first") and not outcome.failed_tasks
    run = lineage.run("cmp-1")
    assert [e.task_id for e in run.effects()] == ["compensate--second", "compensate--first"]
    assert run.source_run_id == "src-1"
    for effect_id, task in (("e-second", "compensate--second"), ("e-first", "compensate--first")):
        record = lineage.overlay.latest(effect_id)
        assert record is not None and record.status is ReconciliationStatus.COMPENSATED
        assert (
            record.actor == "agentctl-runtime" and record.evidence_source == "declared-compensation"
        )
        assert (
            record.compensation_effect_id
            == run.tasks[0 if "second" in task else 1].effects[-1].effect_id
        )
    # AG-S2: planning again finds nothing, creates no run.
    lineage, again = compensate(lineage, run_id="cmp-2")
    assert again.run_id is None and again.state is None and len(lineage.runs) == 1


def test_generated_run_shape() -> None:
    lineage = ag_s1(
        second=CompensateDeclaration(
            uses="action:restore", retry=RetryPolicy(3, 100), timeout_seconds=30
        )
    )
    _, plan = plan_compensation(lineage)
    run = new_run(lineage, plan, "cmp-1")
    second, first = run.tasks
    assert (second.compensation_task_id, first.compensation_task_id) == (
        "compensate--second",
        "compensate--first",
    )
    assert second.retry == RetryPolicy(3, 100) and second.timeout_seconds == 30
    assert first.retry == RetryPolicy(1, 0) and first.timeout_seconds == 120
    assert run.state is RunState.RUNNING and not run.approval_required


def test_ag_s3_continue_on_failure_then_retry_remainder() -> None:
    lineage = ag_s1(second=declared(max_attempts=2))
    lineage, outcome = compensate(
        lineage, run_id="cmp-1", script=script(second=[Out.IO_ERROR, Out.IO_ERROR])
    )
    assert outcome.state is RunState.FAILED and outcome.exit_status is AgentctlExit.RUN_FAILED
    assert outcome.compensated_tasks == ("first",) and outcome.failed_tasks == ("second",)
    second = lineage.run("cmp-1").tasks[0]
    assert second.attempts == 2
    assert len({e.effect_id for e in second.effects}) == 2  # each attempt is a new effect
    _, replan = plan_compensation(lineage)
    assert [t.source_task_id for t in replan.tasks] == ["second"]
    lineage, outcome = compensate(lineage, run_id="cmp-2")
    assert outcome.compensated_tasks == ("second",) and outcome.state is RunState.SUCCEEDED
    _, final = plan_compensation(lineage)
    assert len(final.already_compensated_effects) == 2 and not final.executable


@pytest.mark.parametrize(
    ("outcomes", "attempts", "waits"),
    [
        ([Out.IO_ERROR, Out.SUCCEEDED], 2, (250,)),
        ([Out.PROVIDER_ERROR_RETRYABLE, Out.IO_ERROR, Out.IO_ERROR, Out.IO_ERROR], 3, (250, 250)),
        ([Out.PROVIDER_ERROR], 1, ()),
        ([Out.TASK_ERROR], 1, ()),
        ([Out.UNCERTAIN], 1, ()),
        ([Out.POLICY_DENIED], 0, ()),
        ([Out.TEMPLATE_ERROR], 0, ()),
    ],
)
def test_retry_bounds(outcomes: list[ActionOutcome], attempts: int, waits: tuple[int, ...]) -> None:
    lineage = ag_s1(second=declared(max_attempts=3, backoff_ms=250))
    lineage, outcome = compensate(lineage, run_id="cmp-1", script=script(second=outcomes))
    assert lineage.run("cmp-1").tasks[0].attempts == attempts
    assert outcome.backoffs_ms == waits  # fixed, never growing


def test_ag_s6_uncertain_inverse_not_repeated() -> None:
    lineage = source(
        SourceTask(
            "create", compensate=declared(max_attempts=5), effects=(effect("e-c", "create"),)
        ),
        SourceTask("fail", needs=("create",), state=TaskState.FAILED),
    )
    lineage, outcome = compensate(lineage, run_id="cmp-1", script=script(create=[Out.UNCERTAIN]))
    task = lineage.run("cmp-1").tasks[0]
    assert outcome.state is RunState.FAILED and task.attempts == 1
    assert task.effects[-1].status is EffectStatus.UNCERTAIN
    _, blocked = plan_compensation(lineage)
    assert [(b.task_id, b.rule.value, b.effect_id) for b in blocked.blocked] == [
        ("create", "unreconciled_compensation_effect", task.effects[-1].effect_id)
    ]
    # AG-S7: reconciled not_applied, a new run retries with a new effect id.
    overlay = reconcile(
        lineage.overlay,
        lineage.registry,
        effect_id=task.effects[-1].effect_id,
        status=ReconciliationStatus.NOT_APPLIED,
        actor="op",
        reason="nothing happened",
    )
    lineage, outcome = compensate(Lineage(lineage.source, lineage.runs, overlay), run_id="cmp-2")
    assert outcome.state is RunState.SUCCEEDED
    assert lineage.run("cmp-2").tasks[0].effects[-1].effect_id != task.effects[-1].effect_id
    assert latest(lineage, "e-c") == "compensated"


def test_ag_s8_cancelled_run_dispatches_nothing() -> None:
    lineage, outcome = compensate(ag_s1(), run_id="cmp-1", cancelled=True)
    assert outcome.state is RunState.CANCELLED and outcome.exit_status is AgentctlExit.CANCELLED
    assert lineage.run("cmp-1").effects() == ()
    _, replan = plan_compensation(lineage)
    assert replan.executable and not replan.blocked


def test_ag_s9_automatic_after_failure() -> None:
    lineage = ag_s1(policy=CompensationPolicy(on_failure=OnFailure.AUTOMATIC))
    assert automatic_trigger(lineage)
    lineage, outcome = compensate_automatically(lineage, run_id="cmp-1")
    assert outcome is not None and outcome.state is RunState.SUCCEEDED
    assert len(lineage.runs) == 1 and latest(lineage, "e-first") == "compensated"


@pytest.mark.parametrize(
    ("state", "on_failure", "mode"),
    [
        (RunState.CANCELLED, OnFailure.AUTOMATIC, RunMode.EXECUTE),  # AG-S10
        (RunState.SUCCEEDED, OnFailure.AUTOMATIC, RunMode.EXECUTE),
        (RunState.FAILED, OnFailure.MANUAL, RunMode.EXECUTE),
        (RunState.FAILED, OnFailure.AUTOMATIC, RunMode.COMPENSATION),
    ],
)
def test_automatic_only_after_a_failed_normal_run(
    state: RunState, on_failure: OnFailure, mode: RunMode
) -> None:
    lineage = ag_s1(state=state, policy=CompensationPolicy(on_failure=on_failure), mode=mode)
    lineage, outcome = compensate_automatically(lineage, run_id="cmp-1")
    assert outcome is None and lineage.runs == ()


def test_automatic_with_blocked_plan_does_nothing() -> None:
    lineage = source(
        SourceTask("t", compensate=UNDO, effects=(effect("e", "t", EffectStatus.UNCERTAIN),)),
        policy=CompensationPolicy(on_failure=OnFailure.AUTOMATIC),
    )
    lineage, outcome = compensate_automatically(lineage, run_id="cmp-1")
    assert outcome is None and lineage.runs == ()


def test_ag_s11_s12_approval_always_pause_approve_resume() -> None:
    lineage = ag_s1(policy=CompensationPolicy(approval=ApprovalMode.ALWAYS))
    lineage, outcome = compensate(lineage, run_id="cmp-1")
    assert outcome.state is RunState.PAUSED and outcome.exit_status is AgentctlExit.POLICY
    pending = [
        e for e in lineage.run("cmp-1").effects() if e.status is EffectStatus.WAITING_FOR_APPROVAL
    ]
    assert len(pending) == 1
    # AG-S12: while paused, a plan is blocked and compensate creates no run.
    _, blocked = plan_compensation(lineage)
    assert [b.rule.value for b in blocked.blocked] == ["compensation_in_progress"]
    lineage, none = compensate(lineage, run_id="cmp-2")
    assert none.run_id is None and len(lineage.runs) == 1
    with pytest.raises(UnknownRun):
        decide_approval(lineage, "cmp-2", approved=True)
    # Each dispatch asks again: second, then first.
    for _ in range(2):
        lineage = decide_approval(lineage, "cmp-1", approved=True)
        lineage, outcome = resume(lineage, "cmp-1")
    assert outcome.state is RunState.SUCCEEDED
    assert latest(lineage, "e-first") == latest(lineage, "e-second") == "compensated"


def test_unknown_run_and_resume_of_finished_run() -> None:
    lineage, _ = compensate(ag_s1(), run_id="cmp-1")
    with pytest.raises(RunNotPaused):
        resume(lineage, "cmp-1")
    with pytest.raises(UnknownRun):
        resume(lineage, "ghost")


@pytest.mark.parametrize(
    ("mode", "source_policy", "pauses"),
    [
        (ApprovalMode.POLICY, PolicyApproval.MUTATIONS, True),
        (ApprovalMode.POLICY, PolicyApproval.NEVER, False),
        (ApprovalMode.POLICY, PolicyApproval.ALWAYS, True),
        (ApprovalMode.NEVER, PolicyApproval.ALWAYS, False),
        (ApprovalMode.ALWAYS, PolicyApproval.NEVER, True),
    ],
)
def test_approval_modes(mode: ApprovalMode, source_policy: PolicyApproval, pauses: bool) -> None:
    lineage = ag_s1(policy=CompensationPolicy(approval=mode), approval=source_policy)
    _, outcome = compensate(lineage, run_id="cmp-1")
    assert (outcome.state is RunState.PAUSED) is pauses


def test_rejection_fails_the_task_and_it_stays_retryable() -> None:
    lineage = ag_s1(policy=CompensationPolicy(approval=ApprovalMode.ALWAYS))
    lineage, _ = compensate(lineage, run_id="cmp-1", selection=("first",))
    lineage = decide_approval(lineage, "cmp-1", approved=False)
    assert lineage.run("cmp-1").effects()[-1].status is EffectStatus.CANCELLED
    lineage, outcome = resume(lineage, "cmp-1")
    assert outcome.state is RunState.FAILED and outcome.failed_tasks == ("first",)
    _, replan = plan_compensation(lineage, ("first",))
    assert replan.executable and not replan.blocked


def test_finalize_is_idempotent() -> None:
    lineage, _ = compensate(ag_s1(), run_id="cmp-1")
    count = len(lineage.overlay.records)
    again = finalize(lineage, lineage.run("cmp-1"))
    assert len(again.overlay.records) == count == 2


def test_ag_s19_retry_after_compensation() -> None:
    lineage, _ = compensate(ag_s1(), run_id="cmp-1")
    failed_only = retry_check(lineage)
    assert not failed_only.compatible and failed_only.rerun == ("fail",)
    assert failed_only.unresolved == ("first", "second")
    restart = retry_check(lineage, from_tasks=("first",), restart_successful=True)
    assert restart.compatible and restart.rerun == ("first", "second", "fail")
    without_flag = retry_check(lineage, from_tasks=("first",))
    assert not without_flag.compatible


def test_resume_resets_compensated_or_not_applied_tasks() -> None:
    lineage = source(
        SourceTask("a", compensate=UNDO, effects=(effect("e-a", "a", EffectStatus.UNCERTAIN),)),
        SourceTask("b", compensate=UNDO, effects=(effect("e-b", "b", EffectStatus.UNCERTAIN),)),
        state=RunState.PAUSED,
    )
    overlay = reconcile(
        lineage.overlay,
        lineage.registry,
        effect_id="e-a",
        status=ReconciliationStatus.NOT_APPLIED,
        actor="op",
        reason="r",
    )
    assert tasks_reset_on_resume(Lineage(lineage.source, (), overlay)) == ("a",)
    assert tasks_reset_on_resume(ag_s1()) == ()  # a terminal source is not resumed


def test_generated_workflow() -> None:
    lineage = ag_s1(
        second=CompensateDeclaration(
            uses="action:restore",
            with_json='{"path":"${{ inputs.p }}"}',
            retry=RetryPolicy(3, 100),
            timeout_seconds=30,
        ),
        policy=CompensationPolicy(on_failure=OnFailure.AUTOMATIC, approval=ApprovalMode.NEVER),
        inputs_json='{"p":"a.txt"}',
        workflow_name="deploy",
    )
    lineage, _ = compensate(lineage, run_id="cmp-1")
    workflow = generated_workflow(lineage, lineage.run("cmp-1"))
    assert workflow["name"] == "deploy-compensation"
    assert workflow["labels"] == {"agentctl.dev/compensation-source": "src-1"}
    assert workflow["runtime"] == {"maxConcurrency": 1} and workflow["outputs"] == {}
    assert workflow["compensation"] == {"onFailure": "manual"}  # never recursive
    assert workflow["policy"] == {"approval": "never"}
    assert workflow["inputs"]["__agentctlCompensation"]["compensate--first"] == {
        "sourceTaskId": "first",
        "sourceEffectIds": ["e-first"],
    }
    second, first = workflow["tasks"]
    assert second == {
        "id": "compensate--second",
        "uses": "action:restore",
        "with": {"path": "a.txt"},
        "needs": [],
        "failure": "continue",
        "retry": {"maxAttempts": 3, "backoffMs": 100},
        "timeoutSeconds": 30,
    }
    assert first["timeoutSeconds"] == 120 and first["retry"] == {"maxAttempts": 1, "backoffMs": 0}
