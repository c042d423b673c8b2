"""Saga properties proven by z3 over the reference's own tables (docs/spec/saga.md SG-70..).

Every check reads the data in ``rescind.reference.saga.lifecycles`` (or runs the reference on
every small case from ``smallworld``) and asks z3 for a counterexample. Each check function
takes what it checks as parameters, defaulting to the real tables and functions, so tests can
hand it a broken variant and watch it fail with a numbered trace.

Decision 6 (CaseHub's COMPLETED is terminal yet may move to COMPENSATING) is handled both ways
the spec allows: ``saga.terminal-no-exit`` finds every edge leaving a terminal state and passes
only when each one is a named documented exception, which it reports by name;
``saga.final-no-exit`` proves the strict rule for Rescind's *final* states, with no exception.
"""

from __future__ import annotations

import enum
import itertools
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import z3
from rescind.model.checks import Check, CheckResult
from rescind.reference.saga.lifecycles import (
    ALL_TABLES,
    CASE_ACTIVE_EARLIER,
    CASE_COMPENSATION_ENTRY,
    CASE_TABLE,
    COMPENSATION_STATUS_TABLE,
    COMPENSATOR_STRANDING,
    EFFECT_TABLE,
    FIRST_RECONCILIATION,
    LATER_RECONCILIATION,
    LATEST_VALUES,
    PRIOR_EFFECT_ROWS,
    SOURCE_EFFECT_ROWS,
    WORK_ITEM_TABLE,
    CaseStatus,
    CompensationStatus,
    DecisionRow,
    EffectStatus,
    Eligibility,
    PriorOutcome,
    ReconciliationStatus,
    StateTable,
    WorkItemStatus,
)
from rescind.reference.saga.lineage import Lineage
from rescind.reference.saga.order import (
    compensation_batches,
    dfs_reverse_postorder,
    reverse_compiled_order,
)
from rescind.reference.saga.planner import CompensationPlan, plan_compensation
from rescind.reference.saga.smallworld import (
    Configuration,
    all_dags,
    effect_configurations,
    prior_inverse_world,
    source_effect_world,
)

Table = StateTable[Any]
Lines = list[str]
Graph = dict[str, tuple[str, ...]]
Planner = Callable[[Lineage], CompensationPlan]
Order = Callable[[Sequence[str], Graph], tuple[str, ...]]
Batches = Callable[[Sequence[str], Graph], tuple[tuple[str, ...], ...]]
Rule = Callable[[list[list[Any]], list[Any], int], list[Any]]
_SORTS = itertools.count()
_UNSETTLED = (EffectStatus.STARTED, EffectStatus.UNCERTAIN)
_NOT_HAPPENED = (
    EffectStatus.REQUESTED,
    EffectStatus.WAITING_FOR_APPROVAL,
    EffectStatus.FAILED,
    EffectStatus.CANCELLED,
)


def _timed(body: Callable[[], tuple[Lines, str]]) -> CheckResult:
    """Run a body returning (counterexample lines, detail); no lines means proven."""
    started = time.perf_counter()
    try:
        lines, detail = body()
    except z3.Z3Exception as error:
        return CheckResult("unknown", time.perf_counter() - started, (), str(error))
    seconds = time.perf_counter() - started
    if lines:
        numbered = tuple(f"{index}. {line}" for index, line in enumerate(lines, 1))
        return CheckResult("violated", seconds, numbered, detail)
    return CheckResult("proven", seconds, (), detail)


def _any(terms: Sequence[Any], ctx: z3.Context) -> Any:
    """A disjunction that is well-formed (and false) when ``terms`` is empty."""
    return z3.Or([*terms, z3.BoolVal(False, ctx)])


def _label(state: enum.Enum) -> str:
    return str(state.value)


def _enum(ctx: z3.Context, values: Sequence[str]) -> tuple[Any, dict[str, Any]]:
    sort, consts = z3.EnumSort(f"sort{next(_SORTS)}", list(values), ctx=ctx)
    return sort, dict(zip(values, consts, strict=True))


class _States:
    """A lifecycle table as a z3 enumeration, with its predicates as z3 formulas."""

    def __init__(self, table: Table, ctx: z3.Context) -> None:
        self.table = table
        self.ctx = ctx
        names = [f"{table.name}:{state.value}" for state in table.states]
        sort, consts = _enum(ctx, names)
        self.sort = sort
        self.const = {state: consts[name] for state, name in zip(table.states, names, strict=True)}
        self.state = {str(const): state for state, const in self.const.items()}

    def var(self, name: str) -> Any:
        return z3.Const(name, self.sort)

    def member(self, term: Any, group: Any) -> Any:
        return _any([term == self.const[state] for state in group], self.ctx)

    def edge(self, source: Any, target: Any) -> Any:
        rows = [row for row in self.table.transitions if row.source != row.target]
        pairs = [(self.const[row.source], self.const[row.target]) for row in rows]
        return _any([z3.And(source == a, target == b) for a, b in pairs], self.ctx)

    def solutions(self, formula: Any, *terms: Any) -> Iterator[tuple[Any, ...]]:
        """Every assignment of ``terms`` (states) satisfying ``formula``."""
        solver = z3.Solver(ctx=self.ctx)
        solver.add(formula)
        while solver.check() == z3.sat:
            model = solver.model()
            values = [model.eval(term, model_completion=True) for term in terms]
            yield tuple(self.state[str(value)] for value in values)
            solver.add(z3.Or([term != value for term, value in zip(terms, values, strict=True)]))

    def rows(self, source: Any, target: Any) -> str:
        found = [r for r in self.table.transitions if (r.source, r.target) == (source, target)]
        return ", ".join(f"{row.trigger} [{row.evidence}]" for row in found)


def _each_table(tables: Sequence[Table], visit: Callable[[_States, Lines], None]) -> Lines:
    ctx = z3.Context()
    lines: Lines = []
    for table in tables:
        visit(_States(table, ctx), lines)
    return lines


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

    return _timed(body)


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

    return _timed(body)


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

    return _timed(body)


def check_forbidden_edges(tables: Sequence[Table] = ALL_TABLES) -> CheckResult:
    def visit(states: _States, lines: Lines) -> None:
        x, y = states.var("x"), states.var("y")
        banned = [
            z3.And(x == states.const[a], y == states.const[b]) for a, b in states.table.forbidden
        ]
        for a, b in states.solutions(z3.And(_any(banned, states.ctx), states.edge(x, y)), x, y):
            lines.append(f"{states.table.name}: forbidden edge {_label(a)} -> {_label(b)} exists")

    return _timed(lambda: (_each_table(tables, visit), "COMPENSATING never suspends or cancels"))


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

    return _timed(body)


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

    return _timed(body)


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
            _any(
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
        solver.add(_any(starts, ctx), *steps, _any(left, ctx))
        if solver.check() != z3.sat:
            return [], f"every append-only history of up to {length} records"
        model = solver.model()
        lines = [
            f"raw effect {raw.state[str(model.eval(effect))].value} confirmed={model.eval(ok)}"
        ]
        return lines + [f"reconciled {model.eval(term)}" for term in records], ""

    return _timed(body)


# --- planner checks ------------------------------------------------------------------------


class _Effects:
    """Symbolic (latest reconciliation, raw status, confirmed) of one effect."""

    def __init__(self, ctx: z3.Context, prefix: str) -> None:
        self.ctx = ctx
        self.raw = _States(EFFECT_TABLE, ctx)
        sort, self.lat = _enum(ctx, list(LATEST_VALUES))
        self.latest = z3.Const(f"{prefix}latest", sort)
        self.status = self.raw.var(f"{prefix}raw")
        self.ok = z3.Bool(f"{prefix}ok", ctx)
        self.sane = z3.Implies(self.ok, self.status == self.raw.const[EffectStatus.SUCCEEDED])

    def latest_is(self, *values: str) -> Any:
        return _any([self.latest == self.lat[value] for value in values], self.ctx)

    def unsettled(self) -> Any:
        return z3.And(self.latest_is("none"), self.raw.member(self.status, _UNSETTLED))

    def decide(self, rows: Sequence[DecisionRow[Any]], outcome: Any, values: dict[Any, Any]) -> Any:
        """First-match row semantics as a z3 If-chain."""
        result = values[rows[-1].outcome]
        anything = z3.BoolVal(True, self.ctx)
        for row in reversed(rows[:-1]):
            guard = z3.And(
                anything if row.latest is None else self.latest_is(*row.latest),
                anything if row.statuses is None else self.raw.member(self.status, row.statuses),
                anything if row.confirmed is None else self.ok == row.confirmed,
            )
            result = z3.If(guard, values[row.outcome], result)
        return outcome == result

    def among(self, configs: Sequence[Configuration]) -> Any:
        return _any(
            [
                z3.And(self.latest == self.lat[la], self.status == self.raw.const[st], self.ok == c)
                for la, st, c in configs
            ],
            self.ctx,
        )

    def describe(self, model: Any, what: str) -> str:
        raw = self.raw.state[str(model.eval(self.status))].value
        return f"{what} raw {raw} confirmed={model.eval(self.ok)}, latest {model.eval(self.latest)}"


def _counterexample(solver: z3.Solver, lines: Callable[[Any], Lines]) -> Lines:
    return lines(solver.model()) if solver.check() == z3.sat else []


def _default_planner(lineage: Lineage) -> CompensationPlan:
    return plan_compensation(lineage)[1]


def check_plan_excludes_unsettled(
    rows: Sequence[DecisionRow[Eligibility]] = SOURCE_EFFECT_ROWS,
    prior_rows: Sequence[DecisionRow[PriorOutcome]] = PRIOR_EFFECT_ROWS,
    planner: Planner = _default_planner,
) -> CheckResult:
    def body() -> tuple[Lines, str]:
        ctx = z3.Context()
        src, inv = _Effects(ctx, "s"), _Effects(ctx, "c")
        # Effectively applied: latest record applied, or no record and a confirmed success.
        # Its negation covers not_applied, compensated, uncertain and inert effects.
        applied = z3.Or(
            src.latest_is("applied"),
            z3.And(
                src.latest_is("none"),
                src.status == src.raw.const[EffectStatus.SUCCEEDED],
                src.ok,
            ),
        )
        forbidden = z3.Not(applied)
        # 1. The classification rows: eligible only when applied; uncertain always blocks.
        sort, outs = _enum(ctx, [item.value for item in Eligibility])
        verdict = z3.Const("verdict", sort)
        eligible, blocks = (
            outs[Eligibility.ELIGIBLE.value],
            outs[Eligibility.BLOCK_UNRECONCILED.value],
        )
        solver = z3.Solver(ctx=ctx)
        solver.add(src.sane, src.decide(rows, verdict, {e: outs[e.value] for e in Eligibility}))
        solver.add(
            z3.Or(
                z3.And(verdict == eligible, forbidden), z3.And(src.unsettled(), verdict != blocks)
            )
        )
        lines = _counterexample(
            solver, lambda m: [src.describe(m, "source effect"), f"rows say {m.eval(verdict)}"]
        )
        # 2. The prior-run rows: an inverse that may have acted, or was reversed, blocks.
        sort, outs = _enum(ctx, [item.value for item in PriorOutcome])
        prior = z3.Const("prior", sort)
        acted = z3.Or(
            inv.unsettled(),
            z3.And(
                inv.latest_is("none"),
                inv.status == inv.raw.const[EffectStatus.SUCCEEDED],
                z3.Not(inv.ok),
            ),
            inv.latest_is("compensated"),
        )
        solver = z3.Solver(ctx=ctx)
        solver.add(
            inv.sane, inv.decide(prior_rows, prior, {p: outs[p.value] for p in PriorOutcome})
        )
        solver.add(acted, prior == outs[PriorOutcome.NO_BLOCK.value])
        lines = lines or _counterexample(
            solver, lambda m: [inv.describe(m, "earlier inverse"), "no block"]
        )
        # 3. The reference planner on every one-effect world.
        configs = effect_configurations()
        hits = [c for c in configs if "e" in _planned(planner(source_effect_world(c)))]
        solver = z3.Solver(ctx=ctx)
        solver.add(src.among(hits), forbidden)
        lines = lines or _counterexample(
            solver,
            lambda m: [
                "source task t has the one effect e",
                src.describe(m, "e is"),
                "the planner lists e in compensate--t",
            ],
        )
        # 4. Re-planning: only when the earlier inverse certainly did not act.
        hits = [c for c in configs if _planned(planner(prior_inverse_world(c)))]
        certainly_not = z3.Or(
            inv.latest_is("not_applied"),
            z3.And(inv.latest_is("none"), inv.raw.member(inv.status, _NOT_HAPPENED)),
        )
        solver = z3.Solver(ctx=ctx)
        solver.add(inv.among(hits), z3.Not(certainly_not))
        lines = lines or _counterexample(
            solver,
            lambda m: [
                "task t has a confirmed effect e; failed run cmp tried compensate--t",
                inv.describe(m, "its inverse effect c is"),
                "the next plan compensates t again although c may have acted",
            ],
        )
        return lines, f"decision rows, and the planner on {2 * len(configs)} one-effect worlds"

    return _timed(body)


def _planned(plan: CompensationPlan) -> set[str]:
    return {effect for entry in plan.tasks for effect in entry.source_effect_ids}


# --- order checks --------------------------------------------------------------------------


def _dag(ctx: z3.Context, n: int) -> tuple[list[list[Any]], list[Any]]:
    """``needs[u][v]``: task u needs task v; ``acyclic`` constrains through a rank."""
    needs = [
        [z3.Bool(f"e{u}_{v}", ctx) if u != v else z3.BoolVal(False, ctx) for v in range(n)]
        for u in range(n)
    ]
    rank = [z3.Int(f"rank{i}", ctx) for i in range(n)]
    return needs, [z3.Implies(needs[u][v], rank[v] < rank[u]) for u in range(n) for v in range(n)]


def greedy_order(needs: list[list[Any]], pos: list[Any], n: int) -> list[Any]:
    """SG-19: the compiled order always takes the ready task declared first (index order)."""
    rules = [z3.And(p >= 0, p < n) for p in pos] + ([z3.Distinct(*pos)] if n > 1 else [])
    rules += [z3.Implies(needs[u][v], pos[v] < pos[u]) for u in range(n) for v in range(n)]
    for i, j in itertools.combinations(range(n), 2):
        not_ready = _any(
            [z3.And(needs[i][k], pos[k] >= pos[j]) for k in range(n) if k != i], pos[i].ctx
        )
        rules.append(z3.Implies(pos[j] < pos[i], not_ready))
    return rules


def reversed_rule(pos: list[Any], n: int) -> list[Any]:
    return [n - 1 - p for p in pos]


def batch_levels(needs: list[list[Any]], level: list[Any], n: int) -> list[Any]:
    """SG-47: batch 0 holds steps nothing depends on; else one past the latest dependent."""
    rules = []
    for i in range(n):
        depended = _any([needs[d][i] for d in range(n)], level[i].ctx)
        tight = _any(
            [z3.And(needs[d][i], level[i] == level[d] + 1) for d in range(n)], level[i].ctx
        )
        rules += [
            level[i] >= 0,
            z3.Implies(z3.Not(depended), level[i] == 0),
            z3.Implies(depended, tight),
        ]
        rules += [z3.Implies(needs[d][i], level[i] >= level[d] + 1) for d in range(n)]
    return rules


def _graph_line(needs: list[list[Any]], model: Any, n: int) -> str:
    edges = [
        f"t{u} needs t{v}"
        for u in range(n)
        for v in range(n)
        if z3.is_true(model.eval(needs[u][v]))
    ]
    return f"tasks t0..t{n - 1} declared in order; " + ("; ".join(edges) or "no needs")


def _concrete(needs: list[list[Any]], graph: Graph, nodes: list[str], ctx: z3.Context) -> list[Any]:
    n = len(nodes)
    return [
        needs[u][v] == z3.BoolVal(nodes[v] in graph[nodes[u]], ctx)
        for u in range(n)
        for v in range(n)
        if u != v
    ]


def _show(graph: Graph) -> str:
    edges = "; ".join(f"{a} needs {', '.join(b)}" for a, b in graph.items() if b)
    return f"tasks {', '.join(graph)}; {edges or 'no needs'}"


def check_order(
    size: int = 5,
    exhaustive: int = 4,
    order_rule: Callable[[list[Any], int], list[Any]] = reversed_rule,
    reference: Order = reverse_compiled_order,
) -> CheckResult:
    def body() -> tuple[Lines, str]:
        ctx = z3.Context()
        needs, acyclic = _dag(ctx, size)
        pos = [z3.Int(f"pos{i}", ctx) for i in range(size)]
        comp = order_rule(pos, size)
        pairs = [(u, v) for u in range(size) for v in range(size)]
        solver = z3.Solver(ctx=ctx)
        solver.add(*acyclic, *greedy_order(needs, pos, size))
        solver.add(_any([z3.And(needs[u][v], comp[u] >= comp[v]) for u, v in pairs], ctx))
        if solver.check() == z3.sat:
            model = solver.model()
            order = sorted(range(size), key=lambda i: model.eval(comp[i]).as_long())
            undo = ", ".join(f"t{i}" for i in order)
            return [
                _graph_line(needs, model, size),
                f"compensation order {undo} undoes a task first",
            ], ""
        other = [z3.Int(f"alt{i}", ctx) for i in range(size)]
        solver = z3.Solver(ctx=ctx)
        solver.add(*acyclic, *greedy_order(needs, pos, size), *greedy_order(needs, other, size))
        solver.add(z3.Or([p != q for p, q in zip(pos, other, strict=True)]))
        if solver.check() == z3.sat:
            return [_graph_line(needs, solver.model(), size), "two different compiled orders"], ""
        for n in range(1, exhaustive + 1):
            ctx = z3.Context()
            needs, _ = _dag(ctx, n)
            pos = [z3.Int(f"pos{i}", ctx) for i in range(n)]
            solver = z3.Solver(ctx=ctx)
            solver.add(*greedy_order(needs, pos, n))
            nodes = [f"t{i}" for i in range(n)]
            for graph in all_dags(n):
                undone = reference(nodes, graph)
                placed = [pos[i] == n - 1 - undone.index(nodes[i]) for i in range(n)]
                if solver.check(*_concrete(needs, graph, nodes, ctx), *placed) != z3.sat:
                    return [_show(graph), f"reference compensation order {', '.join(undone)}"], ""
        return [], f"rule on every DAG of {size} tasks; reference on every DAG up to {exhaustive}"

    return _timed(body)


def check_batches(
    size: int = 5,
    exhaustive: int = 4,
    rule: Rule = batch_levels,
    batches: Batches = compensation_batches,
) -> CheckResult:
    def body() -> tuple[Lines, str]:
        ctx = z3.Context()
        needs, acyclic = _dag(ctx, size)
        level = [z3.Int(f"lvl{i}", ctx) for i in range(size)]
        pairs = [(u, v) for u in range(size) for v in range(size) if u != v]
        early = [
            _any([z3.And(needs[d][i], level[d] == level[i] - 1) for d in range(size)], ctx)
            for i in range(size)
        ]
        bad = [z3.And(needs[u][v], level[u] >= level[v]) for u, v in pairs]
        bad += [z3.And(level[i] > 0, z3.Not(early[i])) for i in range(size)]
        solver = z3.Solver(ctx=ctx)
        solver.add(*acyclic, *rule(needs, level, size), _any(bad, ctx))
        if solver.check() == z3.sat:
            model = solver.model()
            shown = ", ".join(f"t{i}:{model.eval(level[i])}" for i in range(size))
            return [_graph_line(needs, model, size), f"batches {shown} break the rule"], ""
        solver = z3.Solver(ctx=ctx)
        solver.add(
            *[needs[u][v] == z3.BoolVal(u == v + 1, ctx) for u, v in pairs],
            *rule(needs, level, size),
        )
        solver.add(z3.Or([level[i] != size - 1 - i for i in range(size)]))
        if solver.check() == z3.sat:
            return [f"chain t0 <- t1 <- ... <- t{size - 1} is not undone in strict reverse"], ""
        for n in range(1, exhaustive + 1):
            ctx = z3.Context()
            needs, _ = _dag(ctx, n)
            level = [z3.Int(f"lvl{i}", ctx) for i in range(n)]
            solver = z3.Solver(ctx=ctx)
            solver.add(*rule(needs, level, n))
            nodes = [f"t{i}" for i in range(n)]
            for graph in all_dags(n):
                rounds = batches(nodes, graph)
                where = {node: index for index, group in enumerate(rounds) for node in group}
                code = dfs_reverse_postorder(nodes, graph)
                levels = [level[i] == where.get(nodes[i], -1) for i in range(n)]
                late = [a for a in nodes for b in graph[a] if code.index(a) > code.index(b)]
                if late or solver.check(*_concrete(needs, graph, nodes, ctx), *levels) != z3.sat:
                    shown = " | ".join(", ".join(group) for group in rounds)
                    return [
                        _show(graph),
                        f"reference batches {shown}; code order {', '.join(code)}",
                    ], ""
        return [], f"rule on every DAG of {size} tasks; reference on every DAG up to {exhaustive}"

    return _timed(body)


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
        "a plan never includes a not_applied, compensated or uncertain effect, and re-plans a "
        "task only when its earlier inverse certainly did not act",
    ),
    (
        "saga.order-reverse-compiled",
        "SG-78",
        check_order,
        "the compensation order undoes every task before the tasks it needs",
    ),
    (
        "saga.order-batches",
        "SG-79",
        check_batches,
        "parallel batches respect every dependency and start each step as early as possible",
    ),
)


def checks() -> Sequence[Check]:
    return tuple(
        Check(name=name, statement=statement, rule=rule, run=run, group="saga")
        for name, rule, run, statement in _CHECKS
    )
