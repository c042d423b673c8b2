"""Every explored vocabulary, in run order (``sources.exploration`` makes one check of each)."""

from __future__ import annotations

from rescind.conformance.explore.engine import Area
from rescind.conformance.explore.host_plan import HOST_PLAN_AREA
from rescind.conformance.explore.host_session import HOST_SESSION_AREA
from rescind.conformance.explore.ledger import LEDGER_AREA
from rescind.conformance.explore.ledger_faults import LEDGER_FAULTS_AREA
from rescind.conformance.explore.numbers import F64_NUMBER_AREA, NUMBER_AREA
from rescind.conformance.explore.reconcile import RECONCILE_AREA
from rescind.conformance.explore.session import SESSION_WORKER_AREA
from rescind.conformance.explore.templates import TEMPLATE_AREA
from rescind.conformance.explore.worker import JOURNAL_AREA
from rescind.conformance.explore.worker_faults import JOURNAL_FAULTS_AREA, STORAGE_FAULTS_AREA

AREAS: tuple[Area, ...] = (
    JOURNAL_AREA,
    LEDGER_AREA,
    SESSION_WORKER_AREA,
    HOST_SESSION_AREA,
    NUMBER_AREA,
    F64_NUMBER_AREA,
    RECONCILE_AREA,
    TEMPLATE_AREA,
    HOST_PLAN_AREA,
    JOURNAL_FAULTS_AREA,
    STORAGE_FAULTS_AREA,
    LEDGER_FAULTS_AREA,
)
