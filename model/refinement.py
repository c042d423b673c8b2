"""Refinement: is a step of the reference an allowed transition of the model?

The reference is observed through plain snapshots (:class:`WorkerObservation`), so this
module does not depend on any reference class. :class:`Abstraction` maps a snapshot to
constraints on the model's state variables: identifiers become distinct constants of their
sorts, stored results become integers (equal results, equal integers), grants become model
grants whose fingerprint is pinned to the constant of their real fingerprint.

:meth:`Abstraction.explain` then asks z3 for a path of at most ``depth`` model actions (from a
given subset) from a state satisfying the first snapshot to one satisfying the second, with
every variable the snapshot does not observe left free. The empty path is tried first: a
refused request changes nothing. When no path exists the step is a disagreement.

What is observed: the live session's journal (only while that session is current and not
poisoned: a poisoned or superseded session can never act again, and its memory is not part
of the model), the stored journal, liveness, lease and fence, effect and inverse-effect
counts per key, the authorizer's compensation counter per tool and its identity set (current
sessions only), and the active grants; a snapshot is taken between requests, so no adapter
call is owed. The host ledger, approvals and the wire are not observed. Each step is checked
on its own (the unobserved variables are chosen afresh for every step).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs
import z3
from rescind.model.logic import (
    CKEY,
    FINGERPRINT,
    IDENTITY,
    INPUT,
    KEY,
    RESOURCE,
    SCOPE,
    TOOL,
    Expr,
    make_grant,
    phase,
)
from rescind.model.prover import Path, search
from rescind.model.system import State, TransitionSystem


@attrs.frozen
class CompensationView:
    key: str
    input_fingerprint: str
    grant_fingerprint: str
    phase: str
    result: str | None = None


@attrs.frozen
class RecordView:
    """One journal record: ``phase`` is a lifecycle value; ``result`` identifies a stored
    payload or failure message (equal strings for equal results), ``None`` when there is
    none."""

    tool: str
    input_fingerprint: str
    phase: str
    result: str | None = None
    compensation: CompensationView | None = None


@attrs.frozen
class GrantView:
    tool: str
    json_format: bool
    max_calls: int
    max_input_bytes: int
    max_output_bytes: int
    max_compensations: int
    resources: frozenset[str]
    fingerprint: str


@attrs.frozen
class WorkerObservation:
    scope: str
    stored: Mapping[str, RecordView]
    memory: Mapping[str, RecordView] | None
    """``None`` when the live session's memory is not observable (see the module doc)."""
    live: bool
    lease: int
    fence: int
    effects: Mapping[str, int]
    inverse_effects: Mapping[str, int]
    compensations_used: Mapping[str, int] | None
    grants: Mapping[str, GrantView]
    identities: frozenset[tuple[str, str, str, str, str, str]] | None = None
    """The authorizer's compensation identities as (tool, key, compensation key, scope,
    grant fingerprint, input fingerprint); ``None`` when not observable."""


JOURNAL_STEPS = {
    "dispatch": ("admit", "persist", "dispatch_effect", "observe", "crash_restore"),
    "compensate": (
        "authorize_compensation",
        "admit_compensation",
        "persist",
        "compensation_effect",
        "observe_compensation",
        "crash_restore",
    ),
    "reconcile": ("observe", "persist", "crash_restore"),
    "restart": ("lease_takeover",),
    "restart_attenuated": ("attenuate_grant",),
    "takeover": ("lease_takeover",),
    "superseded_write": ("superseded_write",),
}
"""Which model actions may explain one reference step of each kind."""


class Abstraction:
    """Identifier constants shared by every snapshot of one run."""

    def __init__(self) -> None:
        self._constants: dict[tuple[str, str], Expr] = {}
        self._results: dict[str, int] = {}
        self.system = TransitionSystem()

    def constant(self, sort: Any, text: str) -> Expr:
        key = (sort.name(), text)
        if key not in self._constants:
            self._constants[key] = z3.Const(f"{sort.name()}={text}", sort)
        return self._constants[key]

    def result(self, text: str) -> int:
        return self._results.setdefault(text, len(self._results) + 1)

    def universe(self) -> dict[Any, list[Expr]]:
        by_sort: dict[Any, list[Expr]] = {}
        for term in self._constants.values():
            by_sort.setdefault(term.sort(), []).append(term)
        return by_sort

    def distinct(self) -> list[Expr]:
        return [z3.Distinct(*terms) for terms in self.universe().values() if len(terms) > 1]

    # -- one snapshot --------------------------------------------------------------------

    def constraints(self, state: State, seen: WorkerObservation, keys: Iterable[str]) -> Expr:
        parts: list[Expr] = [
            state["worker.scope"] == self.constant(SCOPE, seen.scope),
            state["worker.live"] == seen.live,
            state["worker.lease"] == seen.lease,
            state["store.fence"] == seen.fence,
        ]
        for key in keys:
            k = self.constant(KEY, key)
            parts.append(state["effects.forward"][k] == seen.effects.get(key, 0))
            parts.append(state["effects.inverse"][k] == seen.inverse_effects.get(key, 0))
            # Snapshots are taken between requests: no adapter call is owed at that moment.
            parts.append(z3.Not(state["worker.owed"][k]))
            parts.append(z3.Not(state["worker.cmp_owed"][k]))
            parts.extend(self._record(state, "disk", k, seen.stored.get(key)))
            if seen.memory is not None:
                parts.extend(self._record(state, "mem", k, seen.memory.get(key)))
        for tool, grant in seen.grants.items():
            t = self.constant(TOOL, tool)
            parts.append(state["grant.active"][t] == self._grant(grant))
            parts.append(
                self.system.fingerprint(state["grant.active"][t])
                == self.constant(FINGERPRINT, grant.fingerprint)
            )
            if seen.compensations_used is not None:
                used = seen.compensations_used.get(tool, 0)
                parts.append(state["auth.cmp_used"][t] == used)
        if seen.identities is not None:
            identities = z3.EmptySet(IDENTITY)
            for tool, key, ckey, scope, fp, input_fp in sorted(seen.identities):
                identity = IDENTITY.identity(
                    self.constant(TOOL, tool),
                    self.constant(KEY, key),
                    self.constant(CKEY, ckey),
                    self.constant(SCOPE, scope),
                    self.constant(FINGERPRINT, fp),
                    self.constant(INPUT, input_fp),
                )
                identities = z3.SetAdd(identities, identity)
            parts.append(state["auth.identities"] == identities)
        return z3.And(parts)

    def _record(self, state: State, part: str, k: Expr, record: RecordView | None) -> list[Expr]:
        if record is None:
            return [state[f"{part}.op"][k] == phase("absent")]
        parts = [
            state[f"{part}.op"][k] == phase(record.phase),
            state[f"{part}.tool"][k] == self.constant(TOOL, record.tool),
        ]
        if record.result is not None:
            parts.append(state[f"{part}.result"][k] == self.result(record.result))
        compensation = record.compensation
        if compensation is None:
            parts.append(state[f"{part}.cmp"][k] == phase("absent"))
            return parts
        parts += [
            state[f"{part}.cmp"][k] == phase(compensation.phase),
            state[f"{part}.cmp_key"][k] == self.constant(CKEY, compensation.key),
            state[f"{part}.cmp_input"][k] == self.constant(INPUT, compensation.input_fingerprint),
            state[f"{part}.cmp_fp"][k]
            == self.constant(FINGERPRINT, compensation.grant_fingerprint),
        ]
        if compensation.result is not None:
            parts.append(state[f"{part}.cmp_result"][k] == self.result(compensation.result))
        return parts

    def _grant(self, grant: GrantView) -> Expr:
        resources = z3.EmptySet(RESOURCE)
        for name in sorted(grant.resources):
            resources = z3.SetAdd(resources, self.constant(RESOURCE, name))
        return make_grant(
            tool=self.constant(TOOL, grant.tool),
            json_format=z3.BoolVal(grant.json_format),
            max_calls=z3.IntVal(grant.max_calls),
            max_input_bytes=z3.IntVal(grant.max_input_bytes),
            max_output_bytes=z3.IntVal(grant.max_output_bytes),
            max_compensations=z3.IntVal(grant.max_compensations),
            resources=resources,
        )

    # -- one step --------------------------------------------------------------------------

    def explain(
        self,
        before: WorkerObservation,
        after: WorkerObservation,
        actions: Sequence[str],
        depth: int = 7,
    ) -> Path | None:
        """The shortest path of ``actions`` (possibly empty) from ``before`` to ``after``."""
        keys = sorted({*_keys(before), *_keys(after)})
        for text in (before.scope, after.scope):
            self.constant(SCOPE, text)
        # Touch every identifier first, so the distinctness constraints cover them all.
        probe = State.fresh("probe")
        self.constraints(probe, before, keys)
        self.constraints(probe, after, keys)
        distinct = self.distinct()
        universe = {
            sort: terms
            for sort, terms in self.universe().items()
            if sort in (KEY, TOOL, CKEY, SCOPE, INPUT)
        }

        def start(state: State) -> Expr:
            return z3.And(*distinct, self.constraints(state, before, keys))

        def target(m: TransitionSystem, previous: State, last: State, ix: Any) -> Expr:
            return self.constraints(last, after, keys)

        return search(
            self.system,
            target,
            depth=depth,
            first_check=0,
            start=start,
            universe=universe,
            actions=actions,
        )


def _keys(seen: WorkerObservation) -> set[str]:
    found = set(seen.stored) | set(seen.effects) | set(seen.inverse_effects)
    found |= {identity[1] for identity in seen.identities or ()}
    if seen.memory is not None:
        found |= set(seen.memory)
    return found


def describe(path: Path) -> list[str]:
    """The action names of a path, for messages."""
    return [path.chosen(position).action.name for position in range(len(path))]
