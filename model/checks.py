"""The interface between proof modules and ``rescind prove``.

A proof module in ``rescind.model`` exposes ``checks() -> Sequence[Check]``; ``rescind prove``
discovers every such module, runs the checks and reports one row each. A check never raises
for a failed property: it returns ``violated`` with a readable numbered counterexample trace,
or ``unknown`` when z3 gives up.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from typing import Literal

import attrs

Status = Literal["proven", "violated", "unknown"]


@attrs.frozen
class CheckResult:
    status: Status
    seconds: float
    counterexample: tuple[str, ...] = ()
    """Numbered trace lines ("1. record_operation key=k0 ..."), empty unless violated."""
    detail: str = ""


@attrs.frozen
class Check:
    name: str
    statement: str
    rule: str
    run: Callable[[], CheckResult] = attrs.field(eq=False, repr=False)
    group: str = "protocol"


def discover_checks() -> list[Check]:
    import rescind.model as package

    found: list[Check] = []
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda module: module.name):
        if info.name.startswith("_") or info.name == "checks":
            continue
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        provider = getattr(module, "checks", None)
        if callable(provider):
            found.extend(provider())
    names = [check.name for check in found]
    if len(set(names)) != len(names):
        raise ValueError(f"two checks share a name: {sorted(names)}")
    return found
