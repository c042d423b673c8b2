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


_PROTOCOL = (
    "ymote/Splash 623d57c5c524f062ed5ddf8995cbed5b7b98e380 crates/splash-protocol/src/lib.rs"
)
_STORAGE = "ymote/Splash 623d57c5c524f062ed5ddf8995cbed5b7b98e380 crates/splash-storage/src/lib.rs"

OBSERVED_DIFFERENCES: tuple[ObservedDifference, ...] = (
    ObservedDifference(
        "message.cancel-opaque",
        "F13",
        f"{_PROTOCOL} WorkerMessage::from_json_line, WorkerCancellationRequest (tool)",
    ),
    ObservedDifference(
        "message.result-kind", "F13", f"{_PROTOCOL} WorkerMessage::from_json_line, ToolResult"
    ),
    ObservedDifference(
        "trace.wrong-kind-consumes-sequence",
        "F13",
        f"{_PROTOCOL} AuthenticatedWorkerMessage::from_json_line, WorkerCancellationRequest",
    ),
    ObservedDifference(
        "trace.open-opaque-bad-session-token",
        "F13",
        f"{_PROTOCOL} AuthenticatedWorkerMessage::from_json_line, WorkerCancellationRequest",
    ),
    ObservedDifference("tag.key.all-zero", "F14", f"{_STORAGE} StorageKey::from_bytes"),
    ObservedDifference("trace.keyring-errors", "F14", f"{_STORAGE} StorageKeyring::add_read_key"),
)
"""Observed with drivers/splash (conformance/observations/): each stays Rescind's expectation,
explained by its finding."""
