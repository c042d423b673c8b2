"""Vectors for the session authorizer as traces (docs/spec/authorizer.md, rules AU-n).

The traces are rows of ``conformance/cases/authorizer-traces.toml`` (steps with the outcome
each author intends; ``_trace_cases.trace_vector`` checks them against the reference).
Authorizers are created from manifest texts in the setup; ``as`` names an authorized value
so later steps can validate results against it or hand it to the journal. Traces cover
worker edge cases 37-41 and the probe's authorizer rows ("calls after op" to "comp other
scope"); counters are reported by ``counters`` steps and in every checkpoint.

Each row states where its outcomes come from: the four result
check-order traces rest on upstream's result validation code; the probe traces extend probe
sequences with steps upstream did not run, so they are derived, and their citation names the
probe rows that back some steps.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any

from rescind.conformance import cases
from rescind.conformance.cases import CaseRow, CaseTable
from rescind.conformance.interpreters.worker_trace import run_trace
from rescind.conformance.precedence import PROTOCOL
from rescind.conformance.provenance import splash_code
from rescind.conformance.vectors.format import Flag, VectorFile, VectorGroup, VectorTest
from rescind.conformance.vectors.sets._precedence import FLAG, NOTE, Faults, pair_rows
from rescind.conformance.vectors.sets._tabled import tabled_groups
from rescind.conformance.vectors.sets._trace_cases import (
    TRACE_EXPECTED_SCHEMA,
    TRACE_INPUT_SCHEMA,
    trace_vector,
)
from rescind.reference.errors import error_registry

TOPIC = "authorizer-traces"

NOTES = [
    Flag(
        "UpstreamProbe",
        "divergence from observed upstream behaviour",
        "a host and worker disagree on which requests a session may still send",
    ),
    Flag(
        "CheckOrder",
        "checks run in another order",
        "a different error is reported, or budget is judged on a request that should have been"
        " refused earlier",
    ),
    Flag(
        "BudgetBypass",
        "budget charged after the effect, per request id, or not for resends",
        "a caller retries past its grant, or a resend of the same compensation is refused",
    ),
    Flag(
        "SizeBound",
        "an inclusive input bound applied as exclusive, or to non-canonical bytes",
        "valid requests refused or oversized ones admitted",
    ),
    Flag(
        "RequestIdCapacity",
        "the request-id cap checked before the duplicate check or after spending budget",
        "counters move on a refused request, or replays are misreported",
    ),
    Flag(
        "DuplicateResult",
        "a second result for one request accepted",
        "a replayed worker reply is applied twice",
    ),
    Flag(
        "ProvenanceCheck",
        "results accepted against another authorizer's authorization, or the journal refusing them",
        "cross-session result confusion, or no recovery after a restart",
    ),
    Flag(FLAG, *NOTE),
]

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
    document["before"].append(document["request"]["request_id"])


def _spent(document: dict[str, Any], _: int) -> None:
    calls = _MANIFEST["grants"][0]["max_calls"]  # type: ignore[index]
    document["before"].extend(f"dispatch-{i}" for i in range(calls - len(document["before"])))


def _trace(document: Mapping[str, Any], call: str = "authorize_operation") -> dict[str, Any]:
    """Earlier requests (the base request under each listed id), then the faulted one."""
    base = _REQUEST if call == "authorize_operation" else _RECONCILE
    requests = {}
    for index, request_id in enumerate(document["before"]):
        requests[f"earlier-{index}"] = json.dumps({**base, "request_id": request_id})
    requests["final"] = json.dumps(document["request"])
    return {
        "setup": {
            "requests": requests,
            "authorizers": {"a": json.dumps(_MANIFEST, separators=(",", ":"))},
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


def build(source: CaseTable | None = None) -> VectorFile:
    return VectorFile(
        topic=TOPIC,
        header=(
            "Session authorizer traces (docs/spec/authorizer.md, rules AU-n); step vocabulary in"
            " docs/spec/journal.md.",
            "Compare `error` codes (details are informative) and the counters at checkpoints.",
            "ErrorPrecedence vectors: the last request breaks two checks at once",
            "(docs/spec/precedence.md); the earlier check's code is expected.",
        ),
        notes=NOTES,
        groups=(
            *tabled_groups(
                source or cases.load(TOPIC),
                dict.fromkeys(
                    [
                        "authorizer-dispatch",
                        "authorizer-reconciliation",
                        "authorizer-compensation",
                        "authorizer-capacity",
                        "authorizer-results",
                    ],
                    trace_vector,
                ),
            ),
            VectorGroup(
                "precedence",
                tuple(
                    _precedence_test(row)
                    for row in (*dispatch_precedence_rows(), *reconcile_precedence_rows())
                ),
            ),
        ),
        test_schema={"input": TRACE_INPUT_SCHEMA, "expected": TRACE_EXPECTED_SCHEMA},
    )
