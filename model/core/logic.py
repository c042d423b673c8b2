"""Sorts, value types and the lifecycle table as z3 terms.

Every identifier the protocol carries (operation key, compensation key, tool, tenant scope,
input fingerprint, resource, approval nonce) is an *uninterpreted sort*: the proofs hold for
any number of values, so nothing is bounded by a chosen universe size. Limits are integers.

The observation rule is not written here. :class:`LifecycleLogic` turns the rows of a
:class:`~rescind.tables.operation.Lifecycle` table into formulas, so the model executes
the same data as the worker journal and the host ledger (MD-1).

The grant fingerprint is an *injective function* of the grant's fields (MD-7): it is the
uninterpreted function ``grant_fp`` applied to a tuple of the covered fields, and injectivity
is stated by an inverse function ``grant_of_fp`` with ``grant_of_fp(grant_fp(x)) == x``. The
model cannot express BLAKE3, so "the fingerprint changes whenever the grant does" is exactly
as strong as that assumption; collisions are outside the model.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from typing import Any

import attrs
import z3

from rescind.tables.operation import OPERATION_LIFECYCLE, Lifecycle, Phase, Verdict

Expr = Any
"""A z3 expression (z3 ships no type information, so this is ``Any`` to mypy)."""

KEY = z3.DeclareSort("Key")
CKEY = z3.DeclareSort("CompensationKey")
TOOL = z3.DeclareSort("Tool")
SCOPE = z3.DeclareSort("Scope")
INPUT = z3.DeclareSort("InputFp")
RESOURCE = z3.DeclareSort("Resource")
NONCE = z3.DeclareSort("Nonce")
FINGERPRINT = z3.DeclareSort("GrantFp")
INT = z3.IntSort()
BOOL = z3.BoolSort()

ABSENT = "absent"
"""The phase of a slot that holds no record yet (not a lifecycle state)."""

GRANT_FIELDS: tuple[str, ...] = (
    "tool",
    "json_format",
    "max_calls",
    "max_input_bytes",
    "max_output_bytes",
    "max_compensations",
    "resources",
)
LIMIT_FIELDS: tuple[str, ...] = (
    "max_calls",
    "max_input_bytes",
    "max_output_bytes",
    "max_compensations",
)


def _field_sort(name: str) -> Any:
    if name == "tool":
        return TOOL
    if name == "json_format":
        return BOOL
    if name == "resources":
        return z3.SetSort(RESOURCE)
    return INT


def _make_grant_sort() -> Any:
    datatype = z3.Datatype("Grant")
    datatype.declare("grant", *[(name, _field_sort(name)) for name in GRANT_FIELDS])
    return datatype.create()


GRANT = _make_grant_sort()


def _make_phase_sort() -> tuple[Any, dict[str, Expr]]:
    names = [ABSENT, *(phase.value for phase in OPERATION_LIFECYCLE.states)]
    sort, values = z3.EnumSort("Phase", names)
    return sort, dict(zip(names, values, strict=True))


PHASE, PHASES = _make_phase_sort()


def phase(value: Phase | str) -> Expr:
    return PHASES[value.value if isinstance(value, Phase) else value]


def _make_approval_sort() -> tuple[Any, dict[str, Expr]]:
    names = ["unissued", "issued", "consumed"]
    sort, values = z3.EnumSort("ApprovalStatus", names)
    return sort, dict(zip(names, values, strict=True))


APPROVAL, APPROVAL_STATUS = _make_approval_sort()


def _make_identity_sort() -> Any:
    """The authorizer's compensation identity (tool, key, cmp key, scope, grant fp, input)."""
    datatype = z3.Datatype("CompensationIdentity")
    datatype.declare(
        "identity",
        ("id_tool", TOOL),
        ("id_key", KEY),
        ("id_ckey", CKEY),
        ("id_scope", SCOPE),
        ("id_fp", FINGERPRINT),
        ("id_input", INPUT),
    )
    return datatype.create()


IDENTITY = _make_identity_sort()


def _make_message_sort() -> Any:
    """A compensation result on the wire: which compensation key, and the state it reports."""
    datatype = z3.Datatype("CompensationMessage")
    datatype.declare("message", ("msg_ckey", CKEY), ("msg_phase", PHASE))
    return datatype.create()


MESSAGE = _make_message_sort()


def grant_field(grant: Expr, name: str) -> Expr:
    return getattr(GRANT, name)(grant)


def make_grant(**fields: Expr) -> Expr:
    return GRANT.grant(*[fields[name] for name in GRANT_FIELDS])


def narrower_or_equal(child: Expr, parent: Expr) -> Expr:
    """``child`` is an attenuation of ``parent``: same tool and format, nothing wider."""
    parts = [
        grant_field(child, "tool") == grant_field(parent, "tool"),
        grant_field(child, "json_format") == grant_field(parent, "json_format"),
        z3.IsSubset(grant_field(child, "resources"), grant_field(parent, "resources")),
    ]
    parts.extend(grant_field(child, name) <= grant_field(parent, name) for name in LIMIT_FIELDS)
    return z3.And(parts)


@functools.cache
def _fingerprint_functions(covered: tuple[str, ...]) -> tuple[Any, Any, Any]:
    """One input tuple sort and one injective function pair per covered-field selection."""
    suffix = (
        ""
        if covered == GRANT_FIELDS
        else "_without_" + "_".join(name for name in GRANT_FIELDS if name not in covered)
    )
    datatype = z3.Datatype(f"FpInput{suffix}")
    datatype.declare("fp_input" + suffix, *[(f"in_{n}{suffix}", _field_sort(n)) for n in covered])
    input_sort = datatype.create()
    apply = z3.Function(f"grant_fp{suffix}", input_sort, FINGERPRINT)
    inverse = z3.Function(f"grant_of_fp{suffix}", FINGERPRINT, input_sort)
    return input_sort, apply, inverse


class Fingerprints:
    """Grant fingerprints as an injective function of the fields it covers.

    ``covered`` names the grant fields the fingerprint is computed over; the protocol covers
    all of them. Every application is remembered so that :meth:`axioms` can state
    injectivity for exactly the terms a query mentions (quantifier-free and complete for
    them, since injectivity only ever relates two applications).
    """

    def __init__(self, covered: Sequence[str] = GRANT_FIELDS) -> None:
        unknown = set(covered) - set(GRANT_FIELDS)
        if unknown:
            raise ValueError(f"unknown grant fields {sorted(unknown)}")
        self.covered = tuple(name for name in GRANT_FIELDS if name in covered)
        self._input_sort, self._apply, self._inverse = _fingerprint_functions(self.covered)
        self._seen: dict[int, Expr] = {}

    def of(self, grant: Expr) -> Expr:
        fields = [grant_field(grant, name) for name in self.covered]
        argument = self._input_sort.constructor(0)(*fields)
        self._seen.setdefault(argument.get_id(), argument)
        return self._apply(argument)

    def axioms(self) -> list[Expr]:
        return [self._inverse(self._apply(arg)) == arg for arg in self._seen.values()]

    def reset(self) -> None:
        self._seen.clear()


@attrs.frozen
class Observation:
    """The verdict of one (current, observed) pair, as formulas."""

    accepted: Expr
    advanced: Expr
    next_phase: Expr


@attrs.frozen
class LifecycleLogic:
    """A :class:`Lifecycle` table read as data and turned into z3 formulas."""

    lifecycle: Lifecycle = OPERATION_LIFECYCLE

    def __attrs_post_init__(self) -> None:
        if tuple(self.lifecycle.states) != tuple(OPERATION_LIFECYCLE.states):
            raise ValueError("the model's phase sort is built from the operation lifecycle")

    @property
    def initial(self) -> Expr:
        return phase(self.lifecycle.initial)

    def is_terminal(self, value: Expr) -> Expr:
        return z3.Or([value == phase(p) for p in sorted_phases(self.lifecycle.terminal)])

    def is_observable(self, value: Expr) -> Expr:
        return z3.Or([value == phase(p) for p in self.lifecycle.observable])

    def observe(self, current: Expr, observed: Expr, same_value: Expr) -> Observation:
        """Accept/advance formulas for observing ``observed`` while in ``current``.

        ``same_value`` is the layer's equality for ``stay_if_same`` rows: the worker passes
        "payload equals the stored one", the host passes ``True`` (it compares kinds only).
        Pairs missing from the table are rejections, exactly as in ``Lifecycle.verdict``.
        """
        advance: list[Expr] = []
        stay: list[Expr] = []
        for (now, seen), verdict in self.lifecycle.table.items():
            pair = z3.And(current == phase(now), observed == phase(seen))
            if verdict is Verdict.ADVANCE:
                advance.append(pair)
            elif verdict is Verdict.STAY:
                stay.append(pair)
            elif verdict is Verdict.STAY_IF_SAME:
                stay.append(z3.And(pair, same_value))
        advanced = z3.Or(advance) if advance else z3.BoolVal(False)
        accepted = z3.Or([*advance, *stay]) if advance or stay else z3.BoolVal(False)
        return Observation(accepted, advanced, z3.If(advanced, observed, current))


def sorted_phases(phases: Iterable[Phase]) -> list[Phase]:
    order = list(OPERATION_LIFECYCLE.states)
    return sorted(phases, key=order.index)
