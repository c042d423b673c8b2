"""Operations of capability ``grants``: grant decoding, fingerprints, attenuation, manifests
and the identifier grammars (one operation per ``input.operation`` of the grants vectors)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rescind.conformance.operations import operation
from rescind.conformance.vectorsets import grants as grant_vectors


def _bind(name: str) -> None:
    @operation(f"grants.{name}", capability="grants")
    def run(args: Mapping[str, Any]) -> dict[str, Any]:
        return grant_vectors.run({**args, "operation": name})


for _name in grant_vectors.OPERATIONS:
    _bind(_name)
