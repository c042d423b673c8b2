"""Pairwise error-precedence traces for the session authorizer (docs/spec/precedence.md
EP-8, EP-10, EP-11): earlier requests that succeed, then one request that breaks two checks.
Each is a trace of ``authorizer-traces``; the expectation is the reference's run of it."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping
from typing import Any

from rescind.conformance.cases import CaseRow
from rescind.conformance.interpreters.worker_trace import run_trace
from rescind.conformance.precedence import PROTOCOL
from rescind.conformance.provenance import splash_code
from rescind.conformance.vectors.format import VectorTest
from rescind.conformance.vectors.sets._precedence import Faults, pair_rows
from rescind.conformance.vectors.sets._result_precedence import result_precedence_rows
from rescind.reference.errors import error_registry
from rescind.reference.grants import CapabilityGrant

_MANIFEST = {
    "protocol_version": 5,
    "session_id": "session-1",
    "grants": [
        {
            "tool": "math.add",
            "format": "json",
            "max_calls": 2,
            "max_input_bytes": 128,
            "max_output_bytes": 128,
        }
    ],
}
_REQUEST = {
    "protocol_version": 5,
    "session_id": "session-1",
    "request_id": "dispatch-final",
    "tool": "math.add",
    "operation_key": "release-42-add",
    "payload": {"format": "json", "value": {"left": 20, "right": 22}},
}


_RECONCILE = {key: value for key, value in _REQUEST.items() if key != "payload"}


def _base() -> dict[str, Any]:
    return {"request": copy.deepcopy(_REQUEST), "before": []}


def _reconcile_base() -> dict[str, Any]:
    return {"request": copy.deepcopy(_RECONCILE), "before": []}


def _field(name: str, value: object) -> Any:
    def fault(document: dict[str, Any], _: int) -> None:
        document["request"][name] = value

    return fault


def _payload(value: object, fmt: str = "json") -> Any:
    def fault(document: dict[str, Any], _: int) -> None:
        document["request"]["payload"] = {"format": fmt, "value": value}

    return fault


def _deep() -> object:
    value: object = 1
    for _ in range(33):
        value = [value]
    return value


def _oversized(document: dict[str, Any], _: int) -> None:
    payload = document["request"]["payload"]
    payload["value"] = [payload["value"], "x" * 128]


def _seen(document: dict[str, Any], _: int) -> None:
    document["before"].append({"request_id": document["request"]["request_id"]})


def _spent(document: dict[str, Any], _: int) -> None:
    """Earlier requests (new ids, and for a compensation new identities) up to the budget."""
    manifest = document.get("manifest", _MANIFEST)
    grant = manifest["grants"][0]
    budget = grant.get("max_compensations") if "compensation_key" in document["request"] else None
    limit = grant["max_calls"] if budget is None else budget
    for index in range(limit - len(document["before"])):
        earlier = {"request_id": f"dispatch-{index}"}
        if budget is not None:
            earlier = {"request_id": f"undo-{index}", "compensation_key": f"cmp-undo-{index}"}
        document["before"].append(earlier)


_BASES = {
    "authorize_operation": _REQUEST,
    "authorize_reconciliation": _RECONCILE,
}


def _trace(document: Mapping[str, Any], call: str = "authorize_operation") -> dict[str, Any]:
    """Earlier requests (the base request with each listed override), then the faulted one."""
    base = _BASES.get(call, _COMPENSATION)
    requests = {}
    for index, override in enumerate(document["before"]):
        requests[f"earlier-{index}"] = json.dumps({**base, **override})
    requests["final"] = json.dumps(document["request"])
    manifest = document.get("manifest", _MANIFEST)
    return {
        "setup": {
            "requests": requests,
            "authorizers": {"a": json.dumps(manifest, separators=(",", ":"))},
        },
        "steps": [{"call": call, "args": {"request": name}} for name in requests],
    }


def _last_refusal(trace: Mapping[str, Any]) -> Any:
    """The reference's answer to the last step; a refusal is raised again as its error."""
    outcomes = run_trace(trace)["steps"]
    if any("error" in outcome for outcome in outcomes[:-1]):
        raise ValueError(f"an earlier request was refused: {outcomes}")
    last = outcomes[-1]
    if "error" in last:
        raise error_registry()[last["error"]](**last["details"])
    return last


def dispatch_precedence_rows() -> list[CaseRow]:
    """EP-8's pairs: one dispatch request (after earlier ones) with two checks broken."""
    return pair_rows(
        Faults(
            "authorizer.dispatch",
            "authorizer.dispatch",
            _base,
            {
                "version": _field("protocol_version", 4),
                "session_token": _field("session_id", "Session-1"),
                "request_id_token": _field("request_id", "Dispatch-Final"),
                "tool_token": _field("tool", "Math.Add"),
                "operation_key_token": _field("operation_key", "Release-42"),
                "session": _field("session_id", "session-2"),
                "tool_granted": _field("tool", "math.sub"),
                "format": _payload("twenty-two", "text"),
                "depth": _payload(_deep()),
                "input_size": _oversized,
                "request_new": _seen,
                "call_budget": _spent,
            },
            lambda document: _trace(document),
            _last_refusal,
            splash_code(
                PROTOCOL,
                "SessionAuthorizer::authorize_operation",
                "OperationDispatchRequest::validate_header",
                "SessionAuthorizer::authorize_payload",
                "ToolPayload::validate_for",
                note="the order of the checks in these functions; read, not run (EP-8)",
            ),
        )
    )


def reconcile_precedence_rows() -> list[CaseRow]:
    """EP-10's pairs: one reconciliation request (after earlier ones) with two checks broken."""
    return pair_rows(
        Faults(
            "authorizer.reconcile",
            "authorizer.reconcile",
            _reconcile_base,
            {
                "version": _field("protocol_version", 4),
                "session_token": _field("session_id", "Session-1"),
                "request_id_token": _field("request_id", "Dispatch-Final"),
                "tool_token": _field("tool", "Math.Add"),
                "operation_key_token": _field("operation_key", "Release-42"),
                "session": _field("session_id", "session-2"),
                "tool_granted": _field("tool", "math.sub"),
                "request_new": _seen,
            },
            lambda document: _trace(document, "authorize_reconciliation"),
            _last_refusal,
            splash_code(
                PROTOCOL,
                "SessionAuthorizer::authorize_reconciliation",
                "OperationReconcileRequest::validate",
                note="the order of the checks in these functions; read, not run (EP-10)",
            ),
        )
    )


_COMPENSATING = {
    "protocol_version": 5,
    "session_id": "session-1",
    "grants": [
        {
            "tool": "math.add",
            "format": "json",
            "max_calls": 2,
            "max_input_bytes": 128,
            "max_output_bytes": 128,
            "max_compensations": 2,
            "resources": [{"kind": "network_origin", "id": "math-api"}],
        }
    ],
}
_COMPENSATION = {
    **_REQUEST,
    "compensation_key": "cmp-release-42-add-undo",
    "tenant_scope": "tenant-release",
    "grant_fingerprint": CapabilityGrant.from_json(
        json.dumps(_COMPENSATING["grants"][0])  # type: ignore[index]
    ).compensation_fingerprint(),
    "payload": {"format": "json", "value": {"undo": "release"}},
}


def _compensation_base() -> dict[str, Any]:
    return {
        "request": copy.deepcopy(_COMPENSATION),
        "before": [],
        "manifest": copy.deepcopy(_COMPENSATING),
    }


def _unprefixed(document: dict[str, Any], _: int) -> None:
    key = document["request"]["compensation_key"]
    document["request"]["compensation_key"] = key[4:] if key.lower().startswith("cmp-") else key


def _not_granted(document: dict[str, Any], _: int) -> None:
    document["manifest"]["grants"][0]["max_compensations"] = 0


def _upper(name: str) -> Callable[[dict[str, Any], int], None]:
    def fault(document: dict[str, Any], _: int) -> None:
        document["request"][name] = document["request"][name].upper()

    return fault


def compensation_precedence_rows() -> list[CaseRow]:
    """EP-11's pairs: one compensation request (after earlier ones) with two checks broken."""
    return pair_rows(
        Faults(
            "authorizer.compensate",
            "authorizer.compensate",
            _compensation_base,
            {
                "version": _field("protocol_version", 4),
                "session_token": _field("session_id", "Session-1"),
                "request_id_token": _field("request_id", "Undo-Final"),
                "tool_token": _field("tool", "Math.Add"),
                "operation_key_token": _field("operation_key", "Release-42"),
                "compensation_key_token": _upper("compensation_key"),
                "compensation_key_prefix": _unprefixed,
                "tenant_token": _field("tenant_scope", "Tenant-Release"),
                "grant_fingerprint_format": _field("grant_fingerprint", "G" * 64),
                "session": _field("session_id", "session-2"),
                "tool_granted": _field("tool", "math.sub"),
                "compensation_granted": _not_granted,
                "grant_match": _field("grant_fingerprint", "0" * 64),
                "format": _payload("undo", "text"),
                "depth": _payload(_deep()),
                "input_size": _oversized,
                "request_new": _seen,
                "budget": _spent,
            },
            lambda document: _trace(document, "authorize_compensation"),
            _last_refusal,
            splash_code(
                PROTOCOL,
                "SessionAuthorizer::authorize_compensation",
                "OperationCompensationRequest::validate_header",
                "validate_compensation_key",
                "ToolPayload::validate_for",
                note="the order of the checks in these functions; read, not run (EP-11)",
            ),
        )
    )


def _precedence_test(row: CaseRow) -> VectorTest:
    return VectorTest(
        row.id,
        row.rule,
        row.comment,
        row.input,
        run_trace(row.input),
        "valid",
        row.flags,
        provenance=row.provenance,
    )


def precedence_tests() -> tuple[VectorTest, ...]:
    rows = (
        *dispatch_precedence_rows(),
        *reconcile_precedence_rows(),
        *compensation_precedence_rows(),
        *result_precedence_rows(),  # EP-26, built in ``_result_precedence``
    )
    return tuple(_precedence_test(row) for row in rows)
