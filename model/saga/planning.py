"""Saga planning and compensation-order rules as z3 formulas (docs/spec/saga.md SG-77, SG-78,
SG-102).

What is proved here is about the tables and the specification rules only: the decision rows
of ``rescind.tables.saga``, the SG-19 compiled-order rule and its reverse on every DAG, and
CaseHub's one-at-a-time rule (SG-100: the next step is any remaining step no remaining step
depends on). Whether the reference's planner and orders follow these rules is a refinement
question, answered by ``rescind.conformance.sources.saga_model`` with the public pieces below
(``SymbolicEffect``, ``symbolic_dag``, ``pin_graph``, ``order_admits``, ``undo_admits``). See
``rescind.model.saga.proofs`` for how the checks are run and reported.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

import z3

from rescind.model.core.proof_check import CheckResult
from rescind.model.saga.support import (
    NOT_HAPPENED,
    UNSETTLED,
    Graph,
    Lines,
    _enum,
    _States,
    any_of,
    run_timed,
)
from rescind.tables.saga import (
    EFFECT_TABLE,
    LATEST_VALUES,
    PRIOR_EFFECT_ROWS,
    SOURCE_EFFECT_ROWS,
    DecisionRow,
    EffectStatus,
    Eligibility,
    PriorOutcome,
)

EffectConfiguration = tuple[str, EffectStatus, bool]
"""(latest reconciliation or "none", raw status, confirmed) of one effect record."""
OrderRule = Callable[[list[Any], int], list[Any]]
"""Compiled positions -> compensation positions."""
StepRule = Callable[[list[list[Any]], list[Any], int], list[Any]]
"""(needs, the position at which each task is undone, task count) -> constraints."""

# --- effects and the planner's decision rows -----------------------------------------------


class SymbolicEffect:
    """Symbolic (latest reconciliation, raw status, confirmed) of one effect, with the spec's
    predicates over it (SG-9: effectively applied; may have acted; certainly did not act)."""

    def __init__(self, ctx: z3.Context, prefix: str) -> None:
        self.ctx = ctx
        self.raw = _States(EFFECT_TABLE, ctx)
        sort, self.lat = _enum(ctx, list(LATEST_VALUES))
        self.latest = z3.Const(f"{prefix}latest", sort)
        self.status = self.raw.var(f"{prefix}raw")
        self.ok = z3.Bool(f"{prefix}ok", ctx)
        self.sane = z3.Implies(self.ok, self.status == self.raw.const[EffectStatus.SUCCEEDED])

    def latest_is(self, *values: str) -> Any:
        return any_of([self.latest == self.lat[value] for value in values], self.ctx)

    def _confirmed_success(self, confirmed: bool) -> Any:
        return z3.And(
            self.latest_is("none"),
            self.status == self.raw.const[EffectStatus.SUCCEEDED],
            self.ok == confirmed,
        )

    def unsettled(self) -> Any:
        return z3.And(self.latest_is("none"), self.raw.member(self.status, UNSETTLED))

    def applied(self) -> Any:
        """Effectively applied: latest record applied, or no record and a confirmed success.
        Its negation covers not_applied, compensated, uncertain and inert effects."""
        return z3.Or(self.latest_is("applied"), self._confirmed_success(True))

    def may_have_acted(self) -> Any:
        """For an earlier inverse: it may have acted, or it acted and was reversed since."""
        return z3.Or(
            self.unsettled(), self._confirmed_success(False), self.latest_is("compensated")
        )

    def certainly_did_not_act(self) -> Any:
        return z3.Or(
            self.latest_is("not_applied"),
            z3.And(self.latest_is("none"), self.raw.member(self.status, NOT_HAPPENED)),
        )

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

    def among(self, configs: Sequence[EffectConfiguration]) -> Any:
        """The effect is one of these concrete configurations."""
        return any_of(
            [
                z3.And(self.latest == self.lat[la], self.status == self.raw.const[st], self.ok == c)
                for la, st, c in configs
            ],
            self.ctx,
        )

    def describe(self, model: Any, what: str) -> str:
        raw = self.raw.state[str(model.eval(self.status))].value
        return f"{what} raw {raw} confirmed={model.eval(self.ok)}, latest {model.eval(self.latest)}"


def find_counterexample(solver: z3.Solver, lines: Callable[[Any], Lines]) -> Lines:
    """The lines describing a model of ``solver``, or none when it is unsatisfiable."""
    return lines(solver.model()) if solver.check() == z3.sat else []


def check_plan_excludes_unsettled(
    rows: Sequence[DecisionRow[Eligibility]] = SOURCE_EFFECT_ROWS,
    prior_rows: Sequence[DecisionRow[PriorOutcome]] = PRIOR_EFFECT_ROWS,
) -> CheckResult:
    def body() -> tuple[Lines, str]:
        ctx = z3.Context()
        src, inv = SymbolicEffect(ctx, "s"), SymbolicEffect(ctx, "c")
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
                z3.And(verdict == eligible, z3.Not(src.applied())),
                z3.And(src.unsettled(), verdict != blocks),
            )
        )
        lines = find_counterexample(
            solver, lambda m: [src.describe(m, "source effect"), f"rows say {m.eval(verdict)}"]
        )
        # 2. The prior-run rows: an inverse that may have acted, or was reversed, blocks.
        sort, outs = _enum(ctx, [item.value for item in PriorOutcome])
        prior = z3.Const("prior", sort)
        solver = z3.Solver(ctx=ctx)
        solver.add(
            inv.sane, inv.decide(prior_rows, prior, {p: outs[p.value] for p in PriorOutcome})
        )
        solver.add(inv.may_have_acted(), prior == outs[PriorOutcome.NO_BLOCK.value])
        lines = lines or find_counterexample(
            solver, lambda m: [inv.describe(m, "earlier inverse"), "no block"]
        )
        return lines, (
            "decision rows for every effect record; the reference planner is checked against "
            "them by refinement.saga.plan-excludes-unsettled"
        )

    return run_timed(body)


# --- order rules ---------------------------------------------------------------------------


def symbolic_dag(ctx: z3.Context, n: int) -> tuple[list[list[Any]], list[Any]]:
    """``needs[u][v]``: task u needs task v; the constraints returned keep it acyclic
    through a rank (a topological number below n, which every DAG has; the bound only
    narrows z3's search)."""
    needs = [
        [z3.Bool(f"e{u}_{v}", ctx) if u != v else z3.BoolVal(False, ctx) for v in range(n)]
        for u in range(n)
    ]
    rank = [z3.Int(f"rank{i}", ctx) for i in range(n)]
    bounded = [z3.And(r >= 0, r < n) for r in rank]
    ordered = [z3.Implies(needs[u][v], rank[v] < rank[u]) for u in range(n) for v in range(n)]
    return needs, bounded + ordered


def pin_graph(needs: list[list[Any]], graph: Graph, ctx: z3.Context) -> list[Any]:
    """Constraints fixing the symbolic ``needs`` to a concrete graph (tasks in key order)."""
    nodes = list(graph)
    n = len(nodes)
    return [
        needs[u][v] == z3.BoolVal(nodes[v] in graph[nodes[u]], ctx)
        for u in range(n)
        for v in range(n)
        if u != v
    ]


def greedy_order(needs: list[list[Any]], pos: list[Any], n: int) -> list[Any]:
    """SG-19: the compiled order always takes the ready task declared first (index order)."""
    rules = [z3.And(p >= 0, p < n) for p in pos] + ([z3.Distinct(*pos)] if n > 1 else [])
    rules += [z3.Implies(needs[u][v], pos[v] < pos[u]) for u in range(n) for v in range(n)]
    for i, j in itertools.combinations(range(n), 2):
        not_ready = any_of(
            [z3.And(needs[i][k], pos[k] >= pos[j]) for k in range(n) if k != i], pos[i].ctx
        )
        rules.append(z3.Implies(pos[j] < pos[i], not_ready))
    return rules


def reversed_rule(pos: list[Any], n: int) -> list[Any]:
    """SG-19: compensation undoes the compiled order backwards."""
    return [n - 1 - p for p in pos]


def one_at_a_time(needs: list[list[Any]], pos: list[Any], n: int) -> list[Any]:
    """SG-100: the steps are undone one at a time (distinct positions 0..n-1), and the step
    undone at each position is one that no step still remaining depends on: every dependent
    of a step (``needs[d][i]``) is undone before it."""
    rules = [z3.And(p >= 0, p < n) for p in pos] + ([z3.Distinct(*pos)] if n > 1 else [])
    rules += [z3.Implies(needs[d][i], pos[d] < pos[i]) for d in range(n) for i in range(n)]
    return rules


def describe_graph(graph: Graph) -> str:
    edges = "; ".join(f"{a} needs {', '.join(b)}" for a, b in graph.items() if b)
    return f"tasks {', '.join(graph)}; {edges or 'no needs'}"


def _graph_line(needs: list[list[Any]], model: Any, n: int) -> str:
    edges = [
        f"t{u} needs t{v}"
        for u in range(n)
        for v in range(n)
        if z3.is_true(model.eval(needs[u][v]))
    ]
    return f"tasks t0..t{n - 1} declared in order; " + ("; ".join(edges) or "no needs")


def order_admits(
    n: int, order_rule: OrderRule = reversed_rule
) -> Callable[[Graph, Sequence[str]], bool]:
    """A question for z3, built once per task count: does this concrete compensation order
    of this concrete graph of ``n`` tasks follow the SG-19 rule?"""
    ctx = z3.Context()
    needs, _ = symbolic_dag(ctx, n)
    pos = [z3.Int(f"pos{i}", ctx) for i in range(n)]
    comp = order_rule(pos, n)
    solver = z3.Solver(ctx=ctx)
    solver.add(*greedy_order(needs, pos, n))

    def admits(graph: Graph, undone: Sequence[str]) -> bool:
        nodes = list(graph)
        if len(nodes) != n or sorted(undone) != sorted(nodes):
            return False
        placed = [comp[i] == undone.index(node) for i, node in enumerate(nodes)]
        return bool(solver.check(*pin_graph(needs, graph, ctx), *placed) == z3.sat)

    return admits


def undo_admits(n: int, rule: StepRule = one_at_a_time) -> Callable[[Graph, Sequence[str]], bool]:
    """A question for z3, built once per task count: may CaseHub undo this concrete graph of
    ``n`` tasks in this concrete order (SG-100)?"""
    ctx = z3.Context()
    needs, _ = symbolic_dag(ctx, n)
    pos = [z3.Int(f"pos{i}", ctx) for i in range(n)]
    solver = z3.Solver(ctx=ctx)
    solver.add(*rule(needs, pos, n))

    def admits(graph: Graph, undone: Sequence[str]) -> bool:
        nodes = list(graph)
        if len(nodes) != n or sorted(undone) != sorted(nodes):
            return False
        placed = [pos[i] == undone.index(node) for i, node in enumerate(nodes)]
        return bool(solver.check(*pin_graph(needs, graph, ctx), *placed) == z3.sat)

    return admits


def check_order(size: int = 5, order_rule: OrderRule = reversed_rule) -> CheckResult:
    def body() -> tuple[Lines, str]:
        ctx = z3.Context()
        needs, acyclic = symbolic_dag(ctx, size)
        pos = [z3.Int(f"pos{i}", ctx) for i in range(size)]
        comp = order_rule(pos, size)
        pairs = [(u, v) for u in range(size) for v in range(size)]
        solver = z3.Solver(ctx=ctx)
        solver.add(*acyclic, *greedy_order(needs, pos, size))
        solver.add(any_of([z3.And(needs[u][v], comp[u] >= comp[v]) for u, v in pairs], ctx))
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
        # Not vacuous: every DAG has a compiled order (one quantifier, small enough for z3).
        solver = z3.Solver(ctx=ctx)
        solver.add(*acyclic, z3.ForAll(other, z3.Not(z3.And(*greedy_order(needs, other, size)))))
        if _decided(solver) == z3.sat:
            return [_graph_line(needs, solver.model(), size), "no compiled order at all"], ""
        return [], (
            f"exactly one compiled order on every DAG of {size} tasks, undone backwards; the "
            "reference order is checked against it by refinement.saga.order-reverse-compiled"
        )

    return run_timed(body)


def _decided(solver: z3.Solver) -> Any:
    verdict = solver.check()
    if verdict == z3.unknown:
        raise z3.Z3Exception(f"z3 gave up: {solver.reason_unknown()}")
    return verdict


def check_one_at_a_time(size: int = 5, rule: StepRule = one_at_a_time) -> CheckResult:
    """SG-102: on every DAG of ``size`` tasks the one-at-a-time rule undoes every task before
    the tasks it needs, always has a next step (never deadlocks), undoes a chain in strict
    reverse, and leaves independent steps unordered (so vectors must accept every order)."""

    def body() -> tuple[Lines, str]:
        ctx = z3.Context()
        needs, acyclic = symbolic_dag(ctx, size)
        pos = [z3.Int(f"pos{i}", ctx) for i in range(size)]
        pairs = [(u, v) for u in range(size) for v in range(size) if u != v]
        solver = z3.Solver(ctx=ctx)
        solver.add(*acyclic, *rule(needs, pos, size))
        solver.add(any_of([z3.And(needs[u][v], pos[u] >= pos[v]) for u, v in pairs], ctx))
        if solver.check() == z3.sat:
            model = solver.model()
            order = sorted(range(size), key=lambda i: model.eval(pos[i]).as_long())
            shown = ", ".join(f"t{i}" for i in order)
            return [_graph_line(needs, model, size), f"order {shown} undoes a task first"], ""
        chain = [needs[u][v] == z3.BoolVal(u == v + 1, ctx) for u, v in pairs]
        solver = z3.Solver(ctx=ctx)
        solver.add(*chain, *rule(needs, pos, size))
        solver.add(z3.Or([pos[i] != size - 1 - i for i in range(size)]))
        if solver.check() == z3.sat:
            return [f"chain t0 <- t1 <- ... <- t{size - 1} is not undone in strict reverse"], ""
        other = [z3.Int(f"alt{i}", ctx) for i in range(size)]
        free = [needs[u][v] == z3.BoolVal(False, ctx) for u, v in pairs]
        solver = z3.Solver(ctx=ctx)
        solver.add(*free, *rule(needs, pos, size), *rule(needs, other, size))
        solver.add(z3.Or([p != q for p, q in zip(pos, other, strict=True)]))
        if solver.check() != z3.sat:
            return [f"{size} independent tasks admit only one order"], ""
        # Not vacuous, and never stuck: every DAG has an order the rule admits.
        solver = z3.Solver(ctx=ctx)
        solver.add(*acyclic, z3.ForAll(other, z3.Not(z3.And(*rule(needs, other, size)))))
        if _decided(solver) == z3.sat:
            return [_graph_line(needs, solver.model(), size), "no order at all"], ""
        return [], (
            f"on every DAG of {size} tasks the rule admits an order, every admitted order undoes "
            "dependents first, a chain has exactly one and independent tasks more than one; "
            "the reference is checked against it by refinement.saga.order-any-linear-extension"
        )

    return run_timed(body)
