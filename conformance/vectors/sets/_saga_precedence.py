"""Pairwise error-precedence inputs for the saga upstreams (docs/spec/precedence.md): an
agentctl reconciliation record that breaks two checks (EP-37, a ``run`` document ending in
one ``reconcile`` step), an agentctl compensation plan that breaks two (EP-38, a ``plan``
document) and a CaseHub binding set with two errors (EP-39, a ``validate`` document)."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from rescind.conformance.cases import CaseRow
from rescind.conformance.interpreters.saga_documents import (
    BindingSetRefused,
    plan_document,
    run_document,
    validate_document,
)
from rescind.conformance.provenance import upstream
from rescind.conformance.vectors.sets._precedence import Faults, pair_rows
from rescind.reference.errors import error_registry

Fault = Callable[[dict[str, Any], int], None]
_COMMIT = "07b0f0827efb8c368e7563ae621a1a5f99639013"
_RESTORE = "action:restore"

# -- EP-37: a reconciliation record ---------------------------------------------------------


def _reconcile_base() -> dict[str, Any]:
    """Effect ``c-1`` of compensation run ``cmp-1`` (uncertain) reconciled ``applied``,
    naming ``c-2`` of the same run (confirmed) as its compensating effect."""
    source = {
        "runId": "src-1",
        "state": "failed",
        "policyApproval": "never",
        "tasks": [
            {
                "id": "first",
                "compensate": {"uses": _RESTORE},
                "effects": [{"id": "e-1", "status": "succeeded"}],
            },
            {"id": "fail", "needs": ["first"], "state": "failed"},
        ],
    }
    run = {
        "runId": "cmp-1",
        "state": "failed",
        "tasks": [
            {
                "sourceTaskId": "first",
                "sourceEffectIds": ["e-1"],
                "state": "failed",
                "effects": [
                    {"id": "c-1", "status": "uncertain"},
                    {"id": "c-2", "status": "succeeded", "attempt": 2},
                ],
            }
        ],
    }
    step = {
        "do": "reconcile",
        "effectId": "c-1",
        "status": "applied",
        "result": {},
        "compensationEffectId": "c-2",
    }
    return {"lineage": {"sourceRun": source, "compensationRuns": [run]}, "steps": [step]}


def _effects(document: dict[str, Any]) -> Iterator[dict[str, Any]]:
    lineage = document["lineage"]
    for task in lineage["sourceRun"]["tasks"]:
        yield from task.get("effects", ())
    for run in lineage["compensationRuns"]:
        for task in run["tasks"]:
            yield from task.get("effects", ())


def _step(name: str, value: object) -> Fault:
    def fault(document: dict[str, Any], _: int) -> None:
        document["steps"][-1][name] = value

    return fault


def _raw_status(effect_id: str, status: str) -> Fault:
    def fault(document: dict[str, Any], _: int) -> None:
        for effect in _effects(document):
            if effect["id"] == effect_id:
                effect["status"] = status

    return fault


def _unconfirmed_inverse(document: dict[str, Any], _: int) -> None:
    """Whichever effect the step names as compensating: left uncertain."""
    named = document["steps"][-1]["compensationEffectId"]
    _raw_status(named, "uncertain")(document, 1)


def _last_result(document: Mapping[str, Any]) -> Any:
    result = run_document(document)["results"][-1]
    if "error" in result:
        raise error_registry()[result["error"]]()
    return result


def reconcile_faults() -> Faults:
    return Faults(
        "saga.reconcile",
        "run.reconcile",
        _reconcile_base,
        {
            "fields": _step("actor", "  "),
            "effect": _step("effectId", "e-ghost"),
            "transition": _raw_status("c-1", "failed"),
            "self": _step("compensationEffectId", "c-1"),
            "inverse_known": _step("compensationEffectId", "e-ghost"),
            "linked": _step("compensationEffectId", "e-1"),
            "confirmed": _unconfirmed_inverse,
        },
        lambda document: document,
        _last_result,
        upstream(
            "upstream-code",
            "opensourceops/agentctl",
            _COMMIT,
            "crates/agentctl-store/src/lib.rs",
            "reconcile_effect; the order of its checks (SG-83), read, not run (EP-37)",
        ),
    )


def reconcile_rows() -> list[CaseRow]:
    return pair_rows(reconcile_faults())


# -- EP-38: planning -----------------------------------------------------------------------


def _task(task_id: str, path: str, needs: list[str]) -> dict[str, Any]:
    with_ = {"path": f"${{{{ tasks.{task_id}.output.path }}}}"}
    return {
        "id": task_id,
        "needs": needs,
        "compensate": {"uses": _RESTORE, "with": with_},
        "output": {"path": path},
        "effects": [{"id": f"e-{task_id}", "status": "succeeded"}],
    }


def _plan_base() -> dict[str, Any]:
    return {
        "sourceRun": {
            "runId": "src-1",
            "state": "failed",
            "policyApproval": "never",
            "tasks": [
                _task("first", "a.txt", []),
                _task("second", "b.txt", ["first"]),
                {"id": "fail", "needs": ["second"], "state": "failed"},
            ],
        }
    }


def _tasks(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {task["id"]: task for task in document["sourceRun"]["tasks"]}


def _not_object(document: dict[str, Any], _: int) -> None:
    """The first task's whole compensate input is one expression for a string."""
    _tasks(document)["first"]["compensate"]["with"] = "${{ tasks.first.output.path }}"


def _invalid_rendering(document: dict[str, Any], _: int) -> None:
    """The second task's output renders to a string that is itself an invalid template."""
    _tasks(document)["second"]["output"]["path"] = "${{ }}"


def plan_faults() -> Faults:
    return Faults(
        "saga.plan",
        "plan",
        _plan_base,
        {
            "source_terminal": lambda document, _: document["sourceRun"].update(state="running"),
            "input_object": _not_object,
            "generated_valid": _invalid_rendering,
        },
        lambda document: document,
        plan_document,
        upstream(
            "upstream-code",
            "opensourceops/agentctl",
            _COMMIT,
            "crates/agentctl-runtime/src/lib.rs",
            "plan_compensation; the order of its checks (SG-10, SG-17, SG-98), read, not run"
            " (EP-38)",
        ),
    )


def plan_rows() -> list[CaseRow]:
    return pair_rows(plan_faults())


# -- EP-39: a CaseHub binding set ------------------------------------------------------------

_UNDO = {"compensation": True, "capability": "undo-cap", "worker": "undo-worker"}


def _bindings_base() -> dict[str, Any]:
    return {
        "bindings": [{"name": "step-a", "compensate": "undo-a"}, {"name": "undo-a", **_UNDO}],
        "workers": ["undo-worker"],
    }


def _add(*bindings: dict[str, Any]) -> Fault:
    def fault(document: dict[str, Any], _: int) -> None:
        document["bindings"].extend(copy.deepcopy(bindings))

    return fault


def _validated(document: Mapping[str, Any]) -> Any:
    try:
        return validate_document(document)
    except BindingSetRefused as refused:
        raise refused.error from None


def bindings_faults() -> Faults:
    return Faults(
        "casehub.bindings",
        "validate",
        _bindings_base,
        {
            "self_reference": _add({"name": "step-s", "compensate": "step-s"}),
            "missing_target": _add({"name": "step-m", "compensate": "undo-ghost"}),
            "cycle": _add(
                {"name": "step-x", "compensate": "step-y"},
                {"name": "step-y", "compensate": "step-x"},
            ),
            "orphan": _add({"name": "undo-o", **_UNDO}),
        },
        lambda document: document,
        _validated,
        upstream(
            "upstream-code",
            "mdproctor/engine",
            "ee78965427b6daaad22aef449deae1ec654a4af0",
            "api/src/main/java/io/casehub/api/model/converter/YamlCaseDefinitionConverter.java",
            "convert (every error of Binding.validateCompensationBindings in one exception);"
            " the first code is Rescind's reading, either is acceptable (EP-39)",
        ),
    )


def bindings_rows() -> list[CaseRow]:
    return pair_rows(bindings_faults())
