"""Pairwise error-precedence scenarios for a worker session's reconciliation
(docs/spec/precedence.md EP-27): a running dispatch, one reconciliation, then a second that
breaks two checks (authorizer, journal, session budget, tool budget)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rescind.conformance.cases import CaseRow
from rescind.conformance.interpreters.worker_scenario import run_scenario
from rescind.conformance.provenance import splash_code
from rescind.conformance.vectors.format import VectorTest
from rescind.conformance.vectors.sets._precedence import Faults, last_step, pair_rows
from rescind.conformance.vectors.sets._session_cases import Case, d, r, send, status
from rescind.conformance.vectors.sets._worker_fixtures import RUNNING


def _base() -> dict[str, Any]:
    return {"per_tool": 2, "per_session": 2, "request_id": "r2", "key": "op-1"}


def _case(document: Mapping[str, Any]) -> Case:
    return Case(
        "session.precedence",
        "EP-27",
        "",
        [
            send("ok", d("d1"), adapter=[status(RUNNING)]),
            send("ok", r("r1"), adapter=[status(RUNNING)]),
            # The adapter is asked only when nothing refuses (the base document), and a
            # scenario's script must be used exactly.
            send(
                "",
                r(document["request_id"], key=document["key"]),
                adapter=[status(RUNNING)] if document == _base() else None,
            ),
        ],
        setup={
            "limits": {"per_tool": document["per_tool"], "per_session": document["per_session"]}
        },
    )


def _input(document: Mapping[str, Any]) -> dict[str, Any]:
    return {"kind": "worker", "scenario": _case(document).spec()}


def precedence_rows() -> list[CaseRow]:
    return pair_rows(
        Faults(
            "session.reconcile",
            "session.reconcile",
            _base,
            {
                "authorized": lambda document, _: document.update(request_id="r1"),
                "journal": lambda document, _: document.update(key="op-2"),
                "session_budget": lambda document, _: document.update(per_session=1),
                "tool_budget": lambda document, _: document.update(per_tool=1),
            },
            _input,
            last_step(lambda case: run_scenario(case["scenario"])),
            splash_code(
                "crates/splash-worker/src/lib.rs",
                "WorkerSession::handle_reconciliation",
                "WorkerSession::reserve_reconciliation",
                note="the order of the checks in these functions; read, not run (EP-27)",
            ),
        )
    )


def precedence_tests() -> list[VectorTest]:
    return [
        VectorTest(
            row.id,
            row.rule,
            row.comment,
            row.input,
            run_scenario(row.input["scenario"]),
            "valid",
            row.flags,
            provenance=row.provenance,
        )
        for row in precedence_rows()
    ]
