"""Every proof module of ``rescind.model``, imported explicitly, and the checks they provide."""

from __future__ import annotations

from types import ModuleType

from rescind.model.core.proof_check import Check
from rescind.model.progress import proofs as progress
from rescind.model.safety import proofs as protocol
from rescind.model.saga import proofs as saga

PROOF_MODULES: tuple[ModuleType, ...] = (protocol, saga, progress)
"""The ``proofs`` module of each group (``protocol``, ``saga``, ``progress``), in report order."""


def discover_checks() -> list[Check]:
    found: list[Check] = []
    for module in PROOF_MODULES:
        found.extend(module.checks())
    names = [check.name for check in found]
    if len(set(names)) != len(names):
        raise ValueError(f"two checks share a name: {sorted(names)}")
    return found
