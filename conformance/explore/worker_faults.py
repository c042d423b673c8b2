"""Exploration of worker-side calls with several faults at once (docs/spec/precedence.md):
journal admission, reconciliation and compensation observation (EP-20 to EP-22) and
stored-record writes, plain and fenced (EP-23, EP-24).

Hypothesis draws one operation, then two or more of the faults its precedence vectors use
(each breaks one check; ``rescind.conformance.vectors.sets._journal_calls_precedence`` and
``_storage_precedence``), applies them to the operation's valid base in the list's order and
runs the resulting trace. The driver's answer must equal the reference's, which refuses with
the first check of the list that the input breaks, as upstream's code does. The pair vectors
cover adjacent checks; these traces break any subset, so a check moved past a non-adjacent
one shows too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs
from hypothesis import strategies as st

from rescind.conformance.explore.engine import Area
from rescind.conformance.harness.restrictions import (
    AUTHORIZED_BY_AUTHORIZER,
    NO_BACKEND_STATE_INJECTION,
    RESULT_CHECK_NEEDS_ISSUING_AUTHORIZER,
)
from rescind.conformance.precedence import BY_NAME
from rescind.conformance.vectors.sets._journal_calls_precedence import TOPICS
from rescind.conformance.vectors.sets._storage_precedence import WRITE_TOPICS

Document = dict[str, Any]


@attrs.frozen
class FaultSource:
    """One operation's base and faults, and the trace a document becomes."""

    operation: str
    base: Callable[[], Document]
    faults: Mapping[str, Callable[[Document, int], None]]
    to_input: Callable[[Mapping[str, Any]], dict[str, Any]]

    def names(self) -> tuple[str, ...]:
        """The faults in the order of the operation's checks."""
        checks = BY_NAME[self.operation].checks
        return tuple(check.name for check in checks if check.name in self.faults)


def multi_fault(sources: Sequence[FaultSource]) -> st.SearchStrategy[dict[str, Any]]:
    @st.composite
    def draw_input(draw: st.DrawFn) -> dict[str, Any]:
        source = draw(st.sampled_from(sources))
        names = source.names()
        chosen = set(draw(st.lists(st.sampled_from(names), min_size=2, unique=True)))
        document = source.base()
        for name in names:
            if name in chosen:
                source.faults[name](document, 1)
        return source.to_input(document)

    return draw_input()


def _journal(authorized: bool) -> tuple[FaultSource, ...]:
    return tuple(
        FaultSource(
            topic.operation,
            topic.base,
            topic.faults,
            topic.authorized if authorized else topic.raw,
        )
        for topic in TOPICS
    )


def _under(area: Area, declared: frozenset[str]) -> Area:
    """A driver that builds authorized values only through the session authorizer gets the
    same faults in the authorized spelling."""
    raw_pairs = {AUTHORIZED_BY_AUTHORIZER.name, RESULT_CHECK_NEEDS_ISSUING_AUTHORIZER.name}
    if not raw_pairs & declared:
        return area
    return attrs.evolve(
        area, traces=multi_fault(_journal(True)), variant=AUTHORIZED_BY_AUTHORIZER.name
    )


JOURNAL_FAULTS_AREA = Area(
    name="journal-faults",
    op="journal.trace",
    capability="journal",
    rule="EP-21",
    description="journal admissions, reconciliations and compensation observations breaking "
    "several checks at once (EP-20 to EP-22) get the first refusing check's code, in "
    "upstream's order, as the reference gives it",
    traces=multi_fault(_journal(False)),
    variants=_under,
)

# Only a planted record reaches revision 2^64-1; the other faults use ordinary calls.
_PLANTED = frozenset({"exhausted"})


def _storage(planting: bool) -> tuple[FaultSource, ...]:
    return tuple(
        FaultSource(
            operation,
            base,
            {name: fault for name, fault in faults.items() if planting or name not in _PLANTED},
            to_input,
        )
        for operation, base, faults, to_input in WRITE_TOPICS
    )


def _under_storage(area: Area, declared: frozenset[str]) -> Area:
    """A driver that cannot plant backend state gets every fault but the exhausted revision."""
    if NO_BACKEND_STATE_INJECTION.name not in declared:
        return area
    return attrs.evolve(
        area, traces=multi_fault(_storage(False)), variant=NO_BACKEND_STATE_INJECTION.name
    )


STORAGE_FAULTS_AREA = Area(
    name="storage-write-faults",
    op="storage.trace",
    capability="storage",
    rule="EP-23",
    description="plain and fenced writes breaking several checks at once (EP-23, EP-24: "
    "fence, payload size, current record, conflict, exhausted revision) get the first "
    "refusing check's code, in upstream's order, as the reference gives it",
    traces=multi_fault(_storage(True)),
    variants=_under_storage,
)
