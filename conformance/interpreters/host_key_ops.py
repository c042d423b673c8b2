"""The host-key operations a vector asks (``input.operation``): the plan fingerprint, canonical
and host input fingerprints, and the ``op-`` and ``cmp-`` keys."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rescind.conformance.interpreters.trace_support import bytes_arg, input_arg, payload_arg
from rescind.reference.digests import (
    PlanStep,
    derive_compensation_key,
    host_input_fingerprint_of_bytes,
    plan_fingerprint,
)
from rescind.reference.errors import RescindError
from rescind.reference.host.engine import WorkflowEngine
from rescind.reference.host.plan import IdCounter

_DETAILS = ("actual", "maximum")
OPERATIONS = (
    "plan_fingerprint",
    "canonical_input",
    "host_input_fingerprint",
    "operation_key",
    "compensation_key",
)
"""Every ``input.operation`` of the host-keys vectors (each one driver operation)."""


def _steps(spec: list[list[Any]]) -> list[PlanStep]:
    return [PlanStep(step[0], bytes_arg(step[1]).decode("utf-8")) for step in spec]


def run(case: Mapping[str, Any]) -> dict[str, Any]:
    operation = case["operation"]
    if operation == "plan_fingerprint":
        return {"fingerprint": plan_fingerprint(_steps(case["steps"]))}
    if operation == "canonical_input":
        return {"canonical_input_hex": payload_arg(case["input"]).canonical_input_bytes().hex()}
    if operation == "host_input_fingerprint":
        return {"fingerprint": host_input_fingerprint_of_bytes(input_arg(case["input"]))}
    if operation == "operation_key":
        engine = WorkflowEngine(IdCounter())
        plan = engine.plan(_steps(case["steps"]))
        key = engine.derive_operation_key(
            plan, case["step_id"], case["tool"], input_arg(case["input"]), bytes_arg(case["nonce"])
        )
        return {"key": key}
    if operation == "compensation_key":
        key = derive_compensation_key(
            case["plan_fingerprint"],
            case["operation_key"],
            case["tool"],
            case["tenant_scope"],
            case["grant_fingerprint"],
            input_arg(case["input"]),
            bytes_arg(case["nonce"]),
        )
        return {"key": key}
    raise ValueError(f"unknown operation {operation}")


def refusal(error: Exception) -> dict[str, Any]:
    assert isinstance(error, RescindError)
    expected: dict[str, Any] = {"error": error.code}
    expected.update({k: v for k, v in error.details.items() if k in _DETAILS})
    return expected


def expected_of(case: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    try:
        return "valid", run(case)
    except RescindError as error:
        return "invalid", refusal(error)
