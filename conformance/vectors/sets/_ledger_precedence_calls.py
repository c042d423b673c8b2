"""Pairwise error-precedence traces for eight more host-engine calls
(docs/spec/precedence.md): recording a compensation intent (EP-30), building a reconciliation
request (EP-31), preparing an external operation (EP-32), approving a compensation (EP-33),
applying a verified reconciliation (EP-34) or compensation result (EP-35), building a
dispatch request (EP-52) and recording a compensation intent with verifiers (EP-53). Each
trace loads a ledger and ends in the one call that breaks two checks; every step before it
succeeds."""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

from rescind.conformance.cases import CaseRow
from rescind.conformance.fixtures.trace_dsl import (
    PLAN,
    SUCCEEDED,
    TOOL,
    UNDO,
    VERSION,
    grant,
    session,
)
from rescind.conformance.interpreters.host_trace import run_trace
from rescind.conformance.provenance import splash_code
from rescind.conformance.vectors.sets._ledger_texts import (
    CMP_KEY,
    GRANT_FP,
    MAX_REVISION,
    OP_KEY,
    PLAN_FP,
    compensation,
    ledger,
    operation,
    text,
)
from rescind.conformance.vectors.sets._precedence import Faults, last_step, pair_rows

_HUGE = {"repeat": "x", "count": 262_145}
_HUGE_TEXT = {"format": "text", "value": _HUGE}
_OTHER_FP = "2" * 64
_SETUP = {
    "engines": ["engine", "other-engine"],
    "plans": {
        "plan": {"engine": "engine", "steps": PLAN},
        "foreign": {"engine": "other-engine", "steps": PLAN},
    },
    "grants": {"grant": grant(), "other": grant(tool="release.other")},
}
Fault = Callable[[dict[str, Any], int], None]


def _set(*path: str | int, value: object) -> Fault:
    """A fault that sets one member of the document (a path of keys and list indexes)."""

    def fault(document: dict[str, Any], _: int) -> None:
        target: Any = document
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return fault


def _context(document: Mapping[str, Any]) -> dict[str, Any]:
    return {"engine": "engine", "plan": document["plan"], "ledger": "ledger"}


def _load(document: Mapping[str, Any]) -> dict[str, Any]:
    stored = ledger(document["operations"], document["revision"], plan=document["fingerprint"])
    return {"call": "load_ledger", "args": {"text": text(stored), "as": "ledger"}}


def _stored(**fields: Any) -> dict[str, Any]:
    """A ledger holding one operation (``OP_KEY``, the fingerprint of ``VERSION``)."""
    return {
        "plan": "plan",
        "fingerprint": PLAN_FP,
        "revision": 3,
        "operations": [operation(**fields)],
    }


def _provenance(*symbols: str, rule: str) -> Any:
    return splash_code(
        "crates/splash-workflow/src/lib.rs",
        *symbols,
        note=f"the order of the checks in these functions; read, not run ({rule})",
    )


# -- EP-30: record_compensation ------------------------------------------------------------

_RAW_POLICY = {"tool": TOOL, "tenant_scope": "tenant-release", "grant_fingerprint": GRANT_FP}


def _compensation_base() -> dict[str, Any]:
    return {
        **_stored(state="succeeded"),
        "policy": {"grant": "grant", "tenant_scope": "tenant-release"},
        "call": {"operation_key": OP_KEY, "compensation_key": CMP_KEY, "input": UNDO},
    }


def _raw(name: str, value: str) -> Fault:
    """A policy built without validation (``raw_policy``) with one member changed."""

    def fault(document: dict[str, Any], _: int) -> None:
        policy = document["policy"]
        if "grant" in policy:
            policy = document["policy"] = dict(_RAW_POLICY)
        policy[name] = value

    return fault


def _policy_tool(document: dict[str, Any], _: int) -> None:
    if "grant" in document["policy"]:
        document["policy"]["grant"] = "other"
    else:
        document["policy"]["tool"] = "release.other"


def _extra_step(document: dict[str, Any], _: int) -> None:
    document["operations"].append(operation(step="deploy", key="op-deploy"))


def _compensation_trace(document: Mapping[str, Any]) -> dict[str, Any]:
    policy = document["policy"]
    kind = "policy" if "grant" in policy else "raw_policy"
    return {
        "setup": copy.deepcopy(_SETUP),
        "steps": [
            _load(document),
            {"call": kind, "args": {**policy, "as": "pol"}},
            {
                "call": "record_compensation",
                "args": {**_context(document), "policy": "pol", **document["call"]},
            },
        ],
    }


def compensation_rows() -> list[CaseRow]:
    return pair_rows(compensation_faults())


def compensation_faults() -> Faults:
    return Faults(
        "ledger.record_compensation",
        "ledger.record-compensation",
        _compensation_base,
        {
            "plan_owned": _set("plan", value="foreign"),
            "plan_binding": _set("fingerprint", value="1" * 64),
            "ledger_steps": _extra_step,
            "policy_tool": _raw("tool", "Release.Publish"),
            "policy_tenant": _raw("tenant_scope", "Tenant Release"),
            "policy_grant": _raw("grant_fingerprint", "f" * 63),
            "input_size": _set("call", "input", value=_HUGE),
            "known": _set("call", "operation_key", value="op-missing"),
            "succeeded": _set("operations", 0, "state", value="running"),
            "tool_match": _policy_tool,
            "not_recorded": _set("operations", 0, "compensation", value=compensation()),
            "compensation_key": _set("call", "compensation_key", value="undo-1"),
            "revision": _set("revision", value=MAX_REVISION),
        },
        _compensation_trace,
        last_step(run_trace),
        _provenance(
            "WorkflowEngine::record_compensation",
            "WorkflowOperationLedger::record_compensation",
            "WorkflowCompensationPolicy::validate_syntax",
            rule="EP-30",
        ),
    )


# -- EP-31: operation_reconcile_request ----------------------------------------------------


def _reconcile_base() -> dict[str, Any]:
    return {
        **_stored(),
        "call": {
            "operation_key": OP_KEY,
            "input": VERSION,
            "session_id": "worker-1",
            "request_id": "reconcile-1",
        },
    }


def _reconcile_trace(document: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "setup": copy.deepcopy(_SETUP),
        "steps": [
            _load(document),
            {
                "call": "operation_reconcile_request",
                "args": {**_context(document), **document["call"]},
            },
        ],
    }


def reconcile_rows() -> list[CaseRow]:
    return pair_rows(reconcile_faults())


def reconcile_faults() -> Faults:
    return Faults(
        "ledger.reconcile_request",
        "ledger.reconcile-request",
        _reconcile_base,
        {
            "plan_owned": _set("plan", value="foreign"),
            "plan_binding": _set("fingerprint", value="1" * 64),
            "ledger_steps": _extra_step,
            "operation_key": _set("call", "operation_key", value="op key"),
            "known": _set("operations", 0, "operation_key", value="op-other"),
            "input_size": _set("call", "input", value=_HUGE),
            "input_match": _set("operations", 0, "input_fingerprint", value=_OTHER_FP),
            "session_token": _set("call", "session_id", value="worker 1"),
            "request_id_token": _set("call", "request_id", value="reconcile 1"),
        },
        _reconcile_trace,
        last_step(run_trace),
        _provenance(
            "WorkflowEngine::operation_reconcile_request",
            "WorkflowOperationLedger::reconcile_request",
            "WorkflowOperation::verify_input",
            rule="EP-31",
        ),
    )


# -- EP-32: prepare_external_operation -----------------------------------------------------

_PREPARE = {"step_id": "publish", "tool": TOOL, "input": VERSION, "nonce": "run-7:publish:1"}


def _prepare_base() -> dict[str, Any]:
    return {"plan": "plan", "edits": [], "call": dict(_PREPARE)}


def _edit(*path: str | int, value: object) -> Fault:
    """An edit of the stored ledger, applied to its text before it is loaded again."""

    def fault(document: dict[str, Any], _: int) -> None:
        document["edits"].append({"path": list(path), "value": value})

    return fault


def _prepare_trace(document: Mapping[str, Any]) -> dict[str, Any]:
    """Prepare once on a new ledger (it records the operation), reload that ledger with the
    edits, then prepare again with the (possibly faulted) call."""
    return {
        "setup": copy.deepcopy(_SETUP),
        "steps": [
            {"call": "operation_ledger", "args": {"engine": "engine", "plan": "plan", "as": "l0"}},
            {
                "call": "prepare_external_operation",
                "args": {"engine": "engine", "plan": "plan", "ledger": "l0", **_PREPARE},
            },
            {
                "call": "load_ledger",
                "args": {"from": "l0", "edits": document["edits"], "as": "ledger"},
            },
            {
                "call": "prepare_external_operation",
                "args": {**_context(document), **document["call"]},
            },
        ],
    }


def prepare_rows() -> list[CaseRow]:
    return pair_rows(prepare_faults())


def prepare_faults() -> Faults:
    return Faults(
        "ledger.prepare_external_operation",
        "ledger.prepare-external",
        _prepare_base,
        {
            "plan_owned": _set("plan", value="foreign"),
            "step_known": _set("call", "step_id", value="deploy"),
            "tool": _set("call", "tool", value="Release.Publish"),
            "input_size": _set("call", "input", value=_HUGE),
            "nonce_empty": _set("call", "nonce", value=""),
            "nonce_size": _set("call", "nonce", value="n" * 129),
            "plan_binding": _edit("plan_fingerprint", value="1" * 64),
            "ledger_steps": _edit("operations", 0, "step_id", value="deploy"),
            "binding": _edit("operations", 0, "tool", value="release.other"),
            "terminal": _edit("operations", 0, "state", value="succeeded"),
            "input_match": _edit("operations", 0, "input_fingerprint", value=_OTHER_FP),
        },
        _prepare_trace,
        last_step(run_trace),
        _provenance(
            "WorkflowEngine::prepare_next_external_operation",
            "WorkflowEngine::derive_operation_key",
            "WorkflowEngine::validate_external_operation_binding",
            rule="EP-32",
        ),
    )


# -- EP-33: approve_compensation -----------------------------------------------------------


def _approve_base() -> dict[str, Any]:
    return {
        **_stored(state="succeeded", comp=compensation()),
        "policy": {"grant": "grant", "tenant_scope": "tenant-release"},
        "target": {"operation_key": OP_KEY, "grant": "grant"},
        "verifiers": {"gv": True, "av": True},
        "call": {"input": UNDO, "session": "host"},
    }


def _not_succeeded(document: dict[str, Any], _: int) -> None:
    """A running original (which cannot hold an intent, HL-3)."""
    document["operations"][0].update(state="running", compensation=None)


def _intent(name: str, value: str) -> Fault:
    """Change one member of the stored intent, if there still is one."""

    def fault(document: dict[str, Any], _: int) -> None:
        stored = document["operations"][0]["compensation"]
        if stored is not None:
            stored[name] = value

    return fault


def _approve_trace(document: Mapping[str, Any]) -> dict[str, Any]:
    policy = document["policy"]
    kind = "policy" if "grant" in policy else "raw_policy"
    target = {**document["target"], "policy": "pol", "grant_verifier": "gv"}
    return {
        "setup": {
            **copy.deepcopy(_SETUP),
            "sessions": {"host": session(), "worker": session(role="worker")},
            "verifiers": dict(document["verifiers"]),
        },
        "steps": [
            _load(document),
            {"call": kind, "args": {**policy, "as": "pol"}},
            {"call": "target", "args": {**target, "action_verifier": "av", "as": "tgt"}},
            {
                "call": "approve_compensation",
                "args": {**_context(document), "target": "tgt", **document["call"]},
            },
        ],
    }


def approve_rows() -> list[CaseRow]:
    return pair_rows(approve_faults())


def approve_faults() -> Faults:
    return Faults(
        "ledger.approve_compensation",
        "ledger.approve-compensation",
        _approve_base,
        {
            "role": _set("call", "session", value="worker"),
            "plan_owned": _set("plan", value="foreign"),
            "plan_binding": _set("fingerprint", value="1" * 64),
            "ledger_steps": _extra_step,
            "policy_tool": _raw("tool", "Release.Publish"),
            "policy_tenant": _raw("tenant_scope", "Tenant Release"),
            "policy_grant": _raw("grant_fingerprint", "f" * 63),
            "grant_match": _set("target", "grant", value="other"),
            "grant_verifier": _set("verifiers", "gv", value=False),
            "known": _set("target", "operation_key", value="op-missing"),
            "succeeded": _not_succeeded,
            "tool_match": _set("operations", 0, "tool", value="release.other"),
            "intent": _set("operations", 0, "compensation", value=None),
            "policy_match": _intent("tenant_scope", "tenant-other"),
            "input_size": _set("call", "input", value=_HUGE),
            "input_match": _intent("input_fingerprint", _OTHER_FP),
            "action_verifier": _set("verifiers", "av", value=False),
        },
        _approve_trace,
        last_step(run_trace),
        _provenance(
            "WorkflowEngine::approve_compensation",
            "WorkflowCompensationTarget::verify_grant_current",
            "WorkflowCompensation::matches_policy",
            "WorkflowCompensationTarget::verify_action_current",
            rule="EP-33",
        ),
    )


# -- EP-53: record_compensation_with_action_verifier ----------------------------------------


def _verified_base() -> dict[str, Any]:
    return {
        **_stored(state="succeeded"),
        "policy": {"grant": "grant", "tenant_scope": "tenant-release"},
        "target": {"operation_key": OP_KEY, "grant": "grant"},
        "verifiers": {"gv": True, "av": True},
        "call": {"compensation_key": CMP_KEY, "input": UNDO},
    }


def _verified_trace(document: Mapping[str, Any]) -> dict[str, Any]:
    """EP-33's setup and steps, ending in a verified record instead of an approval."""
    trace = _approve_trace(document)
    trace["steps"][-1] = {
        "call": "record_compensation_with_action_verifier",
        "args": {**_context(document), "target": "tgt", **document["call"]},
    }
    return trace


def verified_rows() -> list[CaseRow]:
    return pair_rows(verified_faults())


def verified_faults() -> Faults:
    return Faults(
        "ledger.record_compensation_verified",
        "ledger.record-compensation-verified",
        _verified_base,
        {
            "plan_owned": _set("plan", value="foreign"),
            "plan_binding": _set("fingerprint", value="1" * 64),
            "ledger_steps": _extra_step,
            "policy_tool": _raw("tool", "Release.Publish"),
            "policy_tenant": _raw("tenant_scope", "Tenant Release"),
            "policy_grant": _raw("grant_fingerprint", "f" * 63),
            "grant_match": _set("target", "grant", value="other"),
            "grant_verifier": _set("verifiers", "gv", value=False),
            "input_size": _set("call", "input", value=_HUGE),
            "known": _set("target", "operation_key", value="op-missing"),
            "action_tool": _set("operations", 0, "tool", value="release.other"),
            "action_verifier": _set("verifiers", "av", value=False),
            "succeeded": _set("operations", 0, "state", value="running"),
            "not_recorded": _set("operations", 0, "compensation", value=compensation()),
            "compensation_key": _set("call", "compensation_key", value="undo-1"),
            "revision": _set("revision", value=MAX_REVISION),
        },
        _verified_trace,
        last_step(run_trace),
        _provenance(
            "WorkflowEngine::record_compensation_with_action_verifier",
            "WorkflowCompensationTarget::verify_grant_current",
            "WorkflowCompensationTarget::verify_action_current",
            "WorkflowOperationLedger::record_compensation",
            rule="EP-53",
        ),
    )


# -- EP-52: operation_dispatch_request ------------------------------------------------------


def _dispatch_base() -> dict[str, Any]:
    return {
        **_stored(),
        "call": {
            "operation_key": OP_KEY,
            "payload": VERSION,
            "session_id": "worker-1",
            "request_id": "dispatch-1",
        },
    }


def _deep() -> dict[str, Any]:
    value: Any = {}
    for _level in range(33):
        value = [value]
    return {"format": "json", "value": value}


def _dispatch_trace(document: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "setup": copy.deepcopy(_SETUP),
        "steps": [
            _load(document),
            {
                "call": "operation_dispatch_request",
                "args": {**_context(document), **document["call"]},
            },
        ],
    }


def dispatch_rows() -> list[CaseRow]:
    return pair_rows(dispatch_faults())


def dispatch_faults() -> Faults:
    return Faults(
        "ledger.dispatch_request",
        "ledger.dispatch-request",
        _dispatch_base,
        {
            "plan_owned": _set("plan", value="foreign"),
            "plan_binding": _set("fingerprint", value="1" * 64),
            "ledger_steps": _extra_step,
            "known": _set("operations", 0, "operation_key", value="op-other"),
            "session_token": _set("call", "session_id", value="worker 1"),
            "request_id_token": _set("call", "request_id", value="dispatch 1"),
            "envelope": _set("call", "payload", value={"format": "json", "value": 42}),
            "depth": _set("call", "payload", value=_deep()),
            "input_size": _set("call", "payload", value=_HUGE_TEXT),
            "input_match": _set("operations", 0, "input_fingerprint", value=_OTHER_FP),
        },
        _dispatch_trace,
        last_step(run_trace),
        _provenance(
            "WorkflowEngine::operation_dispatch_request",
            "WorkflowOperation::verify_input",
            rule="EP-52",
        ),
    )


# -- EP-34, EP-35: applying verified results -----------------------------------------------

_SESSIONS = {"host": session(), "worker": session(role="worker")}


def _apply_fields() -> dict[str, Any]:
    return {"request_change": {}, "result_change": {}}


def _reconciliation_base() -> dict[str, Any]:
    return {**_stored(), **_apply_fields()}


def _applied(call: str, prepared: str, document: Mapping[str, Any]) -> dict[str, Any]:
    """Load the (faulted) ledger, then apply the (edited) reply to the prepared request."""
    return {
        "call": call,
        "args": {
            **_context(document),
            "request": {"of": prepared, "change": document["request_change"]},
            "result": {
                "reply_to": prepared,
                "status": SUCCEEDED,
                "change": document["result_change"],
            },
        },
    }


def _pristine(document: Mapping[str, Any]) -> dict[str, Any]:
    """The base ledger as ``base``: requests are prepared from it, not from the faulted one."""
    stored = ledger([operation(**document["pristine"])], 3)
    return {"call": "load_ledger", "args": {"text": text(stored), "as": "base"}}


def _reconciliation_trace(document: Mapping[str, Any]) -> dict[str, Any]:
    base = {"engine": "engine", "plan": "plan", "ledger": "base"}
    return {
        "setup": {**copy.deepcopy(_SETUP), "sessions": copy.deepcopy(_SESSIONS)},
        "steps": [
            _pristine({"pristine": {}}),
            {
                "call": "prepare_reconciliation",
                "args": {
                    **base,
                    "operation_key": OP_KEY,
                    "input": VERSION,
                    "request_id": "reconcile-1",
                    "session": "host",
                    "as": "r1",
                },
            },
            _load(document),
            _applied("apply_verified_reconciliation", "r1", document),
        ],
    }


def _apply_faults() -> dict[str, Fault]:
    return {
        "plan_owned": _set("plan", value="foreign"),
        "plan_binding": _set("fingerprint", value="1" * 64),
        "ledger_steps": _extra_step,
        "request_valid": _set("request_change", "protocol_version", value=4),
        "result_valid": _set("result_change", "session_id", value="worker 1"),
        "match": _set("result_change", "request_id", value="other-request"),
        "known": _set("operations", 0, "operation_key", value="op-other"),
        "tool": _set("operations", 0, "tool", value="release.other"),
        "revision": _set("revision", value=MAX_REVISION),
    }


def reconciliation_rows() -> list[CaseRow]:
    return pair_rows(reconciliation_faults())


def reconciliation_faults() -> Faults:
    return Faults(
        "ledger.apply_reconciliation",
        "ledger.apply-reconciliation",
        _reconciliation_base,
        {**_apply_faults(), "transition": _set("operations", 0, "state", value="failed")},
        _reconciliation_trace,
        last_step(run_trace),
        _provenance(
            "WorkflowEngine::apply_verified_operation_reconciliation",
            "WorkflowOperationLedger::apply_verified_reconciliation",
            rule="EP-34",
        ),
    )


def _compensation_apply_base() -> dict[str, Any]:
    return {**_stored(state="succeeded", comp=compensation()), **_apply_fields()}


def _compensation_apply_trace(document: Mapping[str, Any]) -> dict[str, Any]:
    base = {"engine": "engine", "plan": "plan", "ledger": "base"}
    return {
        "setup": {
            **copy.deepcopy(_SETUP),
            "sessions": copy.deepcopy(_SESSIONS),
            "verifiers": {"gv": True, "av": True},
        },
        "steps": [
            _pristine({"pristine": {"state": "succeeded", "comp": compensation()}}),
            {
                "call": "policy",
                "args": {"grant": "grant", "tenant_scope": "tenant-release", "as": "pol"},
            },
            {
                "call": "target",
                "args": {
                    "operation_key": OP_KEY,
                    "policy": "pol",
                    "grant": "grant",
                    "grant_verifier": "gv",
                    "action_verifier": "av",
                    "as": "tgt",
                },
            },
            {
                "call": "approve_compensation",
                "args": {**base, "target": "tgt", "input": UNDO, "session": "host", "as": "ap"},
            },
            {
                "call": "prepare_compensation",
                "args": {
                    **base,
                    "target": "tgt",
                    "approval": "ap",
                    "request_id": "compensate-1",
                    "payload": UNDO,
                    "session": "host",
                    "as": "x1",
                },
            },
            _load(document),
            _applied("apply_verified_compensation", "x1", document),
        ],
    }


def compensation_apply_rows() -> list[CaseRow]:
    return pair_rows(compensation_apply_faults())


def compensation_apply_faults() -> Faults:
    return Faults(
        "ledger.apply_compensation",
        "ledger.apply-compensation",
        _compensation_apply_base,
        {
            **_apply_faults(),
            "intent": _set("operations", 0, "compensation", value=None),
            "input_size": _set("request_change", "payload", value=_HUGE_TEXT),
            "input_match": _intent("input_fingerprint", _OTHER_FP),
            "identity": _intent("tenant_scope", "tenant-other"),
            "transition": _intent("state", "failed"),
        },
        _compensation_apply_trace,
        last_step(run_trace),
        _provenance(
            "WorkflowEngine::apply_verified_operation_compensation",
            "WorkflowOperationLedger::apply_verified_compensation",
            "WorkflowCompensation::verify_input",
            rule="EP-35",
        ),
    )


def precedence_rows() -> list[CaseRow]:
    return [
        *compensation_rows(),
        *reconcile_rows(),
        *prepare_rows(),
        *approve_rows(),
        *reconciliation_rows(),
        *compensation_apply_rows(),
        *dispatch_rows(),
        *verified_rows(),
    ]
