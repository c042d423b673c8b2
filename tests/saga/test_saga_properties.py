"""Property tests over random DAGs and random histories (Hypothesis, profile from conftest).

Expected orders are checked against independent definitions written here (a plain
"take the first ready task" loop, dependency reachability), never against the code under test.
"""

from __future__ import annotations

import random as random_module

from hypothesis import given
from hypothesis import strategies as st

from rescind.reference.errors import RescindError
from rescind.reference.saga.bindings import Binding, CaseDefinition
from rescind.reference.saga.casehub import Case, Coordinator, PlanItem, PlanItemStatus
from rescind.reference.saga.effects import Effect, EffectClass
from rescind.reference.saga.lineage import Lineage
from rescind.reference.saga.order import (
    dfs_reverse_postorder,
    reverse_compiled_order,
    stable_topological_order,
)
from rescind.reference.saga.planner import plan_compensation
from rescind.reference.saga.reconciliation import EffectRegistry, Overlay, reconcile
from rescind.reference.saga.workflow import CompensateDeclaration, SourceRun, SourceTask
from rescind.tables.saga import (
    CaseStatus,
    EffectStatus,
    ReconciliationStatus,
    RunState,
)

Graph = dict[str, tuple[str, ...]]


@st.composite
def dags(draw: st.DrawFn, max_nodes: int = 8) -> tuple[list[str], Graph]:
    """Nodes in declaration order and what each needs; a hidden rank keeps it acyclic."""
    n = draw(st.integers(1, max_nodes))
    rank = draw(st.permutations(range(n)))
    nodes = [f"t{i}" for i in range(n)]
    needs: Graph = {}
    for i in range(n):
        lower = [j for j in range(n) if rank[j] < rank[i]]
        chosen = draw(st.lists(st.sampled_from(lower), unique=True)) if lower else []
        needs[nodes[i]] = tuple(nodes[j] for j in chosen)
    return nodes, needs


def reachable(needs: Graph, start: str) -> set[str]:
    """Everything ``start`` needs, directly or not."""
    seen: set[str] = set()
    frontier = list(needs.get(start, ()))
    while frontier:
        node = frontier.pop()
        if node not in seen:
            seen.add(node)
            frontier.extend(needs.get(node, ()))
    return seen


def first_ready_order(nodes: list[str], needs: Graph) -> list[str]:
    done: list[str] = []
    while len(done) < len(nodes):
        done.append(next(n for n in nodes if n not in done and set(needs[n]) <= set(done)))
    return done


@given(dags())
def test_compensation_order_is_reverse_of_first_ready_order(graph: tuple[list[str], Graph]) -> None:
    nodes, needs = graph
    assert list(stable_topological_order(nodes, needs)) == first_ready_order(nodes, needs)
    undo = reverse_compiled_order(nodes, needs)
    assert sorted(undo) == sorted(nodes)
    for node in nodes:
        for needed in reachable(needs, node):
            assert undo.index(node) < undo.index(needed)


@given(dags())
def test_code_order_is_reverse_topological(graph: tuple[list[str], Graph]) -> None:
    nodes, needs = graph
    undo = dfs_reverse_postorder(nodes, needs)
    assert sorted(undo) == sorted(nodes)
    for node in nodes:
        for needed in needs[node]:
            assert undo.index(node) < undo.index(needed)


@given(dags(), st.randoms(use_true_random=False))
def test_every_walk_order_gives_a_dependents_first_order(
    graph: tuple[list[str], Graph], random: random_module.Random
) -> None:
    # SG-100: CaseHub walks its items in hash order; whatever the walk, dependents come first.
    nodes, needs = graph
    walk = list(nodes)
    random.shuffle(walk)
    undo = dfs_reverse_postorder(walk, needs)
    assert sorted(undo) == sorted(nodes)
    for node in nodes:
        for needed in reachable(needs, node):
            assert undo.index(node) < undo.index(needed)


@given(st.integers(1, 12))
def test_chain_is_strict_reverse(n: int) -> None:
    nodes = [f"t{i}" for i in range(n)]
    chain = {node: ((nodes[i - 1],) if i else ()) for i, node in enumerate(nodes)}
    assert reverse_compiled_order(nodes, chain) == tuple(reversed(nodes))
    assert dfs_reverse_postorder(nodes, chain) == tuple(reversed(nodes))


RAW = st.sampled_from([(s, False) for s in EffectStatus] + [(EffectStatus.SUCCEEDED, True)])
CLASSES = st.sampled_from(list(EffectClass))
HISTORIES = st.sampled_from([(), ("applied",), ("not_applied",), ("applied", "compensated")])


@st.composite
def source_runs(draw: st.DrawFn) -> tuple[Lineage, dict[str, tuple[str, ...]]]:
    nodes, needs = draw(dags(6))
    tasks, effects, histories = [], {}, {}
    for node in nodes:
        declared = draw(st.booleans())
        own = []
        for index in range(draw(st.integers(0, 3))):
            (status, confirmed), klass = draw(RAW), draw(CLASSES)
            effect = Effect(f"{node}-e{index}", "src", node, status, klass, confirmed)
            own.append(effect)
            effects[effect.effect_id] = effect
            histories[effect.effect_id] = draw(HISTORIES)
        compensate = CompensateDeclaration(uses="action:undo") if declared else None
        tasks.append(SourceTask(node, needs=needs[node], compensate=compensate, effects=tuple(own)))
    inverse = Effect("inverse", "src", "undo", EffectStatus.SUCCEEDED, EffectClass.WORKSPACE, True)
    registry = EffectRegistry({**effects, "inverse": inverse})
    overlay = Overlay()
    kept: dict[str, tuple[str, ...]] = {}
    for effect_id, history in histories.items():
        applied: list[str] = []
        for status in history:
            try:
                overlay = reconcile(
                    overlay,
                    registry,
                    effect_id=effect_id,
                    status=ReconciliationStatus(status),
                    actor="op",
                    reason="r",
                    result_json="{}",
                    compensation_effect_id="inverse",
                )
                applied.append(status)
            except RescindError:
                break
        kept[effect_id] = tuple(applied)
    run = SourceRun(run_id="src", state=RunState.FAILED, tasks=tuple(tasks))
    return Lineage(run, (), overlay), kept


@given(source_runs())
def test_plans_respect_dependencies_and_list_only_applied_effects(
    world: tuple[Lineage, dict[str, tuple[str, ...]]],
) -> None:
    lineage, histories = world
    _, plan = plan_compensation(lineage)
    needs = {task.task_id: task.needs for task in lineage.source.tasks}
    planned = [entry.source_task_id for entry in plan.tasks]
    assert len(planned) == len(set(planned))
    for position, task in enumerate(planned):
        for later in planned[position + 1 :]:
            assert task not in reachable(needs, later)  # nothing undone before what needs it
    effects = {e.effect_id: e for t in lineage.source.tasks for e in t.effects}
    for entry in plan.tasks:
        expected = [
            e.effect_id
            for e in lineage.source.by_id[entry.source_task_id].effects
            if e.effect_class.value not in {"pure", "observe", "model"}
            and (
                (histories[e.effect_id][-1:] == ("applied",))
                or (
                    not histories[e.effect_id]
                    and e.status is EffectStatus.SUCCEEDED
                    and e.confirmed
                )
            )
        ]
        assert list(entry.source_effect_ids) == expected
        for effect_id in entry.source_effect_ids:
            last = histories[effect_id][-1:]
            assert last not in (("not_applied",), ("compensated",))
            assert last or effects[effect_id].status not in (
                EffectStatus.STARTED,
                EffectStatus.UNCERTAIN,
            )


@given(RAW, st.lists(st.sampled_from(list(ReconciliationStatus)), max_size=6))
def test_accepted_histories_never_leave_settled_statuses(
    raw: tuple[EffectStatus, bool], attempts: list[ReconciliationStatus]
) -> None:
    status, confirmed = raw
    effect = Effect("e", "src", "t", status, EffectClass.WORKSPACE, confirmed)
    inverse = Effect("c", "src", "u", EffectStatus.SUCCEEDED, EffectClass.WORKSPACE, True)
    registry = EffectRegistry({"e": effect, "c": inverse})
    overlay = Overlay()
    for attempt in attempts:
        try:
            overlay = reconcile(
                overlay,
                registry,
                effect_id="e",
                status=attempt,
                actor="op",
                reason="r",
                result_json="{}",
                compensation_effect_id="c",
            )
        except RescindError:
            continue
    accepted = [record.status.value for record in overlay.history("e")]
    for index, value in enumerate(accepted):
        if value in ("not_applied", "compensated"):
            assert set(accepted[index:]) == {value}
    if accepted[:1] == ["compensated"]:
        assert status is EffectStatus.SUCCEEDED and confirmed


@given(dags(6))
def test_coordinator_undoes_dependents_first_and_finishes(graph: tuple[list[str], Graph]) -> None:
    nodes, needs = graph
    channels = {node: f"out-{node}" for node in nodes}
    bindings = [
        Binding(
            node,
            compensate="undo",
            produces=(channels[node],),
            consumes=tuple(channels[n] for n in needs[node]),
        )
        for node in nodes
    ]
    definition = CaseDefinition((*bindings, Binding("undo", compensation=True, worker="w")), ("w",))
    items = tuple(PlanItem(f"i-{node}", node) for node in nodes)
    coordinator = Coordinator()
    transcript = coordinator.compensate(
        {"c": Case("c", CaseStatus.COMPLETED, definition, items)}, "c", "op", "r"
    )
    finished: list[str] = []
    pending = list(transcript.dispatches)
    case = transcript.case
    while pending:
        assert len(pending) == 1  # SG-100: one step in flight at a time
        dispatch = pending.pop(0)
        original = case.item(dispatch.item_id).compensates_item_id or ""
        finished.append(original[2:])
        step = coordinator.on_item_status(case, dispatch.item_id, PlanItemStatus.COMPLETED)
        case = step.case
        pending.extend(step.dispatches)
    assert case.status is CaseStatus.COMPENSATED and sorted(finished) == sorted(nodes)
    for node in nodes:
        for needed in reachable(needs, node):
            assert finished.index(node) < finished.index(needed)
