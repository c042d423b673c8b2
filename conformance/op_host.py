"""Operations of capabilities ``host-keys`` (plan fingerprints, host input fingerprints,
op- and cmp- keys) and ``ledger`` (ledger decoding and whole host-engine traces)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rescind.conformance.interpreters import host_trace
from rescind.conformance.operations import operation
from rescind.conformance.vectorsets import host_keys, ledger_codec

HOST_KEY_OPERATIONS = (
    "plan_fingerprint",
    "canonical_input",
    "host_input_fingerprint",
    "operation_key",
    "compensation_key",
)


def _bind(name: str) -> None:
    @operation(f"host-keys.{name}", capability="host-keys")
    def run(args: Mapping[str, Any]) -> dict[str, Any]:
        return host_keys.run({**args, "operation": name})


for _name in HOST_KEY_OPERATIONS:
    _bind(_name)

operation("ledger.load", capability="ledger")(ledger_codec.run)
operation("ledger.trace", capability="ledger")(host_trace.run_trace)
