"""Compile-time checks of ``compensate`` declarations, and how expansion treats them.

These are agentctl's rules V1..V8 (docs/spec/saga.md SG-31, SG-32): a task may declare an
inverse only when it can mutate something, the inverse must be a named *effectful* action that
exists, its numbers must be in bounds, its input templates must be valid and name existing
tasks (its own output included, ``needs`` not required), and a sub-workflow invocation may not
declare one.
Checks return every diagnostic instead of stopping at the first, like a compiler, except
where agentctl's ``compile`` stops: a sub-workflow invocation with ``compensate`` ends the
compile after expansion, a duplicate task id or an unknown ``uses`` drops that task
(SG-96), and ``compile_compensation`` stops a task's own checks (SG-92).

Two entry points (SG-97): ``compile`` alone (the library call; ``check_compensation``) and
the CLI's load path, ``parse_workflow`` then ``compile`` (``check_loaded``), where the
parse-time bounds of every ``compensate`` refuse the file before any compile check runs.
"""

from __future__ import annotations

import enum
import hashlib
import json

import attrs

from rescind.reference.saga.identifiers import (
    check_identifier,
    check_identifiers,
    is_agentctl_identifier,
)
from rescind.reference.saga.templates import TemplateError, tasks_named_by, validate
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
    DUPLICATE_TASK = "duplicate_task"
    INVALID_TASK_ID = "invalid_task_id"
    UNKNOWN_USES = "unknown_uses"


DIAGNOSTIC_CODES = {
    CompileRule.NO_MUTATING_EFFECT: "UnsupportedCapability",
    CompileRule.NOT_A_NAMED_ACTION: "UnsupportedCapability",
    CompileRule.MISSING_ACTION: "MissingReference",
    CompileRule.ACTION_NOT_EFFECTFUL: "UnsupportedCapability",
    CompileRule.OUT_OF_BOUNDS: "SchemaViolation",
    CompileRule.INVALID_TEMPLATE: "InvalidTemplate",
    CompileRule.MISSING_TEMPLATE_TASK: "MissingReference",
    CompileRule.WORKFLOW_TASK_COMPENSATE: "SchemaViolation",
    CompileRule.DUPLICATE_TASK: "DuplicateTask",
    CompileRule.INVALID_TASK_ID: "SchemaViolation",
    CompileRule.UNKNOWN_USES: "MissingReference",
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


def _strings_in_stack_order(value: object) -> list[str]:
    """The strings of a ``compensate.with`` in the order agentctl's
    ``validate_compensation_templates`` meets them: it pushes the map's values (a ``BTreeMap``:
    sorted keys) on a stack and pops the last first, pushing an array's items or an object's
    values (insertion order) as it goes; that is the reverse of reading the strings left to
    right with the top-level keys sorted."""
    if isinstance(value, dict):
        value = [value[key] for key in sorted(value)]
    found: list[str] = []

    def walk(item: object) -> None:
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, list):
            for child in item:
                walk(child)
        elif isinstance(item, dict):
            for child in item.values():
                walk(child)

    walk(value)
    return found[::-1]


def _check_templates(task: TaskDefinition, known: set[str]) -> list[Diagnostic]:
    """One ``invalid_template`` per offending string, then, for the same string, one
    ``missing_template_task`` per unknown task it names (sorted; named even when the string
    is otherwise invalid)."""
    assert task.compensate is not None
    found: list[Diagnostic] = []
    for text in _strings_in_stack_order(json.loads(task.compensate.with_json)):
        try:
            validate(text)
        except TemplateError:
            found.append(Diagnostic(task.task_id, CompileRule.INVALID_TEMPLATE))
        for name in tasks_named_by(text):
            if name not in known:
                found.append(Diagnostic(task.task_id, CompileRule.MISSING_TEMPLATE_TASK, name))
    return found


def _known_use(workflow: WorkflowDefinition, task: TaskDefinition) -> bool:
    """``parse_use`` found an action or agent the workflow declares (structural tasks and
    sub-workflow invocations are synthetic uses, always known)."""
    if task.structure is not Structure.NONE:
        return True
    kind, name = _target(task.uses)
    if kind == "action":
        return workflow.action_kind(name) is not None
    if kind == "agent":
        return name in dict(workflow.agents)
    return kind == "workflow"


def check_compensation(workflow: WorkflowDefinition) -> tuple[Diagnostic, ...]:
    """``compile`` alone: every compile-time diagnostic about the tasks and their compensate
    declarations, over the expanded tasks (foreach children carry their own ids).

    A sub-workflow invocation that declares ``compensate`` fails the expansion, and
    ``compile`` returns right after it: those diagnostics alone. Otherwise a first pass in
    task order: a repeated task id is ``duplicate_task`` and that task is dropped; an id
    agentctl refuses is ``invalid_task_id`` (the task still compiles); an unknown ``uses`` is
    ``unknown_uses`` and the task is dropped; then the declaration checks (SG-92). A second
    pass checks the templates of every compiled declaration whose checks were not stopped,
    against the tasks that compiled."""
    invocations = [
        Diagnostic(task.task_id, CompileRule.WORKFLOW_TASK_COMPENSATE, "compensate")
        for task in workflow.tasks
        if _target(task.uses)[0] == "workflow" and task.compensate is not None
    ]
    if invocations:
        return tuple(invocations)
    first: list[Diagnostic] = []
    compiled: list[TaskDefinition] = []
    templated: list[TaskDefinition] = []
    for task in expand(workflow).tasks:
        if any(other.task_id == task.task_id for other in compiled):
            first.append(Diagnostic(task.task_id, CompileRule.DUPLICATE_TASK, task.task_id))
            continue
        if not is_agentctl_identifier(task.task_id):
            first.append(Diagnostic(task.task_id, CompileRule.INVALID_TASK_ID))
        if not _known_use(workflow, task):
            first.append(Diagnostic(task.task_id, CompileRule.UNKNOWN_USES, task.uses))
            continue
        compiled.append(task)
        found, go_on = _check_task(workflow, task)
        first.extend(found)
        if go_on:
            templated.append(task)
    known = {task.task_id for task in compiled}
    second = [diagnostic for task in templated for diagnostic in _check_templates(task, known)]
    return (*first, *second)


def parse_time_bounds(workflow: WorkflowDefinition) -> tuple[Diagnostic, ...]:
    """``parse_workflow``'s checks of a ``compensate`` (its ``validate_document``): per task
    in file order, ``timeoutSeconds``, then ``retry.maxAttempts``, then ``retry.backoffMs``."""
    found = []
    for task in workflow.tasks:
        declaration = task.compensate
        if declaration is None:
            continue
        retry = declaration.retry
        problems = bound_problems(retry.max_attempts, retry.backoff_ms, declaration.timeout_seconds)
        for field in ("timeoutseconds", "retry.maxattempts", "retry.backoffms"):
            if field in problems:
                found.append(Diagnostic(task.task_id, CompileRule.OUT_OF_BOUNDS, field))
    return tuple(found)


def check_loaded(workflow: WorkflowDefinition) -> tuple[tuple[Diagnostic, ...], bool]:
    """The CLI's load path, ``parse_workflow`` then ``compile``: the diagnostics, and whether
    the file got past the parser (a parse-time error stops before any compile check)."""
    refused = parse_time_bounds(workflow)
    if refused:
        return refused, False
    return check_compensation(workflow), True


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
