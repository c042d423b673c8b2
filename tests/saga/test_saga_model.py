"""The z3 checks of rescind.model.saga.proofs: each proves on the real tables and rules and fails,
with a numbered counterexample, on a deliberately broken table or rule. Broken planners,
orders and batches of the reference go to the refinement checks (test_saga_refinement)."""

from __future__ import annotations

import re

import attrs
import z3

from rescind.model.saga import planning as saga_planning
from rescind.model.saga import proofs as saga
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
from tests.saga.proof_results import violated

C = CaseStatus


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


def test_order_rule_failures() -> None:
    violated(saga.check_order(size=3, order_rule=lambda pos, n: list(pos)), "undoes a task first")


def test_one_at_a_time_rule_failures() -> None:
    def ignore_needs(needs: list[list[object]], pos: list[object], n: int) -> list[object]:
        return [z3.And(p >= 0, p < n) for p in pos] + [z3.Distinct(*pos)]

    violated(saga.check_one_at_a_time(size=3, rule=ignore_needs), "undoes a task first")

    def declared_order(needs: list[list[object]], pos: list[object], n: int) -> list[object]:
        return [*saga_planning.one_at_a_time(needs, pos, n), *(p == i for i, p in enumerate(pos))]

    # Declared order contradicts a chain (t1 needs t0, so t1 goes first).
    violated(saga.check_one_at_a_time(size=3, rule=declared_order), "order")

    def one_fixed_order(needs: list[list[object]], pos: list[object], n: int) -> list[object]:
        # A rule that fixes the order of independent steps would make vectors over-strict.
        rules = saga_planning.one_at_a_time(needs, pos, n)
        unrelated = [
            z3.Implies(z3.Not(z3.Or(needs[u][v], needs[v][u])), pos[u] < pos[v])
            for u in range(n)
            for v in range(u + 1, n)
        ]
        return [*rules, *unrelated]

    violated(saga.check_one_at_a_time(size=3, rule=one_fixed_order), "admit only one order")


# Answers below are worked out by hand from SG-19 (undo the compiled order backwards) and SG-100
# (one step at a time, every dependent before what it depends on).
CHAIN = {"t0": (), "t1": ("t0",), "t2": ("t1",)}
FORK = {"t0": (), "t1": ("t0",), "t2": ("t0",)}


def test_order_admits_exactly_the_reversed_compiled_order() -> None:
    admits = saga_planning.order_admits(3)
    assert admits(CHAIN, ("t2", "t1", "t0"))
    assert admits(FORK, ("t2", "t1", "t0"))  # compiled t0, t1, t2: t1 is declared first
    assert not admits(FORK, ("t1", "t2", "t0"))
    assert not admits(CHAIN, ("t0", "t1", "t2"))
    assert not admits(CHAIN, ("t2", "t1"))
    assert not admits(CHAIN, ("t2", "t2", "t0"))


def test_undo_admits_exactly_the_dependents_first_orders() -> None:
    admits = saga_planning.undo_admits(3)
    assert admits(CHAIN, ("t2", "t1", "t0"))
    assert admits(FORK, ("t1", "t2", "t0")) and admits(FORK, ("t2", "t1", "t0"))
    assert not admits(FORK, ("t1", "t0", "t2"))
    assert not admits(CHAIN, ("t0", "t1", "t2"))
    assert not admits(CHAIN, ("t2", "t1"))
