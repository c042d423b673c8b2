"""Every proof module of ``rescind.model``, imported explicitly, and the checks they provide."""

from __future__ import annotations

from types import ModuleType

from rescind.model import progress, protocol, saga
from rescind.model.checks import Check

PROOF_MODULES: tuple[ModuleType, ...] = (protocol, saga, progress)
"""Every module of ``rescind.model`` that provides checks, in report order."""


def discover_checks() -> list[Check]:
    found: list[Check] = []
    for module in PROOF_MODULES:
        found.extend(module.checks())
    names = [check.name for check in found]
    if len(set(names)) != len(names):
        raise ValueError(f"two checks share a name: {sorted(names)}")
    return found
