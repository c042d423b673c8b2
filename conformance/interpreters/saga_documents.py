"""JSON in, JSON out: one entry point per saga vector group, for generators and drivers.

Each function takes a vector's ``input`` object and returns its ``expected`` object, or raises
a ``RescindError`` whose code is the expected error. So a vector's expected value is always the
reference's answer to its input, and a driver can serve the same answer for an implementation
under test.
"""

from __future__ import annotations

from typing import Any

from rescind.conformance.interpreters.saga_scenarios import run_agentctl, run_case, run_work_items
from rescind.reference.saga.bindings import compensation_order, validate_bindings
from rescind.reference.saga.declarations import (
    check_compensation,
    check_loaded,
    expand,
)
from rescind.reference.saga.effects import Effect, EffectClass
from rescind.reference.saga.errors import BindingInvalid
from rescind.reference.saga.execution import plan_exit_status
from rescind.reference.saga.loading import Reader, read_definition, read_lineage, read_workflow
from rescind.reference.saga.planner import plan_compensation
from rescind.reference.saga.reconciliation import EffectRegistry, Overlay, reconcile
from rescind.reference.saga.transitions import fire
from rescind.tables.saga import (
    ALL_TABLES,
    CASE_ACTIVE_EARLIER,
    CASE_TABLE,
    EffectStatus,
    ReconciliationStatus,
    StateTable,
)


def plan_document(document: Any) -> dict[str, Any]:
    """A ``saga plan`` file -> the plan and the agentctl exit status name."""
    lineage, selection = read_lineage(document)
    _, plan = plan_compensation(lineage, selection)
    body = plan.to_json()
    body["agentctlExit"] = plan_exit_status(plan).value
    return body


def run_document(document: Any) -> dict[str, Any]:
    """``{lineage, steps}`` -> one result per step."""
    reader = Reader(document).object(("lineage", "steps"))
    lineage, _ = read_lineage(reader.value["lineage"])
    return {"results": run_agentctl(lineage, reader.value["steps"])}


DECLARE_ENTRIES = ("compile", "cli")
"""``compile``: agentctl's ``compile`` alone (the default); ``cli``: its load path,
``parse_workflow`` then ``compile`` (SG-97)."""


def declare_document(document: Any) -> dict[str, Any]:
    """``{workflow, entry?}`` -> compile-time diagnostics and the foreach expansion (none when
    the CLI's parser refused the file)."""
    reader = Reader(document).object(("workflow",), ("entry",))
    workflow = read_workflow(reader.value["workflow"])
    entry = reader.value.get("entry", "compile")
    if entry not in DECLARE_ENTRIES:
        raise reader.child("entry").fail("must be one of: " + ", ".join(DECLARE_ENTRIES))
    if entry == "cli":
        diagnostics, parsed = check_loaded(workflow)
    else:
        diagnostics, parsed = check_compensation(workflow), True
    expanded = expand(workflow).tasks if parsed else ()
    return {
        "diagnostics": [diagnostic.to_json() for diagnostic in diagnostics],
        "expanded": [
            {"id": task.task_id, "compensate": task.compensate is not None} for task in expanded
        ],
    }


class BindingSetRefused(Exception):
    """A binding set CaseHub refuses: the first error's code, and every finding."""

    def __init__(self, error: BindingInvalid, findings: list[dict[str, Any]]) -> None:
        super().__init__(error.code)
        self.error = error
        self.findings = findings


def validate_document(document: Any) -> dict[str, Any]:
    """A ``saga validate`` file -> findings, parsed fields and order; a refused set raises
    ``BindingSetRefused`` (its vector expects ``{"error", "findings"}``)."""
    definition = read_definition(document)
    report = validate_bindings(definition)
    findings = [finding.to_json() for finding in report.findings]
    try:
        report.raise_first_error()
    except BindingInvalid as error:
        raise BindingSetRefused(error, findings) from None
    parsed = [
        {"name": b.name, "compensate": b.compensate, "compensation": b.compensation}
        for b in definition.bindings
    ]
    order = compensation_order(definition).to_json()
    return {"findings": findings, "bindings": parsed, "order": order}


def _table(name: str) -> StateTable[Any]:
    for table in ALL_TABLES:
        if table.name == name:
            return table
    raise Reader(name, "file.lifecycle").fail("unknown lifecycle")


def _state(table: StateTable[Any], reader: Reader) -> Any:
    for state in table.states:
        if state.value == reader.value:
            return state
    raise reader.fail("unknown state")


def transition_document(document: Any) -> dict[str, Any]:
    """``{lifecycle, state, trigger, target?}`` -> the new state, or saga_illegal_transition."""
    reader = Reader(document).object(("lifecycle", "state", "trigger"), ("target",))
    table = _table(reader.child("lifecycle").text())
    target = _state(table, reader.child("target")) if reader.has("target") else None
    state = fire(
        table, _state(table, reader.child("state")), reader.child("trigger").text(), target
    )
    return {"state": str(state.value)}


def classify_document(document: Any) -> dict[str, Any]:
    """``{lifecycle, state}`` -> terminal, final, active (and CaseHub's earlier isActive)."""
    reader = Reader(document).object(("lifecycle", "state"))
    table = _table(reader.child("lifecycle").text())
    state = _state(table, reader.child("state"))
    body: dict[str, Any] = {
        "terminal": state in table.terminal,
        "final": state in table.final,
        "active": None if table.active is None else state in table.active,
    }
    if table is CASE_TABLE:
        body["activeEarlier"] = state in CASE_ACTIVE_EARLIER
    return body


def reconcile_document(document: Any) -> dict[str, Any]:
    """``{raw, confirmed, history, status}``: effect ``e`` with that raw record and accepted
    history, linked to a confirmed inverse ``c`` -> its latest status after ``status``."""
    reader = Reader(document).object(("raw", "confirmed", "history", "status"))
    raw = reader.child("raw").choice(EffectStatus)
    confirmed = reader.child("confirmed").flag()
    effect = Effect("e", "src", "t", raw, EffectClass.WORKSPACE, confirmed)
    inverse = Effect("c", "src", "u", EffectStatus.SUCCEEDED, EffectClass.WORKSPACE, True)
    registry, overlay = EffectRegistry({"e": effect, "c": inverse}), Overlay()
    steps = [item.choice(ReconciliationStatus) for item in reader.child("history").items()]
    for status in [*steps, reader.child("status").choice(ReconciliationStatus)]:
        overlay = reconcile(
            overlay,
            registry,
            effect_id="e",
            status=status,
            actor="operator",
            reason="vector",
            result_json="{}",
            compensation_effect_id="c",
        )
    return {"latest": overlay.latest_status("e")}


def case_document(document: Any) -> dict[str, Any]:
    """``{start, steps}`` for the CaseHub coordinator -> one transcript per step."""
    reader = Reader(document).object(("start", "steps"))
    return {"results": run_case(reader.value["start"], reader.value["steps"])}


def work_item_document(document: Any) -> dict[str, Any]:
    """``{start, steps}`` for work items -> one snapshot per step."""
    reader = Reader(document).object(("start", "steps"))
    return {"results": run_work_items(reader.value["start"], reader.value["steps"])}
