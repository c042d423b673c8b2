"""Vectors for the saga lifecycles: every table row, classifications, the reconciliation
tables, and CaseHub case and work-item compensation scenarios.

``transition`` vectors cover every (state, trigger) pair of every table in
``rescind.tables.saga``; a pair with no row is ``invalid`` with
``saga_illegal_transition``. Scenario vectors are step lists (docs/saga.md) whose expected
value is one result per step, ``{"error": code}`` when a step is refused.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rescind.conformance.interpreters.saga_documents import (
    case_document,
    classify_document,
    reconcile_document,
    transition_document,
    work_item_document,
)
from rescind.conformance.provenance import Provenance, assumed, derived, upstream
from rescind.conformance.vectorformat import Flag, VectorFile, VectorGroup, VectorTest
from rescind.conformance.vectorretired import live_id
from rescind.conformance.vectorsets._saga_evidence import (
    CASEHUB_SCENARIO_CODE,
    casehub_code,
    casehub_design,
    scenario_of,
)
from rescind.reference.errors import RescindError
from rescind.tables.saga import (
    ALL_TABLES,
    CASE_TABLE,
    EffectStatus,
    ReconciliationStatus,
    StateTable,
)

TOPIC = "saga-lifecycles"

NOTES = (
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
        "CodeVersusDesign",
        "CaseHub's code starts one step at a time, its design starts independent steps together",
        "dispatch order and concurrency differ between the two readings",
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


def _definition(*bindings: dict[str, Any], workers: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"bindings": list(bindings), "workers": ["undo-worker", *workers]}


def _b(name: str, **fields: Any) -> dict[str, Any]:
    return {"name": name, **fields}


def _undo(name: str, **fields: Any) -> dict[str, Any]:
    body = {"name": name, "compensation": True, "capability": "undo-cap", "worker": "undo-worker"}
    body.update(fields)
    return body


def _case(items: list[dict[str, Any]], status: str = "COMPLETED", **extra: Any) -> dict[str, Any]:
    return {"id": "case-1", "status": status, "items": items, **extra}


def _item(item_id: str, binding: str, status: str = "COMPLETED", **extra: Any) -> dict[str, Any]:
    return {"id": item_id, "binding": binding, "status": status, **extra}


COMPENSATE = {"do": "compensate", "caseId": "case-1", "triggeredBy": "operator", "reason": "undo"}


def _status(item_id: str, status: str = "COMPLETED") -> dict[str, Any]:
    return {"do": "itemStatus", "caseId": "case-1", "itemId": item_id, "status": status}


ONE_STEP = _definition(
    _b("step-a", capability="cap-a", worker="w-a", compensate="undo-step-a"),
    _undo("undo-step-a", worker="undo-step-a-worker"),
    workers=("w-a", "undo-step-a-worker"),
)
CHAIN = _definition(
    _b("step-a", compensate="undo-a", produces=["step-a-output"]),
    _b("step-b", compensate="undo-b", consumes=["step-a-output"]),
    _undo("undo-a"),
    _undo("undo-b"),
)
PAIR = _definition(
    _b("step-a", compensate="undo-a"),
    _b("step-b", compensate="undo-b"),
    _undo("undo-a"),
    _undo("undo-b"),
)


def _scenario(definition: dict[str, Any], *cases: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"definition": definition, "cases": list(cases), **extra}


def _retry_while_in_flight(concurrency: str) -> dict[str, Any]:
    """A COMPENSATION_FAULTED case whose step's first compensation item is still RUNNING
    (SG-93); ``batched`` is named in the scenario, the sequential default is not."""
    extra = {} if concurrency == "sequential" else {"concurrency": concurrency}
    running = _item(
        "i-a-cmp-1", "undo-step-a", "RUNNING", compensation=True, compensatesItemId="i-a"
    )
    faulted = _case([_item("i-a", "step-a"), running], status="COMPENSATION_FAULTED")
    return _scenario(ONE_STEP, faulted, **extra)


CASE_SCENARIOS: list[
    tuple[str, str, str, tuple[str, ...], dict[str, Any], list[dict[str, Any]]]
] = [
    (
        "case.ch-s1.single-step",
        "SG-44",
        "CH-S1: COMPLETED -> COMPENSATING, undo-step-a dispatched",
        ("DocumentedException",),
        _scenario(ONE_STEP, _case([_item("i-a", "step-a")])),
        [COMPENSATE],
    ),
    (
        "case.ch-s2.step-completes",
        "SG-43",
        "CH-S2: the undo completes, the case is COMPENSATED",
        (),
        _scenario(ONE_STEP, _case([_item("i-a", "step-a")])),
        [COMPENSATE, _status("i-a-cmp-1")],
    ),
    (
        "case.ch-s3.step-faults",
        "SG-46",
        "CH-S3: the undo faults, the case is COMPENSATION_FAULTED",
        (),
        _scenario(ONE_STEP, _case([_item("i-a", "step-a")])),
        [COMPENSATE, _status("i-a-cmp-1", "FAULTED")],
    ),
    (
        "case.ch-s4.reverse-dependency",
        "SG-47",
        "CH-S4: undo-b first, undo-a after it completes",
        (),
        _scenario(CHAIN, _case([_item("i-a", "step-a"), _item("i-b", "step-b")])),
        [COMPENSATE, _status("i-b-cmp-1"), _status("i-a-cmp-1")],
    ),
    (
        "case.ch-s5.independent-sequential",
        "SG-47",
        "CH-S5 (code): undo-b then undo-a, one at a time",
        ("CodeVersusDesign", "Inferred"),
        _scenario(PAIR, _case([_item("i-a", "step-a"), _item("i-b", "step-b")])),
        [COMPENSATE, _status("i-b-cmp-1"), _status("i-a-cmp-1")],
    ),
    (
        "case.ch-s5.independent-batched",
        "SG-47",
        "CH-S5 (design): both undos dispatched together",
        ("CodeVersusDesign",),
        _scenario(
            PAIR, _case([_item("i-a", "step-a"), _item("i-b", "step-b")]), concurrency="batched"
        ),
        [COMPENSATE, _status("i-a-cmp-1"), _status("i-b-cmp-1")],
    ),
    (
        "case.ch-s6.nothing-to-compensate",
        "SG-43",
        "CH-S6: no compensable item: straight to COMPENSATED",
        (),
        _scenario(_definition(_b("plain")), _case([_item("i-p", "plain")])),
        [COMPENSATE],
    ),
    (
        "case.ch-s7.invalid-entry-states",
        "SG-42",
        "CH-S7: compensate refused in every other status and for an unknown case",
        (),
        _scenario(
            ONE_STEP,
            *[
                _case([_item("i-a", "step-a")], status=status) | {"id": f"case-{status.lower()}"}
                for status in (
                    "RUNNING",
                    "WAITING",
                    "SUSPENDED",
                    "FAULTED",
                    "CANCELLED",
                    "COMPENSATING",
                    "COMPENSATED",
                    "STARTING",
                )
            ],
        ),
        [
            COMPENSATE | {"caseId": f"case-{status.lower()}"}
            for status in (
                "RUNNING",
                "WAITING",
                "SUSPENDED",
                "FAULTED",
                "CANCELLED",
                "COMPENSATING",
                "COMPENSATED",
                "STARTING",
                "ghost",
            )
        ],
    ),
    (
        "case.ch-s8.retry-from-faulted",
        "SG-48",
        "CH-S8: retry redoes only the faulted undo-a with a new item, then COMPENSATED",
        (),
        _scenario(
            CHAIN,
            _case(
                [
                    _item("i-a", "step-a"),
                    _item("i-b", "step-b"),
                    _item("i-b-cmp-1", "undo-b", compensation=True, compensatesItemId="i-b"),
                    _item(
                        "i-a-cmp-1", "undo-a", "FAULTED", compensation=True, compensatesItemId="i-a"
                    ),
                ],
                status="COMPENSATION_FAULTED",
            ),
        ),
        [COMPENSATE, _status("i-a-cmp-2")],
    ),
    (
        "case.retry-while-an-old-item-is-in-flight",
        "SG-93",
        "a retry from COMPENSATION_FAULTED while the step's first compensation item is still "
        "RUNNING: sequential mode dispatches a second item for the same original",
        ("InFlightRetry",),
        _retry_while_in_flight("sequential"),
        [COMPENSATE],
    ),
    (
        "case.retry-while-an-old-item-is-in-flight.batched",
        "SG-47",
        "the same retry in batched mode (the design): the step with an item in flight is not "
        "dispatched again",
        ("CodeVersusDesign",),
        _retry_while_in_flight("batched"),
        [COMPENSATE],
    ),
    (
        "case.unlinked-compensation-item-completes",
        "SG-86",
        "while COMPENSATING, a compensation item without a link to an original completes: no "
        "step event, the next step starts, and the unlinked item never counts as done",
        ("UnlinkedCompensationItem",),
        _scenario(
            ONE_STEP,
            _case(
                [
                    _item("i-a", "step-a"),
                    _item("u-1", "undo-step-a", "RUNNING", compensation=True),
                ],
                status="COMPENSATING",
            ),
        ),
        [_status("u-1")],
    ),
    (
        "case.ch-s9.unsupported-target",
        "SG-45",
        "CH-S9: a sub-case undo cannot be dispatched",
        (),
        _scenario(
            _definition(_b("step-a", compensate="undo-a"), _undo("undo-a", target="sub_case")),
            _case([_item("i-a", "step-a")]),
        ),
        [COMPENSATE],
    ),
    (
        "case.ch-s10.judgment-target",
        "SG-44",
        "CH-S10: a judgment undo goes to the judgment scheduler",
        (),
        _scenario(
            _definition(
                _b("step-a", compensate="undo-step-a"), _undo("undo-step-a", target="judgment")
            ),
            _case([_item("i-a", "step-a")]),
        ),
        [COMPENSATE],
    ),
    (
        "case.ch-s10.no-judgment-scheduler",
        "SG-45",
        "CH-S10: without a scheduler the case faults",
        (),
        _scenario(
            _definition(
                _b("step-a", compensate="undo-step-a"), _undo("undo-step-a", target="judgment")
            ),
            _case([_item("i-a", "step-a")]),
            judgmentScheduler=False,
        ),
        [COMPENSATE],
    ),
    (
        "case.ch-s11.irrelevant-events",
        "SG-46",
        "CH-S11: a forward item completes while COMPENSATING; an undo completes while RUNNING",
        (),
        _scenario(
            ONE_STEP,
            _case([_item("i-a", "step-a"), _item("i-x", "step-a", "RUNNING")]),
            _case(
                [
                    _item(
                        "i-c",
                        "undo-step-a",
                        "DISPATCHING",
                        compensation=True,
                        compensatesItemId="i-a",
                    )
                ],
                status="RUNNING",
            )
            | {"id": "case-2"},
        ),
        [
            COMPENSATE,
            _status("i-x"),
            {"do": "itemStatus", "caseId": "case-2", "itemId": "i-c", "status": "COMPLETED"},
        ],
    ),
    (
        "case.undo-rejected-ignored",
        "SG-46",
        "an undo that ends REJECTED does not move the case (it stays COMPENSATING)",
        ("Inferred",),
        _scenario(ONE_STEP, _case([_item("i-a", "step-a")])),
        [COMPENSATE, _status("i-a-cmp-1", "REJECTED")],
    ),
    (
        "case.ch-s12.missing-binding",
        "SG-45",
        "CH-S12: compensate names ghost, absent at runtime",
        (),
        _scenario(_definition(_b("step-a", compensate="ghost")), _case([_item("i-a", "step-a")])),
        [COMPENSATE],
    ),
    (
        "case.worker-missing",
        "SG-45",
        "a capability undo whose worker is not in the definition",
        (),
        _scenario(
            _definition(_b("step-a", compensate="undo-a"), _undo("undo-a", worker="nobody")),
            _case([_item("i-a", "step-a")]),
        ),
        [COMPENSATE],
    ),
    (
        "case.definition-missing",
        "SG-45",
        "the case definition cannot be found",
        (),
        _scenario(ONE_STEP, _case([_item("i-a", "step-a")], definitionMissing=True)),
        [COMPENSATE],
    ),
    (
        "case.batched-fault-and-retry",
        "SG-48",
        "design order: a fault while a sibling undo runs; its late completion is ignored, and the "
        "retry redoes only the faulted step",
        ("CodeVersusDesign",),
        _scenario(
            PAIR, _case([_item("i-a", "step-a"), _item("i-b", "step-b")]), concurrency="batched"
        ),
        [
            COMPENSATE,
            _status("i-b-cmp-1", "FAULTED"),
            _status("i-a-cmp-1"),
            COMPENSATE,
            _status("i-b-cmp-2"),
        ],
    ),
]


def _work(*items: dict[str, Any]) -> dict[str, Any]:
    return {"workItems": list(items)}


def _wi(item_id: str, status: str = "COMPLETED", **extra: Any) -> dict[str, Any]:
    return {"id": item_id, "status": status, **extra}


def _do(action: str, item_id: str, **extra: Any) -> dict[str, Any]:
    return {"do": action, "itemId": item_id, **extra}


WORK_SCENARIOS: list[
    tuple[str, str, str, tuple[str, ...], dict[str, Any], list[dict[str, Any]]]
] = [
    (
        "work-item.ch-s15.happy-path",
        "SG-63",
        "CH-S15: compensate, then the compensator completes",
        (),
        _work(_wi("w")),
        [
            _do("compensate", "w", newId="c"),
            _do("claim", "c"),
            _do("start", "c"),
            _do("complete", "c"),
        ],
    ),
    (
        "work-item.ch-s16.guards",
        "SG-61",
        "CH-S16: a PENDING item, a second compensate, a compensator, an unknown item",
        (),
        _work(_wi("w"), _wi("p", "PENDING")),
        [
            _do("compensate", "p", newId="x"),
            _do("compensate", "w", newId="c"),
            _do("compensate", "w", newId="c2"),
            _do("claim", "c"),
            _do("start", "c"),
            _do("complete", "c"),
            _do("compensate", "c", newId="c3"),
            _do("compensate", "ghost", newId="c4"),
        ],
    ),
    (
        "work-item.ch-s17.suspend-resume",
        "SG-63",
        "CH-S17: the compensator is suspended and resumed; the original stays COMPENSATING",
        (),
        _work(_wi("w")),
        [
            _do("compensate", "w", newId="c"),
            _do("claim", "c"),
            _do("suspend", "c"),
            _do("resume", "c"),
            _do("start", "c"),
            _do("complete", "c"),
        ],
    ),
    (
        "work-item.ch-s18.rejected-dead-end",
        "SG-64",
        "CH-S18: the compensator is rejected; the original stays COMPENSATING and cannot retry",
        ("KnownDeadEnd", "Inferred"),
        _work(_wi("w")),
        [
            _do("compensate", "w", newId="c"),
            _do("claim", "c"),
            _do("reject", "c"),
            _do("compensate", "w", newId="c2"),
        ],
    ),
    (
        "work-item.compensator-completed-by-the-system",
        "SG-89",
        "the compensator is completed by the system call (complete_from_system), not by its "
        "assignee: the original becomes COMPENSATED all the same",
        (),
        _work(_wi("w")),
        [_do("compensate", "w", newId="c"), _do("complete_from_system", "c")],
    ),
    (
        "work-item.compensate-a-pending-compensator",
        "SG-61",
        "compensating the compensator while it is still PENDING is refused (it is not "
        "COMPLETED, and a compensation is a pair, never a chain)",
        (),
        _work(_wi("w")),
        [_do("compensate", "w", newId="c"), _do("compensate", "c", newId="c2")],
    ),
    (
        "work-item.completed-status-never-moves",
        "SG-60",
        "a COMPLETED item refuses every lifecycle trigger",
        ("AssumedTransition",),
        _work(_wi("w")),
        [_do("claim", "w"), _do("cancel", "w"), _do("reject", "w")],
    ),
]


_IDS = "compensation item ids are Rescind's naming (SG-44)"
_SCENARIO_EVIDENCE: dict[str, Provenance] = {
    "case.ch-s5.independent-batched": casehub_design("5.2 (independent steps concurrently)"),
    "case.batched-fault-and-retry": casehub_design(
        "5.2 (independent steps concurrently)", "with the retry of 5.1"
    ),
    "case.undo-rejected-ignored": casehub_code("onCompensationPlanItemStateChanged", note=_IDS),
    "case.worker-missing": casehub_code("dispatchCompensatingBinding", note=_IDS),
    "case.definition-missing": casehub_code("fireNextCompensationStep"),
    "case.retry-while-an-old-item-is-in-flight": casehub_code(
        "compensate",
        "fireNextCompensationStep",
        note="only COMPLETED linked compensation items count; " + _IDS,
    ),
    "case.retry-while-an-old-item-is-in-flight.batched": casehub_design(
        "5.2 (independent steps concurrently)", "the in-flight skip is Rescind's batched mode"
    ),
    "case.unlinked-compensation-item-completes": casehub_code(
        "onCompensationPlanItemStateChanged", "fireNextCompensationStep", note=_IDS
    ),
    "work-item.compensator-completed-by-the-system": upstream(
        "upstream-code",
        "mdproctor/work",
        "8e618273714dcdf467dc89f8af974a22f24d401e",
        "runtime/src/main/java/io/casehub/work/runtime/event/CompensationLifecycleObserver.java",
        "CompensationLifecycleObserver.onWorkItemLifecycle (any event after which the compensator"
        " is COMPLETED marks the original); WorkItemService.completeFromSystem (version with"
        " compensate, commit not reported)",
    ),
    "work-item.compensate-a-pending-compensator": derived(
        "SG-61",
        note="WorkItemService.compensate's guards (the version with compensate, commit not"
        " reported); the order in which they refuse is Rescind's reading",
    ),
    "work-item.ch-s15.happy-path": casehub_design("6.1 and 6.2 (compensating work items)"),
    "work-item.ch-s16.guards": casehub_design(
        "6.2 (compensate guards)", "refusing an unknown item is Rescind's"
    ),
}
"""Scenarios whose outcome rests on upstream text; the rest follow docs/spec/edge-cases.md."""


def _scenario_provenance(test_id: str, rule: str, flags: tuple[str, ...]) -> Provenance:
    if test_id in _SCENARIO_EVIDENCE:
        return _SCENARIO_EVIDENCE[test_id]
    if "AssumedTransition" in flags:
        return assumed(
            "a COMPLETED work item's forward triggers are refused: Rescind's assumed forward "
            f"rows, not confirmed in upstream source ({rule})"
        )
    symbols = CASEHUB_SCENARIO_CODE.get(scenario_of(test_id) or "")
    if symbols is not None:
        return casehub_code(*symbols, note=_IDS)
    return derived(rule, note="a scenario over Rescind's work-item tables; not confirmed upstream")


def _scenario_vector(
    case: tuple[str, str, str, tuple[str, ...], dict[str, Any], list[dict[str, Any]]], kind: str
) -> VectorTest:
    test_id, rule, comment, flags, start, steps = case
    compute = case_document if kind == "case" else work_item_document
    body = {"start": start, "steps": steps}
    expected = compute(body)
    provenance = _scenario_provenance(test_id, rule, flags)
    return VectorTest(test_id, rule, comment, body, expected, "valid", flags, provenance=provenance)


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
            VectorGroup("case", tuple(_scenario_vector(case, "case") for case in CASE_SCENARIOS)),
            VectorGroup(
                "work-item", tuple(_scenario_vector(case, "work") for case in WORK_SCENARIOS)
            ),
        ),
        test_schema=_SCHEMA,
    )
