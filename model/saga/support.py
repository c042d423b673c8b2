"""Shared pieces of the saga z3 checks (``proofs`` and ``planning``).

``run_timed``, ``any_of``, ``UNSETTLED`` and ``NOT_HAPPENED`` are public: the refinement
checks in ``rescind.conformance.sources.saga_model`` report through them too."""

from __future__ import annotations

import enum
import itertools
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import z3

from rescind.model.core.proof_check import CheckResult
from rescind.tables.saga import EffectStatus, StateTable

Table = StateTable[Any]
Lines = list[str]
Graph = dict[str, tuple[str, ...]]
"""Tasks in declaration order -> the tasks each one needs."""
_SORTS = itertools.count()
UNSETTLED = (EffectStatus.STARTED, EffectStatus.UNCERTAIN)
"""Raw statuses of an effect that may or may not have happened yet."""
NOT_HAPPENED = (
    EffectStatus.REQUESTED,
    EffectStatus.WAITING_FOR_APPROVAL,
    EffectStatus.FAILED,
    EffectStatus.CANCELLED,
)
"""Raw statuses of an effect that certainly did not act."""


def run_timed(body: Callable[[], tuple[Lines, str]]) -> CheckResult:
    """Run a body returning (counterexample lines, detail); no lines means proven."""
    started = time.perf_counter()
    try:
        lines, detail = body()
    except z3.Z3Exception as error:
        return CheckResult("unknown", time.perf_counter() - started, (), str(error))
    seconds = time.perf_counter() - started
    if lines:
        numbered = tuple(f"{index}. {line}" for index, line in enumerate(lines, 1))
        return CheckResult("violated", seconds, numbered, detail)
    return CheckResult("proven", seconds, (), detail)


def any_of(terms: Sequence[Any], ctx: z3.Context) -> Any:
    """A disjunction that is well-formed (and false) when ``terms`` is empty."""
    return z3.Or([*terms, z3.BoolVal(False, ctx)])


def _label(state: enum.Enum) -> str:
    return str(state.value)


def _enum(ctx: z3.Context, values: Sequence[str]) -> tuple[Any, dict[str, Any]]:
    sort, consts = z3.EnumSort(f"sort{next(_SORTS)}", list(values), ctx=ctx)
    return sort, dict(zip(values, consts, strict=True))


class _States:
    """A lifecycle table as a z3 enumeration, with its predicates as z3 formulas."""

    def __init__(self, table: Table, ctx: z3.Context) -> None:
        self.table = table
        self.ctx = ctx
        names = [f"{table.name}:{state.value}" for state in table.states]
        sort, consts = _enum(ctx, names)
        self.sort = sort
        self.const = {state: consts[name] for state, name in zip(table.states, names, strict=True)}
        self.state = {str(const): state for state, const in self.const.items()}

    def var(self, name: str) -> Any:
        return z3.Const(name, self.sort)

    def member(self, term: Any, group: Any) -> Any:
        return any_of([term == self.const[state] for state in group], self.ctx)

    def edge(self, source: Any, target: Any) -> Any:
        rows = [row for row in self.table.transitions if row.source != row.target]
        pairs = [(self.const[row.source], self.const[row.target]) for row in rows]
        return any_of([z3.And(source == a, target == b) for a, b in pairs], self.ctx)

    def solutions(self, formula: Any, *terms: Any) -> Iterator[tuple[Any, ...]]:
        """Every assignment of ``terms`` (states) satisfying ``formula``."""
        solver = z3.Solver(ctx=self.ctx)
        solver.add(formula)
        while solver.check() == z3.sat:
            model = solver.model()
            values = [model.eval(term, model_completion=True) for term in terms]
            yield tuple(self.state[str(value)] for value in values)
            solver.add(z3.Or([term != value for term, value in zip(terms, values, strict=True)]))

    def rows(self, source: Any, target: Any) -> str:
        found = [r for r in self.table.transitions if (r.source, r.target) == (source, target)]
        return ", ".join(f"{row.trigger} [{row.evidence}]" for row in found)


def _each_table(tables: Sequence[Table], visit: Callable[[_States, Lines], None]) -> Lines:
    ctx = z3.Context()
    lines: Lines = []
    for table in tables:
        visit(_States(table, ctx), lines)
    return lines
