"""Pairwise error-precedence traces for the worker journal (docs/spec/precedence.md EP-15,
EP-16): an admitted request, maybe a first observation, then one observation (or one
compensation admission) that breaks two checks. EP-20 to EP-22 (admission, reconciliation,
compensation observation) are built in ``_journal_calls_precedence`` and joined here."""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any

from rescind.conformance.cases import CaseRow
from rescind.conformance.interpreters.worker_trace import run_trace
from rescind.conformance.precedence import PROTOCOL
from rescind.conformance.provenance import splash_code
from rescind.conformance.vectors.format import VectorTest
from rescind.conformance.vectors.sets._journal_calls_precedence import (
    precedence_rows as calls_precedence_rows,
)
from rescind.conformance.vectors.sets._precedence import Faults, last_step, pair_rows, trace_test
from rescind.reference.grants import CapabilityGrant

_GRANT = {
    "tool": "math.add",
    "format": "json",
    "max_calls": 2,
    "max_input_bytes": 128,
    "max_output_bytes": 128,
    "max_compensations": 1,
    "resources": [{"kind": "network_origin", "id": "math-api"}],
}
_REQUEST = {
    "protocol_version": 5,
    "session_id": "session-1",
    "request_id": "dispatch-1",
    "tool": "math.add",
    "operation_key": "release-42-add",
    "payload": {"format": "json", "value": {"left": 20, "right": 22}},
}
_TOTAL = {"state": "succeeded", "payload": {"format": "json", "value": {"total": 42}}}


def _base() -> dict[str, Any]:
    return {
        "admitted": True,
        "first": None,
        "request": copy.deepcopy(_REQUEST),
        "status": {"state": "running"},
    }


def _trace(document: Mapping[str, Any]) -> dict[str, Any]:
    requests = {"observed": json.dumps(document["request"], separators=(",", ":"))}
    steps: list[dict[str, Any]] = []
    if document["admitted"]:
        requests["admitted"] = json.dumps(_REQUEST, separators=(",", ":"))
        steps.append({"call": "admit", "args": {"request": "admitted", "grant": "math"}})
        if document["first"] is not None:
            steps.append(
                {
                    "call": "observe",
                    "args": {
                        "request": "admitted",
                        "grant": "math",
                        "status": json.dumps(document["first"], separators=(",", ":")),
                    },
                }
            )
    status = json.dumps(document["status"], separators=(",", ":"))
    steps.append(
        {"call": "observe", "args": {"request": "observed", "grant": "math", "status": status}}
    )
    return {
        "setup": {
            "grants": {"math": json.dumps(_GRANT, separators=(",", ":"))},
            "requests": requests,
            "journal": {"scope": "tenant-release"},
        },
        "steps": steps,
    }


def _status(value: dict[str, Any]) -> Any:
    def fault(document: dict[str, Any], _: int) -> None:
        document["status"] = copy.deepcopy(value)

    return fault


def _deep() -> object:
    value: object = 1
    for _ in range(33):
        value = [value]
    return value


def _oversized(document: dict[str, Any], _: int) -> None:
    status = document["status"]
    if status["state"] != "succeeded":
        document["status"] = status = copy.deepcopy(_TOTAL)
    status["payload"]["value"] = [status["payload"]["value"], "x" * 128]


def _other_input(document: dict[str, Any], _: int) -> None:
    document["request"]["payload"] = {"format": "json", "value": {"left": 1, "right": 2}}


def _manifest() -> str:
    manifest = {"protocol_version": 5, "session_id": "session-1", "grants": [_GRANT]}
    return json.dumps(manifest, separators=(",", ":"))


def _authorized_trace(document: Mapping[str, Any]) -> dict[str, Any]:
    """``_trace`` on authorized values (a driver declaring ``authorized-by-authorizer`` can
    run it): every request goes through the session authorizer first; an observed request
    other than the admitted one is a second dispatch with its own request id."""
    admitted = json.dumps(_REQUEST, separators=(",", ":"))
    observed_request = dict(document["request"])
    other = observed_request != _REQUEST
    if other:
        observed_request["request_id"] = "dispatch-2"
    requests = {
        "admitted": admitted,
        "observed": json.dumps(observed_request, separators=(",", ":")),
    }
    steps: list[dict[str, Any]] = [
        {"call": "authorize_operation", "args": {"request": "admitted", "as": "d1"}}
    ]
    if document["admitted"]:
        steps.append({"call": "admit", "args": {"authorized": "d1"}})
        if document["first"] is not None:
            first = json.dumps(document["first"], separators=(",", ":"))
            steps.append({"call": "observe", "args": {"authorized": "d1", "status": first}})
    target = "d1"
    if other:
        steps.append({"call": "authorize_operation", "args": {"request": "observed", "as": "d2"}})
        target = "d2"
    status = json.dumps(document["status"], separators=(",", ":"))
    steps.append({"call": "observe", "args": {"authorized": target, "status": status}})
    return {
        "setup": {
            "requests": requests,
            "authorizers": {"a": _manifest()},
            "journal": {"scope": "tenant-release"},
        },
        "steps": steps,
    }


def precedence_rows(to_input: Any = _trace, id_prefix: str = "journal.observe") -> list[CaseRow]:
    return pair_rows(
        Faults(
            "journal.observe",
            id_prefix,
            _base,
            {
                "status": _status({"state": "failed", "message": "x" * 4097}),
                "format": _status(
                    {"state": "succeeded", "payload": {"format": "text", "value": "42"}}
                ),
                "envelope": _status(
                    {"state": "succeeded", "payload": {"format": "json", "value": 42}}
                ),
                "depth": _status(
                    {"state": "succeeded", "payload": {"format": "json", "value": _deep()}}
                ),
                "output_size": _oversized,
                "known": lambda document, _: document.update(admitted=False),
                "identity": _other_input,
                "transition": lambda document, _: document.update(first=copy.deepcopy(_TOTAL)),
            },
            to_input,
            last_step(run_trace),
            splash_code(
                PROTOCOL,
                "WorkerOperationJournal::observe",
                "validate_operation_status_for_grant",
                "ensure_operation_identity",
                note="the order of the checks in these functions; read, not run (EP-15)",
            ),
        )
    )


_UNDO = {
    **_REQUEST,
    "request_id": "undo-1",
    "compensation_key": "cmp-release-42-add-undo",
    "tenant_scope": "tenant-release",
    "grant_fingerprint": CapabilityGrant.from_json(json.dumps(_GRANT)).compensation_fingerprint(),
    "payload": {"format": "json", "value": {"undo": "release"}},
}


def _compensation_base() -> dict[str, Any]:
    return {"admitted": True, "succeeded": True, "compensation": copy.deepcopy(_UNDO)}


def _compensation_trace(document: Mapping[str, Any]) -> dict[str, Any]:
    requests = {"undo": json.dumps(document["compensation"], separators=(",", ":"))}
    steps: list[dict[str, Any]] = []
    if document["admitted"]:
        requests["add"] = json.dumps(_REQUEST, separators=(",", ":"))
        steps.append({"call": "admit", "args": {"request": "add", "grant": "math"}})
        if document["succeeded"]:
            total = json.dumps(_TOTAL, separators=(",", ":"))
            steps.append(
                {"call": "observe", "args": {"request": "add", "grant": "math", "status": total}}
            )
    grants = {"math": json.dumps(_GRANT, separators=(",", ":"))}
    if document.get("attached"):  # the compensation _UNDO attached and succeeded first
        requests["attached"] = json.dumps(_UNDO, separators=(",", ":"))
        undone = json.dumps(_UNDONE, separators=(",", ":"))
        steps += [
            {"call": "admit_compensation", "args": {"request": "attached", "grant": "math"}},
            {
                "call": "observe_compensation",
                "args": {"request": "attached", "grant": "math", "status": undone},
            },
        ]
    grant = "math"
    if document.get("narrow"):  # a grant whose output limit the stored success exceeds
        grant = "narrow"
        grants[grant] = json.dumps({**_GRANT, "max_output_bytes": 8}, separators=(",", ":"))
    steps.append({"call": "admit_compensation", "args": {"request": "undo", "grant": grant}})
    return {
        "setup": {
            "grants": grants,
            "requests": requests,
            "journal": {"scope": "tenant-release"},
        },
        "steps": steps,
    }


def _undo(name: str, value: object) -> Any:
    def fault(document: dict[str, Any], _: int) -> None:
        document["compensation"][name] = value

    return fault


_UNDONE = {"state": "succeeded", "payload": {"format": "json", "value": {"undone": True}}}


def _attached_then(fault: Any) -> Any:
    """A fault that needs a compensation attached (and succeeded) before the admission."""

    def attached(document: dict[str, Any], position: int) -> None:
        document["attached"] = True
        fault(document, position)

    return attached


def _authorized_compensation_trace(document: Mapping[str, Any]) -> dict[str, Any]:
    """``_compensation_trace`` on authorized values: the original dispatched and the
    compensation requested through the session authorizer."""
    requests = {
        "add": json.dumps(_REQUEST, separators=(",", ":")),
        "undo": json.dumps(document["compensation"], separators=(",", ":")),
    }
    steps: list[dict[str, Any]] = [
        {"call": "authorize_operation", "args": {"request": "add", "as": "d1"}}
    ]
    if document["admitted"]:
        steps.append({"call": "admit", "args": {"authorized": "d1"}})
        if document["succeeded"]:
            total = json.dumps(_TOTAL, separators=(",", ":"))
            steps.append({"call": "observe", "args": {"authorized": "d1", "status": total}})
    steps.append({"call": "authorize_compensation", "args": {"request": "undo", "as": "c1"}})
    steps.append({"call": "admit_compensation", "args": {"authorized": "c1"}})
    return {
        "setup": {
            "requests": requests,
            "authorizers": {"a": _manifest()},
            "journal": {"scope": "tenant-release"},
        },
        "steps": steps,
    }


def compensation_rows(
    to_input: Any = _compensation_trace, id_prefix: str = "journal.admit-compensation"
) -> list[CaseRow]:
    return pair_rows(
        Faults(
            "journal.admit_compensation",
            id_prefix,
            _compensation_base,
            {
                "scope": _undo("tenant_scope", "tenant-other"),
                "known": lambda document, _: document.update(admitted=False),
                "tool": _undo("tool", "math.sub"),
                "succeeded": lambda document, _: document.update(succeeded=False),
                "identity": _attached_then(_undo("compensation_key", "cmp-release-42-add-other")),
                "stored_state": _attached_then(lambda document, _: document.update(narrow=True)),
            },
            to_input,
            last_step(run_trace),
            splash_code(
                PROTOCOL,
                "WorkerOperationJournal::admit_compensation",
                "WorkerOperationJournal::validate_scope",
                "ensure_compensation_target",
                note="the order of the checks in these functions; read, not run (EP-16)",
            ),
        )
    )


def precedence_tests() -> tuple[VectorTest, ...]:
    to_vector = trace_test(run_trace)
    rows = (
        *precedence_rows(),
        *compensation_rows(),
        # the same pairs on authorized values, for drivers that declare authorized-by-authorizer
        *precedence_rows(_authorized_trace, "journal.authorized.observe"),
        # admission, reconciliation and compensation observation (EP-20 to EP-22)
        *calls_precedence_rows(),
    )
    return tuple(to_vector(row) for row in rows)
