"""Deliberately broken variants of the model, and states that must be reachable.

Both exist to show the proofs are not vacuous. Each :class:`BrokenVariant` removes one
protection (a guard, a table row, a fingerprint field, a side effect) and names the invariant
that must then fail; bounded model checking has to find a concrete counterexample path from
the initial state. Each :class:`Witness` is an interesting state that the correct model must
reach within a bound, so the guards are not so strong that nothing ever happens.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

import attrs
import z3

from rescind.model.core.logic import (
    APPROVAL_STATUS,
    CKEY,
    FINGERPRINT,
    GRANT_FIELDS,
    INPUT,
    KEY,
    NONCE,
    RESOURCE,
    SCOPE,
    TOOL,
    Expr,
    grant_field,
    phase,
)
from rescind.model.core.system import ModelConfig, State, TransitionSystem
from rescind.tables.operation import OPERATION_LIFECYCLE, Lifecycle, Phase, Verdict


@attrs.frozen
class BrokenVariant:
    name: str
    breaks: str
    """The invariant this variant must violate."""
    description: str
    config: ModelConfig
    depth: int
    """A bound within which the shortest counterexample is known to lie."""
    bounds: Mapping[Any, int] = attrs.field(factory=lambda: SMALL_SCOPE)
    """How many distinct values of each identifier sort the search may use."""


SMALL_SCOPE: Mapping[Any, int] = MappingProxyType(
    {sort: 1 for sort in (KEY, CKEY, TOOL, SCOPE, INPUT, RESOURCE, NONCE, FINGERPRINT)}
)
"""One value per identifier sort: enough for every scenario that concerns a single key.
Bounding the parameters is what keeps the searches fast; the proofs have no bound."""


def _scope(**extra: int) -> Mapping[Any, int]:
    sorts = {"KEY": KEY, "CKEY": CKEY, "TOOL": TOOL, "SCOPE": SCOPE, "INPUT": INPUT}
    return MappingProxyType({**SMALL_SCOPE, **{sorts[name]: n for name, n in extra.items()}})


def _with_row(current: Phase, observed: Phase, verdict: Verdict) -> Lifecycle:
    table = dict(OPERATION_LIFECYCLE.table)
    table[(current, observed)] = verdict
    return attrs.evolve(OPERATION_LIFECYCLE, table=MappingProxyType(table))


def _dropping(*guards: str) -> ModelConfig:
    return ModelConfig(dropped_guards=frozenset(guards))


BROKEN_VARIANTS: tuple[BrokenVariant, ...] = (
    BrokenVariant(
        "host_records_second_compensation",
        "host_at_most_one_compensation",
        "record_compensation no longer refuses an operation that already has an intent, so "
        "a second cmp- key can be recorded",
        _dropping("record_compensation.not_yet_recorded"),
        9,
    ),
    BrokenVariant(
        "worker_replaces_compensation",
        "worker_at_most_one_compensation",
        "admit_compensation attaches a new compensation even when one is already attached",
        _dropping("admit_compensation.not_yet_attached"),
        8,
    ),
    BrokenVariant(
        "terminal_may_advance",
        "terminal_states_never_change",
        "the lifecycle table gains a row succeeded -> failed (advance)",
        ModelConfig(lifecycle=_with_row(Phase.SUCCEEDED, Phase.FAILED, Verdict.ADVANCE)),
        8,
    ),
    BrokenVariant(
        "worker_overwrites_success_payload",
        "terminal_states_never_change",
        "the worker accepts succeeded(p) over succeeded(p0) with p != p0 as an update",
        ModelConfig(lifecycle=_with_row(Phase.SUCCEEDED, Phase.SUCCEEDED, Verdict.ADVANCE)),
        6,
    ),
    BrokenVariant(
        "reply_before_persist",
        "host_worker_terminal_agreement",
        "the worker answers from its in-memory journal before the observation is persisted; "
        "a crash then lets a different outcome become durable",
        ModelConfig(switches=frozenset({"reply.from_memory"})),
        10,
    ),
    BrokenVariant(
        "attenuation_raises_compensations",
        "attenuation_never_widens",
        "attenuate_grant no longer refuses a higher max_compensations",
        _dropping("attenuate_grant.max_compensations_not_raised"),
        2,
    ),
    BrokenVariant(
        "attenuation_adds_resource",
        "attenuation_never_widens",
        "attenuate_grant no longer requires the resources to be a subset of the parent's",
        _dropping("attenuate_grant.resources_subset"),
        2,
    ),
    BrokenVariant(
        "fingerprint_skips_max_compensations",
        "fingerprint_tracks_grant",
        "the grant fingerprint is computed without max_compensations",
        ModelConfig(
            fingerprint_covers=tuple(name for name in GRANT_FIELDS if name != "max_compensations")
        ),
        2,
    ),
    BrokenVariant(
        "compensate_unsucceeded_original",
        "compensation_matches_original",
        "admit_compensation no longer requires the original to have succeeded",
        _dropping("admit_compensation.original_succeeded"),
        5,
    ),
    BrokenVariant(
        "compensate_in_other_scope",
        "compensation_matches_original",
        "admit_compensation no longer compares the request's tenant scope with the journal's",
        _dropping("admit_compensation.scope_matches"),
        9,
    ),
    BrokenVariant(
        "effect_before_persist",
        "effect_requires_durable_admission",
        "the adapter is called as soon as the journal admits, before the admission is persisted",
        _dropping("dispatch_effect.admission_durable"),
        4,
    ),
    BrokenVariant(
        "readmit_existing_record",
        "one_effect_per_operation",
        "admit treats an existing record as new (Dispatch instead of Existing)",
        _dropping("admit.new_record"),
        7,
    ),
    BrokenVariant(
        "no_compensation_budget",
        "compensation_budget_respected",
        "authorize_compensation no longer checks the compensation budget",
        _dropping("authorize_compensation.budget_left"),
        3,
        _scope(CKEY=2),
    ),
    BrokenVariant(
        "unfenced_write",
        "superseded_lease_never_writes",
        "the store accepts a write without comparing the writer's token with the fence",
        _dropping("superseded_write.token_is_current"),
        3,
    ),
    BrokenVariant(
        "approval_not_consumed",
        "approval_used_at_most_once",
        "prepare leaves the approval issued instead of consuming it",
        ModelConfig(switches=frozenset({"prepare.keeps_approval"})),
        12,
    ),
)


WitnessTarget = Callable[[TransitionSystem, State, dict[str, Expr]], Expr]


@attrs.frozen
class Witness:
    name: str
    description: str
    target: WitnessTarget = attrs.field(repr=False)
    depth: int
    index_sorts: tuple[tuple[str, object], ...] = (("k", KEY),)
    bounds: Mapping[Any, int] = attrs.field(factory=lambda: SMALL_SCOPE)


def _succeeded(value: Expr) -> Expr:
    return value == phase("succeeded")


WITNESSES: tuple[Witness, ...] = (
    Witness(
        "host_sees_success",
        "the host ledger holds a succeeded operation after one adapter effect",
        lambda m, s, ix: z3.And(
            _succeeded(s["host.op"][ix["k"]]), s["effects.forward"][ix["k"]] == 1
        ),
        8,
    ),
    Witness(
        "compensated_original",
        "host and worker both hold a succeeded compensation of a succeeded original, after "
        "exactly one inverse effect, with the approval used",
        lambda m, s, ix: z3.And(
            _succeeded(s["host.cmp"][ix["k"]]),
            _succeeded(s["disk.cmp"][ix["k"]]),
            s["effects.inverse"][ix["k"]] == 1,
            s["approval.uses"][ix["n"]] == 1,
            s["approval.key"][ix["n"]] == ix["k"],
        ),
        20,
        (("k", KEY), ("n", NONCE)),
    ),
    Witness(
        "budget_exhausted",
        "a session has spent its whole compensation budget for a tool",
        lambda m, s, ix: z3.And(
            s["auth.cmp_used"][ix["t"]] >= 1,
            s["auth.cmp_used"][ix["t"]]
            == grant_field(s["grant.active"][ix["t"]], "max_compensations"),
        ),
        3,
        (("t", TOOL),),
    ),
    Witness(
        "strictly_attenuated",
        "the active grant for a tool is strictly narrower than its root grant",
        lambda m, s, ix: s["grant.active"][ix["t"]] != s["grant.root"][ix["t"]],
        1,
        (("t", TOOL),),
    ),
    Witness(
        "restored_after_crash",
        "after a crash and a takeover, a persisted pending record is back in memory under lease 2",
        lambda m, s, ix: z3.And(
            s["mem.op"][ix["k"]] == phase("pending"),
            s["disk.op"][ix["k"]] == phase("pending"),
            s["worker.lease"] == 2,
            s["worker.live"],
        ),
        6,
    ),
    Witness(
        "approval_consumed",
        "an approval has been issued and consumed",
        lambda m, s, ix: s["approval.status"][ix["n"]] == APPROVAL_STATUS["consumed"],
        10,
        (("n", NONCE),),
    ),
)


def witness(name: str) -> Witness:
    for candidate in WITNESSES:
        if candidate.name == name:
            return candidate
    raise KeyError(name)
