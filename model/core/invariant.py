"""The shape of an invariant: a formula over one state at a few universally quantified
indices, the named lemmas that strengthen it, and an optional step property.

The safety model's invariants (``rescind.model.safety.invariants``) and the progress system's
lemmas (``rescind.model.progress.lemmas``) are both of this shape, and the prover and the
ranking proofs take it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs
import z3

from rescind.model.core.logic import Expr
from rescind.model.core.system import State, TransitionSystem

Indices = Mapping[str, Expr]
StateFormula = Callable[[TransitionSystem, State, Indices], Expr]
StepFormula = Callable[[TransitionSystem, State, State, Indices], Expr]


@attrs.frozen
class Lemma:
    name: str
    meaning: str
    formula: StateFormula = attrs.field(repr=False)


@attrs.frozen
class Invariant:
    name: str
    statement: str
    rule: str
    indices: tuple[tuple[str, Any], ...]
    holds: StateFormula = attrs.field(repr=False)
    strengthening: tuple[Lemma, ...] = ()
    step: StepFormula | None = attrs.field(default=None, repr=False)

    def strengthened(self, m: TransitionSystem, s: State, ix: Indices) -> Expr:
        return z3.And(
            [self.holds(m, s, ix), *(lemma.formula(m, s, ix) for lemma in self.strengthening)]
        )
