"""What the runner runs: checks with stable IDs, tiers and rule citations, and their outcomes.

Tiers: ``must`` (a failure fails the run), ``should`` (reported, never fails the run: e.g.
an ``acceptable`` vector where upstream's behaviour was not reproduced) and ``profile``
(runs only for a profile the implementation declares, e.g. ``splash-v5-f64``; a driver that
declares the profile is held to it, so a failure fails the run like a ``must``).

Statuses: ``pass``, ``fail``, ``not-applicable`` (the implementation does not declare the
capability or profile; never counted as a pass), ``unsupported`` (the driver declared the
capability but answered ``unsupported`` for the request, or for a trace step after every
earlier step matched: it cannot express it; never a pass, never a failure), ``restricted`` (answered
``unsupported`` only where a restriction the driver declared excuses it: every gap it left is
a shape of a declared restriction, ``harness.restrictions``), ``error`` (the driver broke the
protocol during this check), ``not-run`` (the run's ``--deadline`` passed before the check
finished: never a pass, never a failure; the run exits 4), and ``xfail``/``xpass`` for checks
listed in an expected-failures file. ``unsupported`` is *unanswered*: it makes the claim of its
capability partial (exit 3).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, Literal

import attrs

from rescind.conformance.comparison import Comparison
from rescind.conformance.harness import Driver
from rescind.conformance.harness.restrictions import Gap
from rescind.conformance.harness.text import bound

Tier = Literal["must", "should", "profile"]
REQUIRED_TIERS: frozenset[str] = frozenset({"must", "profile"})
"""Tiers whose failure fails the run. A ``profile`` check runs only for a driver that
declares its profile (otherwise it is ``not-applicable``), and a declared profile is required."""
Status = Literal[
    "pass",
    "fail",
    "not-applicable",
    "unsupported",
    "restricted",
    "error",
    "xfail",
    "xpass",
    "not-run",
]
UNANSWERED: Final = "unsupported"
"""The status of a check the driver left (partly) unanswered outside its restrictions."""


@attrs.frozen
class Outcome:
    status: Status
    message: str = attrs.field(default="", converter=bound)
    """Bounded at construction (``harness.text.bound``): it may quote driver text."""
    seconds: float = 0.0
    comparison: Comparison | None = None
    """A failing vector check's bounded expected/actual values and differing paths."""
    gaps: tuple[Gap, ...] = ()
    """What the driver left unanswered (an ``unsupported`` outcome): the runner excuses the
    outcome as ``restricted`` when every gap is a shape of a declared restriction."""
    restricted_by: tuple[str, ...] = ()
    """A ``restricted`` outcome: the declared restrictions that excused its gaps."""


@attrs.frozen
class Check:
    id: str
    tier: Tier
    rule: str
    capability: str
    """The driver capability it needs (``model`` checks need none: they run in process)."""
    source: str
    """Where it comes from: a vector topic, ``scenario``, ``exploration`` or ``model``."""
    run: Callable[[Driver], Outcome] = attrs.field(eq=False, repr=False)
    profile: str | None = None
    description: str = ""
    provenance: str | None = None
    """A vector check's provenance kind (``rescind.conformance.provenance``); ``None`` for
    checks that are not golden vectors (reported as ``model``, see ``report.provenance_of``)."""


@attrs.frozen
class Result:
    check: Check
    outcome: Outcome

    @property
    def failed(self) -> bool:
        return self.check.tier in REQUIRED_TIERS and self.outcome.status in ("fail", "error")

    @property
    def unanswered(self) -> bool:
        """A required check the driver did not answer (wholly or in part) outside its
        declared restrictions: the claim of its capability is partial."""
        return self.check.tier in REQUIRED_TIERS and self.outcome.status == UNANSWERED
