"""Step-by-step scenario drivers over the saga reference, for vectors, tests and the CLI.

A scenario is a starting state plus a list of steps; each step yields a JSON result, either
what the reference did or ``{"error": code}`` when it refused (the state is then unchanged and
the scenario goes on). Formats are documented in docs/saga.md.
"""

from __future__ import annotations

from typing import Any

from rescind.reference.errors import RescindError
from rescind.reference.saga.bindings import CaseDefinition
from rescind.reference.saga.casehub import (
    Case,
    Coordinator,
    PlanItem,
    PlanItemStatus,
    compensation_before,
    remaining_steps,
)
from rescind.reference.saga.errors import SagaInvalidInput
from rescind.reference.saga.execution import (
    ActionOutcome,
    Script,
    compensate,
    compensate_automatically,
    decide_approval,
    generated_workflow,
    plan_exit_status,
    resume,
)
from rescind.reference.saga.lineage import Lineage
from rescind.reference.saga.loading import Reader, apply_reconciliation, read_definition
from rescind.reference.saga.planner import plan_compensation
from rescind.reference.saga.reuse import retry_check
from rescind.reference.saga.workitems import WorkItem, WorkItems
from rescind.tables.saga import CaseStatus, CompensationStatus, WorkItemStatus


def _script(reader: Reader | None) -> Script:
    if reader is None:
        return Script()
    reader.object((), tuple(reader.value))
    outcomes = {
        key: tuple(item.choice(ActionOutcome) for item in reader.child(key).items())
        for key in reader.value
    }
    return Script(outcomes)


def _run_summary(lineage: Lineage, run_id: str) -> dict[str, Any]:
    run = lineage.run(run_id)
    return {
        "attempts": {task.compensation_task_id: task.attempts for task in run.tasks},
        "effectsRequested": [effect.task_id for effect in run.effects()],
    }


def _agentctl_step(lineage: Lineage, step: Reader) -> tuple[Lineage, dict[str, Any]]:
    action = step.child("do").text()
    if action == "plan":
        step.object(("do",), ("selection",))
        selection = step.child("selection").identifiers() if step.has("selection") else ()
        lineage, plan = plan_compensation(lineage, selection)
        return lineage, {"plan": plan.to_json(), "exit": plan_exit_status(plan).value}
    if action in ("compensate", "automatic"):
        step.object(("do", "runId"), ("script", "selection", "cancelled"))
        run_id = step.child("runId").identifier()
        script = _script(step.get("script"))
        if action == "automatic":
            lineage, maybe = compensate_automatically(lineage, run_id=run_id, script=script)
            if maybe is None:
                return lineage, {"outcome": None, "runs": len(lineage.runs)}
            outcome = maybe
        else:
            lineage, outcome = compensate(
                lineage,
                run_id=run_id,
                selection=step.child("selection").identifiers() if step.has("selection") else (),
                script=script,
                cancelled=step.child("cancelled").flag() if step.has("cancelled") else False,
            )
        result = {"outcome": outcome.to_json(), "exit": outcome.exit_status.value}
        if outcome.run_id is not None:
            result.update(_run_summary(lineage, outcome.run_id))
        return lineage, result
    if action in ("approve", "reject"):
        step.object(("do", "runId"))
        run_id = step.child("runId").identifier()
        lineage = decide_approval(lineage, run_id, approved=action == "approve")
        return lineage, {"ok": True}
    if action == "resume":
        step.object(("do", "runId"), ("script",))
        run_id = step.child("runId").identifier()
        lineage, outcome = resume(lineage, run_id, _script(step.get("script")))
        return lineage, {"outcome": outcome.to_json(), "exit": outcome.exit_status.value}
    if action == "reconcile":
        return _reconcile(lineage, step)
    if action == "workflow":
        step.object(("do", "runId"))
        run = lineage.run(step.child("runId").identifier())
        return lineage, {"workflow": generated_workflow(lineage, run)}
    if action == "retryCheck":
        step.object(("do",), ("fromTasks", "restartSuccessful"))
        check = retry_check(
            lineage,
            from_tasks=step.child("fromTasks").identifiers() if step.has("fromTasks") else (),
            restart_successful=(
                step.child("restartSuccessful").flag() if step.has("restartSuccessful") else False
            ),
        )
        return lineage, {
            "compatible": check.compatible,
            "rerun": list(check.rerun),
            "unresolved": list(check.unresolved),
        }
    raise step.child("do").fail("unknown step")


def _reconcile(lineage: Lineage, step: Reader) -> tuple[Lineage, dict[str, Any]]:
    """``effectId`` directly, or ``latestEffectOf: {runId, taskId}`` for a generated id (and
    ``latestCompensationEffectOf`` likewise for ``compensationEffectId``)."""
    references = {
        "latestEffectOf": "effectId",
        "latestCompensationEffectOf": "compensationEffectId",
    }
    body = {key: value for key, value in step.value.items() if key != "do"}
    for reference, field in references.items():
        if reference in body:
            del body[reference]
            body[field] = _latest_effect(lineage, step.child(reference))
    lineage = apply_reconciliation(lineage, Reader(body, step.path))
    return lineage, {"latest": lineage.overlay.records[-1].status.value}


def _latest_effect(lineage: Lineage, reader: Reader) -> str:
    reader.object(("runId", "taskId"))
    run = lineage.run(reader.child("runId").identifier())
    wanted = reader.child("taskId").identifier()
    for task in run.tasks:
        if task.source_task_id == wanted and task.latest_effect is not None:
            return task.latest_effect.effect_id
    raise reader.fail("no such effect")


def run_agentctl(lineage: Lineage, steps: Any) -> list[dict[str, Any]]:
    results = []
    for step in Reader(steps, "steps").items():
        step.object(("do",), tuple(step.value) if isinstance(step.value, dict) else ())
        try:
            lineage, result = _agentctl_step(lineage, step)
        except SagaInvalidInput:
            raise
        except RescindError as error:
            result = {"error": error.code}
        results.append(result)
    return results


def read_case(document: Any) -> tuple[dict[str, Case], Coordinator]:
    reader = Reader(document).object(("cases",), ("definition", "judgmentScheduler"))
    definition = (
        read_definition(reader.child("definition").value, "file.definition")
        if (reader.has("definition"))
        else None
    )
    cases: dict[str, Case] = {}
    for item in reader.child("cases").items():
        item.object(("id", "status"), ("items", "definitionMissing"))
        missing = item.child("definitionMissing").flag() if item.has("definitionMissing") else False
        plan_items = []
        for plan_item in item.child("items").items() if item.has("items") else []:
            plan_item.object(("id", "binding"), ("status", "compensation", "compensatesItemId"))
            plan_items.append(
                PlanItem(
                    item_id=plan_item.child("id").identifier(),
                    binding=plan_item.child("binding").identifier(),
                    status=plan_item.child("status").choice(PlanItemStatus)
                    if plan_item.has("status")
                    else PlanItemStatus.COMPLETED,
                    compensation=plan_item.child("compensation").flag()
                    if plan_item.has("compensation")
                    else False,
                    compensates_item_id=plan_item.child("compensatesItemId").identifier()
                    if plan_item.has("compensatesItemId")
                    else None,
                )
            )
        case = Case(
            case_id=item.child("id").identifier(),
            status=item.child("status").choice(CaseStatus),
            definition=None if missing else definition,
            items=tuple(plan_items),
        )
        cases[case.case_id] = case
    coordinator = Coordinator(
        judgment_scheduler=reader.child("judgmentScheduler").flag()
        if reader.has("judgmentScheduler")
        else True,
    )
    return cases, coordinator


def run_case(document: Any, steps: Any) -> list[dict[str, Any]]:
    cases, coordinator = read_case(document)
    results: list[dict[str, Any]] = []
    for step in Reader(steps, "steps").items():
        action = step.object(("do", "caseId"), ("triggeredBy", "reason", "itemId", "status"))
        case_id = action.child("caseId").identifier()
        try:
            if action.child("do").text() == "compensate":
                transcript = coordinator.compensate(
                    cases,
                    case_id,
                    action.child("triggeredBy").text() if action.has("triggeredBy") else "operator",
                    action.child("reason").text() if action.has("reason") else "requested",
                )
            elif action.child("do").text() == "compensateToEnd":
                results.append(_to_the_end(coordinator, cases, case_id))
                continue
            elif action.child("do").text() == "itemStatus":
                transcript = coordinator.on_item_status(
                    cases[case_id],
                    action.child("itemId").identifier(),
                    action.child("status").choice(PlanItemStatus),
                )
            else:
                raise action.child("do").fail("unknown step")
        except SagaInvalidInput:
            raise
        except RescindError as error:
            results.append({"error": error.code})
            continue
        cases[case_id] = transcript.case
        result = transcript.to_json()
        result["items"] = [item.to_json() for item in transcript.case.items]
        results.append(result)
    return results


def _to_the_end(coordinator: Coordinator, cases: dict[str, Case], case_id: str) -> dict[str, Any]:
    """``compensateToEnd``: ``compensate`` the case, then complete each compensation item the
    coordinator dispatches, one by one, until none is in flight. The result names no order
    beyond what every run shares: ``undo`` (the originals, in the order their items were
    dispatched), ``before`` (the pairs every order keeps, SG-100), ``maxInFlight`` (the most
    compensation items in flight at once) and the final ``status``."""
    case = cases[case_id]
    before = compensation_before(case.definition or CaseDefinition(()), remaining_steps(case))
    transcript = coordinator.compensate(cases, case_id, "operator", "requested")
    case = transcript.case
    undo: list[str] = []
    most = 0
    # Each round completes one item; a case has finitely many steps, each dispatched once.
    for _ in range(len(case.items) + 1):
        flying = [
            item
            for item in case.items
            if item.compensation
            and item.status is PlanItemStatus.DISPATCHING
            and item.compensates_item_id is not None
        ]
        most = max(most, len(flying))
        if case.status is not CaseStatus.COMPENSATING or not flying:
            break
        undo.append(str(flying[0].compensates_item_id))
        case = coordinator.on_item_status(case, flying[0].item_id, PlanItemStatus.COMPLETED).case
    cases[case_id] = case
    return {
        "undo": undo,
        "before": [list(pair) for pair in before],
        "maxInFlight": most,
        "status": case.status.value,
    }


def run_work_items(document: Any, steps: Any) -> list[dict[str, Any]]:
    reader = Reader(document).object(("workItems",))
    items = []
    for item in reader.child("workItems").items():
        item.object(("id", "status"), ("compensationStatus", "compensates"))
        items.append(
            WorkItem(
                item_id=item.child("id").identifier(),
                status=item.child("status").choice(WorkItemStatus),
                compensation_status=item.child("compensationStatus").choice(CompensationStatus)
                if item.has("compensationStatus")
                else CompensationStatus.NONE,
                compensates=item.child("compensates").identifier()
                if item.has("compensates")
                else None,
            )
        )
    store = WorkItems(tuple(items))
    results: list[dict[str, Any]] = []
    for step in Reader(steps, "steps").items():
        step.object(("do", "itemId"), ("newId", "triggeredBy", "target"))
        action = step.child("do").text()
        item_id = step.child("itemId").identifier()
        try:
            if action == "compensate":
                store = store.compensate(
                    item_id,
                    new_id=step.child("newId").identifier(),
                    triggered_by=step.child("triggeredBy").text()
                    if step.has("triggeredBy")
                    else "operator",
                )
            elif action == "markCompensated":
                store = store.mark_compensated(item_id)
            else:
                target = step.child("target").choice(WorkItemStatus) if step.has("target") else None
                store = store.apply(item_id, action, target)
        except SagaInvalidInput:
            raise
        except RescindError as error:
            results.append({"error": error.code})
            continue
        results.append(
            {
                "items": [item.to_json() for item in store.items],
                "audits": [[audit.item_id, audit.kind, audit.actor] for audit in store.audits],
            }
        )
    return results
