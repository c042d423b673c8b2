"""Every explored vocabulary, in run order (``source_explore`` makes one check of each)."""

from __future__ import annotations

from rescind.conformance.explore import JOURNAL_AREA
from rescind.conformance.explore_engine import Area
from rescind.conformance.explore_host_session import HOST_SESSION_AREA
from rescind.conformance.explore_ledger import LEDGER_AREA
from rescind.conformance.explore_numbers import NUMBER_AREA
from rescind.conformance.explore_reconcile import RECONCILE_AREA
from rescind.conformance.explore_session import SESSION_WORKER_AREA
from rescind.conformance.explore_templates import TEMPLATE_AREA

AREAS: tuple[Area, ...] = (
    JOURNAL_AREA,
    LEDGER_AREA,
    SESSION_WORKER_AREA,
    HOST_SESSION_AREA,
    NUMBER_AREA,
    RECONCILE_AREA,
    TEMPLATE_AREA,
)
