"""Every small case, enumerated: the finite worlds the model checks the reference over.

``all_dags`` lists every labelled DAG on n tasks; ``effect_configurations`` lists every
(latest reconciliation, raw status, confirmed) an effect record can carry; the two lineage
builders put one such effect into the smallest source run (or prior compensation run) that
the planner can read. The overlay is built directly, not through ``reconcile``, so even
combinations the rules make unreachable are checked.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from rescind.reference.saga.effects import Effect, EffectClass
from rescind.reference.saga.lineage import CompensationRun, CompensationTask, Lineage
from rescind.reference.saga.reconciliation import Overlay, Reconciliation
from rescind.reference.saga.workflow import CompensateDeclaration, SourceRun, SourceTask
from rescind.tables.saga import (
    LATEST_VALUES,
    NO_RECONCILIATION,
    EffectStatus,
    ReconciliationStatus,
    RunState,
)

Configuration = tuple[str, EffectStatus, bool]


def all_dags(n: int) -> Iterator[dict[str, tuple[str, ...]]]:
    """Tasks ``t0..t{n-1}`` (declared in that order) -> what each needs; every acyclic choice
    of no edge or one direction per pair."""
    nodes = [f"t{i}" for i in range(n)]
    pairs = list(itertools.combinations(range(n), 2))
    for choice in itertools.product((0, 1, 2), repeat=len(pairs)):
        needs: dict[str, list[str]] = {node: [] for node in nodes}
        for (a, b), pick in zip(pairs, choice, strict=True):
            if pick:
                user, used = (a, b) if pick == 1 else (b, a)
                needs[nodes[user]].append(nodes[used])
        graph = {node: tuple(deps) for node, deps in needs.items()}
        if acyclic(nodes, graph):
            yield graph


def acyclic(nodes: list[str], graph: dict[str, tuple[str, ...]]) -> bool:
    placed: set[str] = set()
    while len(placed) < len(nodes):
        ready = [node for node in nodes if node not in placed and set(graph[node]) <= placed]
        if not ready:
            return False
        placed.update(ready)
    return True


def effect_configurations() -> list[Configuration]:
    raws = [(status, False) for status in EffectStatus] + [(EffectStatus.SUCCEEDED, True)]
    return [(latest, status, ok) for latest in LATEST_VALUES for status, ok in raws]


def _overlay(effect_id: str, run_id: str, latest: str) -> Overlay:
    if latest == NO_RECONCILIATION:
        return Overlay()
    return Overlay(
        (
            Reconciliation(
                reconciliation_id="rec-1",
                effect_id=effect_id,
                run_id=run_id,
                status=ReconciliationStatus(latest),
                actor="model",
                reason="enumerated",
                evidence_source="model",
                result_json="{}",
            ),
        )
    )


def _source(status: EffectStatus, confirmed: bool) -> SourceRun:
    effect = Effect("e", "src", "t", status, EffectClass.WORKSPACE, confirmed)
    declared = CompensateDeclaration(uses="action:undo")
    task = SourceTask("t", compensate=declared, effects=(effect,))
    return SourceRun(run_id="src", state=RunState.FAILED, tasks=(task,))


def source_effect_world(config: Configuration) -> Lineage:
    """Source task ``t`` with the one effect ``e`` in the given configuration."""
    latest, status, confirmed = config
    return Lineage(_source(status, confirmed), (), _overlay("e", "src", latest))


def prior_inverse_world(config: Configuration) -> Lineage:
    """Task ``t`` has a confirmed effect ``e``; failed run ``cmp`` tried ``compensate--t`` and
    its one inverse effect ``c`` is in the given configuration."""
    latest, status, confirmed = config
    inverse = Effect("c", "cmp", "compensate--t", status, EffectClass.WORKSPACE, confirmed)
    task = CompensationTask("t", ("e",), effects=(inverse,))
    run = CompensationRun("cmp", "src", RunState.FAILED, (task,))
    return Lineage(_source(EffectStatus.SUCCEEDED, True), (run,), _overlay("c", "cmp", latest))
