"""Saga properties proven by z3 over the lifecycle tables (docs/spec/saga.md SG-70..).

Every check reads the data in ``rescind.tables.saga`` or the specification's order rules, and
asks z3 for a counterexample; none runs reference code. Whether the reference's planner and
orders follow these rules is checked by the refinement checks of
``rescind.conformance.sources.saga_model`` (``rescind check``, ids ``refinement.saga.*``). Each
check function takes what it checks as parameters, defaulting to the real tables and rules, so
tests can hand it a broken variant and watch it fail with a numbered trace.

Decision 6 (CaseHub's COMPLETED is terminal yet may move to COMPENSATING) is handled both ways
the spec allows: ``saga.terminal-no-exit`` finds every edge leaving a terminal state and passes
only when each one is a named documented exception, which it reports by name;
``saga.final-no-exit`` proves the strict rule for Rescind's *final* states, with no exception.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import z3

from rescind.model.core.proof_check import Check, CheckResult
from rescind.model.saga.planning import (
    check_one_at_a_time,
    check_order,
    check_plan_excludes_unsettled,
)
from rescind.model.saga.support import (
    Lines,
    Table,
    _each_table,
    _enum,
    _label,
    _States,
    any_of,
    run_timed,
)
from rescind.tables.saga import (
    ALL_TABLES,
    CASE_ACTIVE_EARLIER,
    CASE_COMPENSATION_ENTRY,
    CASE_TABLE,
    COMPENSATION_STATUS_TABLE,
    COMPENSATOR_STRANDING,
    EFFECT_TABLE,
    FIRST_RECONCILIATION,
    LATER_RECONCILIATION,
    WORK_ITEM_TABLE,
    CaseStatus,
    CompensationStatus,
    EffectStatus,
    ReconciliationStatus,
    WorkItemStatus,
)

# --- lifecycle checks ----------------------------------------------------------------------


def check_classified(
    tables: Sequence[Table] = ALL_TABLES, earlier: frozenset[CaseStatus] = CASE_ACTIVE_EARLIER
) -> CheckResult:
    def visit(states: _States, lines: Lines) -> None:
        table, x, y = states.table, states.var("x"), states.var("y")
        terminal = states.member(x, table.terminal)
        if table.active is not None:
            active = states.member(x, table.active)
            twice_or_never = z3.Or(z3.And(terminal, active), z3.Not(z3.Or(terminal, active)))
            for (state,) in states.solutions(twice_or_never, x):
                lines.append(f"{table.name}: {_label(state)} is not one of terminal/active")
        stuck = z3.And(z3.Not(terminal), z3.Not(z3.Exists([y], states.edge(x, y))))
        for (state,) in states.solutions(stuck, x):
            lines.append(f"{table.name}: non-terminal {_label(state)} has no way out")

    def body() -> tuple[Lines, str]:
        lines = _each_table(tables, visit)
        case = _States(CASE_TABLE, z3.Context())
        x = case.var("x")
        neither = z3.Not(z3.Or(case.member(x, CASE_TABLE.terminal), case.member(x, earlier)))
        found = sorted(_label(state) for (state,) in case.solutions(neither, x))
        return lines, (
            "CaseHub's current isActive variant is modelled; the earlier variant leaves "
            f"{', '.join(found) or 'nothing'} neither terminal nor active"
        )

    return run_timed(body)


def check_terminal_no_exit(tables: Sequence[Table] = ALL_TABLES) -> CheckResult:
    reported: Lines = []

    def visit(states: _States, lines: Lines) -> None:
        table, x, y = states.table, states.var("x"), states.var("y")
        found = set(
            states.solutions(z3.And(states.member(x, table.terminal), states.edge(x, y)), x, y)
        )
        documented = {(item.source, item.target): item for item in table.exceptions}
        for source, target in sorted(found, key=lambda pair: (_label(pair[0]), _label(pair[1]))):
            edge = f"{_label(source)} -> {_label(target)}"
            item = documented.get((source, target))
            if item is None:
                via = states.rows(source, target)
                lines.append(
                    f"{table.name}: terminal {edge} via {via} is not a documented exception"
                )
            else:
                reported.append(f"{item.name} ({table.name} {edge}: {item.reason})")
        for key, item in documented.items():
            if key not in found:
                lines.append(
                    f"{table.name}: exception {item.name} names no edge leaving a terminal"
                )

    def body() -> tuple[Lines, str]:
        lines = _each_table(tables, visit)
        return lines, "reported exceptions: " + ("; ".join(reported) or "none")

    return run_timed(body)


def check_final_no_exit(tables: Sequence[Table] = ALL_TABLES) -> CheckResult:
    def visit(states: _States, lines: Lines) -> None:
        table, x, y = states.table, states.var("x"), states.var("y")
        final, terminal = states.member(x, table.final), states.member(x, table.terminal)
        for source, target in states.solutions(z3.And(final, states.edge(x, y)), x, y):
            via = states.rows(source, target)
            lines.append(f"{table.name}: final {_label(source)} -> {_label(target)} via {via}")
        excused = states.member(x, {item.source for item in table.exceptions})
        for (state,) in states.solutions(z3.And(terminal, z3.Not(final), z3.Not(excused)), x):
            lines.append(f"{table.name}: terminal {_label(state)} is neither final nor excused")
        for (state,) in states.solutions(z3.And(final, z3.Not(terminal)), x):
            lines.append(f"{table.name}: final {_label(state)} is not terminal")

    def body() -> tuple[Lines, str]:
        detail = "final = terminal minus documented-exception sources; nothing leaves them"
        return _each_table(tables, visit), detail

    return run_timed(body)


def check_forbidden_edges(tables: Sequence[Table] = ALL_TABLES) -> CheckResult:
    def visit(states: _States, lines: Lines) -> None:
        x, y = states.var("x"), states.var("y")
        banned = [
            z3.And(x == states.const[a], y == states.const[b]) for a, b in states.table.forbidden
        ]
        for a, b in states.solutions(z3.And(any_of(banned, states.ctx), states.edge(x, y)), x, y):
            lines.append(f"{states.table.name}: forbidden edge {_label(a)} -> {_label(b)} exists")

    return run_timed(lambda: (_each_table(tables, visit), "COMPENSATING never suspends or cancels"))


def check_faulted_can_retry(
    table: Table = CASE_TABLE, entry: frozenset[CaseStatus] = CASE_COMPENSATION_ENTRY
) -> CheckResult:
    faulted, compensating = CaseStatus.COMPENSATION_FAULTED, CaseStatus.COMPENSATING

    def body() -> tuple[Lines, str]:
        states = _States(table, z3.Context())
        lines: Lines = []
        if faulted in table.terminal:
            lines.append("COMPENSATION_FAULTED is terminal, so no retry may leave it")
        if compensating not in table.targets(faulted, "compensate"):
            lines.append("COMPENSATION_FAULTED has no compensate -> COMPENSATING row")
        accepting = {row.source for row in table.transitions if row.trigger == "compensate"}
        if accepting != set(entry):
            lines.append(f"compensate rows leave {sorted(map(_label, accepting))}; guard differs")
        # Shortest path first: bounded reachability with growing bounds.
        for length in range(2, len(table.states) + 1):
            path = [states.var(f"p{length}_{index}") for index in range(length)]
            solver = z3.Solver(ctx=states.ctx)
            solver.add(path[0] == states.const[faulted])
            solver.add(path[-1] == states.const[CaseStatus.COMPENSATED])
            solver.add([states.edge(a, b) for a, b in itertools.pairwise(path)])
            if solver.check() == z3.sat:
                trace = [states.state[str(solver.model().eval(term))] for term in path]
                return lines, "retry path: " + " -> ".join(_label(state) for state in trace)
        exits = ", ".join(_label(row.target) for row in table.outgoing(faulted)) or "none"
        lines.append(f"COMPENSATED is unreachable from COMPENSATION_FAULTED (exits: {exits})")
        return lines, ""

    return run_timed(body)


def check_work_item_overlay(
    items: Table = WORK_ITEM_TABLE, overlay: Table = COMPENSATION_STATUS_TABLE
) -> CheckResult:
    def body() -> tuple[Lines, str]:
        ctx = z3.Context()
        lines: Lines = []
        work = _States(items, ctx)
        y = work.var("y")
        for (target,) in work.solutions(work.edge(work.const[WorkItemStatus.COMPLETED], y), y):
            lines.append(f"a COMPLETED work item's own status moves to {_label(target)}")
        status = _States(overlay, ctx)
        a, b = status.var("a"), status.var("b")
        none, middle = (
            status.const[s] for s in (CompensationStatus.NONE, CompensationStatus.COMPENSATING)
        )

        def rank(term: Any) -> Any:
            return z3.If(term == none, 0, z3.If(term == middle, 1, 2))

        for old, new in status.solutions(z3.And(status.edge(a, b), rank(b) < rank(a)), a, b):
            lines.append(f"compensationStatus goes back: {_label(old)} -> {_label(new)}")
        for old, _ in status.solutions(z3.And(status.edge(a, b), b == middle, a != none), a, b):
            lines.append(f"COMPENSATING entered again from {_label(old)}")
        stranded = ", ".join(sorted(_label(state) for state in COMPENSATOR_STRANDING))
        return lines, (
            "known dead end workitem-compensator-not-completed: a compensator ending "
            f"{stranded} leaves the original COMPENSATING for good"
        )

    return run_timed(body)


def check_reconciliation_monotone(
    first: Mapping[
        ReconciliationStatus, frozenset[tuple[EffectStatus, bool]]
    ] = FIRST_RECONCILIATION,
    later: Mapping[ReconciliationStatus, frozenset[ReconciliationStatus]] = LATER_RECONCILIATION,
    length: int = 4,
) -> CheckResult:
    def body() -> tuple[Lines, str]:
        ctx = z3.Context()
        raw = _States(EFFECT_TABLE, ctx)
        sort, value = _enum(ctx, [status.value for status in ReconciliationStatus])
        effect, ok = raw.var("raw"), z3.Bool("confirmed", ctx)
        records = [z3.Const(f"r{index}", sort) for index in range(length)]
        starts = [
            z3.And(records[0] == value[status.value], effect == raw.const[s], ok == c)
            for status, pairs in first.items()
            for s, c in pairs
        ]
        steps = [
            any_of(
                [
                    z3.And(p == value[a.value], q == value[b.value])
                    for a, bs in later.items()
                    for b in bs
                ],
                ctx,
            )
            for p, q in itertools.pairwise(records)
        ]
        sticky = ("not_applied", "compensated")
        left = [
            z3.And(records[i] == value[s], records[j] != value[s])
            for i, j in itertools.combinations(range(length), 2)
            for s in sticky
        ]
        good_raw = z3.And(effect == raw.const[EffectStatus.SUCCEEDED], ok)
        left.append(z3.And(records[0] == value["compensated"], z3.Not(good_raw)))
        solver = z3.Solver(ctx=ctx)
        solver.add(any_of(starts, ctx), *steps, any_of(left, ctx))
        if solver.check() != z3.sat:
            return [], f"every append-only history of up to {length} records"
        model = solver.model()
        lines = [
            f"raw effect {raw.state[str(model.eval(effect))].value} confirmed={model.eval(ok)}"
        ]
        return lines + [f"reconciled {model.eval(term)}" for term in records], ""

    return run_timed(body)


_CHECKS = (
    (
        "saga.states-classified",
        "SG-70",
        check_classified,
        "every lifecycle state is classified and no non-terminal state is a dead end",
    ),
    (
        "saga.terminal-no-exit",
        "SG-71",
        check_terminal_no_exit,
        "terminal states have no outgoing edge except documented exceptions, reported by name",
    ),
    (
        "saga.final-no-exit",
        "SG-72",
        check_final_no_exit,
        "final states (terminal, no documented exception) have no outgoing edge at all",
    ),
    (
        "saga.forbidden-edges",
        "SG-73",
        check_forbidden_edges,
        "no edge the upstream design forbids exists",
    ),
    (
        "saga.faulted-can-retry",
        "SG-74",
        check_faulted_can_retry,
        "COMPENSATION_FAULTED can always be retried into COMPENSATING and reach COMPENSATED",
    ),
    (
        "saga.work-item-overlay",
        "SG-75",
        check_work_item_overlay,
        "compensation never changes a work item's COMPLETED status and only moves forward",
    ),
    (
        "saga.reconciliation-monotone",
        "SG-76",
        check_reconciliation_monotone,
        "an effect's reconciliations never leave not_applied or compensated",
    ),
    (
        "saga.plan-excludes-unsettled",
        "SG-77",
        check_plan_excludes_unsettled,
        "the decision rows make an effect eligible only when it is effectively applied and "
        "always block an uncertain one, and block a re-plan whenever the earlier inverse may "
        "have acted or was reversed",
    ),
    (
        "saga.order-reverse-compiled",
        "SG-78",
        check_order,
        "the compiled-order rule yields one order per DAG, and its reverse undoes every task "
        "before the tasks it needs",
    ),
    (
        "saga.order-one-at-a-time",
        "SG-102",
        check_one_at_a_time,
        "CaseHub's one-at-a-time rule always has a next step, undoes dependents first, a chain "
        "in strict reverse, and leaves independent steps in any order",
    ),
)


def checks() -> Sequence[Check]:
    return tuple(
        Check(name=name, statement=statement, rule=rule, run=run, group="saga")
        for name, rule, run, statement in _CHECKS
    )
