"""Induction proofs and bounded model checking over the transition system.

**Induction (unbounded).** For an invariant ``J = holds ∧ strengthening`` over indices
``x``: the base case asks z3 for an initial state with ``¬J(x0)``; the step asks, for each
action, for a state where ``J`` holds, the action is enabled, and ``J`` fails afterwards at
fresh indices ``x0``. Both must be unsatisfiable.

The hypothesis ``∀x. J(s, x)`` is used through its instances at ``x0`` and at the action's
own parameters of the index sorts. That is sound (every instance follows from the
universal statement), keeps each query quantifier-free, and is complete here because every
action's effect on an index depends only on that index's old values and the parameters.
Actions that write none of the variables ``J`` reads are skipped: ``J`` cannot change.

**Bounded model checking.** :func:`search` unrolls the actions from the initial state and
asks for a path of length 1..depth that ends in a target (a violation, or a state that must
be reachable). The first path found is the shortest.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import attrs
import z3

from rescind.model.core.invariant import Invariant
from rescind.model.core.logic import IDENTITY, TOOL, Expr
from rescind.model.core.system import (
    SCHEMA,
    State,
    Step,
    TransitionSystem,
    initial_condition,
    root_is_valid,
)

IDENTITY_FIELDS = ("tool", "key", "cmp_key", "scope", "fp", "input")


@attrs.frozen
class InductionResult:
    inductive: bool
    seconds: float
    failing_step: str = ""
    """``"base"`` or the action whose step failed; empty when inductive."""
    unknown: bool = False


@attrs.frozen
class Path:
    """A path found by :func:`search`: its steps, and z3's model to read values from."""

    system: TransitionSystem = attrs.field(repr=False)
    states: tuple[State, ...] = attrs.field(repr=False)
    selectors: tuple[tuple[Expr, ...], ...] = attrs.field(repr=False)
    steps: tuple[tuple[Step, ...], ...] = attrs.field(repr=False)
    model: Any = attrs.field(repr=False)
    indices: dict[str, Expr] = attrs.field(repr=False)

    def chosen(self, position: int) -> Step:
        for flag, step in zip(self.selectors[position], self.steps[position], strict=True):
            if z3.is_true(self.model.eval(flag, model_completion=True)):
                return step
        raise AssertionError(f"no action chosen at step {position + 1}")

    def __len__(self) -> int:
        return len(self.selectors)


def fresh_indices(invariant: Invariant, tag: str) -> dict[str, Expr]:
    return {name: z3.Const(f"{tag}|{name}", sort) for name, sort in invariant.indices}


def _instance_pool(
    invariant: Invariant, step: Step, base: dict[str, Expr]
) -> list[dict[str, Expr]]:
    pools: list[list[Expr]] = []
    for name, sort in invariant.indices:
        pool = [base[name]]
        pool.extend(value for value in step.params.values() if value.sort() == sort)
        if sort == IDENTITY and all(field in step.params for field in IDENTITY_FIELDS):
            pool.append(IDENTITY.identity(*[step.params[field] for field in IDENTITY_FIELDS]))
        pools.append(_unique(pool))
    names = [name for name, _ in invariant.indices]
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*pools)]


def _unique(terms: Iterable[Expr]) -> list[Expr]:
    seen: dict[int, Expr] = {}
    for term in terms:
        seen.setdefault(term.get_id(), term)
    return list(seen.values())


def variables_read(formula: Expr, prefix: str) -> frozenset[str]:
    """State variable names (``prefix|name`` constants) that a formula mentions."""
    found: set[str] = set()
    todo, visited = [formula], set()
    while todo:
        term = todo.pop()
        if term.get_id() in visited:
            continue
        visited.add(term.get_id())
        if z3.is_const(term) and term.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            label = term.decl().name()
            if label.startswith(prefix + "|"):
                found.add(label[len(prefix) + 1 :])
        todo.extend(term.children())
    return frozenset(found & set(SCHEMA))


def _solve(system: TransitionSystem, formulas: Sequence[Expr], timeout_ms: int) -> Any:
    solver = z3.Solver()
    solver.set("timeout", timeout_ms)
    solver.add(*formulas)
    solver.add(*system.fingerprints.axioms())
    return solver.check(), solver


def prove(
    system: TransitionSystem,
    invariant: Invariant,
    *,
    strengthen: bool = True,
    timeout_ms: int = 20_000,
) -> InductionResult:
    """Prove ``holds`` (with the strengthening unless told not to) and any step property."""
    started = time.perf_counter()

    def goal(state: State, indices: dict[str, Expr]) -> Expr:
        if strengthen:
            return invariant.strengthened(system, state, indices)
        return invariant.holds(system, state, indices)

    system.fingerprints.reset()
    initial = State.fresh("init")
    x0 = fresh_indices(invariant, "x0")
    tools = [term for term in x0.values() if term.sort() == TOOL]
    query = [initial_condition(initial, tools), z3.Not(goal(initial, x0))]
    verdict, _ = _solve(system, query, timeout_ms)
    if verdict != z3.unsat:
        return InductionResult(False, time.perf_counter() - started, "base", verdict == z3.unknown)

    pre = State.fresh("pre")
    read = variables_read(goal(pre, x0), "pre")
    for action in system.actions:
        system.fingerprints.reset()
        step = system.instantiate(action, pre, tag="ind")
        checks: list[Expr] = []
        if step.written & read:
            checks.append(z3.Not(goal(step.post, x0)))
        if invariant.step is not None:
            checks.append(z3.Not(invariant.step(system, pre, step.post, x0)))
        if not checks:
            continue
        hypotheses = [goal(pre, inst) for inst in _instance_pool(invariant, step, x0)]
        query = [*hypotheses, step.enabled, z3.Or(checks)]
        verdict, _ = _solve(system, query, timeout_ms)
        if verdict != z3.unsat:
            return InductionResult(
                False, time.perf_counter() - started, action.name, verdict == z3.unknown
            )
    return InductionResult(True, time.perf_counter() - started)


Target = Callable[[TransitionSystem, State, State, dict[str, Expr]], Expr]
"""``target(system, previous, last, indices)``: the condition a path must end in."""


Start = Callable[[State], Expr]


def take_one(
    solver: z3.Solver, current: State, steps: Sequence[Step], position: int
) -> tuple[tuple[z3.BoolRef, ...], State]:
    """Exactly one of ``steps`` is taken at ``position``: one selector flag per step (exactly
    one true, its step enabled) and the successor state, in which each variable is the taken
    step's value where that step writes it and keeps its value otherwise."""
    chosen = tuple(z3.Bool(f"step|{position}|{step.action.name}") for step in steps)
    solver.add(z3.PbEq([(flag, 1) for flag in chosen], 1))
    solver.add(*[z3.Implies(flag, step.enabled) for flag, step in zip(chosen, steps, strict=True)])
    values = {}
    for name in SCHEMA:
        value = current[name]
        for flag, step in zip(chosen, steps, strict=True):
            if name in step.written:
                value = z3.If(flag, step.post[name], value)
        values[name] = value
    return chosen, State(values)


def search(
    system: TransitionSystem,
    target: Target,
    *,
    depth: int,
    index_sorts: Sequence[tuple[str, Any]] = (),
    timeout_ms: int = 60_000,
    bounded: Mapping[Any, int] | None = None,
    first_check: int = 1,
    start: Start | None = None,
    universe: Mapping[Any, Sequence[Expr]] | None = None,
    actions: Sequence[str] | None = None,
) -> Path | None:
    """A path of at most ``depth`` steps that ends in ``target``.

    The path starts in the initial state, or in any state satisfying ``start``. ``bounded``
    limits each listed identifier sort to that many distinct values for the action
    parameters and goal indices (the "small scope" of the search; proofs have no such bound);
    ``universe`` gives those values explicitly instead. ``actions`` restricts which actions
    may be taken. Checking starts at ``first_check`` steps (0 allows the empty path); when
    it is 0 or 1 the path found is a shortest one.
    """
    system.fingerprints.reset()
    solver = z3.Solver()
    solver.set("timeout", timeout_ms)
    solver.set("relevancy", 0)
    values_of: dict[Any, list[Expr]] = {
        sort: [z3.Const(f"{sort.name()}#{i}", sort) for i in range(count)]
        for sort, count in (bounded or {}).items()
    }
    values_of.update({sort: list(terms) for sort, terms in (universe or {}).items()})
    fixed = {sort: values[0] for sort, values in values_of.items() if len(values) == 1}
    choices = {sort: values for sort, values in values_of.items() if len(values) > 1}
    allowed = [a for a in system.actions if actions is None or a.name in actions]
    states = [State.fresh("s0")]
    indices = {name: fixed.get(sort, z3.Const(f"goal|{name}", sort)) for name, sort in index_sorts}
    tools = [term for term in indices.values() if term.sort() == TOOL]
    if start is None:
        solver.add(initial_condition(states[0], tools))
    else:
        solver.add(start(states[0]))
        solver.add(*[root_is_valid(states[0], tool) for tool in tools])
    for term in indices.values():
        if term.sort() in choices:
            solver.add(z3.Or([term == value for value in choices[term.sort()]]))
    selectors: list[tuple[Expr, ...]] = []
    reached: list[Expr] = []
    all_steps: list[tuple[Step, ...]] = []
    if first_check <= 0:
        hit = z3.Bool("reached|0")
        solver.add(hit == target(system, states[0], states[0], indices))
        reached.append(hit)
        found = _check(solver, system, reached)
        if found is not None:
            return Path(system, (states[0],), (), (), found, indices)
    for position in range(depth):
        current = states[-1]
        steps = tuple(
            system.instantiate(action, current, tag=str(position), fixed=fixed)
            for action in allowed
        )
        for step in steps:
            for name, value in step.params.items():
                if value.sort() == TOOL:
                    solver.add(root_is_valid(states[0], value))
                if value.sort() in choices and name not in step.action.hidden_params:
                    solver.add(z3.Or([value == option for option in choices[value.sort()]]))
        chosen, following = take_one(solver, current, steps, position)
        states.append(following)
        selectors.append(chosen)
        all_steps.append(steps)
        hit = z3.Bool(f"reached|{position + 1}")
        solver.add(hit == target(system, current, following, indices))
        reached.append(hit)
        if position + 1 < first_check:
            continue
        found = _check(solver, system, reached)
        if found is not None:
            length = _first_reached(found, reached, 0 if first_check <= 0 else 1)
            return Path(
                system,
                tuple(states[: length + 1]),
                tuple(selectors[:length]),
                tuple(all_steps[:length]),
                found,
                indices,
            )
    return None


def _check(solver: Any, system: TransitionSystem, reached: Sequence[Expr]) -> Any:
    solver.push()
    solver.add(z3.Or(list(reached)))
    solver.add(*system.fingerprints.axioms())
    verdict = solver.check()
    model = solver.model() if verdict == z3.sat else None
    solver.pop()
    return model


def _first_reached(model: Any, reached: Sequence[Expr], offset: int) -> int:
    """Steps taken to the first target reached; ``reached[0]`` is after ``offset`` steps."""
    for position, condition in enumerate(reached):
        if z3.is_true(model.eval(condition, model_completion=True)):
            return position + offset
    raise AssertionError("the model satisfies none of the targets it was asked for")


def violation_target(invariant: Invariant) -> Target:
    """Reach a state where ``holds`` fails, or a step that breaks the step property."""

    def target(
        system: TransitionSystem, previous: State, last: State, indices: dict[str, Expr]
    ) -> Expr:
        broken = [z3.Not(invariant.holds(system, last, indices))]
        if invariant.step is not None:
            broken.append(z3.Not(invariant.step(system, previous, last, indices)))
        return z3.Or(broken)

    return target
