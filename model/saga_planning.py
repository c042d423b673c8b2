"""Saga planner and compensation-order checks (docs/spec/saga.md SG-77..SG-79).

See ``rescind.model.saga`` for how the checks are run and reported."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

import z3

from rescind.conformance.interpreters.saga_smallworld import (
    Configuration,
    all_dags,
    effect_configurations,
    prior_inverse_world,
    source_effect_world,
)
from rescind.model.checks import CheckResult
from rescind.model.saga_support import (
    _NOT_HAPPENED,
    _UNSETTLED,
    Batches,
    Graph,
    Lines,
    Order,
    Planner,
    Rule,
    _any,
    _enum,
    _States,
    _timed,
)
from rescind.reference.saga.lineage import Lineage
from rescind.reference.saga.order import (
    compensation_batches,
    dfs_reverse_postorder,
    reverse_compiled_order,
)
from rescind.reference.saga.planner import CompensationPlan, plan_compensation
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
