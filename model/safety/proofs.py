"""``rescind prove`` checks for the protocol model (group ``protocol``).

One check per invariant in :mod:`rescind.model.safety.invariants`. A check first tries the
unbounded induction proof. When that fails it searches for a real counterexample from the
initial state (bounded, small scope); a path found is reported as ``violated`` with its
numbered trace, otherwise the result is ``unknown`` and says which induction step failed.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from types import MappingProxyType

import z3

from rescind.model.core.counterexample import render_path
from rescind.model.core.invariant import Invariant
from rescind.model.core.proof_check import Check, CheckResult
from rescind.model.core.prover import fresh_indices, prove, search, variables_read, violation_target
from rescind.model.core.system import ModelConfig, State, TransitionSystem
from rescind.model.safety.invariants import INVARIANTS
from rescind.model.safety.variants import SMALL_SCOPE

WIDER_SCOPE = MappingProxyType({sort: 2 for sort in SMALL_SCOPE})
"""Tried second: two values per identifier sort (two identities, two scopes, ...)."""

SEARCH_DEPTH = 12
"""How far a failed proof looks for a concrete counterexample before saying ``unknown``."""


def watched_variables(system: TransitionSystem, invariant: Invariant) -> frozenset[str]:
    """The variables the property reads (not its strengthening): what a trace shows."""
    probe, after = State.fresh("watch"), State.fresh("watch_after")
    indices = fresh_indices(invariant, "watch")
    found = variables_read(invariant.holds(system, probe, indices), "watch")
    if invariant.step is not None:
        step = invariant.step(system, probe, after, indices)
        found |= variables_read(step, "watch") | variables_read(step, "watch_after")
    return found


def _mentions(formula: object, term: object) -> bool:
    todo, seen = [formula], set()
    while todo:
        node = todo.pop()
        if node.get_id() in seen:  # type: ignore[attr-defined]
            continue
        seen.add(node.get_id())  # type: ignore[attr-defined]
        if z3.eq(node, term):
            return True
        todo.extend(node.children())  # type: ignore[attr-defined]
    return False


def counterexample(
    system: TransitionSystem, invariant: Invariant, depth: int = SEARCH_DEPTH
) -> tuple[str, ...]:
    """A numbered trace from the initial state to a violation, or ``()`` if none is found."""
    path = None
    for scope in (SMALL_SCOPE, WIDER_SCOPE):
        path = search(
            system,
            violation_target(invariant),
            depth=depth,
            index_sorts=invariant.indices,
            bounded=scope,
        )
        if path is not None:
            break
    if path is None:
        return ()
    probe = State.fresh("shown")
    property_formula = invariant.holds(system, probe, path.indices)
    if invariant.step is not None:
        property_formula = z3.And(
            property_formula, invariant.step(system, probe, probe, path.indices)
        )
    shown = {n: v for n, v in path.indices.items() if _mentions(property_formula, v)}
    path = path.__class__(path.system, path.states, path.selectors, path.steps, path.model, shown)
    headline = f"violated: {invariant.statement} [{invariant.rule}]"
    return render_path(path, watched_variables(system, invariant), headline)


def run_invariant(invariant: Invariant, config: ModelConfig | None = None) -> CheckResult:
    started = time.perf_counter()
    system = TransitionSystem(config)
    proof = prove(system, invariant)
    if proof.inductive:
        return CheckResult("proven", time.perf_counter() - started)
    trace = counterexample(system, invariant)
    where = "the initial state" if proof.failing_step == "base" else proof.failing_step
    if trace:
        return CheckResult(
            "violated",
            time.perf_counter() - started,
            trace,
            f"induction fails at {where}; counterexample found",
        )
    return CheckResult(
        "unknown",
        time.perf_counter() - started,
        detail=f"not proven: induction fails at {where} and no counterexample was found "
        f"within {SEARCH_DEPTH} steps (strengthening needed?)",
    )


def checks() -> Sequence[Check]:
    return tuple(
        Check(
            name=invariant.name,
            statement=invariant.statement,
            rule=invariant.rule,
            run=lambda invariant=invariant: run_invariant(invariant),  # type: ignore[misc]
            group="protocol",
        )
        for invariant in INVARIANTS
    )
