"""Proving "trigger leads to goal" with a ranking over named stages, checked by z3.

A progress property says: whenever ``trigger`` holds (for some indices, e.g. a key), the
``goal`` eventually holds. Its proof is a list of *stages* ``D1 .. Dn`` (D1 closest to the
goal) and, for each stage, a *helpful* fairness family. The rank of a state is the lowest
``i`` with ``Di``; every obligation below is one quantifier-free z3 query per action, with
the system's proven invariants (``supports``) and the property's ``assumptions`` as
hypotheses, instantiated at the indices and at the action's parameters as in the safety
proofs:

* ``goal_stable``: no action (faults included) leaves the goal;
* ``trigger_stable``: no action (faults included) falsifies the trigger before the goal;
* ``covered``: every state with the trigger and without the goal is in some stage;
* ``no_rise`` (fair mode): no step that is not a fault raises the rank;
* per stage ``helped``: every step of the helpful family, taken at that rank, lowers it or
  reaches the goal, and ``enabled``: at that rank the helpful family can take a step.

Soundness, fair mode: take a fair run. Faults happen finitely often, so there is a last one;
after it the run satisfies the (stable) trigger and not yet the goal, so it has a rank. The
rank never rises; while it stays ``i`` the helpful family of stage ``i`` is enabled all the
time, so weak fairness makes it take a step, which lowers the rank. A rank cannot fall
forever, so the goal is reached. Reachable mode (``EF goal``): the helpful steps alone form a
path to the goal from every covered state, so ``no_rise`` is not needed.
"""

from __future__ import annotations

import copy
import itertools
import time
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import attrs
import z3

from rescind.model.core.invariant import Indices, Invariant
from rescind.model.core.logic import Expr
from rescind.model.core.prover import prove, variables_read
from rescind.model.core.system import State, Step
from rescind.model.progress.fair_system import FairFamily, ProgressSystem

StateFormula = Callable[[ProgressSystem, State, Indices], Expr]
TermsFn = Callable[[ProgressSystem, State, Indices], Sequence[Expr]]


@attrs.frozen
class Stage:
    name: str
    meaning: str
    holds: StateFormula = attrs.field(repr=False)
    helpful: tuple[str, ...] = ()
    """Fairness families to try first (all others are tried after them)."""


@attrs.frozen
class Assumption:
    """A condition the property assumes of every state of the runs it speaks about."""

    name: str
    meaning: str
    holds: StateFormula = attrs.field(repr=False)


@attrs.frozen
class LeadsTo:
    indices: tuple[tuple[str, Any], ...]
    trigger: StateFormula = attrs.field(repr=False)
    goal: StateFormula = attrs.field(repr=False)
    stages: tuple[Stage, ...]
    supports: tuple[Invariant, ...]
    """Invariants proven on the system first, then used as hypotheses."""
    assumptions: tuple[Assumption, ...] = ()
    terms: TermsFn | None = attrs.field(default=None, repr=False)
    """Extra terms (e.g. the host's compensation key of ``k``) to instantiate supports at."""


@attrs.frozen
class RankingResult:
    holds: bool
    seconds: float
    failure: str = ""
    """Which obligation failed: e.g. ``stage outcome_unknown: ...`` or ``no_rise at persist``."""
    helpful: Mapping[str, str] = attrs.field(factory=dict)
    """Stage name -> the fairness family that helps it."""
    stage: str = ""
    """The stage whose obligation failed, if any."""


_SUPPORT_CACHE: weakref.WeakKeyDictionary[ProgressSystem, dict[str, bool]] = (
    weakref.WeakKeyDictionary()
)


class StepCache:
    """Obligations already discharged for one action, shared between systems.

    An induction step or a ranking obligation of one action is a z3 query built from that
    action, the property and the model configuration only, never from the other actions of
    the system. So a profile that extends another (``ProgressProfile.adding``) re-proves
    only its new actions: the shared ones were proven on the parent system with the same
    objects. Keys hold the objects themselves so that their ids stay valid."""

    def __init__(self) -> None:
        self._done: dict[tuple[Any, ...], list[tuple[Any, ...]]] = {}

    def known(self, system: ProgressSystem, subject: object, action: object, tag: Any) -> bool:
        entries = self._done.get((id(subject), id(action), tag), [])
        return any(config == system.config for config, *_ in entries)

    def add(self, system: ProgressSystem, subject: object, action: object, tag: Any) -> None:
        entries = self._done.setdefault((id(subject), id(action), tag), [])
        entries.append((system.config, subject, action))


_STEPS = StepCache()


def _inductive(system: ProgressSystem, invariant: Invariant) -> bool:
    """``prove`` over the actions not yet proven for ``invariant`` (the base case always)."""
    todo = tuple(a for a in system.actions if not _STEPS.known(system, invariant, a, "support"))
    view = copy.copy(system)
    view.actions = todo
    if not prove(view, invariant).inductive:
        return False
    for action in todo:
        _STEPS.add(system, invariant, action, "support")
    return True


def supports_proven(system: ProgressSystem, supports: Iterable[Invariant]) -> list[str]:
    """The names of the supports that are *not* inductive on ``system`` (cached per system)."""
    known = _SUPPORT_CACHE.setdefault(system, {})
    failed = []
    for invariant in supports:
        if invariant.name not in known:
            known[invariant.name] = _inductive(system, invariant)
        if not known[invariant.name]:
            failed.append(invariant.name)
    return failed


class Hypotheses:
    """Instances of the supports and assumptions for one query."""

    def __init__(self, system: ProgressSystem, spec: LeadsTo, ix: Indices) -> None:
        self.system, self.spec, self.ix = system, spec, ix

    def pools(self, state: State, extra: Iterable[Expr]) -> dict[Any, list[Expr]]:
        found: dict[Any, dict[int, Expr]] = {}
        base = list(self.ix.values())
        if self.spec.terms is not None:
            base.extend(self.spec.terms(self.system, state, self.ix))
        for term in [*base, *extra]:
            found.setdefault(term.sort(), {}).setdefault(term.get_id(), term)
        return {sort: list(terms.values()) for sort, terms in found.items()}

    def at(self, state: State, extra: Iterable[Expr] = ()) -> list[Expr]:
        pools = self.pools(state, extra)
        formulas = [a.holds(self.system, state, self.ix) for a in self.spec.assumptions]
        for invariant in self.spec.supports:
            # A sort nothing mentions still gets one instance, at a fresh value.
            choices = [
                pools.get(sort) or [z3.Const(f"any|{sort.name()}", sort)]
                for _, sort in invariant.indices
            ]
            names = [name for name, _ in invariant.indices]
            for combo in itertools.product(*choices):
                instance = dict(zip(names, combo, strict=True))
                formulas.append(invariant.strengthened(self.system, state, instance))
        return formulas

    def assumed(self, state: State) -> list[Expr]:
        return [a.holds(self.system, state, self.ix) for a in self.spec.assumptions]


def _solve(system: ProgressSystem, formulas: Sequence[Expr], timeout_ms: int = 20_000) -> Any:
    solver = z3.Solver()
    solver.set("timeout", timeout_ms)
    solver.add(*formulas)
    solver.add(*system.fingerprints.axioms())
    return solver.check()


def fresh_indices(spec: LeadsTo, tag: str) -> dict[str, Expr]:
    return {name: z3.Const(f"{tag}|{name}", sort) for name, sort in spec.indices}


def _rank_is(
    stages: Sequence[Stage], position: int, m: ProgressSystem, s: State, ix: Indices
) -> Expr:
    lower = [z3.Not(stage.holds(m, s, ix)) for stage in stages[:position]]
    return z3.And([stages[position].holds(m, s, ix), *lower])


def _at_most(
    stages: Sequence[Stage], position: int, m: ProgressSystem, s: State, ix: Indices
) -> Expr:
    """Rank ``<= position`` (0-based), as a disjunction of the stages up to it."""
    return z3.Or([stage.holds(m, s, ix) for stage in stages[: position + 1]] or [z3.BoolVal(False)])


def _read(spec: LeadsTo, system: ProgressSystem, ix: Indices) -> frozenset[str]:
    probe = State.fresh("rank_probe")
    probe_ix = {name: z3.Const(f"rank_probe|{name}", sort) for name, sort in spec.indices}
    parts = [spec.trigger(system, probe, probe_ix), spec.goal(system, probe, probe_ix)]
    parts.extend(stage.holds(system, probe, probe_ix) for stage in spec.stages)
    parts.extend(a.holds(system, probe, probe_ix) for a in spec.assumptions)
    return variables_read(z3.And(parts), "rank_probe")


def _params(step: Step) -> list[Expr]:
    return list(step.params.values())


_PROVEN_FAIR: weakref.WeakKeyDictionary[
    ProgressSystem, dict[int, tuple[LeadsTo, RankingResult]]
] = weakref.WeakKeyDictionary()


def prove_leads_to(system: ProgressSystem, spec: LeadsTo, *, fair: bool = True) -> RankingResult:
    """Check every obligation; the first failure is reported by name.

    A fair proof discharges every obligation of the reachable mode too (it checks the same
    ones plus ``no_rise``), so once ``spec`` is proven fair on ``system`` the reachable
    proof is that proof."""
    proven = _PROVEN_FAIR.setdefault(system, {})
    if not fair and id(spec) in proven:
        return proven[id(spec)][1]
    result = _prove_leads_to(system, spec, fair=fair)
    if fair and result.holds:
        proven[id(spec)] = (spec, result)
    return result


def _prove_leads_to(system: ProgressSystem, spec: LeadsTo, *, fair: bool) -> RankingResult:
    started = time.perf_counter()

    def failed(
        what: str, stage: str = "", helpful: Mapping[str, str] | None = None
    ) -> RankingResult:
        return RankingResult(False, time.perf_counter() - started, what, dict(helpful or {}), stage)

    unproven = supports_proven(system, spec.supports)
    if unproven:
        return failed(f"supporting invariants not inductive on this model: {', '.join(unproven)}")
    ix = fresh_indices(spec, "rank")
    hyp = Hypotheses(system, spec, ix)
    pre = State.fresh("rank_pre")
    stages = spec.stages
    read = _read(spec, system, ix)
    trigger, goal = spec.trigger(system, pre, ix), spec.goal(system, pre, ix)

    system.fingerprints.reset()
    covered = z3.Or([stage.holds(system, pre, ix) for stage in stages])
    if _solve(system, [*hyp.at(pre), trigger, z3.Not(goal), z3.Not(covered)]) != z3.unsat:
        return failed("covered: a state with the trigger and without the goal is in no stage")

    for action in system.actions:
        fault = system.is_fault(action)
        tag = ("rank", fair, fault)
        # The fair obligations include the reachable ones: a fair pass settles both.
        if _STEPS.known(system, spec, action, tag) or _STEPS.known(
            system, spec, action, ("rank", True, fault)
        ):
            continue
        system.fingerprints.reset()
        step = system.instantiate(action, pre, tag="rank")
        if not step.written & read:
            continue
        post = step.post
        trigger_after, goal_after = spec.trigger(system, post, ix), spec.goal(system, post, ix)
        broken = {
            "goal_stable": z3.And(goal, z3.Not(goal_after)),
            "trigger_stable": z3.And(
                trigger, z3.Not(goal), z3.Not(z3.Or(trigger_after, goal_after))
            ),
        }
        if fair and not system.is_fault(action):
            rises = [
                z3.And(
                    _rank_is(stages, i, system, pre, ix),
                    z3.Not(z3.Or(goal_after, _at_most(stages, i, system, post, ix))),
                )
                for i in range(len(stages))
            ]
            broken["no_rise"] = z3.And(trigger, z3.Not(goal), *hyp.assumed(post), z3.Or(rises))
        base = [*hyp.at(pre, _params(step)), step.enabled]
        for name, condition in broken.items():
            if _solve(system, [*base, condition]) != z3.unsat:
                return failed(f"{name} at {action.name}")
        _STEPS.add(system, spec, action, tag)

    helpful: dict[str, str] = {}
    for position, stage in enumerate(stages):
        found = _helpful_family(system, spec, hyp, pre, ix, position)
        if found is None:
            return failed(
                f"stage {stage.name}: no fairness family is sure to move it on",
                stage.name,
                helpful,
            )
        helpful[stage.name] = found
    return RankingResult(True, time.perf_counter() - started, "", helpful)


def _ordered_families(system: ProgressSystem, stage: Stage) -> list[FairFamily]:
    named = [
        system.family(name)
        for name in stage.helpful
        if name in {f.name for f in system.profile.fairness}
    ]
    rest = [f for f in system.profile.fairness if f not in named]
    return [*named, *rest]


def _bound(family: FairFamily, step: Step, ix: Indices) -> list[Expr]:
    if family.index_param is None:
        return []
    value = step.params[family.index_param]
    matching = [term for term in ix.values() if term.sort() == value.sort()]
    return [value == matching[0]] if matching else [z3.BoolVal(False)]


def _helpful_family(
    system: ProgressSystem, spec: LeadsTo, hyp: Hypotheses, pre: State, ix: Indices, position: int
) -> str | None:
    stage = spec.stages[position]
    at_rank = [
        _rank_is(spec.stages, position, system, pre, ix),
        spec.trigger(system, pre, ix),
        z3.Not(spec.goal(system, pre, ix)),
    ]
    for family in _ordered_families(system, stage):
        action = system.action(family.action)
        if family.index_param is not None and not any(
            term.sort() == dict(action.params)[family.index_param] for term in ix.values()
        ):
            continue
        system.fingerprints.reset()
        step = system.instantiate(action, pre, tag=f"help|{family.name}")
        restriction = _restriction(system, family, pre, step.params)
        lower = z3.Or(
            spec.goal(system, step.post, ix),
            _at_most(spec.stages, position - 1, system, step.post, ix)
            if position
            else z3.BoolVal(False),
        )
        helped = [
            *hyp.at(pre, _params(step)),
            *at_rank,
            step.enabled,
            *restriction,
            *_bound(family, step, ix),
            *hyp.assumed(step.post),
            z3.Not(lower),
        ]
        if _solve(system, helped) != z3.unsat:
            continue
        if _enabled(system, family, hyp, pre, ix, at_rank):
            return family.name
    return None


def _restriction(
    system: ProgressSystem, family: FairFamily, state: State, params: Mapping[str, Expr]
) -> list[Expr]:
    if family.restriction is None:
        return []
    return list(family.restriction(system, state, params).values())


def _enabled(
    system: ProgressSystem,
    family: FairFamily,
    hyp: Hypotheses,
    pre: State,
    ix: Indices,
    at_rank: Sequence[Expr],
) -> bool:
    """Some witness instance of the family is enabled at every state of this rank."""
    system.fingerprints.reset()
    action = system.action(family.action)
    options = []
    extra: list[Expr] = []
    for number, witness in enumerate(family.witnesses(system, pre, ix)):
        fixed_params = dict(witness)
        if family.index_param is not None:
            sort = dict(action.params)[family.index_param]
            fixed_params.setdefault(
                family.index_param, next(t for t in ix.values() if t.sort() == sort)
            )
        step = instantiate_with(system, action, pre, f"wit|{family.name}|{number}", fixed_params)
        extra.extend(_params(step))
        options.append(z3.And(step.enabled, *_restriction(system, family, pre, step.params)))
    query = [*hyp.at(pre, extra), *at_rank, z3.Not(z3.Or(options))]
    return bool(_solve(system, query) == z3.unsat)


def instantiate_with(
    system: ProgressSystem, action: Any, state: State, tag: str, values: Mapping[str, Expr]
) -> Step:
    """Instantiate ``action`` with some parameters given (the others fresh)."""
    params = {
        name: values.get(name, z3.Const(f"{action.name}|{name}|{tag}", sort))
        for name, sort in action.params
    }
    guards = dict(action.guards(system, state, params))
    changes = action.effects(system, state, params)
    return Step(action, params, guards, state.updated(changes), frozenset(changes))


def closed_under_every_action(
    system: ProgressSystem, spec: LeadsTo, trap: StateFormula
) -> tuple[bool, str]:
    """``trap`` is never left, by any action (faults included). Returns (closed, failing action)."""
    unproven = supports_proven(system, spec.supports)
    if unproven:
        return False, f"unproven supports {', '.join(unproven)}"
    ix = fresh_indices(spec, "trap")
    hyp = Hypotheses(system, spec, ix)
    pre = State.fresh("trap_pre")
    probe_read = variables_read(trap(system, pre, ix), "trap_pre")
    for action in system.actions:
        system.fingerprints.reset()
        step = system.instantiate(action, pre, tag="trap")
        if not step.written & probe_read:
            continue
        query = [
            *hyp.at(pre, _params(step)),
            trap(system, pre, ix),
            step.enabled,
            z3.Not(trap(system, step.post, ix)),
        ]
        if _solve(system, query) != z3.unsat:
            return False, action.name
    return True, ""
