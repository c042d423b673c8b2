"""Pairwise error-precedence traces for the worker journal's admission, reconciliation and
compensation observation (docs/spec/precedence.md EP-20, EP-21, EP-22).

Each topic is a small document (what was journaled before, and the last call's request,
grant and status) turned into a ``journal.trace`` in two spellings: raw request and grant
pairs, and the same calls on values the session authorizer made (for drivers that declare
``authorized-by-authorizer``, as upstream's driver does). A changed grant is a second grant
in the raw spelling and a second authorizer, whose manifest holds the narrow grants, in the
authorized one.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping
from typing import Any

import attrs

from rescind.conformance.cases import CaseRow
from rescind.conformance.interpreters.worker_trace import run_trace
from rescind.conformance.precedence import PROTOCOL
from rescind.conformance.provenance import Provenance, splash_code
from rescind.conformance.vectors.sets._precedence import Faults, last_step, pair_rows
from rescind.reference.grants import CapabilityGrant

_SCOPE = "tenant-release"
_ADD = {
    "tool": "math.add",
    "format": "json",
    "max_calls": 4,
    "max_input_bytes": 128,
    "max_output_bytes": 128,
    "max_compensations": 2,
    "resources": [{"kind": "network_origin", "id": "math-api"}],
}
# 8 output bytes: the stored total ``{"total":42}`` (12 bytes) no longer fits.
_NARROW = {**_ADD, "max_output_bytes": 8}
_SUB = {**_ADD, "tool": "math.sub", "max_compensations": 1}
_NARROW_SUB = {**_SUB, "max_output_bytes": 8}
_GRANTS = {"math": _ADD, "narrow": _NARROW, "sub": _SUB}
_HEADER = {"protocol_version": 5, "session_id": "session-1"}
_REQUEST = {
    **_HEADER,
    "request_id": "dispatch-1",
    "tool": "math.add",
    "operation_key": "release-42-add",
    "payload": {"format": "json", "value": {"left": 20, "right": 22}},
}
_TOTAL = {"state": "succeeded", "payload": {"format": "json", "value": {"total": 42}}}
_FAILED = {"state": "failed", "message": "boom"}
_TOO_LONG = {"state": "failed", "message": "x" * 4097}
_OTHER_INPUT = {"format": "json", "value": {"left": 1, "right": 2}}


def _text(value: object) -> str:
    return json.dumps(value, separators=(",", ":"))


def _fingerprint(grant: Mapping[str, Any]) -> str:
    return CapabilityGrant.from_json(_text(grant)).compensation_fingerprint()


def _manifest(*grants: Mapping[str, Any]) -> str:
    return _text({**_HEADER, "grants": list(grants)})


_AUTHORIZERS = {"a": _manifest(_ADD, _SUB), "n": _manifest(_NARROW, _NARROW_SUB)}


def _step(call: str, **args: Any) -> dict[str, Any]:
    return {"call": call, "args": args}


def _setup(requests: Mapping[str, Any], raw: bool) -> dict[str, Any]:
    grants = {"grants": {name: _text(g) for name, g in _GRANTS.items()}}
    authorizers = {"authorizers": _AUTHORIZERS}
    return {
        **(grants if raw else authorizers),
        "requests": {name: _text(r) for name, r in requests.items()},
        "journal": {"scope": _SCOPE},
    }


def _set(name: str, value: object) -> Callable[[dict[str, Any], int], None]:
    def fault(document: dict[str, Any], _: int) -> None:
        document[name] = copy.deepcopy(value)

    return fault


def _request_field(key: str, name: str, value: object) -> Callable[[dict[str, Any], int], None]:
    def fault(document: dict[str, Any], _: int) -> None:
        document[key][name] = copy.deepcopy(value)

    return fault


@attrs.frozen
class _Topic:
    operation: str
    base: Callable[[], dict[str, Any]]
    faults: Mapping[str, Callable[[dict[str, Any], int], None]]
    raw: Callable[[Mapping[str, Any]], dict[str, Any]]
    authorized: Callable[[Mapping[str, Any]], dict[str, Any]]
    provenance: Provenance

    def rows(self, authorized: bool) -> list[CaseRow]:
        slug = self.operation.split(".", 1)[1].replace("_", "-")
        prefix = f"journal.authorized.{slug}" if authorized else f"journal.{slug}"
        return pair_rows(
            Faults(
                self.operation,
                prefix,
                self.base,
                self.faults,
                self.authorized if authorized else self.raw,
                last_step(run_trace),
                self.provenance,
            )
        )


# -- EP-20: admit ----------------------------------------------------------------------------


def _admit_base() -> dict[str, Any]:
    return {"request": copy.deepcopy(_REQUEST), "narrow": False}


def _admit_raw(document: Mapping[str, Any]) -> dict[str, Any]:
    grant = "narrow" if document["narrow"] else "math"
    return {
        "setup": _setup({"first": _REQUEST, "again": document["request"]}, raw=True),
        "steps": [
            _step("admit", request="first", grant="math"),
            _step("observe", request="first", grant="math", status=_text(_TOTAL)),
            _step("admit", request="again", grant=grant),
        ],
    }


def _admit_authorized(document: Mapping[str, Any]) -> dict[str, Any]:
    again = {**document["request"], "request_id": "dispatch-2"}
    return {
        "setup": _setup({"first": _REQUEST, "again": again}, raw=False),
        "steps": [
            _step("authorize_operation", request="first", authorizer="a", **{"as": "d1"}),
            _step("admit", authorized="d1"),
            _step("observe", authorized="d1", status=_text(_TOTAL)),
            _step(
                "authorize_operation",
                request="again",
                authorizer="n" if document["narrow"] else "a",
                **{"as": "d2"},
            ),
            _step("admit", authorized="d2"),
        ],
    }


ADMIT = _Topic(
    "journal.admit",
    _admit_base,
    {
        "identity": _request_field("request", "payload", _OTHER_INPUT),
        "stored_state": _set("narrow", True),
    },
    _admit_raw,
    _admit_authorized,
    splash_code(
        PROTOCOL,
        "WorkerOperationJournal::admit",
        "ensure_operation_identity",
        "validate_worker_operation_state_for_grant",
        note="the order of the checks in these functions; read, not run (EP-20)",
    ),
)


# -- EP-21: reconcile ------------------------------------------------------------------------

_RECONCILE = {
    **_HEADER,
    "request_id": "reconcile-1",
    "tool": "math.add",
    "operation_key": "release-42-add",
}


def _reconcile_base() -> dict[str, Any]:
    return {
        "admitted": True,
        "stored": copy.deepcopy(_TOTAL),
        "reconcile": copy.deepcopy(_RECONCILE),
        "narrow": False,
        "status": copy.deepcopy(_TOTAL),
    }


def _reconcile_raw(document: Mapping[str, Any]) -> dict[str, Any]:
    steps: list[dict[str, Any]] = []
    if document["admitted"]:
        steps += [
            _step("admit", request="add", grant="math"),
            _step("observe", request="add", grant="math", status=_text(document["stored"])),
        ]
    grant = "narrow" if document["narrow"] else "math"
    status = _text(document["status"])
    steps.append(_step("observe_reconciliation", request="r", grant=grant, status=status))
    return {
        "setup": _setup({"add": _REQUEST, "r": document["reconcile"]}, raw=True),
        "steps": steps,
    }


def _reconcile_authorized(document: Mapping[str, Any]) -> dict[str, Any]:
    steps: list[dict[str, Any]] = []
    if document["admitted"]:
        stored = _text(document["stored"])
        steps += [
            _step("authorize_operation", request="add", authorizer="a", **{"as": "d1"}),
            _step("admit", authorized="d1"),
            _step("observe", authorized="d1", status=stored),
        ]
    authorizer = "n" if document["narrow"] else "a"
    steps += [
        _step("authorize_reconciliation", request="r", authorizer=authorizer, **{"as": "r1"}),
        _step("observe_reconciliation", authorized="r1", status=_text(document["status"])),
    ]
    return {
        "setup": _setup({"add": _REQUEST, "r": document["reconcile"]}, raw=False),
        "steps": steps,
    }


RECONCILE = _Topic(
    "journal.reconcile",
    _reconcile_base,
    {
        "known": _set("admitted", False),
        "tool": _request_field("reconcile", "tool", "math.sub"),
        "stored_state": _set("narrow", True),
        "status": _set("status", _TOO_LONG),
        # A failed original refuses the succeeded status the base observes.
        "transition": _set("stored", _FAILED),
    },
    _reconcile_raw,
    _reconcile_authorized,
    splash_code(
        PROTOCOL,
        "WorkerOperationJournal::validate_reconciliation",
        "WorkerOperationJournal::observe_reconciliation",
        note="the order of the checks in these functions; read, not run (EP-21)",
    ),
)


# -- EP-22: observe_compensation -------------------------------------------------------------

_UNDO = {
    **_REQUEST,
    "request_id": "undo-1",
    "compensation_key": "cmp-release-42-add-undo",
    "tenant_scope": _SCOPE,
    "grant_fingerprint": _fingerprint(_ADD),
    "payload": {"format": "json", "value": {"undo": "release"}},
}
_UNDONE = {"state": "succeeded", "payload": {"format": "json", "value": {"undone": True}}}


def _compensation_base() -> dict[str, Any]:
    return {
        "admitted": True,
        "attached": True,
        "first": None,
        "compensation": copy.deepcopy(_UNDO),
        "status": {"state": "running"},
    }


def _compensation_raw(document: Mapping[str, Any]) -> dict[str, Any]:
    steps: list[dict[str, Any]] = []
    if document["admitted"]:
        steps += [
            _step("admit", request="add", grant="math"),
            _step("observe", request="add", grant="math", status=_text(_TOTAL)),
        ]
        if document["attached"]:
            steps.append(_step("admit_compensation", request="undo", grant="math"))
            if document["first"] is not None:
                first = _text(document["first"])
                steps.append(
                    _step("observe_compensation", request="undo", grant="math", status=first)
                )
    status = _text(document["status"])
    steps.append(_step("observe_compensation", request="observed", grant="math", status=status))
    requests = {"add": _REQUEST, "undo": _UNDO, "observed": document["compensation"]}
    return {"setup": _setup(requests, raw=True), "steps": steps}


def _compensation_authorized(document: Mapping[str, Any]) -> dict[str, Any]:
    observed = dict(document["compensation"])
    other = observed != _UNDO
    if other:
        observed["request_id"] = "undo-2"
        if observed["tool"] == _SUB["tool"]:  # the authorizer binds the fingerprint to the tool
            observed["grant_fingerprint"] = _fingerprint(_SUB)
    steps: list[dict[str, Any]] = [
        _step("authorize_operation", request="add", authorizer="a", **{"as": "d1"}),
        _step("authorize_compensation", request="undo", authorizer="a", **{"as": "c1"}),
    ]
    if document["admitted"]:
        steps += [
            _step("admit", authorized="d1"),
            _step("observe", authorized="d1", status=_text(_TOTAL)),
        ]
        if document["attached"]:
            steps.append(_step("admit_compensation", authorized="c1"))
            if document["first"] is not None:
                first = _text(document["first"])
                steps.append(_step("observe_compensation", authorized="c1", status=first))
    target = "c1"
    if other:
        steps.append(
            _step("authorize_compensation", request="observed", authorizer="a", **{"as": "c2"})
        )
        target = "c2"
    status = _text(document["status"])
    steps.append(_step("observe_compensation", authorized=target, status=status))
    requests = {"add": _REQUEST, "undo": _UNDO, "observed": observed}
    return {"setup": _setup(requests, raw=False), "steps": steps}


OBSERVE_COMPENSATION = _Topic(
    "journal.observe_compensation",
    _compensation_base,
    {
        "status": _set("status", _TOO_LONG),
        "scope": _request_field("compensation", "tenant_scope", "tenant-other"),
        "known": _set("admitted", False),
        "tool": _request_field("compensation", "tool", "math.sub"),
        "attached": _set("attached", False),
        "identity": _request_field("compensation", "compensation_key", "cmp-release-42-add-other"),
        # A succeeded compensation refuses the running status the base observes.
        "transition": _set("first", _UNDONE),
    },
    _compensation_raw,
    _compensation_authorized,
    splash_code(
        PROTOCOL,
        "WorkerOperationJournal::observe_compensation",
        "validate_operation_status_for_grant",
        "ensure_compensation_target",
        "ensure_compensation_identity",
        note="the order of the checks in these functions; read, not run (EP-22)",
    ),
)

TOPICS = (ADMIT, RECONCILE, OBSERVE_COMPENSATION)


def precedence_rows() -> list[CaseRow]:
    """Every pair of EP-20 to EP-22, raw, then on authorized values."""
    return [
        row for authorized in (False, True) for topic in TOPICS for row in topic.rows(authorized)
    ]
