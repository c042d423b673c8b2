"""Exploration of host-engine calls with several faults at once (``ledger.trace``,
docs/spec/precedence.md EP-18, EP-30, EP-31, EP-33 to EP-35, EP-52, EP-53).

Each precedence family of the ledger traces describes one call: a base trace the reference
accepts and, per check of the call's list, a fault that breaks that check. Hypothesis picks a
family and two or more of its faults, applies them in the list's order and hands over the
resulting trace; the driver's answer to every step (and the ledger checkpoints) must equal
the reference's, which runs the checks in upstream's order. A disagreement shrinks towards
fewer faults, then fewer steps.

Faults whose trace needs a call that ``drivers/splash`` cannot make through upstream's public
API are not drawn (a policy built without validation, ``raw_policy``; the runtime-bound
``prepare_external_operation``), so the area runs against upstream as well.
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import assume
from hypothesis import strategies as st

from rescind.conformance.explore.engine import Answers, Area, reference_answer
from rescind.conformance.ops import registry as operations
from rescind.conformance.precedence import BY_NAME
from rescind.conformance.vectors.sets._ledger_precedence import record_faults
from rescind.conformance.vectors.sets._ledger_precedence_calls import (
    approve_faults,
    compensation_apply_faults,
    compensation_faults,
    dispatch_faults,
    reconcile_faults,
    reconciliation_faults,
    verified_faults,
)
from rescind.conformance.vectors.sets._precedence import Faults

_UNSUPPORTED = frozenset({"policy_tool", "policy_tenant", "policy_grant"})
"""Faults that need ``raw_policy`` (upstream's public constructor validates a policy)."""

FAMILIES: tuple[Faults, ...] = (
    record_faults(),
    compensation_faults(),
    reconcile_faults(),
    approve_faults(),
    reconciliation_faults(),
    compensation_apply_faults(),
    dispatch_faults(),
    verified_faults(),
)


def fault_names(faults: Faults) -> tuple[str, ...]:
    """The faults of a family the area draws, in its operation's check order."""
    checks = BY_NAME[faults.operation].checks
    return tuple(
        check.name
        for check in checks
        if check.name in faults.faults and check.name not in _UNSUPPORTED
    )


def faulted_trace(faults: Faults, names: tuple[str, ...]) -> dict[str, Any]:
    """The family's trace with ``names`` applied in check order (each at the first item)."""
    document = copy.deepcopy(faults.base())
    for name in fault_names(faults):
        if name in names:
            faults.faults[name](document, 1)
    trace: dict[str, Any] = faults.to_input(document)
    return trace


ANSWERS = Answers()


@st.composite
def faulty_calls(draw: st.DrawFn) -> dict[str, Any]:
    """A trace whose last call breaks two to four checks. Some sets of faults make the
    stored ledger itself invalid (a compensation on an operation that has not succeeded, a
    65th operation), so loading it fails and the call names no ledger: such a trace is
    malformed, and is drawn again. The reference's answer is kept (``ANSWERS``)."""
    faults = draw(st.sampled_from(FAMILIES))
    names = fault_names(faults)
    chosen = draw(st.lists(st.sampled_from(names), min_size=2, max_size=4, unique=True))
    trace = faulted_trace(faults, tuple(chosen))
    answer = reference_answer("ledger.trace", trace)
    assume(answer.get("error") != operations.BadRequest.code)
    ANSWERS.remember(trace, answer)
    return trace


LEDGER_FAULTS_AREA = Area(
    name="ledger-faults",
    op="ledger.trace",
    capability="ledger",
    rule="EP-18",
    description="host-engine calls (record an operation or a compensation intent, with or"
    " without verifiers, build a dispatch or reconciliation request, approve a compensation,"
    " apply a reconciliation or compensation result) breaking two to four checks at once get"
    " the first refusing check's code, in upstream's order, as the reference gives it",
    traces=faulty_calls(),
    answers=ANSWERS,
)
