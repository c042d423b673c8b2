"""Vectors whose expectation upstream's code answers differently, each a named finding.

An observation (``rescind.conformance.vectors.observation``) that records ``differed`` for a vector
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
"""Observed with drivers/splash (conformance/observations/): each stays Rescind's expectation,
explained by its finding. Empty since F13 and F14 follow upstream (new vector ids, WM-9 and
ST-4): a finding documents a hazard, it never makes upstream's own driver fail."""
