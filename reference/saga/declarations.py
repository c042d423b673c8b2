"""Compile-time checks of ``compensate`` declarations, and how expansion treats them.

These are agentctl's rules V1..V8 (docs/spec/saga.md SG-31, SG-32): a task may declare an
inverse only when it can mutate something, the inverse must be a named *effectful* action that
exists, its numbers must be in bounds, its input templates must be valid and name existing
tasks (its own output included, ``needs`` not required), and a sub-workflow invocation may not
declare one.
Checks return every diagnostic instead of stopping at the first, like a compiler, except
where agentctl's ``compile_compensation`` stops a task's checks (SG-92).
"""

from __future__ import annotations

import enum
import hashlib
import json

import attrs

from rescind.reference.saga.identifiers import check_identifier, check_identifiers
from rescind.reference.saga.templates import invalid_templates, referenced_tasks
from rescind.reference.saga.workflow import ACTION_PREFIX, CompensateDeclaration, bound_problems

EFFECTFUL_ACTION_KINDS = frozenset(
    {
        "builtin.write",
        "builtin.shell.exec",
        "builtin.memory.write",
        "builtin.long_term_memory.write",
        "mcp.call",
        "a2a.delegate",
    }
)
READ_ONLY_ACTION_KINDS = frozenset(
    {
        "builtin.assign",
        "builtin.assert",
        "builtin.read",
        "builtin.memory.read",
        "builtin.long_term_memory.read",
    }
)
NON_MUTATING_TOOL_CLASSES = frozenset({"pure", "observe", "model"})


class Structure(enum.Enum):
    """Tasks that only shape the graph; none of them is ever compensable."""

    NONE = "none"
    AGGREGATE = "aggregate"
    ROUTER = "router"
    LOOP_AGGREGATE = "loop_aggregate"


class CompileRule(enum.Enum):
    NO_MUTATING_EFFECT = "no_mutating_effect"
    NOT_A_NAMED_ACTION = "not_a_named_action"
    MISSING_ACTION = "missing_action"
    ACTION_NOT_EFFECTFUL = "action_not_effectful"
    OUT_OF_BOUNDS = "out_of_bounds"
    INVALID_TEMPLATE = "invalid_template"
    MISSING_TEMPLATE_TASK = "missing_template_task"
    WORKFLOW_TASK_COMPENSATE = "workflow_task_compensate"


DIAGNOSTIC_CODES = {
    CompileRule.NO_MUTATING_EFFECT: "UnsupportedCapability",
    CompileRule.NOT_A_NAMED_ACTION: "UnsupportedCapability",
    CompileRule.MISSING_ACTION: "MissingReference",
    CompileRule.ACTION_NOT_EFFECTFUL: "UnsupportedCapability",
    CompileRule.OUT_OF_BOUNDS: "SchemaViolation",
    CompileRule.INVALID_TEMPLATE: "InvalidTemplate",
    CompileRule.MISSING_TEMPLATE_TASK: "MissingReference",
    CompileRule.WORKFLOW_TASK_COMPENSATE: "SchemaViolation",
}


@attrs.frozen
class Diagnostic:
    task_id: str
    rule: CompileRule
    subject: str = ""
    """The offending name or field, when there is one."""

    @property
    def code(self) -> str:
        return DIAGNOSTIC_CODES[self.rule]

    def to_json(self) -> dict[str, str]:
        return {
            "taskId": self.task_id,
            "rule": self.rule.value,
            "code": self.code,
            "subject": self.subject,
        }


@attrs.frozen
class TaskDefinition:
    task_id: str = attrs.field(validator=check_identifier)
    uses: str = ""
    """``action:NAME``, ``agent:NAME`` or ``workflow:NAME``; empty for structural tasks."""
    needs: tuple[str, ...] = attrs.field(default=(), validator=check_identifiers)
    compensate: CompensateDeclaration | None = None
    structure: Structure = Structure.NONE
    foreach: tuple[str, ...] = attrs.field(default=(), validator=check_identifiers)


@attrs.frozen
class WorkflowDefinition:
    tasks: tuple[TaskDefinition, ...]
    actions: tuple[tuple[str, str], ...] = ()
    """(action name, action kind)."""
    agents: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """(agent name, the effect classes of its tools)."""

    def action_kind(self, name: str) -> str | None:
        return dict(self.actions).get(name)


def _target(uses: str) -> tuple[str, str]:
    kind, _, name = uses.partition(":")
    return kind, name


def potentially_mutating(workflow: WorkflowDefinition, task: TaskDefinition) -> bool:
    if task.structure is not Structure.NONE:
        return False
    kind, name = _target(task.uses)
    if kind == "action":
        return workflow.action_kind(name) in EFFECTFUL_ACTION_KINDS
    if kind == "agent":
        tools = dict(workflow.agents).get(name, ())
        return any(effect not in NON_MUTATING_TOOL_CLASSES for effect in tools)
    return False


def _check_task(
    workflow: WorkflowDefinition, task: TaskDefinition
) -> tuple[list[Diagnostic], bool]:
    """The declaration's own diagnostics, and whether its templates are checked later
    (SG-92: a compensation naming no action, or a missing one, stops that task's checks)."""
    declaration = task.compensate
    if declaration is None:
        return [], False
    found: list[Diagnostic] = []

    def add(rule: CompileRule, subject: str = "") -> None:
        found.append(Diagnostic(task.task_id, rule, subject))

    if _target(task.uses)[0] == "workflow":
        add(CompileRule.WORKFLOW_TASK_COMPENSATE, "compensate")
        return found, False
    if not potentially_mutating(workflow, task):
        add(CompileRule.NO_MUTATING_EFFECT)
    if not declaration.uses.startswith(ACTION_PREFIX):
        add(CompileRule.NOT_A_NAMED_ACTION, declaration.uses.partition(":")[0])
        return found, False
    kind = workflow.action_kind(declaration.action)
    if kind is None:
        add(CompileRule.MISSING_ACTION, declaration.action)
        return found, False
    if kind not in EFFECTFUL_ACTION_KINDS:
        add(CompileRule.ACTION_NOT_EFFECTFUL, declaration.action)
    retry = declaration.retry
    for field in bound_problems(retry.max_attempts, retry.backoff_ms, declaration.timeout_seconds):
        add(CompileRule.OUT_OF_BOUNDS, field)
    return found, True


def _check_templates(workflow: WorkflowDefinition, task: TaskDefinition) -> list[Diagnostic]:
    assert task.compensate is not None
    value = json.loads(task.compensate.with_json)
    found: list[Diagnostic] = []
    if invalid_templates(value):
        found.append(Diagnostic(task.task_id, CompileRule.INVALID_TEMPLATE))
    known = {other.task_id for other in workflow.tasks}
    for referenced in referenced_tasks(value):
        if referenced not in known:
            found.append(Diagnostic(task.task_id, CompileRule.MISSING_TEMPLATE_TASK, referenced))
    return found


def check_compensation(workflow: WorkflowDefinition) -> tuple[Diagnostic, ...]:
    """Every compile-time diagnostic about compensate declarations (SG-92): first each
    task's declaration checks, in task order; then, in a second pass over the tasks, the
    template checks of every declaration whose checks were not stopped."""
    first: list[Diagnostic] = []
    templated: list[TaskDefinition] = []
    for task in workflow.tasks:
        found, go_on = _check_task(workflow, task)
        first.extend(found)
        if go_on:
            templated.append(task)
    second = [diagnostic for task in templated for diagnostic in _check_templates(workflow, task)]
    return (*first, *second)


FOREACH_BINDING = "item"
"""agentctl's default ``foreach.as``; Rescind's foreach lists items only, so it is always this."""


def expanded_task_id(parent: str, index: int, item: str) -> str:
    """SG-90: agentctl names a child ``PARENT--NNNN-`` plus the first 12 hex digits of the
    SHA-256 of its bindings written as compact JSON, binding first, then ``foreachIndex``."""
    bindings = json.dumps(
        {FOREACH_BINDING: item, "foreachIndex": index}, separators=(",", ":"), ensure_ascii=False
    )
    return f"{parent}--{index:04d}-{hashlib.sha256(bindings.encode()).hexdigest()[:12]}"


def expand(workflow: WorkflowDefinition) -> WorkflowDefinition:
    """Expand ``foreach`` tasks (SG-33, SG-90): children inherit ``compensate``; the synthetic
    aggregate keeps the id, needs every child and never has ``compensate``."""
    tasks: list[TaskDefinition] = []
    for task in workflow.tasks:
        if not task.foreach:
            tasks.append(task)
            continue
        children = [
            attrs.evolve(task, task_id=expanded_task_id(task.task_id, index, item), foreach=())
            for index, item in enumerate(task.foreach)
        ]
        tasks.extend(children)
        tasks.append(
            TaskDefinition(
                task_id=task.task_id,
                needs=tuple(child.task_id for child in children),
                structure=Structure.AGGREGATE,
            )
        )
    return attrs.evolve(workflow, tasks=tuple(tasks))
