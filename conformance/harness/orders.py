"""An expectation that accepts every order consistent with a partial order.

Some upstream behaviour fixes only part of an order: CaseHub's coordinator undoes dependents
before what they depend on, but walks independent steps in hash order (docs/spec/saga.md
SG-100). A vector states that as ``{"linearExtensionOf": {"items": [...], "before": [[x, y],
...]}}`` in place of a list: the reply's list passes when it holds every item exactly once
and puts each ``x`` before its ``y``. The comparison (``vectors.checks`` and ``comparison``)
applies it wherever an expected value has exactly this one key.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

MATCHER: Final = "linearExtensionOf"


def linear_extension(items: Sequence[str], before: Sequence[Sequence[str]]) -> dict[str, Any]:
    """The expectation: any order of ``items`` that keeps every ``(x, y)`` of ``before``."""
    return {MATCHER: {"items": sorted(items), "before": sorted(list(pair) for pair in before)}}


def is_matcher(expected: Any) -> bool:
    return isinstance(expected, Mapping) and len(expected) == 1 and MATCHER in expected


def violation(expected: Mapping[str, Any], actual: Any) -> str | None:
    """Why ``actual`` is not an order the matcher ``expected`` accepts; ``None`` when it is.
    The reason names positions and counts only, never a value."""
    spec = expected[MATCHER]
    items, before = list(spec["items"]), spec["before"]
    if not isinstance(actual, list) or not all(isinstance(item, str) for item in actual):
        return "is not a list of names"
    if sorted(actual) != sorted(items):
        return f"is not an order of the {len(items)} expected items"
    position = {item: index for index, item in enumerate(actual)}
    for index, (first, second) in enumerate(before):
        if position[first] > position[second]:
            return f"breaks ordering pair {index}"
    return None
