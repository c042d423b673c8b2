"""Engine telemetry events (HL-25): in memory, informative, never authority.

The engine appends one event per *successful* engine call of the kinds below; a failed call
appends nothing, and ledger methods called directly (not through the engine) append nothing.
Events never change the revision and are never persisted with the ledger. An observation
event is emitted even when the observation was idempotent.
"""

from __future__ import annotations

from typing import Any

import attrs
from rescind.reference.lifecycle import Phase


@attrs.frozen
class OperationLedgerCreated:
    plan_id: int
    type = "operation_ledger_created"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "plan_id": self.plan_id}


@attrs.frozen
class OperationRecorded:
    plan_id: int
    step_id: str
    tool: str
    type = "operation_recorded"

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "plan_id": self.plan_id,
            "step_id": self.step_id,
            "tool": self.tool,
        }


@attrs.frozen
class OperationObserved:
    plan_id: int
    step_id: str
    tool: str
    state: Phase
    type = "operation_observed"

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "plan_id": self.plan_id,
            "step_id": self.step_id,
            "tool": self.tool,
            "state": self.state.value,
        }


@attrs.frozen
class CompensationRecorded:
    plan_id: int
    operation_key: str
    compensation_key: str
    type = "compensation_recorded"

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "plan_id": self.plan_id,
            "operation_key": self.operation_key,
            "compensation_key": self.compensation_key,
        }


@attrs.frozen
class CompensationApproved:
    plan_id: int
    operation_key: str
    compensation_key: str
    type = "compensation_approved"

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "plan_id": self.plan_id,
            "operation_key": self.operation_key,
            "compensation_key": self.compensation_key,
        }


@attrs.frozen
class CompensationObserved:
    plan_id: int
    operation_key: str
    compensation_key: str
    state: Phase
    type = "compensation_observed"

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "plan_id": self.plan_id,
            "operation_key": self.operation_key,
            "compensation_key": self.compensation_key,
            "state": self.state.value,
        }


WorkflowEvent = (
    OperationLedgerCreated
    | OperationRecorded
    | OperationObserved
    | CompensationRecorded
    | CompensationApproved
    | CompensationObserved
)
