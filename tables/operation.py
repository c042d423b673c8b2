"""Lifecycle tables, as data.

Theory. An operation (and, with the very same rule, a compensation) is created ``pending``
by its owner and afterwards only *observed*: a worker status says ``running``, ``succeeded``,
``failed`` or ``cancelled``; ``pending`` is never observed. Each (current, observed) pair has
one verdict:

* ``advance``       the record moves to the observed state;
* ``stay``          accepted, nothing changes (no revision bump, no write needed);
* ``stay_if_same``  accepted as a no-op only when the observation equals the stored terminal
                    value, otherwise rejected. *Equality is the layer's*: the worker journal
                    compares payloads and messages structurally, the host ledger compares the
                    state kind only, so for the host this verdict always accepts;
* ``reject``        a contradiction; nothing changes and a typed error is raised.

The table below is the single statement of that rule. The worker journal and the host ledger
execute it, ``rescind.model`` proves invariants over it, and ``rescind diagram`` draws it. A
pair missing from the table is a reject, so "terminal states never change" can be read off the
data: no ``advance`` row leaves a terminal state.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from types import MappingProxyType

import attrs


class Phase(enum.Enum):
    PENDING = "pending"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"


class Verdict(enum.Enum):
    ADVANCE = "advance"
    STAY = "stay"
    STAY_IF_SAME = "stay_if_same"
    REJECT = "reject"


@attrs.frozen
class Lifecycle:
    """A state machine given as data: ``table[(current, observed)]`` is the verdict."""

    name: str
    states: tuple[Phase, ...]
    initial: Phase
    terminal: frozenset[Phase]
    observable: tuple[Phase, ...]
    table: Mapping[tuple[Phase, Phase], Verdict]

    def verdict(self, current: Phase, observed: Phase) -> Verdict:
        return self.table.get((current, observed), Verdict.REJECT)

    def is_terminal(self, phase: Phase) -> bool:
        return phase in self.terminal


_P = Phase
_A, _S, _SAME = Verdict.ADVANCE, Verdict.STAY, Verdict.STAY_IF_SAME

OPERATION_LIFECYCLE = Lifecycle(
    name="operation",
    states=tuple(Phase),
    initial=_P.PENDING,
    terminal=frozenset({_P.SUCCEEDED, _P.FAILED, _P.CANCELLED}),
    observable=(_P.RUNNING, _P.SUCCEEDED, _P.FAILED, _P.CANCELLED),
    table=MappingProxyType(
        {
            (_P.PENDING, _P.RUNNING): _A,
            (_P.PENDING, _P.SUCCEEDED): _A,
            (_P.PENDING, _P.FAILED): _A,
            (_P.PENDING, _P.CANCELLED): _A,
            (_P.RUNNING, _P.RUNNING): _S,
            (_P.RUNNING, _P.SUCCEEDED): _A,
            (_P.RUNNING, _P.FAILED): _A,
            (_P.RUNNING, _P.CANCELLED): _A,
            (_P.SUCCEEDED, _P.SUCCEEDED): _SAME,
            (_P.FAILED, _P.FAILED): _SAME,
            (_P.CANCELLED, _P.CANCELLED): _S,
        }
    ),
)
"""Operations and compensations, worker journal and host ledger alike (one rule)."""
