"""One builder for every topic whose cases are a table (``conformance/cases/<topic>.toml``).

A topic supplies, per group of its table, the function that computes a case's expected value
from its input (raising a ``RescindError`` when the reference refuses it) and how a refusal is
written; this module turns each row into a vector and checks the row's stated result against
the computed one. The vector group's ``type`` is the table group's name; its other attributes
come from the group's ``attributes`` table, if any.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs

from rescind.conformance import cases
from rescind.conformance.cases import CaseRow, CaseTable
from rescind.conformance.vectors.format import VectorGroup, VectorTest
from rescind.reference.errors import RescindError


def error_only(error: Exception) -> dict[str, Any]:
    assert isinstance(error, RescindError)
    return {"error": error.code}


@attrs.frozen
class Computation:
    """How one group's expected values are computed; called with a row, gives its vector."""

    answer: Callable[[Mapping[str, Any]], dict[str, Any]]
    refusal: Callable[[Exception], dict[str, Any]] = error_only
    refused: tuple[type[Exception], ...] = (RescindError,)
    """The exceptions by which ``answer`` says the reference refuses the input."""

    def __call__(self, row: CaseRow) -> VectorTest:
        return tabled_test(row, self)


def tabled_test(row: CaseRow, computation: Computation) -> VectorTest:
    try:
        expected, computed = computation.answer(row.input), "valid"
    except computation.refused as error:
        expected, computed = computation.refusal(error), "invalid"
    return VectorTest(
        row.id,
        row.rule,
        row.comment,
        dict(row.input),
        expected,
        cases.intended(row, computed),
        row.flags,
        provenance=row.provenance,
    )


RowToVector = Callable[[CaseRow], VectorTest]
"""A group's builder: a ``Computation``, or a topic's own (e.g. traces checked step by step)."""


def tabled_groups(
    table: CaseTable, computations: Mapping[str, RowToVector]
) -> tuple[VectorGroup, ...]:
    """The vector groups of ``table``, in its order; every group needs a builder."""
    groups = []
    for group in table.groups:
        computation = computations.get(group.name)
        if computation is None:
            raise cases.CaseTableError(f"{table.topic}.toml group {group.name} has no computation")
        tests = tuple(computation(row) for row in group.rows)
        groups.append(VectorGroup(group.name, tests, dict(group.extra.get("attributes", {}))))
    return tuple(groups)
