"""The agentctl source side: compensate declarations, the compensation policy, a source run.

A source run is what the planner reads: its terminal state, its tasks in declaration order
(each with ``needs``, an optional ``compensate`` declaration, its recorded output and effects),
its inputs and working memory. JSON payloads (``with``, outputs, inputs, memory) are kept as
canonical JSON text: Rescind never interprets them except to render compensate templates.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping
from typing import Any

import attrs

from rescind.reference.saga.effects import Effect
from rescind.reference.saga.errors import SagaInvalidInput
from rescind.reference.saga.identifiers import check_identifier, check_identifiers
from rescind.reference.saga.order import stable_topological_order
from rescind.reference.saga.templates import invalid_templates
from rescind.tables.saga import RUN_TABLE, RunState, TaskState

MAX_ATTEMPTS = (1, 20)
MAX_BACKOFF_MS = 60_000
TIMEOUT_SECONDS = (1, 86_400)
DEFAULT_TIMEOUT_SECONDS = 120
ACTION_PREFIX = "action:"
COMPENSATION_TASK_PREFIX = "compensate--"


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class OnFailure(enum.Enum):
    MANUAL = "manual"
    AUTOMATIC = "automatic"


class ApprovalMode(enum.Enum):
    """``spec.compensation.approval``: how the compensation run's approval policy is set."""

    POLICY = "policy"
    NEVER = "never"
    ALWAYS = "always"


class PolicyApproval(enum.Enum):
    """The workflow's ``policy.approval``; ``mutations`` (the default) asks for effectful steps."""

    NEVER = "never"
    ALWAYS = "always"
    MUTATIONS = "mutations"


class RunMode(enum.Enum):
    EXECUTE = "execute"
    CHECK = "check"
    REPLAY = "replay"
    FORK = "fork"
    REPAIR = "repair"
    RETRY = "retry"
    COMPENSATION = "compensation"


def bound_problems(max_attempts: int, backoff_ms: int, timeout_seconds: int | None) -> list[str]:
    """The parse-time bounds, as field names that break them (shared with compile checks)."""
    problems = []
    if not MAX_ATTEMPTS[0] <= max_attempts <= MAX_ATTEMPTS[1]:
        problems.append("retry.maxattempts")
    if not 0 <= backoff_ms <= MAX_BACKOFF_MS:
        problems.append("retry.backoffms")
    low, high = TIMEOUT_SECONDS
    if timeout_seconds is not None and not low <= timeout_seconds <= high:
        problems.append("timeoutseconds")
    return problems


@attrs.frozen
class RetryPolicy:
    max_attempts: int = 1
    backoff_ms: int = 0


@attrs.frozen
class CompensateDeclaration:
    """``tasks[].compensate``: one named effectful action that undoes the task."""

    uses: str
    with_json: str = "{}"
    retry: RetryPolicy = attrs.field(factory=RetryPolicy)
    timeout_seconds: int | None = None

    @property
    def action(self) -> str:
        return self.uses[len(ACTION_PREFIX) :] if self.uses.startswith(ACTION_PREFIX) else ""

    def require_valid(self) -> CompensateDeclaration:
        """What a compiled workflow guarantees: ``action:<name>`` and in-bound numbers."""
        if not self.uses.startswith(ACTION_PREFIX) or not self.action:
            raise SagaInvalidInput(field="compensate.uses", reason="must be action:name")
        problems = bound_problems(
            self.retry.max_attempts, self.retry.backoff_ms, self.timeout_seconds
        )
        if problems:
            raise SagaInvalidInput(field=f"compensate.{problems[0]}", reason="out of bounds")
        if invalid_templates(json.loads(self.with_json)):
            raise SagaInvalidInput(field="compensate.with", reason="invalid template")
        return self


@attrs.frozen
class CompensationPolicy:
    """``spec.compensation``."""

    on_failure: OnFailure = OnFailure.MANUAL
    approval: ApprovalMode = ApprovalMode.POLICY


@attrs.frozen
class SourceTask:
    task_id: str = attrs.field(validator=check_identifier)
    needs: tuple[str, ...] = attrs.field(default=(), validator=check_identifiers)
    compensate: CompensateDeclaration | None = None
    effects: tuple[Effect, ...] = ()
    state: TaskState = TaskState.SUCCEEDED
    output_json: str | None = None
    """The recorded output, or None when the task recorded none."""
    vars_json: str = "{}"

    @property
    def compensation_task_id(self) -> str:
        return COMPENSATION_TASK_PREFIX + self.task_id


@attrs.frozen
class SourceRun:
    run_id: str = attrs.field(validator=check_identifier)
    state: RunState
    tasks: tuple[SourceTask, ...]
    workflow_name: str = attrs.field(default="workflow", validator=check_identifier)
    policy: CompensationPolicy = attrs.field(factory=CompensationPolicy)
    policy_approval: PolicyApproval = PolicyApproval.MUTATIONS
    mode: RunMode = RunMode.EXECUTE
    inputs_json: str = "{}"
    memory_json: str = "{}"
    compiled_order: tuple[str, ...] = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        for task in self.tasks:
            if task.compensate is not None:
                task.compensate.require_valid()
            for effect in task.effects:
                if effect.run_id != self.run_id or effect.task_id != task.task_id:
                    raise SagaInvalidInput(field="effects", reason="effect of another task")
        ids = [task.task_id for task in self.tasks]
        order = stable_topological_order(ids, {task.task_id: task.needs for task in self.tasks})
        object.__setattr__(self, "compiled_order", order)

    @property
    def terminal(self) -> bool:
        return self.state in RUN_TABLE.terminal

    @property
    def by_id(self) -> Mapping[str, SourceTask]:
        return {task.task_id: task for task in self.tasks}

    def effect_ids(self) -> tuple[str, ...]:
        return tuple(effect.effect_id for task in self.tasks for effect in task.effects)


def effective_approval(mode: ApprovalMode, source: PolicyApproval) -> PolicyApproval:
    """The compensation run's ``policy.approval``: inherited for ``policy``, forced otherwise."""
    if mode is ApprovalMode.POLICY:
        return source
    return PolicyApproval.NEVER if mode is ApprovalMode.NEVER else PolicyApproval.ALWAYS


def approval_required(approval: PolicyApproval) -> bool:
    """Every inverse is an effectful action, so ``mutations`` asks just like ``always``."""
    return approval is not PolicyApproval.NEVER
