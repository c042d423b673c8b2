"""SG-10..SG-21: agentctl planning, one test per saga scenario (docs/spec/edge-cases.md;
expected values from the rules and upstream's code paths, written by hand)."""

from __future__ import annotations

import pytest

from rescind.reference.saga.effects import EffectClass
from rescind.reference.saga.errors import (
    CompensationInputNotObject,
    SagaDependencyCycle,
    SourceRunNotTerminal,
)
from rescind.reference.saga.execution import AgentctlExit, plan_exit_status
from rescind.reference.saga.lineage import CompensationRun, CompensationTask, Lineage
from rescind.reference.saga.planner import BlockRule, CompensationPlan, plan_compensation
from rescind.reference.saga.reconciliation import reconcile
from rescind.reference.saga.workflow import (
    CompensateDeclaration,
    CompensationPolicy,
    OnFailure,
    SourceTask,
)
from rescind.tables.saga import EffectStatus, ReconciliationStatus, RunState

from .builders import UNDO, ag_s1, compensable, effect, one_task, source, source_file

S = EffectStatus


def plan(lineage: Lineage, *selection: str) -> CompensationPlan:
    return plan_compensation(lineage, selection)[1]


def order(result: CompensationPlan) -> list[str]:
    return [entry.source_task_id for entry in result.tasks]


def rules(result: CompensationPlan) -> list[tuple[str, str, str | None]]:
    return [(b.task_id, b.rule.value, b.effect_id) for b in result.blocked]


def with_run(lineage: Lineage, *runs: CompensationRun) -> Lineage:
    return Lineage(lineage.source, runs, lineage.overlay)


def operator(lineage: Lineage, effect_id: str, status: ReconciliationStatus) -> Lineage:
    overlay = reconcile(
        lineage.overlay,
        lineage.registry,
        effect_id=effect_id,
        status=status,
        actor="operator",
        reason="checked",
        result_json="{}",
    )
    return Lineage(lineage.source, lineage.runs, overlay)


def inverse_run(
    run_id: str, state: RunState, *tasks: tuple[str, list[str], list[tuple[str, EffectStatus]]]
) -> CompensationRun:
    return CompensationRun(
        run_id,
        "src-1",
        state,
        tuple(
            CompensationTask(
                task_id,
                tuple(ids),
                effects=tuple(
                    effect(i, f"compensate--{task_id}", s, run_id=run_id) for i, s in eff
                ),
            )
            for task_id, ids, eff in tasks
        ),
    )


def test_ag_s1_reverse_order_executable_complete() -> None:
    result = plan(ag_s1())
    assert order(result) == ["second", "first"]
    assert result.executable and result.complete and not result.blocked
    assert [e.compensation_task_id for e in result.tasks] == [
        "compensate--second",
        "compensate--first",
    ]
    assert result.tasks[0].action == "action:restore"  # SG-91: the uses as written
    assert result.to_json()["apiVersion"] == "agentctl.dev/compensation-plan/v1"


def test_ag_s2_after_full_compensation_nothing_left() -> None:
    done = inverse_run(
        "cmp-1",
        RunState.SUCCEEDED,
        ("second", ["e-second"], [("c-2", S.SUCCEEDED)]),
        ("first", ["e-first"], [("c-1", S.SUCCEEDED)]),
    )
    lineage, result = plan_compensation(with_run(ag_s1(), done))
    assert not result.executable and result.complete
    assert sorted(result.already_compensated_effects) == ["e-first", "e-second"]
    # Finalizing appended exactly one record per source effect; planning again appends none.
    assert len(lineage.overlay.records) == 2
    assert len(plan_compensation(lineage)[0].overlay.records) == 2
    assert plan_exit_status(result) is AgentctlExit.OK


def test_ag_s3_replan_only_the_remainder() -> None:
    partial = inverse_run(
        "cmp-1",
        RunState.FAILED,
        ("second", ["e-second"], [("c-2a", S.FAILED), ("c-2b", S.FAILED)]),
        ("first", ["e-first"], [("c-1", S.SUCCEEDED)]),
    )
    result = plan(with_run(ag_s1(), partial))
    assert order(result) == ["second"]
    assert result.already_compensated_effects == ("e-first",)
    assert result.executable and result.complete


def test_ag_s4_uncertain_source_blocks_until_reconciled() -> None:
    lineage = one_task(effect("e-1", "uncertain", S.UNCERTAIN), task_id="uncertain")
    blocked = plan(lineage)
    assert rules(blocked) == [("uncertain", "unreconciled_source_effect", "e-1")]
    assert not blocked.executable and not blocked.complete and not blocked.tasks
    assert plan_exit_status(blocked) is AgentctlExit.POLICY
    applied = plan(operator(lineage, "e-1", ReconciliationStatus.APPLIED))
    assert order(applied) == ["uncertain"] and applied.executable and applied.complete


def test_ag_s5_not_applied_needs_nothing() -> None:
    lineage = one_task(effect("e-1", "uncertain", S.UNCERTAIN), task_id="uncertain")
    result = plan(operator(lineage, "e-1", ReconciliationStatus.NOT_APPLIED))
    assert not result.tasks and not result.blocked
    assert not result.executable and result.complete
    assert plan_exit_status(result) is AgentctlExit.OK


def create_fail() -> Lineage:
    return source(
        SourceTask("create", compensate=UNDO, effects=(effect("e-create", "create"),)),
        SourceTask("fail", needs=("create",)),
    )


def test_ag_s6_uncertain_inverse_blocks_then_applied_finalizes() -> None:
    failed = inverse_run("cmp-1", RunState.FAILED, ("create", ["e-create"], [("c-1", S.UNCERTAIN)]))
    lineage = with_run(create_fail(), failed)
    result = plan(lineage)
    assert rules(result) == [("create", "unreconciled_compensation_effect", "c-1")]
    assert not result.executable
    settled, result = plan_compensation(operator(lineage, "c-1", ReconciliationStatus.APPLIED))
    assert not result.executable and result.complete
    assert result.already_compensated_effects == ("e-create",)
    latest = settled.overlay.latest("e-create")
    assert latest is not None and latest.compensation_effect_id == "c-1"


def test_ag_s7_inverse_not_applied_replans() -> None:
    failed = inverse_run("cmp-1", RunState.FAILED, ("create", ["e-create"], [("c-1", S.UNCERTAIN)]))
    lineage = operator(with_run(create_fail(), failed), "c-1", ReconciliationStatus.NOT_APPLIED)
    result = plan(lineage)
    assert order(result) == ["create"] and result.executable and result.complete


def test_ag_s8_cancelled_run_leaves_plan_executable() -> None:
    cancelled = inverse_run(
        "cmp-1", RunState.CANCELLED, ("second", ["e-second"], []), ("first", ["e-first"], [])
    )
    result = plan(with_run(ag_s1(), cancelled))
    assert result.executable and not result.blocked and order(result) == ["second", "first"]


def test_ag_s12_paused_run_blocks_everything() -> None:
    paused = inverse_run(
        "cmp-1", RunState.PAUSED, ("second", ["e-second"], [("c-2", S.WAITING_FOR_APPROVAL)])
    )
    result = plan(with_run(ag_s1(), paused))
    assert rules(result) == [("*", "compensation_in_progress", None)]
    assert result.tasks and not result.executable and not result.complete


@pytest.mark.parametrize(
    ("selected", "rule"), [("nope", "unknown_task"), ("fail", "undeclared_compensation")]
)
def test_ag_s13_selection_blocks(selected: str, rule: str) -> None:
    result = plan(ag_s1(), selected)
    assert rules(result) == [(selected, rule, None)]
    assert not result.tasks and not result.executable and not result.complete
    assert plan_exit_status(result) is AgentctlExit.POLICY


def test_selection_limits_the_plan() -> None:
    result = plan(ag_s1(), "first")
    assert order(result) == ["first"] and result.selected_tasks == ("first",)


@pytest.mark.parametrize("state", [RunState.RUNNING, RunState.PAUSED])
def test_ag_s14_source_must_be_terminal(state: RunState) -> None:
    with pytest.raises(SourceRunNotTerminal):
        plan(ag_s1(state=state))


@pytest.mark.parametrize("state", [RunState.SUCCEEDED, RunState.FAILED, RunState.CANCELLED])
def test_terminal_sources_plan(state: RunState) -> None:
    assert order(plan(ag_s1(state=state))) == ["second", "first"]


def test_ag_s17_declaration_order_breaks_ties() -> None:
    lineage = source(
        SourceTask("b", compensate=UNDO, effects=(effect("e-b", "b"),)),
        SourceTask("a", compensate=UNDO, effects=(effect("e-a", "a"),)),
        SourceTask("c", needs=("a", "b"), compensate=UNDO, effects=(effect("e-c", "c"),)),
        state=RunState.SUCCEEDED,
    )
    assert lineage.source.compiled_order == ("b", "a", "c")
    assert order(plan(lineage)) == ["c", "a", "b"]


def test_ag_s21_irrelevant_effects_need_nothing() -> None:
    lineage = one_task(
        effect("e-1", "t", effect_class=EffectClass.OBSERVE),
        effect("e-2", "t", effect_class=EffectClass.PURE),
        effect("e-3", "t", S.UNCERTAIN, effect_class=EffectClass.MODEL),
    )
    result = plan(lineage)
    assert not result.tasks and not result.blocked and result.complete


@pytest.mark.parametrize(
    "effect_class",
    [
        EffectClass.INTERNAL_STATE,
        EffectClass.WORKSPACE,
        EffectClass.PROCESS,
        EffectClass.NETWORK,
        EffectClass.EXTERNAL,
        EffectClass.REMOTE_AGENT,
    ],
)
def test_relevant_classes(effect_class: EffectClass) -> None:
    assert order(plan(one_task(effect("e", "t", effect_class=effect_class)))) == ["t"]


def test_one_entry_covers_all_eligible_effects() -> None:
    lineage = one_task(
        effect("e-1", "t", S.FAILED, attempt=1),
        effect("e-2", "t", attempt=2),
        effect("e-3", "t", attempt=2, effect_class=EffectClass.NETWORK),
        effect("e-4", "t", S.CANCELLED, attempt=2),
    )
    (entry,) = plan(lineage).tasks
    assert entry.source_effect_ids == ("e-2", "e-3")


def test_blocked_effect_and_eligible_effect_in_one_task() -> None:
    # The task still gets its entry for the eligible effect; the uncertain one is reported.
    lineage = one_task(effect("e-ok", "t"), effect("e-unsure", "t", S.UNCERTAIN))
    result = plan(lineage)
    assert [e.source_effect_ids for e in result.tasks] == [("e-ok",)]
    assert rules(result) == [("t", "unreconciled_source_effect", "e-unsure")]
    assert result.executable and not result.complete


def test_unconfirmed_source_and_inverse_block() -> None:
    assert rules(plan(one_task(effect("e", "t", confirmed=False)))) == [
        ("t", "unconfirmed_source_effect", "e")
    ]
    odd = CompensationRun(
        "cmp-1",
        "src-1",
        RunState.FAILED,
        (
            CompensationTask(
                "create",
                ("e-create",),
                effects=(effect("c-1", "compensate--create", confirmed=False, run_id="cmp-1"),),
            ),
        ),
    )
    assert rules(plan(with_run(create_fail(), odd))) == [
        ("create", "unconfirmed_compensation_effect", "c-1")
    ]


def test_reversed_inverse_blocks() -> None:
    done = inverse_run(
        "cmp-1",
        RunState.FAILED,
        ("create", ["e-create"], [("c-1", S.SUCCEEDED)]),
        ("other", ["e-other"], [("c-2", S.SUCCEEDED)]),
    )
    lineage = source(
        SourceTask("create", compensate=UNDO, effects=(effect("e-create", "create"),)),
        SourceTask("other", compensate=UNDO, effects=(effect("e-other", "other"),)),
    )
    lineage = with_run(lineage, done)
    overlay = reconcile(
        lineage.overlay,
        lineage.registry,
        effect_id="c-1",
        status=ReconciliationStatus.COMPENSATED,
        actor="op",
        reason="undone",
        compensation_effect_id="c-2",
    )
    result = plan(Lineage(lineage.source, lineage.runs, overlay))
    assert rules(result) == [("create", "compensation_effect_reversed", "c-1")]
    assert result.already_compensated_effects == ("e-other",)


def test_partial_is_executable_but_incomplete() -> None:
    lineage = source(
        SourceTask("first", compensate=UNDO, effects=(effect("e-1", "first"),)),
        SourceTask(
            "second",
            needs=("first",),
            compensate=UNDO,
            effects=(effect("e-2", "second", S.UNCERTAIN),),
        ),
    )
    result = plan(lineage)
    assert order(result) == ["first"] and result.executable and not result.complete


def with_template(value: str, output: str | None) -> Lineage:
    return source(
        SourceTask("first", compensate=UNDO, effects=(effect("e-1", "first"),), output_json=output),
        SourceTask(
            "second",
            compensate=CompensateDeclaration(uses="action:restore", with_json=value),
            effects=(effect("e-2", "second"),),
        ),
        inputs_json='{"mode":"safe"}',
        memory_json='{"key":{"deep":1}}',
    )


def test_input_rendering() -> None:
    template = (
        '{"path":"${{ tasks.first.output.path }}","mode":"${{inputs.mode}}",'
        '"deep":"${{ memory.key.deep }}","note":"plain {{ kept }}"}'
    )
    result = plan(with_template(template, '{"path":"a.txt"}'))
    second = result.tasks[0]
    assert second.source_task_id == "second"
    assert second.input_json == '{"deep":1,"mode":"safe","note":"plain {{ kept }}","path":"a.txt"}'


def test_input_unavailable_blocks_only_that_task() -> None:
    result = plan(with_template('{"path":"${{ tasks.first.output.path }}"}', None))
    assert rules(result) == [("second", "compensation_input_unavailable", None)]
    assert order(result) == ["first"]


def test_input_not_object_is_an_error() -> None:
    with pytest.raises(CompensationInputNotObject):
        plan(with_template('"${{ tasks.first.output.path }}"', '{"path":"a.txt"}'))


def test_automatic_flag_and_cycles() -> None:
    assert plan(ag_s1(policy=CompensationPolicy(on_failure=OnFailure.AUTOMATIC))).automatic
    assert not plan(ag_s1()).automatic
    with pytest.raises(SagaDependencyCycle):
        source(SourceTask("a", needs=("b",)), SourceTask("b", needs=("a",)))


def test_block_rules_are_the_upstream_names() -> None:
    assert {rule.value for rule in BlockRule} == {
        "unknown_task",
        "undeclared_compensation",
        "compensation_in_progress",
        "compensation_effect_reversed",
        "unreconciled_compensation_effect",
        "unconfirmed_compensation_effect",
        "unreconciled_source_effect",
        "unconfirmed_source_effect",
        "compensation_input_unavailable",
    }


def test_sg82_a_plan_file_may_repeat_a_selected_task() -> None:
    from rescind.reference.saga.loading import read_lineage

    document = source_file(compensable("first", uses="action:write"), selection=["first", "first"])
    lineage, selection = read_lineage(document)
    assert selection == ("first", "first")
    result = plan_compensation(lineage, selection)[1]
    assert result.selected_tasks == ("first",)
    assert [(e.source_task_id, e.action) for e in result.tasks] == [("first", "action:write")]
