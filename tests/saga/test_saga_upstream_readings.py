"""Readings settled from upstream source (docs/upstream-readings.md): each test states what the
upstream code does, written from that code rather than from Rescind's reference."""

from __future__ import annotations

import hashlib
import json

import attrs
import pytest

from rescind.reference.saga.casehub import Case, Coordinator, PlanItem, PlanItemStatus
from rescind.reference.saga.effects import effect_identity, open_effect
from rescind.reference.saga.errors import (
    IllegalTransition,
    ReconciliationFieldMissing,
    UnknownEffect,
    UnrelatedCompensationEffect,
)
from rescind.reference.saga.execution import (
    AgentctlExit,
    compensate,
    decide_approval,
    resume,
)
from rescind.reference.saga.planner import plan_compensation
from rescind.reference.saga.reconciliation import EffectRegistry, Overlay, reconcile
from rescind.reference.saga.reuse import retry_check
from rescind.reference.saga.templates import (
    Context,
    TemplateError,
    TemplateProblem,
    invalid_templates,
    json_equal,
    referenced_tasks,
    render,
)
from rescind.reference.saga.workflow import (
    ApprovalMode,
    CompensateDeclaration,
    CompensationPolicy,
    SourceTask,
)
from rescind.reference.saga.workitems import WorkItem, WorkItems
from rescind.tables.saga import (
    CaseStatus,
    CompensationStatus,
    EffectStatus,
    ReconciliationStatus,
    RunState,
    TaskState,
    WorkItemStatus,
)

from .builders import ag_s1, effect, source
from .test_saga_casehub import ONE_STEP

W = WorkItemStatus

# --- agentctl-core template.rs ----------------------------------------------------------------

CONTEXT = Context(
    inputs_json='{"config":{"safe":true},"n":7,"f":1.5,"flag":true,"name":"x","empty":""}',
    vars_json='{"item":"one"}',
    memory_json='{"key":{"deep":[1,2]}}',
    outputs={"prep": '{"path":"a.txt"}', "nothing": None},
)


@pytest.mark.parametrize(
    ("template", "rendered"),
    [
        ("${{ inputs.config }}", {"safe": True}),  # exact_template_preserves_object_type
        ("${{inputs.n}}", 7),
        ("${{ tasks.prep.output.path }}", "a.txt"),
        ("${{ memory.key.deep }}", [1, 2]),
        ("n=${{ inputs.n }} f=${{ inputs.f }} ${{ vars.item }}", "n=7 f=1.5 one"),
        ("${{ inputs.flag }}-${{ inputs.missing_ok_here }}", None),
        ("${{ inputs.n == 7 }}", True),  # condition_supports_safe_equality_only
        ("${{ inputs.n == 7.0 }}", False),  # serde_json: an integer is never a float
        ("${{ inputs.name == 'x' }}", True),
        ("${{ inputs.name == x }}", True),
        ("${{ not inputs.empty }}", True),
        ("${{ not inputs.flag }}", False),
        ("{{ inputs.n }}", "{{ inputs.n }}"),  # no dollar: literal text
        ("a }} b", "a }} b"),
    ],
)
def test_agentctl_template_rendering(template: str, rendered: object) -> None:
    if rendered is None:
        with pytest.raises(TemplateError) as raised:
            render(template, CONTEXT)
        assert raised.value.problem is TemplateProblem.UNDEFINED
        return
    assert render(template, CONTEXT) == rendered


@pytest.mark.parametrize(
    ("template", "problem"),
    [
        ("${{ inputs.n", TemplateProblem.UNCLOSED),
        ("x ${{   }}", TemplateProblem.EMPTY),
        ("${{ inputs }}", TemplateProblem.UNSUPPORTED),
        ("${{ tasks.prep.path }}", TemplateProblem.UNSUPPORTED),
        ("${{ inputs.x + 1 }}", TemplateProblem.UNSUPPORTED),
        ("${{ tasks.a.b.output }}", TemplateProblem.UNSUPPORTED),
        ("config=${{ inputs.config }}", TemplateProblem.NON_SCALAR),  # embedded_object_is_rejected
        ("${{ tasks.nothing.output }}", TemplateProblem.UNDEFINED),
        ("${{ tasks.ghost.output }}", TemplateProblem.UNDEFINED),
    ],
)
def test_agentctl_template_errors(template: str, problem: TemplateProblem) -> None:
    with pytest.raises(TemplateError) as raised:
        render(template, CONTEXT)
    assert raised.value.problem is problem


def test_compile_time_validation_and_references() -> None:
    value = {"a": "${{ tasks.b.output.x }}", "b": ["${{ not tasks.c.output }}", "{{ junk"]}
    assert invalid_templates(value) == []
    assert referenced_tasks(value) == ["b", "c"]
    assert invalid_templates({"a": "${{ inputs.x + 1 }}", "b": "${{ x"}) == [
        "${{ inputs.x + 1 }}",
        "${{ x",
    ]


def test_json_equality_is_serde_json_value_equality() -> None:
    assert json_equal(1, 1) and not json_equal(1, 1.0) and not json_equal(True, 1)
    assert json_equal({"a": [1, "x"]}, {"a": [1, "x"]}) and not json_equal([1], [1, 2])
    assert json_equal(0.5, 0.5) and not json_equal(None, False)


def test_a_template_error_blocks_the_task_instead_of_failing_the_plan() -> None:
    # plan_compensation turns any render error into compensation_input_unavailable.
    bad = CompensateDeclaration(uses="action:restore", with_json='{"p":"${{ inputs.missing }}"}')
    _, plan = plan_compensation(ag_s1(second=bad))
    assert [(b.task_id, b.rule.value) for b in plan.blocked] == [
        ("second", "compensation_input_unavailable")
    ]


# --- agentctl runtime / store ------------------------------------------------------------------


def test_effect_id_is_the_sha256_of_the_nul_joined_identity() -> None:
    # agentctl-core effect.rs EffectRequest::new: run, task, attempt, ordinal, operation and
    # input digest joined by NUL, hashed with SHA-256, lowercase hex, no prefix.
    expected = hashlib.sha256(b"run-1\x00t\x002\x001\x00builtin.write\x00abc").hexdigest()
    assert effect_identity("run-1", "t", 2, 1, "builtin.write", "abc") == expected
    opened = open_effect(
        run_id="run-1",
        task_id="t",
        attempt=2,
        operation="builtin.write",
        input_digest="abc",
        effect_class=effect("x", "t").effect_class,
        approval_required=False,
    )
    assert opened.effect_id == expected  # actions dispatch with ordinal 1


def test_selection_is_a_sorted_set() -> None:
    # plan_compensation collects the selection into a BTreeSet.
    _, plan = plan_compensation(ag_s1(), ("zeta", "first", "alpha", "first"))
    assert plan.selected_tasks == ("alpha", "first", "zeta")
    assert [b.task_id for b in plan.blocked] == ["alpha", "zeta"]


def _registry() -> EffectRegistry:
    return EffectRegistry(
        {
            "e": effect("e", "t"),
            "u": effect("u", "t", EffectStatus.UNCERTAIN),
            "other": effect("other", "t", run_id="elsewhere"),
        }
    )


def _reconcile_fresh(effect_id: str, status: ReconciliationStatus, **fields: str) -> None:
    """Reconcile on a fresh overlay of ``_registry()``, by operator ``op`` for reason ``r``
    unless ``fields`` says otherwise."""
    reconcile(
        Overlay(),
        _registry(),
        effect_id=effect_id,
        status=status,
        **{"actor": "op", "reason": "r", **fields},
    )


@pytest.mark.parametrize(
    ("effect_id", "status", "fields", "error"),
    [
        (
            "ghost",
            ReconciliationStatus.APPLIED,
            {"actor": " ", "result_json": "{}"},
            ReconciliationFieldMissing,
        ),
        # COMPENSATED is also inadmissible on an uncertain effect: the field check comes first.
        ("u", ReconciliationStatus.COMPENSATED, {}, ReconciliationFieldMissing),
        ("ghost", ReconciliationStatus.NOT_APPLIED, {}, UnknownEffect),
    ],
)
def test_reconciliation_checks_fields_before_the_effect(
    effect_id: str, status: ReconciliationStatus, fields: dict[str, str], error: type[Exception]
) -> None:
    with pytest.raises(error):
        _reconcile_fresh(effect_id, status, **fields)


def test_a_named_compensation_effect_is_checked_whatever_the_status() -> None:
    with pytest.raises(UnrelatedCompensationEffect):
        _reconcile_fresh(
            "u", ReconciliationStatus.APPLIED, result_json="{}", compensation_effect_id="other"
        )


def test_a_reversed_confirmed_inverse_still_counts_as_applied() -> None:
    # The store and finalize_compensation_run test "succeeded and confirmed, or latest applied".
    registry = EffectRegistry({"c": effect("c", "t"), "d": effect("d", "t")})
    overlay = reconcile(
        Overlay(),
        registry,
        effect_id="c",
        status=ReconciliationStatus.COMPENSATED,
        actor="op",
        reason="r",
        compensation_effect_id="d",
    )
    assert overlay.confirmed_applied(registry.effect("c"))


def test_rejected_approval_fails_the_run_at_resume_and_runs_nothing_else() -> None:
    lineage = ag_s1(policy=CompensationPolicy(approval=ApprovalMode.ALWAYS))
    lineage, outcome = compensate(lineage, run_id="cmp-1")
    assert outcome.state is RunState.PAUSED
    lineage = decide_approval(lineage, "cmp-1", approved=False)
    waiting = lineage.run("cmp-1").tasks[0]
    assert waiting.state is TaskState.WAITING_FOR_APPROVAL  # rejection only cancels the effect
    lineage, outcome = resume(lineage, "cmp-1")
    run = lineage.run("cmp-1")
    assert outcome.state is RunState.FAILED and outcome.failed_tasks == ("second",)
    assert [task.state for task in run.tasks] == [TaskState.FAILED, TaskState.PENDING]
    assert [e.task_id for e in run.effects()] == ["compensate--second"]


def test_exit_codes_are_agentctls_numbers() -> None:
    codes = {status.value: status.code for status in AgentctlExit}
    assert codes == {"OK": 0, "POLICY": 3, "RUN_FAILED": 4, "CANCELLED": 130}


# --- CaseHub ------------------------------------------------------------------------------------


def _compensating(status: CaseStatus, *items: PlanItem) -> Case:
    return Case("case-1", status, ONE_STEP, (PlanItem("i-a", "step-a"), *items))


def test_unlinked_compensation_item_completes_without_a_step_event() -> None:
    unlinked = PlanItem("u", "undo-step-a", PlanItemStatus.RUNNING, compensation=True)
    case = _compensating(CaseStatus.COMPENSATING, unlinked)
    transcript = Coordinator().on_item_status(case, "u", PlanItemStatus.COMPLETED)
    kinds = [event.kind.value for event in transcript.events]
    assert "COMPENSATION_STEP_COMPLETED" not in kinds
    assert "COMPENSATION_STEP_STARTED" in kinds  # i-a still has no COMPLETED undo: next step
    faulted = Coordinator().on_item_status(case, "u", PlanItemStatus.FAULTED)
    assert faulted.changes == ((CaseStatus.COMPENSATING, CaseStatus.COMPENSATION_FAULTED),)


def test_link_to_a_vanished_original_logs_unknown() -> None:
    dangling = PlanItem(
        "d", "undo-step-a", PlanItemStatus.RUNNING, compensation=True, compensates_item_id="gone"
    )
    case = _compensating(CaseStatus.COMPENSATING, dangling)
    transcript = Coordinator().on_item_status(case, "d", PlanItemStatus.COMPLETED)
    step = next(e for e in transcript.events if e.kind.value == "COMPENSATION_STEP_COMPLETED")
    assert dict(step.fields)["originalBinding"] == "unknown"


@pytest.mark.parametrize(
    ("start", "triggers", "end"),
    [
        (W.PENDING, ("claim", "release"), W.PENDING),
        (W.PENDING, ("claim", "delegate", "accept_delegation"), W.ASSIGNED),
        (W.PENDING, ("fault",), W.FAULTED),
        (W.PENDING, ("claim", "delegate", "fault"), W.FAULTED),
        (W.PENDING, ("claim", "suspend", "fault"), W.FAULTED),
        (W.PENDING, ("claim", "suspend", "expire"), W.EXPIRED),
        (W.PENDING, ("claim", "start", "escalate_manually"), W.PENDING),
        (W.PENDING, ("claim", "start", "escalate"), W.ESCALATED),
        (W.PENDING, ("complete_from_system",), W.COMPLETED),
        (W.COMPLETED, ("cancel_from_system", "fault_from_system"), W.COMPLETED),
    ],
)
def test_work_item_lifecycle_follows_the_service(
    start: WorkItemStatus, triggers: tuple[str, ...], end: WorkItemStatus
) -> None:
    store = WorkItems((WorkItem("w", start),))
    for trigger in triggers:
        store = store.apply("w", trigger)
    assert store.get("w").status is end


def test_delegated_items_refuse_claim_and_decline_needs_a_target() -> None:
    store = WorkItems((WorkItem("w", W.PENDING),)).apply("w", "claim").apply("w", "delegate")
    with pytest.raises(IllegalTransition):
        store.apply("w", "claim")
    with pytest.raises(IllegalTransition):
        store.apply("w", "decline_delegation")
    assert store.apply("w", "decline_delegation", W.PENDING).get("w").status is W.PENDING
    assert store.apply("w", "decline_delegation", W.ASSIGNED).get("w").status is W.ASSIGNED


def test_a_compensator_completed_by_the_system_marks_its_original() -> None:
    # CompensationLifecycleObserver reacts to any lifecycle event of a COMPLETED compensator.
    store = WorkItems((WorkItem("w", W.COMPLETED),)).compensate("w", new_id="c", triggered_by="op")
    store = store.apply("c", "complete_from_system")
    assert store.get("w").compensation_status is CompensationStatus.COMPENSATED
    assert json.dumps(store.get("w").to_json())  # still serialisable


def test_an_effect_still_in_flight_blocks_reuse_until_reconciled_applied() -> None:
    # unresolved_reuse_effects: compensated, or started/uncertain without a later applied.
    lineage = source(
        SourceTask("first", effects=(effect("e-1", "first", EffectStatus.STARTED),)),
        SourceTask("second", needs=("first",), state=TaskState.FAILED),
    )
    check = retry_check(lineage)
    assert (check.compatible, check.unresolved, check.rerun) == (False, ("first",), ("second",))
    applied = reconcile(
        lineage.overlay,
        lineage.registry,
        effect_id="e-1",
        status=ReconciliationStatus.APPLIED,
        actor="op",
        reason="seen",
        result_json="{}",
    )
    assert retry_check(attrs.evolve(lineage, overlay=applied)).compatible
