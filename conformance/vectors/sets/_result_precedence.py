"""Pairwise error-precedence traces for result validation in the session authorizer
(docs/spec/precedence.md EP-26): a dispatch authorized by one of two authorizers with the
same manifest, maybe an earlier accepted result, then one result that breaks two checks."""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any

from rescind.conformance.cases import CaseRow
from rescind.conformance.interpreters.worker_trace import run_trace
from rescind.conformance.precedence import PROTOCOL
from rescind.conformance.provenance import splash_code
from rescind.conformance.vectors.sets._precedence import Faults, last_step, pair_rows

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
    "request_id": "dispatch-1",
    "tool": "math.add",
    "operation_key": "release-42-add",
    "payload": {"format": "json", "value": {"left": 20, "right": 22}},
}
_RESULT = {
    "protocol_version": 5,
    "session_id": "session-1",
    "request_id": "dispatch-1",
    "tool": "math.add",
    "operation_key": "release-42-add",
    "status": {"state": "succeeded", "payload": {"format": "json", "value": {"total": 42}}},
}


def _text(value: object) -> str:
    return json.dumps(value, separators=(",", ":"))


def _base() -> dict[str, Any]:
    return {"issuer": "a", "earlier": False, "result": copy.deepcopy(_RESULT)}


def _trace(document: Mapping[str, Any]) -> dict[str, Any]:
    steps: list[dict[str, Any]] = [
        {
            "call": "authorize_operation",
            "args": {"request": "d", "authorizer": document["issuer"], "as": "d1"},
        }
    ]
    results = [_RESULT] if document["earlier"] else []
    for result in [*results, document["result"]]:
        steps.append(
            {
                "call": "validate_operation_result",
                "args": {"authorized": "d1", "authorizer": "a", "result": _text(result)},
            }
        )
    return {
        "setup": {
            "requests": {"d": _text(_REQUEST)},
            "authorizers": {"a": _text(_MANIFEST), "b": _text(_MANIFEST)},
        },
        "steps": steps,
    }


def _result(name: str, value: object) -> Any:
    def fault(document: dict[str, Any], _: int) -> None:
        document["result"][name] = copy.deepcopy(value)

    return fault


def result_precedence_rows() -> list[CaseRow]:
    return pair_rows(
        Faults(
            "authorizer.result",
            "authorizer.result",
            _base,
            {
                "provenance": lambda document, _: document.update(issuer="b"),
                "result": _result("protocol_version", 4),
                "session": _result("session_id", "session-2"),
                "correlates": _result("operation_key", "release-43-add"),
                "duplicate": lambda document, _: document.update(earlier=True),
                "status": _result(
                    "status",
                    {"state": "succeeded", "payload": {"format": "json", "value": ["x" * 128]}},
                ),
            },
            _trace,
            last_step(run_trace),
            splash_code(
                PROTOCOL,
                "SessionAuthorizer::validate_operation_result",
                "SessionAuthorizer::ensure_local_authorization",
                "validate_operation_status_for_grant",
                note="the order of the checks in these functions; read, not run (EP-26)",
            ),
        )
    )
