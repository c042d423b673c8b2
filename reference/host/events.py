"""Engine telemetry events (HL-25): in memory, informative, never authority.

The engine appends one event per *successful* engine call of the kinds below, where upstream's
``WorkflowEngine`` calls ``record_event``: ``plan`` (``planned``), a plan approval
(``approved``), a ledger's creation, every record, approval of a compensation and
observation; a failed call appends nothing, and ledger methods called directly (not through
the engine) append nothing.
Events never change the revision and are never persisted with the ledger. An observation
event is emitted even when the observation was idempotent.
"""

from __future__ import annotations

from typing import Any

import attrs

from rescind.tables.operation import Phase


class _Event:
    """JSON form shared by every event: ``type`` first, then the fields in order."""

    type: str

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"type": self.type}
        for field in attrs.fields(type(self)):  # type: ignore[arg-type]
            value = getattr(self, field.name)
            body[field.name] = value.value if isinstance(value, Phase) else value
        return body


@attrs.frozen
class Planned(_Event):
    """``WorkflowEngine::plan`` (upstream ``WorkflowEvent::Planned``)."""

    plan_id: int
    step_count: int
    type = "planned"


@attrs.frozen
class Approved(_Event):
    """A plan approval (upstream ``WorkflowEvent::Approved``, recorded by every ``approve*``
    of a plan; a compensation approval records ``compensation_approved`` instead)."""

    plan_id: int
    type = "approved"


@attrs.frozen
class OperationLedgerCreated(_Event):
    plan_id: int
    type = "operation_ledger_created"


@attrs.frozen
class OperationRecorded(_Event):
    plan_id: int
    step_id: str
    tool: str
    type = "operation_recorded"


@attrs.frozen
class OperationObserved(_Event):
    plan_id: int
    step_id: str
    tool: str
    state: Phase
    type = "operation_observed"


@attrs.frozen
class CompensationRecorded(_Event):
    plan_id: int
    operation_key: str
    compensation_key: str
    type = "compensation_recorded"


@attrs.frozen
class CompensationApproved(_Event):
    plan_id: int
    operation_key: str
    compensation_key: str
    type = "compensation_approved"


@attrs.frozen
class CompensationObserved(_Event):
    plan_id: int
    operation_key: str
    compensation_key: str
    state: Phase
    type = "compensation_observed"


WorkflowEvent = (
    Planned
    | Approved
    | OperationLedgerCreated
    | OperationRecorded
    | OperationObserved
    | CompensationRecorded
    | CompensationApproved
    | CompensationObserved
)
