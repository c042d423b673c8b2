"""Lasso counterexamples (and witnesses) for progress properties, by bounded model checking.

A *lasso* is a run that reaches a state and then stays there forever. It refutes "the
trigger leads to the goal" when three things hold, each checked with z3:

1. **prefix**: a path of ``depth`` steps from an initial state to a state where the trigger
   holds and the goal does not (every state of it satisfying the property's assumptions);
2. **fair loop**: in that last state no step of any fairness family can change the state.
   Staying there forever (stuttering) is then a fair run: weak fairness only demands steps
   that are possible and change something, and no fault occurs in the loop. This is checked
   for *every* parameter value (unbounded), with the prefix's actions and parameters pinned
   to the ones found;
3. **trap**: the shape's trap predicate holds there and no action of the model (faults
   included) leaves it, so no continuation at all reaches the goal: the goal is not even
   reachable any more.

The same machinery finds *witnesses* for non-vacuity: a fair run in which the trigger holds
and the goal is reached (a prefix ending in the goal, then the same fair-loop check).

The search starts from initial states whose in-memory and stored journals are equal at every
index (a special case of the model's initial states, so every path found is a real path);
otherwise a ``persist`` would forever "change" the unused slots and no state would be quiet.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs
import z3

from rescind.model.core.counterexample import render_path
from rescind.model.core.logic import TOOL, Expr
from rescind.model.core.prover import Path, take_one, variables_read
from rescind.model.core.system import (
    JOURNAL_FIELDS,
    State,
    Step,
    initial_condition,
    root_is_valid,
)
from rescind.model.progress.fair_system import FairFamily, ProgressSystem
from rescind.model.progress.ranking import (
    Hypotheses,
    LeadsTo,
    closed_under_every_action,
    instantiate_with,
)
from rescind.model.safety.variants import SMALL_SCOPE

StateFormula = Callable[[ProgressSystem, State, Mapping[str, Expr]], Expr]


@attrs.frozen
class LassoShape:
    """A named kind of lasso: where its prefix ends, and the trap it never leaves."""

    name: str
    meaning: str
    target: StateFormula = attrs.field(repr=False)
    trap: StateFormula = attrs.field(repr=False)
    depth: int
    """The prefix length searched (shorter lassos are found too, padded with stutters)."""
    recorded: tuple[str, ...] = ()
    """The action of each step of the lasso as last found (docs/findings.md), or empty.
    ``find_lasso`` first checks this run concretely (z3 then only chooses the parameters, a
    much smaller problem than the search) and searches every schedule only when the recorded
    one no longer yields a fair, closed lasso."""


@attrs.frozen
class Lasso:
    name: str
    path: Path = attrs.field(repr=False)
    quiet: bool
    """No fair step can change the last state (the loop is fair)."""
    restless: str
    """The first fairness family that can still change the last state, if not quiet."""
    closed: bool
    """The trap holds at the end and no action leaves it (the goal is unreachable)."""
    escape: str
    seconds: float
    families: int
    """How many fairness families the loop was checked against."""
    actions: int
    """How many actions the trap was checked against."""
    searched: bool = True
    """False when the shape's recorded schedule was confirmed (no search over schedules)."""

    @property
    def genuine(self) -> bool:
        return self.quiet and self.closed


def _journal_settled(state: State) -> Expr:
    return z3.And([state[f"mem.{name}"] == state[f"disk.{name}"] for name in JOURNAL_FIELDS])


class Unrolling:
    """A BMC unrolling of ``depth`` steps whose states all satisfy the assumptions."""

    def __init__(
        self,
        system: ProgressSystem,
        spec: LeadsTo,
        depth: int,
        scope: Mapping[Any, int] = SMALL_SCOPE,
        timeout_ms: int = 60_000,
        schedule: Sequence[str] | None = None,
    ) -> None:
        self.system = system
        system.fingerprints.reset()
        self.solver = z3.Solver()
        self.solver.set("timeout", timeout_ms)
        self.solver.set("relevancy", 0)
        fixed = {
            sort: z3.Const(f"{sort.name()}#0", sort) for sort, count in scope.items() if count == 1
        }
        self.indices = {
            name: fixed.get(sort, z3.Const(f"lasso|{name}", sort)) for name, sort in spec.indices
        }
        hyp = Hypotheses(system, spec, self.indices)
        first = State.fresh("s0")
        tools = [t for t in self.indices.values() if t.sort() == TOOL]
        self.solver.add(
            initial_condition(first, tools), _journal_settled(first), *hyp.assumed(first)
        )
        self.states = [first]
        self.selectors: list[tuple[Expr, ...]] = []
        self.steps: list[tuple[Step, ...]] = []
        for position in range(depth):
            current = self.states[-1]
            steps = tuple(
                system.instantiate(action, current, tag=str(position), fixed=fixed)
                for action in system.actions
                if schedule is None or action.name == schedule[position]
            )
            for step in steps:
                for value in step.params.values():
                    if value.sort() == TOOL:
                        self.solver.add(root_is_valid(first, value))
            chosen, following = take_one(self.solver, current, steps, position)
            self.solver.add(*hyp.assumed(following))
            self.states.append(following)
            self.selectors.append(chosen)
            self.steps.append(steps)
        self.axioms_added = 0

    @property
    def last(self) -> State:
        return self.states[-1]

    def _axioms(self) -> list[Expr]:
        return self.system.fingerprints.axioms()

    def reach(self, target: Expr) -> Any:
        """A model of a path ending in ``target``, or None. Leaves the target asserted."""
        self.solver.add(target)
        self.solver.add(*self._axioms())
        if self.solver.check() != z3.sat:
            return None
        return self.solver.model()

    def pin(self, model: Any) -> None:
        """Fix every action choice and parameter to the values of ``model``."""
        for chosen, steps in zip(self.selectors, self.steps, strict=True):
            for flag, step in zip(chosen, steps, strict=True):
                taken = model.eval(flag, model_completion=True)
                self.solver.add(flag == taken)
                if z3.is_true(taken):
                    for name, value in step.params.items():
                        if name not in step.action.hidden_params:
                            self.solver.add(value == model.eval(value, model_completion=True))

    def restless_family(self, families: Sequence[FairFamily]) -> str:
        """The first family with a step that changes the last state (any parameters), or ''."""
        for family in families:
            action = self.system.action(family.action)
            step = self.system.instantiate(action, self.last, tag=f"quiet|{family.name}")
            changed = z3.Or([step.post[name] != self.last[name] for name in sorted(step.written)])
            restriction = (
                []
                if family.restriction is None
                else list(family.restriction(self.system, self.last, step.params).values())
            )
            self.solver.push()
            self.solver.add(step.enabled, *restriction, changed, *self._axioms())
            verdict = self.solver.check()
            self.solver.pop()
            if verdict != z3.unsat:
                return family.name
        return ""

    def path(self, model: Any) -> Path:
        return Path(
            self.system,
            tuple(self.states),
            tuple(self.selectors),
            tuple(self.steps),
            model,
            dict(self.indices),
        )


def quiet_at(system: ProgressSystem, state: State, ix: Mapping[str, Expr]) -> Expr:
    """No witness step of a family bound to the indices changes ``state``: a necessary
    condition for a quiet state, which steers the search (the pinned check then decides)."""
    parts = []
    for family in system.profile.fairness:
        action = system.action(family.action)
        bound: dict[str, Expr] = {}
        if family.index_param is not None:
            sort = dict(action.params)[family.index_param]
            matching = [term for term in ix.values() if term.sort() == sort]
            if not matching:
                continue
            bound[family.index_param] = matching[0]
        for number, witness in enumerate(family.witnesses(system, state, ix)):
            values = {**witness, **bound}
            step = instantiate_with(system, action, state, f"hint|{family.name}|{number}", values)
            if any(name not in values for name, _ in action.params):
                continue  # a free parameter would make this a guess, not a necessity
            changed = z3.Or([step.post[name] != state[name] for name in sorted(step.written)])
            restriction = (
                []
                if family.restriction is None
                else list(family.restriction(system, state, step.params).values())
            )
            parts.append(z3.Not(z3.And(step.enabled, *restriction, changed)))
    return z3.And(parts)


def find_lasso(
    system: ProgressSystem, spec: LeadsTo, shape: LassoShape, *, use_recorded: bool = True
) -> Lasso | None:
    """The shape's lasso in ``system``, or None when no prefix reaches its target.

    With a recorded schedule (and ``use_recorded``), that run is checked first; a genuine
    lasso on it is returned as found. Otherwise, or when it is not genuine any more, every
    schedule of ``shape.depth`` steps is searched."""
    if use_recorded and shape.recorded:
        confirmed = _lasso_on(system, spec, shape, shape.recorded)
        if confirmed is not None and confirmed.genuine:
            return attrs.evolve(confirmed, searched=False)
    return _lasso_on(system, spec, shape, None)


def _lasso_on(
    system: ProgressSystem, spec: LeadsTo, shape: LassoShape, schedule: Sequence[str] | None
) -> Lasso | None:
    started = time.perf_counter()
    depth = shape.depth if schedule is None else len(schedule)
    run = Unrolling(system, spec, depth, schedule=schedule)
    ix = run.indices
    end = z3.And(
        spec.trigger(system, run.last, ix),
        z3.Not(spec.goal(system, run.last, ix)),
        shape.target(system, run.last, ix),
        shape.trap(system, run.last, ix),
        quiet_at(system, run.last, ix),
    )
    model = run.reach(end)
    if model is None:
        return None
    run.pin(model)
    restless = run.restless_family(system.profile.fairness)
    closed, escape = closed_under_every_action(system, spec, shape.trap)
    return Lasso(
        shape.name,
        run.path(model),
        not restless,
        restless,
        closed,
        escape,
        time.perf_counter() - started,
        len(system.profile.fairness),
        len(system.actions),
    )


@attrs.frozen
class Witness:
    path: Path = attrs.field(repr=False)
    quiet: bool
    restless: str
    seconds: float


def find_witness(
    system: ProgressSystem,
    spec: LeadsTo,
    depth: int,
    schedule: Sequence[str] | None = None,
) -> Witness | None:
    """A fair run where the trigger holds and the goal is reached (non-vacuity).

    ``schedule`` fixes which action each step takes (then ``depth`` is its length) and
    leaves z3 only the parameters to find: a much smaller search, and the run found is
    still a run of the whole system whose last state is checked quiet for every family."""
    started = time.perf_counter()
    run = Unrolling(system, spec, len(schedule) if schedule else depth, schedule=schedule)
    ix = run.indices
    model = run.reach(
        z3.And(
            spec.trigger(system, run.last, ix),
            spec.goal(system, run.last, ix),
            quiet_at(system, run.last, ix),
        )
    )
    if model is None:
        return None
    run.pin(model)
    restless = run.restless_family(system.profile.fairness)
    return Witness(run.path(model), not restless, restless, time.perf_counter() - started)


def watched(system: ProgressSystem, spec: LeadsTo, *formulas: StateFormula) -> frozenset[str]:
    """The variables the given state formulas read: what a lasso trace shows."""
    probe = State.fresh("lasso_watch")
    ix = {name: z3.Const(f"lasso_watch|{name}", sort) for name, sort in spec.indices}
    return variables_read(z3.And([f(system, probe, ix) for f in formulas]), "lasso_watch")


def render_lasso(lasso: Lasso, shown: frozenset[str], headline: str) -> tuple[str, ...]:
    """Numbered prefix (as in safety traces), then the loop and the trap."""
    lines = list(render_path(lasso.path, shown))
    steps = len(lasso.path)
    families = lasso.families
    lines.append(
        f"loop: the state after step {steps} repeats forever (stuttering); "
        f"no step of the {families} fairness families can change it"
        if lasso.quiet
        else f"loop: not fair, {lasso.restless} can still change the state after step {steps}"
    )
    actions = lasso.actions
    lines.append(
        f"trap: no action of the {actions} leaves it (faults included): the goal is unreachable"
        if lasso.closed
        else f"trap: left by {lasso.escape}"
    )
    lines.append(headline)
    return tuple(lines)
