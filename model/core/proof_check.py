"""The interface between proof modules and ``rescind prove``.

A proof module in ``rescind.model`` exposes ``checks() -> Sequence[Check]`` and is listed in
``rescind.model.catalog.PROOF_MODULES``; ``rescind prove`` runs the checks and reports one row
each.
A check never raises for a failed property: it returns ``violated`` with a readable numbered
counterexample trace, or ``unknown`` when z3 gives up. ``finding`` is a property that does not
hold upstream, where that is a documented upstream hazard reproduced by its named lasso
(docs/findings.md): not a failure of the suite, but a check that fails loudly (``violated``,
"expected finding not reproduced") once the lasso disappears.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import attrs

Status = Literal["proven", "violated", "unknown", "finding"]
PASSING: frozenset[str] = frozenset({"proven", "finding"})
"""Statuses that do not fail ``rescind prove`` (a finding passes, with its note)."""


@attrs.frozen
class CheckResult:
    status: Status
    seconds: float
    counterexample: tuple[str, ...] = ()
    """Numbered trace lines ("1. record_operation key=k0 ..."): a violation's trace, or a
    finding's lasso."""
    detail: str = ""
    finding: str = ""
    """The named lasso of a ``finding`` (or of a ``violated`` progress property)."""


@attrs.frozen
class Check:
    name: str
    statement: str
    rule: str
    run: Callable[[], CheckResult] = attrs.field(eq=False, repr=False)
    group: str = "protocol"
    expected_finding: str = ""
    """The named lasso this check documents (docs/findings.md), if any: such a check is never
    ``proven`` (it is a ``finding``, or ``violated`` once the lasso disappears), so a cached
    ``proven`` for it is refused."""
