"""The z3 checks of rescind.model.saga: each proves on the real tables and fails, with a
numbered counterexample, on a deliberately broken variant."""

from __future__ import annotations

import re

import attrs

from rescind.model import saga
from rescind.model.checks import CheckResult
from rescind.reference.saga.lineage import Lineage
from rescind.reference.saga.order import reverse_compiled_order
from rescind.reference.saga.planner import CompensationPlan, PlanEntry, plan_compensation
from rescind.tables.saga import (
    ALL_TABLES,
    CASE_ACTIVE_EARLIER,
    CASE_COMPENSATION_ENTRY,
    CASE_TABLE,
    COMPENSATION_STATUS_TABLE,
    FIRST_RECONCILIATION,
    LATER_RECONCILIATION,
    PRIOR_EFFECT_ROWS,
    SOURCE_EFFECT_ROWS,
    WORK_ITEM_TABLE,
    CaseStatus,
    CompensationStatus,
    DecisionRow,
    DocumentedException,
    EffectStatus,
    Eligibility,
    PriorOutcome,
    ReconciliationStatus,
    Transition,
    WorkItemStatus,
)

C = CaseStatus


def violated(result: CheckResult, *fragments: str) -> None:
    assert result.status == "violated", result
    assert result.counterexample and all(
        re.match(rf"{index}\. ", line) for index, line in enumerate(result.counterexample, 1)
    )
    text = "\n".join(result.counterexample)
    for fragment in fragments:
        assert fragment in text, text


def with_rows(table: object, *rows: Transition[object], **changes: object) -> object:
    return attrs.evolve(table, transitions=(*table.transitions, *rows), **changes)  # type: ignore[attr-defined]


def test_every_check_proves() -> None:
    found = {check.name: check for check in saga.checks()}
    assert len(found) == 10 and all(check.group == "saga" for check in found.values())
    for check in found.values():
        result = check.run()
        assert result.status == "proven", (check.name, result)
        assert re.fullmatch(r"SG-\d+", check.rule)


def test_terminal_check_reports_the_casehub_exception_by_name() -> None:
    result = saga.check_terminal_no_exit()
    assert result.status == "proven"
    assert "casehub-post-terminal-compensation" in result.detail
    assert "COMPLETED -> COMPENSATING" in result.detail


def test_terminal_edge_without_documentation_is_violated() -> None:
    broken = with_rows(CASE_TABLE, Transition(C.COMPENSATED, "reopen", C.RUNNING, "assumed"))
    violated(saga.check_terminal_no_exit((broken,)), "COMPENSATED -> RUNNING", "reopen")
    violated(saga.check_final_no_exit((broken,)), "final COMPENSATED -> RUNNING")


def test_undocumented_completed_edge_and_stale_exception() -> None:
    silent = attrs.evolve(CASE_TABLE, exceptions=())
    violated(saga.check_terminal_no_exit((silent,)), "COMPLETED -> COMPENSATING")
    violated(saga.check_final_no_exit((silent,)), "terminal COMPLETED is neither final nor excused")
    stale = attrs.evolve(
        CASE_TABLE,
        exceptions=(
            *CASE_TABLE.exceptions,
            DocumentedException("ghost-edge", C.FAULTED, C.RUNNING, "none"),
        ),
    )
    violated(saga.check_terminal_no_exit((stale,)), "ghost-edge")


def test_silently_redefining_completed_as_non_terminal_is_caught() -> None:
    # Dropping COMPLETED from terminal would make the strict rule pass; the classification
    # check then finds COMPLETED neither terminal nor active.
    redefined = attrs.evolve(
        CASE_TABLE, terminal=CASE_TABLE.terminal - {C.COMPLETED}, exceptions=()
    )
    assert saga.check_terminal_no_exit((redefined,)).status == "proven"
    violated(saga.check_classified((redefined,)), "COMPLETED is not one of terminal/active")


def test_classification_failures() -> None:
    both = attrs.evolve(CASE_TABLE, active=CASE_TABLE.active | {C.COMPLETED})  # type: ignore[operator]
    violated(saga.check_classified((both,)), "casehub-case: COMPLETED")
    stuck_rows = tuple(r for r in CASE_TABLE.transitions if r.source is not C.WAITING)
    stuck = attrs.evolve(CASE_TABLE, transitions=stuck_rows)
    violated(saga.check_classified((stuck,)), "non-terminal WAITING has no way out")
    assert "SUSPENDED" in saga.check_classified().detail
    assert saga.check_classified(earlier=CASE_ACTIVE_EARLIER | {C.SUSPENDED}).detail.endswith(
        "nothing neither terminal nor active"
    )


def test_forbidden_edge() -> None:
    broken = with_rows(CASE_TABLE, Transition(C.COMPENSATING, "suspend", C.SUSPENDED, "assumed"))
    violated(saga.check_forbidden_edges((broken,)), "COMPENSATING -> SUSPENDED")
    assert saga.check_forbidden_edges(ALL_TABLES).status == "proven"


def test_faulted_without_retry() -> None:
    rows = tuple(
        r
        for r in CASE_TABLE.transitions
        if not (r.source is C.COMPENSATION_FAULTED and r.trigger == "compensate")
    )
    no_retry = attrs.evolve(
        CASE_TABLE,
        transitions=rows,
        terminal=CASE_TABLE.terminal | {C.COMPENSATION_FAULTED},
        final=CASE_TABLE.final | {C.COMPENSATION_FAULTED},
        active=CASE_TABLE.active - {C.COMPENSATION_FAULTED},  # type: ignore[operator]
    )
    violated(
        saga.check_faulted_can_retry(no_retry, frozenset({C.COMPLETED})),
        "COMPENSATION_FAULTED is terminal",
        "no compensate -> COMPENSATING row",
        "unreachable",
    )
    violated(saga.check_faulted_can_retry(CASE_TABLE, frozenset({C.COMPLETED})), "guard differs")
    assert (
        "COMPENSATION_FAULTED -> COMPENSATING -> COMPENSATED"
        in saga.check_faulted_can_retry().detail
    )
    assert {C.COMPLETED, C.COMPENSATION_FAULTED} == CASE_COMPENSATION_ENTRY


def test_work_item_overlay_failures() -> None:
    reopened = with_rows(
        WORK_ITEM_TABLE,
        Transition(WorkItemStatus.COMPLETED, "reopen", WorkItemStatus.IN_PROGRESS, "assumed"),
    )
    violated(
        saga.check_work_item_overlay(items=reopened),
        "COMPLETED work item's own status moves to IN_PROGRESS",
    )
    back = with_rows(
        COMPENSATION_STATUS_TABLE,
        Transition(
            CompensationStatus.COMPENSATED, "reset", CompensationStatus.COMPENSATING, "assumed"
        ),
    )
    violated(saga.check_work_item_overlay(overlay=back), "COMPENSATED -> COMPENSATING")
    assert "workitem-compensator-not-completed" in saga.check_work_item_overlay().detail


def test_reconciliation_table_failures() -> None:
    loose = dict(LATER_RECONCILIATION)
    loose[ReconciliationStatus.NOT_APPLIED] = frozenset(
        {ReconciliationStatus.NOT_APPLIED, ReconciliationStatus.APPLIED}
    )
    violated(
        saga.check_reconciliation_monotone(later=loose),
        "reconciled not_applied",
        "reconciled applied",
    )
    eager = dict(FIRST_RECONCILIATION)
    eager[ReconciliationStatus.COMPENSATED] = frozenset({(EffectStatus.UNCERTAIN, False)})
    violated(saga.check_reconciliation_monotone(first=eager), "raw effect uncertain")


def test_planner_rows_that_admit_not_applied() -> None:
    rows = (
        DecisionRow(frozenset({"not_applied"}), None, None, Eligibility.ELIGIBLE),
        *SOURCE_EFFECT_ROWS,
    )
    violated(
        saga.check_plan_excludes_unsettled(rows=rows), "latest not_applied", "rows say eligible"
    )
    silent = tuple(r for r in SOURCE_EFFECT_ROWS if r.outcome is not Eligibility.BLOCK_UNRECONCILED)
    violated(saga.check_plan_excludes_unsettled(rows=silent), "rows say ignored")


def test_prior_rows_that_ignore_an_uncertain_inverse() -> None:
    rows = tuple(r for r in PRIOR_EFFECT_ROWS if r.outcome is not PriorOutcome.BLOCK_UNRECONCILED)
    violated(saga.check_plan_excludes_unsettled(prior_rows=rows), "earlier inverse raw", "no block")


def test_planner_that_includes_a_not_applied_effect() -> None:
    def careless(lineage: Lineage) -> CompensationPlan:
        plan = plan_compensation(lineage)[1]
        everything = tuple(
            PlanEntry(task.task_id, "undo", tuple(e.effect_id for e in task.effects))
            for task in lineage.source.tasks
        )
        return attrs.evolve(plan, tasks=everything, blocked=())

    violated(
        saga.check_plan_excludes_unsettled(planner=careless), "the planner lists e in compensate--t"
    )


def test_planner_that_replans_after_an_uncertain_inverse() -> None:
    def forgetful(lineage: Lineage) -> CompensationPlan:
        return plan_compensation(Lineage(lineage.source, (), lineage.overlay))[1]

    violated(saga.check_plan_excludes_unsettled(planner=forgetful), "compensates t again")


def test_order_rule_and_reference_failures() -> None:
    violated(saga.check_order(size=3, order_rule=lambda pos, n: list(pos)), "undoes a task first")

    def forward(nodes: object, needs: object) -> tuple[str, ...]:
        return tuple(reversed(reverse_compiled_order(nodes, needs)))  # type: ignore[arg-type]

    violated(
        saga.check_order(size=3, exhaustive=3, reference=forward), "reference compensation order"
    )


def test_batch_rule_and_reference_failures() -> None:
    def flat(needs: list[list[object]], level: list[object], n: int) -> list[object]:
        return [lvl == 0 for lvl in level]

    violated(saga.check_batches(size=3, rule=flat), "break the rule")

    def one_batch(nodes: object, needs: object) -> tuple[tuple[str, ...], ...]:
        return (tuple(nodes),)  # type: ignore[arg-type]

    violated(saga.check_batches(size=3, exhaustive=3, batches=one_batch), "reference batches")
