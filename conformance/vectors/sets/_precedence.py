"""Pairwise error-precedence vectors, generated from ``rescind.conformance.precedence``.

A topic describes one operation's inputs: a valid base document, and per check of the
operation's list a *fault* that breaks exactly that check at an item position (per-item
checks) or once (the others). For every pair the list has (docs/spec/precedence.md),
the family applies both faults to the base, earlier check first (the per-item pair of one
item at item 1, the wrap-around pair at items 1 and 2), and yields a row expecting the
earlier check's refusal. Before it does, it checks the base is accepted, each fault alone is
refused by its own check, and the pair is refused by the earlier one: a list, a fault or the
reference that disagrees stops the export. Adding a check to a list adds its rows.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

import attrs

from rescind.conformance.cases import CaseRow
from rescind.conformance.precedence import BY_NAME, Check, Pair
from rescind.conformance.provenance import Provenance
from rescind.conformance.vectors.format import VectorTest
from rescind.reference.errors import RescindError, error_registry

Fault = Callable[[Any, int], None]
"""Breaks one check in a document (mutated in place); the int is the item position."""

FLAG = "ErrorPrecedence"
NOTE = (
    "checks run in another order than upstream's (docs/spec/precedence.md)",
    "an input that breaks two rules gets another code than upstream gives it, so hosts that"
    " branch on the code take another path",
)


@attrs.frozen
class Faults:
    operation: str
    """A ``rescind.conformance.precedence`` operation name."""
    id_prefix: str
    base: Callable[[], Any]
    faults: Mapping[str, Fault]
    to_input: Callable[[Any], dict[str, Any]]
    """The vector input for a document."""
    answer: Callable[[Mapping[str, Any]], Any]
    """The reference's answer for an input; raises ``RescindError`` when refused."""
    provenance: Provenance


def _refusal(faults: Faults, document: Any) -> RescindError | None:
    try:
        faults.answer(faults.to_input(document))
    except RescindError as error:
        return error
    return None


def _is(error: RescindError | None, check: Check) -> bool:
    if error is None or error.code != check.code:
        return False
    return not check.marker or error.details.get(check.marker_key) == check.marker


def _faulted(faults: Faults, *steps: tuple[Check, int]) -> Any:
    document = copy.deepcopy(faults.base())
    for check, position in steps:
        faults.faults[check.name](document, position)
    return document


def _describe(error: RescindError | None) -> str:
    return "accepted" if error is None else f"{error.code} {dict(error.details)}"


def pair_row(faults: Faults, pair: Pair) -> CaseRow:
    second_at = 2 if pair.next_item else 1
    for check, position in ((pair.first, 1), (pair.second, second_at)):
        alone = _refusal(faults, _faulted(faults, (check, position)))
        if not _is(alone, check):
            raise ValueError(f"{pair.name}: fault {check.name} alone gives {_describe(alone)}")
    both = _faulted(faults, (pair.first, 1), (pair.second, second_at))
    refused = _refusal(faults, both)
    if not _is(refused, pair.first):
        raise ValueError(f"{pair.name}: both faults give {_describe(refused)}")
    operation = BY_NAME[faults.operation]
    where = f" of the next {operation.item}" if pair.next_item else ""
    return CaseRow(
        f"{faults.id_prefix}.precedence.{pair.slug}",
        operation.rule,
        f"Breaks `{pair.first.name}` and `{pair.second.name}`{where}: the earlier check's"
        f" `{pair.first.code}` ({operation.rule}).",
        faults.to_input(both),
        faults.provenance,
        result="acceptable" if operation.acceptable else "invalid",
        flags=(FLAG,),
    )


def pair_rows(faults: Faults) -> list[CaseRow]:
    operation = BY_NAME[faults.operation]
    pairs = operation.covered_pairs()
    needed = {check.name for pair in pairs for check in (pair.first, pair.second)}
    missing = needed - set(faults.faults)
    if missing:
        raise ValueError(f"{operation.name}: no fault for {sorted(missing)}")
    if _refusal(faults, faults.base()) is not None:
        raise ValueError(f"{operation.name}: the base input is refused")
    return [pair_row(faults, pair) for pair in pairs]


def last_step(run: Callable[[Mapping[str, Any]], Mapping[str, Any]]) -> Callable[[Any], Any]:
    """An answer for trace inputs: runs the trace, requires every step before the last to
    succeed, and raises the last step's refusal again as the reference's error."""

    def answer(trace: Mapping[str, Any]) -> Any:
        outcomes = run(trace)["steps"]
        if any("error" in outcome for outcome in outcomes[:-1]):
            raise ValueError(f"an earlier step was refused: {outcomes}")
        last = outcomes[-1]
        if "error" in last:
            raise error_registry()[last["error"]](**last.get("details", {}))
        return last

    return answer


def trace_test(
    run: Callable[[Mapping[str, Any]], Mapping[str, Any]],
) -> Callable[[CaseRow], VectorTest]:
    """A pair row of a trace topic as its vector: the expectation is the reference's run."""

    def to_vector(row: CaseRow) -> VectorTest:
        return VectorTest(
            row.id,
            row.rule,
            row.comment,
            row.input,
            dict(run(row.input)),
            "valid",
            row.flags,
            provenance=row.provenance,
        )

    return to_vector
