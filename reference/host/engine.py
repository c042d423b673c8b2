"""``WorkflowEngine``: the host engine with every ledger, dispatch, reconciliation and
compensation API (upstream ``WorkflowEngine``'s operation-ledger surface).

The engine is assembled from three parts so that no module grows past one purpose:
``engine_core`` (plans, ownership, recording, derivation), ``host_frames`` (dispatch and
reconciliation frames) and ``compensation_frames`` (approve, prepare, apply compensation),
extended by ``compensation_reconcile_frames`` (Rescind's extension, not upstream: usable only
with an authenticator of the profile ``splash-v5+compensation-reconcile``).

Engine ids: each engine takes the next id from ``plan.PROCESS_ENGINE_IDS`` (process-wide,
starting at 1) unless it is given its own ``IdCounter``.
"""

from __future__ import annotations

from rescind.reference.host.compensation_reconcile_frames import CompensationReconcileFrames
from rescind.reference.host.host_frames import DispatchOutcome, HostFrames, PreparedFrame

__all__ = ["DispatchOutcome", "PreparedFrame", "WorkflowEngine"]


class WorkflowEngine(HostFrames, CompensationReconcileFrames):
    """One host engine instance: its plans, its approvals and its telemetry."""
