"""Every step of a progress profile is a sequence of safety-model steps (rule PG-6, CR-9).

The protocol invariants (group ``protocol``) are proven on the safety model, whose actions
over-approximate on purpose. A profile's step that is a base action with more guards, or two
base actions in sequence, takes the system only where those base steps take it, so every
reachable state of the profile is reachable in the safety model and every invariant proven
there holds under the profile too. This module checks that with z3, action by action: from
any state, the profile's step is enabled only where its base steps are, in order, and it
leads to the very same successor.
"""

from __future__ import annotations

import time

import z3

from rescind.model.core.logic import Expr
from rescind.model.core.proof_check import CheckResult
from rescind.model.core.system import SCHEMA, State
from rescind.model.progress.fair_system import ProgressSystem, base_action


def unrefined_actions(system: ProgressSystem) -> list[str]:
    """The profile's actions that are not their base steps in sequence (empty: all are)."""
    failing = []
    for action in system.actions:
        names = system.profile.base_steps.get(action.name)
        if names is None:
            failing.append(action.name)
            continue
        system.fingerprints.reset()
        pre = State.fresh("refine")
        step = system.instantiate(action, pre, tag="refine")
        state, enabled = pre, list[Expr]()
        for name in names:
            base = base_action(name)
            params = {param: step.params[param] for param, _ in base.params}
            enabled.extend(base.guards(system, state, params).values())
            state = state.updated(base.effects(system, state, params))
        same = z3.And([step.post[name] == state[name] for name in SCHEMA])
        solver = z3.Solver()
        solver.add(step.enabled, z3.Not(z3.And(*enabled, same)))
        solver.add(*system.fingerprints.axioms())
        if solver.check() != z3.unsat:
            failing.append(action.name)
    return failing


def run_refinement(system: ProgressSystem) -> CheckResult:
    started = time.perf_counter()
    failing = unrefined_actions(system)
    elapsed = time.perf_counter() - started
    if failing:
        return CheckResult(
            "violated",
            elapsed,
            detail=f"not a sequence of safety-model steps: {', '.join(failing)}; the protocol "
            f"invariants are not known to hold on profile {system.profile.name}",
        )
    return CheckResult(
        "proven",
        elapsed,
        detail=f"all {len(system.actions)} actions of profile {system.profile.name} are "
        "safety-model steps in sequence: every protocol invariant (MD-2..MD-13) holds on it",
    )
