"""``WorkflowEngine``: the host engine (upstream ``WorkflowEngine``'s operation-ledger surface).

The engine is its core state (``engine_core.EngineCore``: plans, ownership, ledgers,
recording, derivation, telemetry) and the three handlers it owns, each given that core
explicitly; callers use the handlers themselves, nothing forwards:

* ``engine.operations`` (``host_frames.HostFrames``): dispatch and reconciliation frames;
* ``engine.compensations`` (``compensation_frames.CompensationFrames``): approve, prepare and
  apply compensation;
* ``engine.compensation_reconcile``
  (``compensation_reconcile_frames.CompensationReconcileFrames``): Rescind's extension, not
  upstream, usable only with an authenticator of the profile
  ``splash-v5+compensation-reconcile``.

No handler inherits from another. Engine ids: each engine takes the next id from
``plan.PROCESS_ENGINE_IDS`` (process-wide, starting at 1) unless it is given its own
``IdCounter``.
"""

from __future__ import annotations

from typing import Final

from rescind.reference.host.compensation_frames import CompensationFrames
from rescind.reference.host.compensation_reconcile_frames import CompensationReconcileFrames
from rescind.reference.host.engine_core import EngineCore
from rescind.reference.host.host_frames import DispatchOutcome, HostFrames, PreparedFrame
from rescind.reference.host.plan import IdCounter

__all__ = ["DispatchOutcome", "PreparedFrame", "WorkflowEngine"]


class WorkflowEngine(EngineCore):
    """One host engine instance: its plans, its approvals, its telemetry and its handlers."""

    def __init__(self, engine_ids: IdCounter | None = None) -> None:
        super().__init__(engine_ids)
        self.operations: Final = HostFrames(self)
        self.compensations: Final = CompensationFrames(self)
        self.compensation_reconcile: Final = CompensationReconcileFrames(self, self.compensations)
