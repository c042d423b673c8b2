"""Vectors for agentctl compensation: plans, executions, reconciliations and declarations.

The cases are rows of ``conformance/cases/saga-plans.toml``, each with its stated provenance
and the result its author meant; the template classes of SG-81 are generated here. Inputs use
the file format of ``rescind saga plan`` (docs/saga.md); expected values are computed by the
reference at export time, and the export refuses a row whose stated result it contradicts.
"""

from __future__ import annotations

from typing import Any

from rescind.conformance import cases
from rescind.conformance.cases import CaseRow, CaseTable, Family
from rescind.conformance.interpreters.saga_documents import (
    declare_document,
    plan_document,
    run_document,
)
from rescind.conformance.provenance import upstream
from rescind.conformance.vectors.format import Flag, VectorFile, VectorGroup
from rescind.conformance.vectors.sets import _saga_precedence
from rescind.conformance.vectors.sets._precedence import FLAG, NOTE, trace_test
from rescind.conformance.vectors.sets._tabled import Computation, tabled_groups

TOPIC = "saga-plans"

AGENTCTL = "opensourceops/agentctl"
AGENTCTL_TEMPLATE = (
    "27bc5a717df32188e794b63ed29de25173b4f53d",
    "crates/agentctl-core/src/template.rs",
)
"""The agentctl template engine at the commit that was read (the SG-81 template classes)."""

NOTES = (
    Flag(FLAG, *NOTE),
    Flag(
        "PartialCompensation",
        "treating a plan with blocks as all-or-nothing",
        "eligible inverses never run, or blocked tasks are silently dropped from the report",
    ),
    Flag(
        "UncertainEffect",
        "treating an uncertain effect as applied or as not applied without reconciliation",
        "a change that may not exist is undone, or one that exists is never undone",
    ),
    Flag(
        "Inferred",
        "this outcome is derived from the rules rather than asserted by an upstream test",
        "an implementation that follows the upstream code literally may differ here",
    ),
    Flag(
        "RescindChoice",
        "a detail upstream does not settle (template grammar, approval per retry, id layout)",
        "another implementation may choose differently; only the rule's intent is normative",
    ),
    Flag(
        "AgentctlTemplate",
        "the case turns on agentctl's ${{ expr }} template grammar (template.rs)",
        "a renderer with another grammar renders, blocks or refuses the input differently",
    ),
    Flag(
        "Idempotence",
        "finalizing or planning twice appends or plans again",
        "a source effect is compensated twice or reported as still pending",
    ),
)

NEVER = "never"


def eff(effect_id: str, status: str = "succeeded", **extra: Any) -> dict[str, Any]:
    return {"id": effect_id, "status": status, **extra}


def task(
    task_id: str,
    *effects: dict[str, Any],
    needs: tuple[str, ...] = (),
    compensate: dict[str, Any] | None = None,
    undeclared: bool = False,
    **extra: Any,
) -> dict[str, Any]:
    body: dict[str, Any] = {"id": task_id}
    if needs:
        body["needs"] = list(needs)
    if not undeclared:
        body["compensate"] = compensate or {"uses": "action:restore"}
    if effects:
        body["effects"] = list(effects)
    body.update(extra)
    return body


def source(*tasks: dict[str, Any], state: str = "failed", **extra: Any) -> dict[str, Any]:
    body = {"runId": "src-1", "state": state, "policyApproval": NEVER, "tasks": list(tasks)}
    body.update(extra)
    return body


def doc(run: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"sourceRun": run, **extra}


def lineage_steps(run: dict[str, Any], steps: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"lineage": doc(run, **extra), "steps": steps}


PLAN = {"do": "plan"}


def _compensate(run_id: str = "cmp-1", **extra: Any) -> dict[str, Any]:
    return {"do": "compensate", "runId": run_id, **extra}


TEMPLATE_OUTPUT = {"path": "a.txt", "meta": {"k": "v"}, "count": 3, "ratio": 1.5}
TEMPLATE_INPUTS = {"mode": "safe", "flag": True, "zero": 0}
TEMPLATE_ROWS: tuple[tuple[str, Any, str], ...] = (
    ("bare-braces", "{{ inputs.mode }}", "`{{ }}` without `$` is literal text"),
    ("bare-braces-in-text", "at {{ tasks.first.output.path }}", "`{{ }}` inside text is literal"),
    ("whole-object", "${{ tasks.first.output.meta }}", "one whole expression keeps an object"),
    ("whole-output", "${{ tasks.first.output }}", "the whole recorded output, as an object"),
    ("whole-number", "${{ tasks.first.output.count }}", "one whole expression keeps a number"),
    ("whole-float", "${{ tasks.first.output.ratio }}", "a float stays a JSON number"),
    ("not-equals", "${{ not inputs.mode == safe }}", "`not A == B`: a negated comparison"),
    ("not-equals-other", "${{ not inputs.mode == other }}", "`not A == B` when A differs"),
    ("equals-quoted", '${{ inputs.mode == "safe" }}', "a quoted literal compares as text"),
    ("not-truthy-zero", "${{ not inputs.zero }}", "`not` of a falsy zero"),
    ("number-in-text", "n=${{ tasks.first.output.count }}", "a number interpolated into text"),
    ("float-in-text", "r=${{ tasks.first.output.ratio }}", "a float interpolated into text"),
    ("object-in-text", "m=${{ tasks.first.output.meta }}", "an object cannot be interpolated"),
    ("empty-expression", "${{ }}", "an expression that trims to nothing: refused as input"),
    ("unclosed", "${{ inputs.mode", "`${{` with no `}}` after it: refused as input"),
)
"""Template classes (SG-81): each is one compensate input value rendered against the same
source, through plan, compensation run and the generated workflow's ``with``."""


_TEMPLATE_CODE = upstream(
    "upstream-code",
    AGENTCTL,
    AGENTCTL_TEMPLATE[0],
    AGENTCTL_TEMPLATE[1],
    "render, validate_expression, referenced_tasks; plan_compensation blocks a task on any"
    " render error (compensation_input_unavailable)",
)


def _template_case(label: str, value: Any, comment: str) -> CaseRow:
    run = source(
        task("first", eff("e-first"), output=TEMPLATE_OUTPUT),
        task(
            "second",
            eff("e-second"),
            needs=("first",),
            compensate={"uses": "action:restore", "with": {"v": value}},
        ),
        inputs=TEMPLATE_INPUTS,
    )
    steps = [PLAN, _compensate(), {"do": "workflow", "runId": "cmp-1"}]
    # A syntax error is a compile-time error (SG-32 invalid_template): such a source run
    # cannot exist, so its file is refused.
    meant = "invalid" if comment.endswith("refused as input") else "valid"
    return CaseRow(
        f"run.template.{label}",
        "SG-81",
        f"compensate input {value!r}: {comment}",
        lineage_steps(run, steps),
        _TEMPLATE_CODE,
        result=meant,
        flags=("AgentctlTemplate",),
    )


def template_classes() -> list[CaseRow]:
    return [_template_case(*row) for row in TEMPLATE_ROWS]


FAMILIES: dict[str, Family] = {"template-classes": template_classes}


def table() -> CaseTable:
    return cases.load(TOPIC, FAMILIES)


_SCHEMA = {
    "input": {
        "type": "object",
        "properties": {
            "sourceRun": {"type": "object"},
            "compensationRuns": {"type": "array"},
            "reconciliations": {"type": "array"},
            "selection": {"type": "array", "items": {"type": "string"}},
            "lineage": {"type": "object"},
            "steps": {"type": "array"},
            "workflow": {"type": "object"},
            "entry": {"enum": ["compile", "cli"]},
        },
        "additionalProperties": False,
    },
    "expected": {
        "type": "object",
        "properties": {
            "error": {"type": "string"},
            "apiVersion": {"const": "agentctl.dev/compensation-plan/v1"},
            "sourceRunId": {"type": "string"},
            "executable": {"type": "boolean"},
            "complete": {"type": "boolean"},
            "automatic": {"type": "boolean"},
            "selectedTasks": {"type": "array"},
            "tasks": {"type": "array"},
            "blocked": {"type": "array"},
            "alreadyCompensatedEffects": {"type": "array"},
            "agentctlExit": {"enum": ["OK", "POLICY"]},
            "results": {"type": "array"},
            "diagnostics": {"type": "array"},
            "expanded": {"type": "array"},
        },
        "additionalProperties": False,
    },
}


def build(source_table: CaseTable | None = None) -> VectorFile:
    return VectorFile(
        topic=TOPIC,
        header=(
            "agentctl workflow-level compensation (docs/spec/saga.md SG-1..SG-33).",
            "plan: input is a `rescind saga plan` file; expected is the plan plus the agentctl",
            "exit status name. run: steps over a lineage, one result per step ({error} when the",
            "step is refused). declare: compile-time diagnostics and foreach expansion.",
        ),
        notes=NOTES,
        groups=(
            *tabled_groups(
                source_table or table(),
                {
                    "plan": Computation(plan_document),
                    "run": Computation(run_document),
                    "declare": Computation(declare_document),
                },
            ),
            # EP-37 and EP-38 (docs/spec/precedence.md): inputs that break two checks
            VectorGroup(
                "plan-precedence",
                tuple(map(Computation(plan_document), _saga_precedence.plan_rows())),
            ),
            VectorGroup(
                "reconcile-precedence",
                tuple(map(trace_test(run_document), _saga_precedence.reconcile_rows())),
            ),
        ),
        test_schema=_SCHEMA,
    )
