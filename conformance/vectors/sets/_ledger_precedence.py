"""Pairwise error-precedence traces for recording an operation through the host engine
(docs/spec/precedence.md EP-18): a ledger loaded from text, then one ``record_operation``
that breaks two checks."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from rescind.conformance.cases import CaseRow
from rescind.conformance.interpreters.host_trace import run_trace
from rescind.conformance.provenance import splash_code
from rescind.conformance.vectors.format import VectorTest
from rescind.conformance.vectors.sets import _ledger_precedence_calls
from rescind.conformance.vectors.sets._ledger_texts import (
    MAX_REVISION,
    PLAN_FP,
    ledger,
    operation,
    text,
)
from rescind.conformance.vectors.sets._precedence import Faults, last_step, pair_rows, trace_test

_STEPS = [["publish", "let release = true"]]
_INPUT = {"format": "json", "value": {"version": "1.2.3"}}


def _base() -> dict[str, Any]:
    return {
        "plan": "plan",
        "fingerprint": PLAN_FP,
        "revision": 0,
        "operations": [],
        "call": {
            "step_id": "publish",
            "tool": "release.publish",
            "operation_key": "release-2026-1",
            "input": copy.deepcopy(_INPUT),
        },
    }


def _trace(document: Mapping[str, Any]) -> dict[str, Any]:
    stored = text(
        ledger(document["operations"], document["revision"], plan=document["fingerprint"])
    )
    return {
        "setup": {
            "engines": ["engine", "other-engine"],
            "plans": {
                "plan": {"engine": "engine", "steps": _STEPS},
                "foreign": {"engine": "other-engine", "steps": _STEPS},
            },
        },
        "steps": [
            {"call": "load_ledger", "args": {"text": stored, "as": "ledger"}},
            {
                "call": "record_operation",
                "args": {
                    "engine": "engine",
                    "plan": document["plan"],
                    "ledger": "ledger",
                    **document["call"],
                },
            },
        ],
    }


def _call(name: str, value: object) -> Any:
    def fault(document: dict[str, Any], _: int) -> None:
        document["call"][name] = value

    return fault


def _full(document: dict[str, Any], _: int) -> None:
    document["operations"] = [operation(key=f"op-{index}") for index in range(64)]
    document["revision"] = max(document["revision"], 64)


def _repeated(document: dict[str, Any], _: int) -> None:
    document["operations"] = [
        *document["operations"],
        operation(key=document["call"]["operation_key"]),
    ]
    document["revision"] = max(document["revision"], len(document["operations"]))


def precedence_rows() -> list[CaseRow]:
    return pair_rows(record_faults())


def record_faults() -> Faults:
    return Faults(
        "ledger.record_operation",
        "ledger.record",
        _base,
        {
            "plan_owned": lambda document, _: document.update(plan="foreign"),
            "plan_binding": lambda document, _: document.update(fingerprint="1" * 64),
            "step_known": _call("step_id", "deploy"),
            "input_size": _call("input", {"repeat": "x", "count": 262_145}),
            "operation_count": _full,
            "revision": lambda document, _: document.update(revision=MAX_REVISION),
            "tool": _call("tool", "Release.Publish"),
            "operation_key": _call("operation_key", "cmp-reserved"),
            "operation_key_unique": _repeated,
        },
        _trace,
        last_step(run_trace),
        splash_code(
            "crates/splash-workflow/src/lib.rs",
            "WorkflowEngine::record_operation",
            "WorkflowOperationLedger::validate_for",
            "WorkflowOperationLedger::record",
            note="the order of the checks in these functions; read, not run (EP-18)",
        ),
    )


def precedence_tests() -> tuple[VectorTest, ...]:
    """EP-18's rows, then those of the other engine calls (EP-30 to EP-35, EP-52, EP-53)."""
    rows = [*precedence_rows(), *_ledger_precedence_calls.precedence_rows()]
    return tuple(map(trace_test(run_trace), rows))
