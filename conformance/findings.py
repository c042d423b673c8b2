"""Vectors whose expectation upstream's code answers differently, each a named finding.

An observation (``rescind.conformance.observation``) that records ``differed`` for a vector
makes ``rescind vectors export`` and ``rescind vectors check`` fail unless the vector is
listed here, so a disagreement with upstream is never silently ignored: either the
expectation is fixed, or the difference is a documented hazard in docs/findings.md (``Fn``)
with the upstream code site that explains it. A listed vector keeps its provenance (it is
never upgraded to ``upstream-observed``) and its citation says that upstream differs.
"""

from __future__ import annotations

import re

import attrs

_FINDING = re.compile(r"^F[0-9]{1,3}$")
_SITE = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+ [0-9a-f]{7,40} \S")


@attrs.frozen
class ObservedDifference:
    vector: str
    """The vector id whose expectation upstream's code does not reproduce."""
    finding: str = attrs.field(validator=attrs.validators.matches_re(_FINDING))
    """The entry of docs/findings.md (``F13``) that explains it."""
    site: str = attrs.field(validator=attrs.validators.matches_re(_SITE, func=re.match))
    """The upstream code site: ``owner/repository commit path symbol``."""


OBSERVED_DIFFERENCES: tuple[ObservedDifference, ...] = ()
"""Empty until an observation of upstream's code records a difference (none is committed
yet: the integrator produces the first with the built Splash driver)."""
