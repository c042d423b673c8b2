"""Pairwise error-precedence scenarios for a worker session (docs/spec/precedence.md): its
reconciliation (EP-27: a running dispatch, one reconciliation, then a second that breaks two
checks), its opening (EP-40), a dispatch (EP-41), its limits (EP-42) and a frame (EP-43)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from rescind.conformance.cases import CaseRow
from rescind.conformance.fixtures.session_cases import (
    OPEN_AGAIN,
    Case,
    act,
    d,
    fault,
    r,
    send,
    status,
)
from rescind.conformance.fixtures.worker import RUNNING
from rescind.conformance.interpreters.worker_scenario import run_scenario
from rescind.conformance.provenance import splash_code
from rescind.conformance.vectors.format import VectorTest
from rescind.conformance.vectors.sets._precedence import Faults, last_step, pair_rows
from rescind.reference.errors import error_registry


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


def _final_step(case: Mapping[str, Any]) -> Any:
    """The last step's answer, whatever the earlier steps answered (a refused dispatch still
    spends its call); a refusal is raised again as the reference's error."""
    last = run_scenario(case["scenario"])["steps"][-1]
    if "error" in last:
        raise error_registry()[last["error"]](**last.get("details", {}))
    return last


_WORKER = "crates/splash-worker/src/lib.rs"


# -- EP-40: open --------------------------------------------------------------------------------


def _open_base() -> dict[str, Any]:
    return {"role": "worker", "kind": "open", "broken": False, "missing": False, "zero": False}


def _opening_message(document: Mapping[str, Any]) -> str:
    if document["kind"] == "open":
        message = json.loads(OPEN_AGAIN)
        if document["broken"]:
            message["manifest"]["protocol_version"] = 4
        return json.dumps(message, separators=(",", ":"))
    message = json.loads(d("d1"))
    if document["broken"]:
        message["request"]["protocol_version"] = 4
    return json.dumps(message, separators=(",", ":"))


def _open_input(document: Mapping[str, Any]) -> dict[str, Any]:
    args: dict[str, Any] = {"role": document["role"], "message": _opening_message(document)}
    if document["zero"]:
        args["admission"] = "zero"
    setup: dict[str, Any] = {"open": False}
    if document["missing"]:
        setup["missing_adapters"] = ["text.echo"]
    case = Case("session.precedence", "EP-40", "", [act("", "open", **args)], setup=setup)
    return {"kind": "worker", "scenario": case.spec()}


def _open_rows() -> list[CaseRow]:
    return pair_rows(
        Faults(
            "session.open",
            "session.open",
            _open_base,
            {
                "role": lambda document, _: document.update(role="host"),
                "frame": lambda document, _: document.update(broken=True),
                "kind": lambda document, _: document.update(kind="dispatch"),
                "adapters": lambda document, _: document.update(missing=True),
                "lease": lambda document, _: document.update(zero=True),
            },
            _open_input,
            _final_step,
            splash_code(
                _WORKER,
                "WorkerSession::open",
                note="the order of the checks in this function; read, not run (EP-40)",
            ),
        )
    )


# -- EP-41: dispatch ----------------------------------------------------------------------------


def _dispatch_base() -> dict[str, Any]:
    return {"durable": True, "spent": False, "value": "release"}


def _dispatch_input(document: Mapping[str, Any]) -> dict[str, Any]:
    durable = document["durable"]
    # The first dispatch calls the adapter only when the contract is declared (a scenario's
    # adapter script must be used exactly); resends of it never do.
    steps = [send("", d("d1"), adapter=[status(RUNNING)] if durable else None)]
    if document["spent"]:  # the probe grant has 3 calls
        steps += [send("", d("d2")), send("", d("d3"))]
    steps.append(send("", d("d-final", value=document["value"])))
    setup: dict[str, Any] = {} if durable else {"declarations": {"durable": False}}
    case = Case("session.precedence", "EP-41", "", steps, setup=setup)
    return {"kind": "worker", "scenario": case.spec()}


def _dispatch_rows() -> list[CaseRow]:
    return pair_rows(
        Faults(
            "session.dispatch",
            "session.dispatch",
            _dispatch_base,
            {
                "authorized": lambda document, _: document.update(spent=True),
                "contract": lambda document, _: document.update(durable=False),
                "journal": lambda document, _: document.update(value="other"),
            },
            _dispatch_input,
            _final_step,
            splash_code(
                _WORKER,
                "WorkerSession::handle_operation_dispatch",
                note="the order of the checks in this function; read, not run (EP-41)",
            ),
        )
    )


# -- EP-43: handling a frame --------------------------------------------------------------------


def _handle_base() -> dict[str, Any]:
    return {"poisoned": False, "tampered": False, "kind": "dispatch"}


def _handle_input(document: Mapping[str, Any]) -> dict[str, Any]:
    steps = []
    if document["poisoned"]:  # the admission's write fails: journal_persistence_failed, poison
        steps.append(send("", d("d0", key="op-0"), faults=[fault("unavailable")]))
    clean = document == _handle_base()
    message = d("d1") if document["kind"] == "dispatch" else OPEN_AGAIN
    steps.append(
        send(
            "",
            message,
            adapter=[status(RUNNING)] if clean else None,
            tamper="flip_tag" if document["tampered"] else None,
        )
    )
    case = Case("session.precedence", "EP-43", "", steps)
    return {"kind": "worker", "scenario": case.spec()}


def _handle_rows() -> list[CaseRow]:
    return pair_rows(
        Faults(
            "session.handle",
            "session.handle",
            _handle_base,
            {
                "poisoned": lambda document, _: document.update(poisoned=True),
                "frame": lambda document, _: document.update(tampered=True),
                "kind": lambda document, _: document.update(kind="open_session"),
            },
            _handle_input,
            _final_step,
            splash_code(
                _WORKER,
                "WorkerSession::handle",
                note="the order of the checks in this function; read, not run (EP-43)",
            ),
        )
    )


# -- EP-42: limits ------------------------------------------------------------------------------


def _limits_input(document: Mapping[str, Any]) -> dict[str, Any]:
    case = Case("session.precedence", "EP-42", "", [], setup={"limits": dict(document)})
    return {"kind": "worker", "scenario": case.spec()}


def _opened(case: Mapping[str, Any]) -> Any:
    opened = run_scenario(case["scenario"]).get("open", {})
    if "error" in opened:
        raise error_registry()[opened["error"]](**opened.get("details", {}))
    return opened


def _limits_rows() -> list[CaseRow]:
    return pair_rows(
        Faults(
            "session.limits",
            "session.limits",
            lambda: {"per_tool": 16, "per_session": 64},
            {
                "per_tool": lambda document, _: document.update(per_tool=0),
                "per_session": lambda document, _: document.update(per_session=0),
            },
            _limits_input,
            _opened,
            splash_code(
                _WORKER,
                "WorkerSessionLimits::with_limits",
                note="the order of the checks in this function; read, not run (EP-42)",
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
        for row in (
            *precedence_rows(),
            *_open_rows(),
            *_dispatch_rows(),
            *_handle_rows(),
            *_limits_rows(),
        )
    ]
