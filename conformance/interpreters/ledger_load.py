"""Loading a workflow ledger as a vector asks: revision, operation count and re-encoding."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rescind.conformance.harness.limits import expand_text
from rescind.reference.errors import RescindError
from rescind.reference.host.ledger import WorkflowOperationLedger

_DETAILS = ("actual", "maximum", "estimate", "version")


def run(case: Mapping[str, Any]) -> dict[str, Any]:
    source = case["text"] + expand_text(" ", case.get("trailing_spaces", 0), "trailing_spaces")
    decoded = WorkflowOperationLedger.from_json(source)
    out: dict[str, Any] = {"revision": decoded.revision, "operations": len(decoded.operations)}
    try:
        encoded = decoded.to_json()
    except RescindError as error:
        out["encode_error"] = error.code
        return out
    # Keep large files small: an encoding identical to the input is stated, not repeated.
    if encoded == case["text"]:
        out["encoded_is_input"] = True
    else:
        out["encoded"] = encoded
    return out


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
