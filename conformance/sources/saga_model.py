"""Refinement checks: the reference saga planner and orders against the model's rules.

``rescind.model.saga.planning`` proves the decision rows and the order and batch rules with
z3; it runs no reference code. Here the reference runs on every small world (every one-effect
world and every prior-inverse world of ``saga_smallworld``, every DAG of up to 4 tasks) and z3
is asked whether each concrete answer satisfies the model's rule. This is a bounded,
exhaustive check of the reference's code, not a proof: it says nothing about larger worlds.
Each function takes what it runs as a parameter, defaulting to the reference, so tests can
hand it a broken variant and watch it fail with a numbered counterexample.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

import z3

from rescind.conformance.interpreters.saga_smallworld import (
    all_dags,
    effect_configurations,
    prior_inverse_world,
    source_effect_world,
)
from rescind.model.core.proof_check import CheckResult
from rescind.model.saga.planning import (
    SymbolicEffect,
    describe_graph,
    find_counterexample,
    order_admits,
    undo_admits,
)
from rescind.model.saga.support import Graph, Lines, run_timed
from rescind.reference.saga.lineage import Lineage
from rescind.reference.saga.order import dfs_reverse_postorder, reverse_compiled_order
from rescind.reference.saga.planner import CompensationPlan, plan_compensation

Planner = Callable[[Lineage], CompensationPlan]
Order = Callable[[Sequence[str], Graph], tuple[str, ...]]
LARGEST_DAG = 4
"""Every DAG up to this many tasks is enumerated (543 DAGs of 4 tasks; 29,281 of 5)."""


def reference_planner(lineage: Lineage) -> CompensationPlan:
    return plan_compensation(lineage)[1]


def _planned(plan: CompensationPlan) -> set[str]:
    return {effect for entry in plan.tasks for effect in entry.source_effect_ids}


def check_planner(planner: Planner = reference_planner) -> CheckResult:
    """SG-77 on the reference: on every one-effect world the plan lists the effect only when
    it is effectively applied, and after a failed compensation run re-plans the task only
    when its earlier inverse certainly did not act."""

    def body() -> tuple[Lines, str]:
        ctx = z3.Context()
        source, inverse = SymbolicEffect(ctx, "s"), SymbolicEffect(ctx, "c")
        configs = effect_configurations()
        listed = [c for c in configs if "e" in _planned(planner(source_effect_world(c)))]
        solver = z3.Solver(ctx=ctx)
        solver.add(source.among(listed), z3.Not(source.applied()))
        lines = find_counterexample(
            solver,
            lambda m: [
                "source task t has the one effect e",
                source.describe(m, "e is"),
                "the planner lists e in compensate--t",
            ],
        )
        replanned = [c for c in configs if _planned(planner(prior_inverse_world(c)))]
        solver = z3.Solver(ctx=ctx)
        solver.add(inverse.among(replanned), z3.Not(inverse.certainly_did_not_act()))
        lines = lines or find_counterexample(
            solver,
            lambda m: [
                "task t has a confirmed effect e; failed run cmp tried compensate--t",
                inverse.describe(m, "its inverse effect c is"),
                "the next plan compensates t again although c may have acted",
            ],
        )
        return lines, f"reference planner on {2 * len(configs)} one-effect worlds"

    return run_timed(body)


def _nodes(n: int) -> list[str]:
    return [f"t{i}" for i in range(n)]


def check_order(order: Order = reverse_compiled_order, largest: int = LARGEST_DAG) -> CheckResult:
    """SG-78 on the reference: its compensation order is the model's reversed compiled order
    on every DAG of up to ``largest`` tasks."""

    def body() -> tuple[Lines, str]:
        count = 0
        for n in range(1, largest + 1):
            admits = order_admits(n)
            for graph in all_dags(n):
                count += 1
                undone = order(_nodes(n), graph)
                if not admits(graph, undone):
                    return [
                        describe_graph(graph),
                        f"reference compensation order {', '.join(undone)}",
                        "the model's rule admits no such order",
                    ], ""
        return [], f"reference order on all {count} DAGs of up to {largest} tasks"

    return run_timed(body)


def check_any_order(
    code_order: Order = dfs_reverse_postorder, largest: int = LARGEST_DAG
) -> CheckResult:
    """SG-102 on the reference: CaseHub walks its items in hash order, so over every walk
    order (every permutation of the items, which orders both the roots and each item's
    dependencies) the reference's DFS must yield exactly the orders the model's one-at-a-time
    rule admits: none it refuses (dependents first), and every one it admits (which is why
    vectors accept any of them), on every DAG of up to ``largest`` tasks."""

    def body() -> tuple[Lines, str]:
        count = 0
        for n in range(1, largest + 1):
            admits = undo_admits(n)
            nodes = _nodes(n)
            for graph in all_dags(n):
                count += 1
                allowed = {order for order in itertools.permutations(nodes) if admits(graph, order)}
                walked = {
                    tuple(code_order(list(walk), graph)) for walk in itertools.permutations(nodes)
                }
                if walked != allowed:
                    wrong = sorted(walked - allowed)
                    missing = sorted(allowed - walked)
                    shown = wrong[0] if wrong else missing[0]
                    problem = (
                        "the model's rule admits no such order"
                        if wrong
                        else "no walk order yields this admitted order"
                    )
                    return [describe_graph(graph), f"order {', '.join(shown)}", problem], ""
        return [], f"every walk order on all {count} DAGs of up to {largest} tasks"

    return run_timed(body)
