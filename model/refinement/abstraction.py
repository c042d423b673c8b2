"""Refinement: is a step of the reference an allowed transition of the model?

The reference is observed through plain snapshots, so this module does not depend on any
reference class. A snapshot is anything that names the indices it observes and turns itself
into constraints on the model's state variables (:class:`Snapshot`): this module has the
worker's (:class:`WorkerObservation`), ``host`` the host's. :class:`Abstraction`
holds what every snapshot of one run shares: identifiers become distinct constants of their
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
call is owed. The host ledger, approvals and the wire are not observed by the worker
snapshot (``host`` observes the first two). Each step is checked on its own (the
unobserved variables are chosen afresh for every step).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

import attrs
import z3

from rescind.model.core.logic import (
    CKEY,
    FINGERPRINT,
    IDENTITY,
    INPUT,
    KEY,
    NONCE,
    RESOURCE,
    SCOPE,
    TOOL,
    Expr,
    make_grant,
    phase,
)
from rescind.model.core.prover import Path, search
from rescind.model.core.system import State, TransitionSystem

IdentityTuple = tuple[str, str, str, str, str, str]
"""(tool, key, compensation key, scope, grant fingerprint, input fingerprint)."""


class Snapshot(Protocol):
    """One observation of the reference, as constraints on one model state."""

    def index_names(self) -> Mapping[str, frozenset[str]]:
        """The identifiers this snapshot says something about, by kind (``"key"``,
        ``"nonce"``). The union over both snapshots of a step is constrained in each, so an
        identifier one side does not hold is pinned to "nothing there" on that side."""
        ...

    def constrain(
        self, abstraction: Abstraction, state: State, names: Mapping[str, Sequence[str]]
    ) -> Expr: ...


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
    identities: frozenset[IdentityTuple] | None = None
    """The authorizer's compensation identities as (tool, key, compensation key, scope,
    grant fingerprint, input fingerprint); ``None`` when not observable."""

    def index_names(self) -> Mapping[str, frozenset[str]]:
        found = set(self.stored) | set(self.effects) | set(self.inverse_effects)
        found |= {identity[1] for identity in self.identities or ()}
        if self.memory is not None:
            found |= set(self.memory)
        return {"key": frozenset(found)}

    def constrain(
        self, abstraction: Abstraction, state: State, names: Mapping[str, Sequence[str]]
    ) -> Expr:
        return abstraction.constraints(state, self, names.get("key", ()))


class _IdentityFields(Protocol):
    @property
    def tool(self) -> str: ...
    @property
    def operation_key(self) -> str: ...
    @property
    def compensation_key(self) -> str: ...
    @property
    def tenant_scope(self) -> str: ...
    @property
    def grant_fingerprint(self) -> str: ...
    @property
    def input_fingerprint(self) -> str: ...


class _IdentitySource(Protocol):
    @property
    def compensation_identities(self) -> Iterable[_IdentityFields]: ...


def authorizer_identities(authorizer: _IdentitySource) -> frozenset[IdentityTuple]:
    """A session authorizer's paid-for identities (its public, read-only
    ``compensation_identities``) as the tuples :class:`WorkerObservation` holds."""
    return frozenset(
        (
            i.tool,
            i.operation_key,
            i.compensation_key,
            i.tenant_scope,
            i.grant_fingerprint,
            i.input_fingerprint,
        )
        for i in authorizer.compensation_identities
    )


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
        parts.extend(self.pin_grants(state, seen.grants))
        if seen.compensations_used is not None:
            for tool in seen.grants:
                used = seen.compensations_used.get(tool, 0)
                parts.append(state["auth.cmp_used"][self.constant(TOOL, tool)] == used)
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

    def pin_grants(self, state: State, grants: Mapping[str, GrantView]) -> list[Expr]:
        """Each tool's active grant is the observed one, and its fingerprint is the
        constant of the observed fingerprint."""
        parts = []
        for tool, grant in grants.items():
            active = state["grant.active"][self.constant(TOOL, tool)]
            parts.append(active == self.grant_term(grant))
            parts.append(
                self.system.fingerprint(active) == self.constant(FINGERPRINT, grant.fingerprint)
            )
        return parts

    def grant_term(self, grant: GrantView) -> Expr:
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
        before: Snapshot,
        after: Snapshot,
        actions: Sequence[str],
        depth: int = 7,
    ) -> Path | None:
        """The shortest path of ``actions`` (possibly empty) from ``before`` to ``after``.

        Action parameters of the identifier sorts range over the identifiers this
        abstraction has met so far (when it has met any of that sort), so the model cannot
        explain a change by acting on an identifier nobody observes."""
        first, second = before.index_names(), after.index_names()
        names = {
            kind: sorted(first.get(kind, frozenset()) | second.get(kind, frozenset()))
            for kind in {*first, *second}
        }
        # Touch every identifier first, so the distinctness constraints cover them all.
        probe = State.fresh("probe")
        before.constrain(self, probe, names)
        after.constrain(self, probe, names)
        distinct = self.distinct()
        universe = {
            sort: terms
            for sort, terms in self.universe().items()
            if sort in (KEY, TOOL, CKEY, SCOPE, INPUT, NONCE)
        }

        def start(state: State) -> Expr:
            return z3.And(*distinct, before.constrain(self, state, names))

        def target(m: TransitionSystem, previous: State, last: State, ix: Any) -> Expr:
            return after.constrain(self, last, names)

        return search(
            self.system,
            target,
            depth=depth,
            first_check=0,
            start=start,
            universe=universe,
            actions=actions,
        )


def describe(path: Path) -> list[str]:
    """The action names of a path, for messages."""
    return [path.chosen(position).action.name for position in range(len(path))]
