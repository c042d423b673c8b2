"""A reference grant as the refinement checks see it (``GrantView``): shared by the worker
and the host refinement machines, which must abstract grants the same way."""

from __future__ import annotations

from rescind.model.refinement.abstraction import GrantView
from rescind.reference.grants import CapabilityGrant
from rescind.reference.payload_format import PayloadFormat


def grant_view(grant: CapabilityGrant) -> GrantView:
    return GrantView(
        grant.tool,
        grant.format is PayloadFormat.JSON,
        grant.max_calls,
        grant.max_input_bytes,
        grant.max_output_bytes,
        grant.max_compensations,
        frozenset(f"{r.kind.value}:{r.id}" for r in grant.resources),
        grant.compensation_fingerprint(),
    )
