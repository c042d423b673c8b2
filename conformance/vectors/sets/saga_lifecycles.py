"""Vectors for the saga lifecycles: every table row, classifications, the reconciliation
tables, and CaseHub case and work-item compensation scenarios.

The transition, classification and reconciliation vectors are generated from the tables in
``rescind.tables.saga``; the scenarios are rows of ``conformance/cases/saga-lifecycles.toml``,
each with its stated provenance.

``transition`` vectors cover every (state, trigger) pair of every table in
``rescind.tables.saga``; a pair with no row is ``invalid`` with
``saga_illegal_transition``. Scenario vectors are step lists (docs/saga.md) whose expected
value is one result per step, ``{"error": code}`` when a step is refused.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from rescind.conformance import cases
from rescind.conformance.cases import CaseRow
from rescind.conformance.harness.orders import linear_extension
from rescind.conformance.interpreters.saga_documents import (
    case_document,
    classify_document,
    reconcile_document,
    transition_document,
    work_item_document,
)
from rescind.conformance.provenance import Provenance, assumed, derived
from rescind.conformance.vectors.format import Flag, VectorFile, VectorGroup, VectorTest
from rescind.conformance.vectors.retired import live_id
from rescind.conformance.vectors.sets._precedence import (
    FLAG,
    NOTE,
    Faults,
    pair_rows,
    trace_test,
)
from rescind.conformance.vectors.sets._tabled import RowToVector, tabled_groups
from rescind.reference.errors import RescindError, error_registry
from rescind.tables.saga import (
    ALL_TABLES,
    CASE_TABLE,
    EffectStatus,
    ReconciliationStatus,
    StateTable,
)

TOPIC = "saga-lifecycles"

NOTES = (
    Flag(FLAG, *NOTE),
    Flag(
        "AssumedTransition",
        "a forward-flow row not confirmed in upstream source; Rescind assumed it",
        "an implementation with another forward table may accept or refuse this pair",
    ),
    Flag(
        "DocumentedException",
        "CaseHub's terminal COMPLETED still moves to COMPENSATING (design D7)",
        "a checker that treats every terminal state as final refuses real compensations",
    ),
    Flag(
        "KnownDeadEnd",
        "a compensating work item that ends other than COMPLETED strands its original",
        "the original stays COMPENSATING for good and cannot be compensated again",
    ),
    Flag(
        "AnyOrder",
        "CaseHub fixes only the dependency order; independent steps come in hash order",
        "a check that wants one fixed order of independent steps fails correct runs",
    ),
    Flag(
        "Inferred",
        "this outcome is derived from upstream's code paths rather than asserted by a test",
        "an implementation may legitimately differ until upstream confirms it",
    ),
    Flag(
        "UnlinkedCompensationItem",
        "treating a compensation plan item without a compensated-item link as an error",
        "CaseHub completes or faults such an item like any other compensation item",
    ),
    Flag(
        "InFlightRetry",
        "skipping, in upstream's sequential mode, a step whose older compensation item runs",
        "a retry from COMPENSATION_FAULTED dispatches nothing where CaseHub starts a second item",
    ),
)


RULES = {
    "agentctl-run": "SG-34",
    "agentctl-task": "SG-34",
    "agentctl-effect": "SG-1",
    "casehub-case": "SG-41",
    "casehub-work-item": "SG-88",
    "casehub-compensation-status": "SG-62",
}


def _lower(value: Any) -> str:
    return str(value.value)


def _assumed(table: StateTable[Any], trigger: str) -> bool:
    return any(row.evidence == "assumed" for row in table.transitions if row.trigger == trigger)


def _transitions() -> list[VectorTest]:
    tests = []
    for table in ALL_TABLES:
        triggers = list(dict.fromkeys(row.trigger for row in table.transitions))
        for state in table.states:
            for trigger in triggers:
                targets = [None]
                if table.resolved_by_caller(trigger):
                    targets = [row.target for row in table.transitions if row.trigger == trigger]
                for target in targets:
                    tests.append(_transition(table, state, trigger, target))
    return tests


def _transition(table: StateTable[Any], state: Any, trigger: str, target: Any) -> VectorTest:
    natural = f"transition.{table.name}.{_lower(state)}.{trigger}".lower().replace("_", "-")
    body: dict[str, Any] = {"lifecycle": table.name, "state": _lower(state), "trigger": trigger}
    if target is not None:
        body["target"] = _lower(target)
        natural += f".to-{_lower(target).lower().replace('_', '-')}"
    # A row whose answer changed keeps its natural ID retired and exports its replacement.
    test_id = live_id(natural)
    flags = []
    if _assumed(table, trigger):
        flags.append("AssumedTransition")
    if any((item.source, trigger) == (state, "compensate") for item in table.exceptions):
        flags.append("DocumentedException")
    expected, result = _answer(transition_document, body)
    comment = f"{table.name}: {trigger} in {_lower(state)}"
    rule = RULES[table.name]
    provenance = _table_provenance(table, trigger, rule)
    return VectorTest(
        test_id, rule, comment, body, expected, result, tuple(flags), provenance=provenance
    )


def _table_provenance(table: StateTable[Any], trigger: str, rule: str) -> Provenance:
    """Transition vectors enumerate Rescind's own tables: derived, or assumed where the
    table's rows for this trigger are Rescind's assumption."""
    where = f"enumerates Rescind's lifecycle table {table.name} (rescind.tables.saga)"
    if _assumed(table, trigger):
        return assumed(
            f"{where}, whose forward rows for trigger {trigger} no upstream source confirms: "
            f"Rescind assumed them to complete the state machine ({rule}, docs/spec/saga.md)"
        )
    kinds = sorted({row.evidence for row in table.transitions if row.trigger == trigger})
    evidence = " and ".join(kinds)
    return derived(rule, note=f"{where}; its {trigger} rows rest on upstream {evidence}")


def _classifications() -> list[VectorTest]:
    tests = []
    for table in ALL_TABLES:
        for state in table.states:
            body = {"lifecycle": table.name, "state": _lower(state)}
            flags: tuple[str, ...] = ()
            if state in {item.source for item in table.exceptions}:
                flags = ("DocumentedException",)
            test_id = f"classify.{table.name}.{_lower(state)}".lower().replace("_", "-")
            rule = "SG-40" if table is CASE_TABLE else RULES[table.name]
            comment = f"{table.name}: how {_lower(state)} is classified"
            expected = classify_document(body)
            provenance = derived(
                rule, note=f"classifies a state of Rescind's lifecycle table {table.name}"
            )
            tests.append(
                VectorTest(
                    test_id, rule, comment, body, expected, "valid", flags, provenance=provenance
                )
            )
    return tests


def _answer(
    compute: Callable[[dict[str, Any]], dict[str, Any]], body: dict[str, Any]
) -> tuple[dict[str, Any], str]:
    try:
        return compute(body), "valid"
    except RescindError as error:
        return {"error": error.code}, "invalid"


_HISTORIES: dict[str, list[str]] = {
    "applied": ["applied"],
    "not_applied": ["not_applied"],
    "compensated": ["applied", "compensated"],
}


def _reconciliations() -> list[VectorTest]:
    tests = []
    raws = [(status, False) for status in EffectStatus] + [(EffectStatus.SUCCEEDED, True)]
    for raw, confirmed in raws:
        for status in ReconciliationStatus:
            tests.append(_reconciliation(raw, confirmed, [], status.value, "SG-5"))
    for history in _HISTORIES.values():
        for status in ReconciliationStatus:
            tests.append(
                _reconciliation(EffectStatus.UNCERTAIN, False, history, status.value, "SG-6")
            )
    return tests


def _reconciliation(
    raw: EffectStatus, confirmed: bool, history: list[str], status: str, rule: str
) -> VectorTest:
    body = {"raw": raw.value, "confirmed": confirmed, "history": history, "status": status}
    expected, result = _answer(reconcile_document, body)
    after = "-".join(history) or "first"
    ok = "confirmed" if confirmed else "unconfirmed"
    test_id = f"reconcile.{raw.value}.{ok}.{after}.{status}".replace("_", "-")
    comment = f"{status} after {after} on a {ok} {raw.value} effect (linked to a confirmed inverse)"
    provenance = derived(
        rule,
        note="enumerates Rescind's reconciliation table; its rules restate agentctl's "
        "reconciliation rules, not confirmed in upstream source",
    )
    return VectorTest(test_id, rule, comment, body, expected, result, provenance=provenance)


def _any_order(result: Any) -> Any:
    """A ``compensateToEnd`` result expects any undo order that keeps its ``before`` pairs
    (SG-100), not the one order the reference happened to take."""
    if isinstance(result, dict) and "undo" in result and "before" in result:
        return {**result, "undo": linear_extension(result["undo"], result["before"])}
    return result


def _scenario_builder(compute: Callable[[dict[str, Any]], dict[str, Any]]) -> RowToVector:
    """Scenario rows (``conformance/cases/saga-lifecycles.toml``): a start and steps, one
    result per step; the table may write ``start`` after ``steps``, the vector lists it first."""

    def to_vector(row: CaseRow) -> VectorTest:
        body = {"start": row.input["start"], "steps": row.input["steps"]}
        expected = compute(body)
        return VectorTest(
            row.id,
            row.rule,
            row.comment,
            body,
            {**expected, "results": [_any_order(result) for result in expected["results"]]},
            cases.intended(row, "valid"),
            row.flags,
            provenance=row.provenance,
        )

    return to_vector


def _work_item_trace(document: dict[str, Any]) -> dict[str, Any]:
    step = {"do": "compensate", "itemId": document["target"], "newId": "c"}
    return {"start": {"workItems": document["items"]}, "steps": [step]}


def _compensated(case: Mapping[str, Any]) -> Any:
    result = work_item_document(dict(case))["results"][-1]
    if "error" in result:
        raise error_registry()[result["error"]]()
    return result


def _item(name: str, value: str) -> Any:
    def fault(document: dict[str, Any], _: int) -> None:
        document["items"][0][name] = value

    return fault


def work_item_precedence() -> list[CaseRow]:
    """EP-17's pairs: compensating a work item that breaks two of the guards."""
    return pair_rows(
        Faults(
            "casehub.compensate",
            "work-item.compensate",
            lambda: {
                "items": [
                    {"id": "w", "status": "COMPLETED"},
                    {"id": "o", "status": "COMPLETED", "compensationStatus": "COMPENSATING"},
                ],
                "target": "w",
            },
            {
                "exists": lambda document, _: document.update(target="ghost"),
                "completed": _item("status", "PENDING"),
                "active": _item("compensationStatus", "COMPENSATING"),
                "compensator": _item("compensates", "o"),
            },
            _work_item_trace,
            _compensated,
            Provenance(
                "design-doc",
                "mdproctor/wsp-casehub-work c7762bbe3eafddb36b9fd850c24a9ce05416da12"
                " specs/issue-238-saga-compensation/2026-09-01-saga-compensation-design.md"
                " section 6.1 (compensating work items); the guard order is confirmed in"
                " mdproctor/work WorkItemService.compensate (docs/upstream-readings.md row 40,"
                " commit not reported)",
            ),
        )
    )


_SCHEMA = {
    "input": {
        "type": "object",
        "properties": {
            "lifecycle": {"type": "string"},
            "state": {"type": "string"},
            "trigger": {"type": "string"},
            "target": {"type": "string"},
            "raw": {"type": "string"},
            "confirmed": {"type": "boolean"},
            "history": {"type": "array", "items": {"type": "string"}},
            "status": {"type": "string"},
            "start": {"type": "object"},
            "steps": {"type": "array"},
        },
        "additionalProperties": False,
    },
    "expected": {
        "type": "object",
        "properties": {
            "error": {"type": "string"},
            "state": {"type": "string"},
            "terminal": {"type": "boolean"},
            "final": {"type": "boolean"},
            "active": {"type": ["boolean", "null"]},
            "activeEarlier": {"type": "boolean"},
            "latest": {"type": "string"},
            "results": {"type": "array"},
        },
        "additionalProperties": False,
    },
}


def build() -> VectorFile:
    return VectorFile(
        topic=TOPIC,
        header=(
            "Saga lifecycles (docs/spec/saga.md SG-1, SG-5, SG-6, SG-23, SG-40..SG-48, "
            "SG-60..SG-64).",
            "terminal is the upstream predicate; final means no outgoing transition (saga.md).",
            "CaseHub COMPLETED is terminal but not final: COMPLETED -> COMPENSATING is the named",
            "exception casehub-post-terminal-compensation.",
        ),
        notes=NOTES,
        groups=(
            VectorGroup("transition", tuple(_transitions())),
            VectorGroup("classify", tuple(_classifications())),
            VectorGroup("reconcile", tuple(_reconciliations())),
            *tabled_groups(
                cases.load(TOPIC),
                {
                    "case": _scenario_builder(case_document),
                    "work-item": _scenario_builder(work_item_document),
                },
            ),
            VectorGroup(
                "work-item-precedence",
                tuple(map(trace_test(work_item_document), work_item_precedence())),
            ),
        ),
        test_schema=_SCHEMA,
    )
