"""What a driver declares it cannot express inside a capability it implements: the catalogue of
restriction names a ``hello`` result may list under ``restrictions`` (docs/driver-protocol.md,
"Restrictions").

A restriction never hides a behaviour: vectors of the restricted shape are still sent, and a
driver that cannot run one answers ``unsupported`` (reported as such, never as a pass).
Generators of differential exploration read the restrictions and stay inside what the driver
can express, so exploration compares traces instead of stopping at the first step the
driver cannot build.

An unknown name is refused at the handshake (``bad_handshake``): a restriction changes what
the suite generates, so a misspelt one would otherwise go unnoticed while most generated
traces are discarded as inexpressible.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from rescind.reference.errors import RescindError


@attrs.frozen
class Restriction:
    name: str
    capabilities: tuple[str, ...]
    """The capabilities whose requests it concerns."""
    meaning: str
    affected: str
    """The request or step shapes it makes inexpressible."""


AUTHORIZED_BY_AUTHORIZER = Restriction(
    name="authorized-by-authorizer",
    capabilities=("journal", "authorizer"),
    meaning=(
        "the driver builds an authorized dispatch, compensation or reconciliation only through "
        "the session authorizer (upstream Splash: SessionAuthorizer::authorize_operation, "
        "authorize_compensation, authorize_reconciliation); it cannot build one from a raw "
        "request and grant pair that the authorizer would refuse"
    ),
    affected=(
        "journal.trace and authorizer.trace steps that name a raw `request` and `grant` "
        "instead of an `authorized` value made by an earlier authorize_* step"
    ),
)

CATALOGUE: tuple[Restriction, ...] = (AUTHORIZED_BY_AUTHORIZER,)
"""Every restriction a driver may declare; the driver protocol schema lists the same names."""

BY_NAME: Mapping[str, Restriction] = {restriction.name: restriction for restriction in CATALOGUE}


class UnknownRestriction(RescindError):
    """A hello result names a restriction that is not in the catalogue."""

    code = "unknown_restriction"


def parse(names: Iterable[str]) -> frozenset[str]:
    """The declared names, every one of them known (else ``UnknownRestriction``)."""
    declared = frozenset(names)
    for name in sorted(declared):
        if name not in BY_NAME:
            raise UnknownRestriction(name=name, known=", ".join(sorted(BY_NAME)))
    return declared


def raw_authorization(step: Mapping[str, Any]) -> bool:
    """A journal/authorizer trace step of the shape ``authorized-by-authorizer`` restricts: it
    names a raw request and grant pair instead of an authorized value."""
    args = step.get("args", {})
    return isinstance(args, Mapping) and "request" in args and "grant" in args
