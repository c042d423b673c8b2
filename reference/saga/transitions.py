"""Executes the saga lifecycle tables: the only way reference code changes a saga state."""

from __future__ import annotations

import enum
from typing import TypeVar

from rescind.reference.saga.errors import IllegalTransition
from rescind.tables.saga import StateTable

S = TypeVar("S", bound=enum.Enum)


def fire(table: StateTable[S], source: S, trigger: str, target: S | None = None) -> S:
    """The state after ``trigger`` in ``source``; a missing row is ``illegal_transition``."""
    after = table.target_of(source, trigger, target)
    if after is None:
        raise IllegalTransition(
            lifecycle=table.name, state=str(source.value).lower(), trigger=trigger
        )
    return after
