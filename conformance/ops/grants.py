"""Operations of capability ``grants``: grant decoding, fingerprints, attenuation, manifests
and the identifier grammars (one operation per ``input.operation`` of the grants vectors)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rescind.conformance.interpreters import grant_ops
from rescind.conformance.ops.declaration import Declared, Operation


def _asking(name: str) -> Operation:
    """The operation ``grants.<name>``: the vector input with its ``operation`` set."""

    def run(args: Mapping[str, Any]) -> dict[str, Any]:
        return grant_ops.run({**args, "operation": name})

    return run


OPERATIONS: tuple[Declared, ...] = tuple(
    Declared(f"grants.{name}", "grants", _asking(name)) for name in grant_ops.OPERATIONS
)
