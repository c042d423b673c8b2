"""Operations of Rescind's protocol extensions (not upstream), capability ``session``:
compensation reconciliation scenarios (docs/spec/compensation-reconcile.md). Their vectors
belong to profile ``splash-v5+compensation-reconcile``, so a driver that does not declare it
gets them as not-applicable."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rescind.conformance.interpreters.compensation_reconcile import run_compensation_reconcile
from rescind.conformance.ops.declaration import Declared, arg


def compensation_reconcile(args: Mapping[str, Any]) -> dict[str, Any]:
    return run_compensation_reconcile(arg(args, "scenario", dict))


OPERATIONS = (Declared("session.compensation-reconcile", "session", compensation_reconcile),)
