"""The saga refinement checks: the reference planner and orders pass on every small
world, a deliberately broken one fails with a numbered counterexample, and ``rescind check``
runs them only for the built-in reference."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from rescind.conformance.catalogue import all_checks
from rescind.conformance.driver import REFERENCE_CAPABILITY, handle
from rescind.conformance.harness import InProcessDriver
from rescind.conformance.runner import run_checks
from rescind.conformance.sources import saga_model as saga_refinement
from rescind.model.core.proof_check import CheckResult
from rescind.reference.saga.lineage import Lineage
from rescind.reference.saga.order import reverse_compiled_order
from rescind.reference.saga.planner import CompensationPlan, PlanEntry, plan_compensation
from tests.saga.proof_results import violated

Graph = Mapping[str, tuple[str, ...]]
IDS = {
    "refinement.saga.plan-excludes-unsettled": "SG-77",
    "refinement.saga.order-reverse-compiled": "SG-78",
    "refinement.saga.order-any-linear-extension": "SG-102",
}


def test_the_reference_refines_every_rule() -> None:
    planner = saga_refinement.check_planner()
    assert planner.status == "proven" and "64 one-effect worlds" in planner.detail
    for result in (saga_refinement.check_order(), saga_refinement.check_any_order()):
        # 1 + 3 + 25 + 543 labelled DAGs on 1..4 tasks.
        assert result.status == "proven" and "all 572 DAGs" in result.detail, result


def test_planner_that_includes_a_not_applied_effect() -> None:
    def careless(lineage: Lineage) -> CompensationPlan:
        plan = plan_compensation(lineage)[1]
        everything = tuple(
            PlanEntry(task.task_id, "undo", tuple(e.effect_id for e in task.effects))
            for task in lineage.source.tasks
        )
        return attrs.evolve(plan, tasks=everything, blocked=())

    violated(saga_refinement.check_planner(careless), "the planner lists e in compensate--t")


def test_planner_that_replans_after_an_uncertain_inverse() -> None:
    def forgetful(lineage: Lineage) -> CompensationPlan:
        return plan_compensation(Lineage(lineage.source, (), lineage.overlay))[1]

    violated(saga_refinement.check_planner(forgetful), "compensates t again")


def test_order_that_undoes_forwards() -> None:
    def forward(nodes: Sequence[str], needs: Graph) -> tuple[str, ...]:
        return tuple(reversed(reverse_compiled_order(nodes, dict(needs))))

    violated(
        saga_refinement.check_order(forward, largest=3),
        "reference compensation order",
        "admits no such order",
    )


def test_walk_that_ignores_dependencies() -> None:
    def declared(nodes: Sequence[str], needs: Graph) -> tuple[str, ...]:
        return tuple(nodes)

    violated(
        saga_refinement.check_any_order(declared, largest=2),
        "t0 needs t1",
        "the model's rule admits no such order",
    )


def test_walk_that_fixes_one_order_of_independent_steps() -> None:
    # Sorting first ignores the walk order: a correct order, but only one of those CaseHub
    # may take, so the check says which admitted order no walk yields.
    def fixed(nodes: Sequence[str], needs: Graph) -> tuple[str, ...]:
        from rescind.reference.saga.order import dfs_reverse_postorder

        return dfs_reverse_postorder(sorted(nodes), needs)

    violated(
        saga_refinement.check_any_order(fixed, largest=2),
        "no walk order yields this admitted order",
    )


def _hide_reference_capability(message: Mapping[str, Any]) -> dict[str, Any]:
    reply = handle(message)
    if message.get("op") == "hello":
        hello = reply["ok"]
        hello["implementation"] = {"name": "another", "version": "1"}
        hello["capabilities"] = [c for c in hello["capabilities"] if c != REFERENCE_CAPABILITY]
    return reply


def _refinement_outcomes(adapter: Any) -> dict[str, tuple[str, str, str]]:
    def start() -> InProcessDriver:
        return InProcessDriver(adapter)

    checks = [c for c in all_checks(start, include_model=False) if c.id.startswith("refinement.")]
    report = run_checks(checks, start)
    return {r.check.id: (r.check.rule, r.check.tier, r.outcome.status) for r in report.results}


def test_rescind_check_runs_them_for_the_reference_only() -> None:
    assert _refinement_outcomes(handle) == {
        check: (rule, "must", "pass") for check, rule in IDS.items()
    }
    assert _refinement_outcomes(_hide_reference_capability) == {
        check: (rule, "must", "not-applicable") for check, rule in IDS.items()
    }


def test_a_violated_refinement_fails_the_run_with_its_trace() -> None:
    from rescind.conformance.sources.saga_refinement import _runner

    broken = CheckResult("violated", 0.0, ("1. tasks t0, t1", "2. wrong"), "")
    outcome = _runner(lambda: broken)(InProcessDriver(handle))
    assert (outcome.status, outcome.message) == ("fail", "violated | 1. tasks t0, t1 | 2. wrong")
    gave_up = CheckResult("unknown", 0.0, (), "z3 gave up")
    assert _runner(lambda: gave_up)(InProcessDriver(handle)).message == "unknown | z3 gave up"
