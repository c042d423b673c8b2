"""Operations of capabilities ``host-keys`` (plan fingerprints, host input fingerprints,
op- and cmp- keys) and ``ledger`` (ledger decoding and whole host-engine traces)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rescind.conformance.interpreters import host_key_ops, host_trace, ledger_load
from rescind.conformance.ops.declaration import Declared, Operation


def _asking(name: str) -> Operation:
    """The operation ``host-keys.<name>``: the vector input with its ``operation`` set."""

    def run(args: Mapping[str, Any]) -> dict[str, Any]:
        return host_key_ops.run({**args, "operation": name})

    return run


OPERATIONS: tuple[Declared, ...] = tuple(
    Declared(f"host-keys.{name}", "host-keys", _asking(name)) for name in host_key_ops.OPERATIONS
)

OPERATIONS += (
    Declared("ledger.load", "ledger", ledger_load.run),
    Declared("ledger.trace", "ledger", host_trace.run_trace),
)
