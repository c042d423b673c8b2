"""agentctl's compensation planner: which source tasks to undo, in which order, what blocks.

``plan_compensation`` first finalizes every terminal prior compensation run (so the overlay is
up to date), then:

1. checks the ``--task`` selection, sorted and without repeats (``unknown_task``,
   ``undeclared_compensation``);
2. reads prior compensation runs: a non-terminal one blocks everything
   (``compensation_in_progress``, task ``*``); for terminal ones the latest effect of each
   compensation task may block its source task (``PRIOR_EFFECT_ROWS``);
3. walks the source tasks in reverse compiled order, classifies each compensation-relevant
   effect with ``SOURCE_EFFECT_ROWS``, renders the compensate input, and emits one entry per
   task that has at least one eligible effect, covering all of them.

``executable`` needs an entry and no in-progress block; ``complete`` needs no block at all, so
an executable but incomplete plan is a partial compensation.
"""

from __future__ import annotations

import enum
import json
from typing import Any

import attrs

from rescind.reference.saga.errors import (
    CompensationInputNotObject,
    GeneratedWorkflowInvalid,
    SourceRunNotTerminal,
)
from rescind.reference.saga.lineage import Lineage, finalize_terminal_runs
from rescind.reference.saga.templates import (
    Context,
    TemplateError,
    render,
    strings_in,
    tasks_named_by,
    validate,
)
from rescind.reference.saga.workflow import (
    COMPENSATION_TASK_PREFIX,
    OnFailure,
    SourceTask,
    canonical_json,
)
from rescind.tables.saga import (
    PRIOR_EFFECT_ROWS,
    SOURCE_EFFECT_ROWS,
    Eligibility,
    PriorOutcome,
    decide,
)

API_VERSION = "agentctl.dev/compensation-plan/v1"
ALL_TASKS = "*"


class BlockRule(enum.Enum):
    UNKNOWN_TASK = "unknown_task"
    UNDECLARED_COMPENSATION = "undeclared_compensation"
    COMPENSATION_IN_PROGRESS = "compensation_in_progress"
    COMPENSATION_EFFECT_REVERSED = "compensation_effect_reversed"
    UNRECONCILED_COMPENSATION_EFFECT = "unreconciled_compensation_effect"
    UNCONFIRMED_COMPENSATION_EFFECT = "unconfirmed_compensation_effect"
    UNRECONCILED_SOURCE_EFFECT = "unreconciled_source_effect"
    UNCONFIRMED_SOURCE_EFFECT = "unconfirmed_source_effect"
    COMPENSATION_INPUT_UNAVAILABLE = "compensation_input_unavailable"


_MESSAGES = {
    BlockRule.UNKNOWN_TASK: "the selected task is not part of the source plan",
    BlockRule.UNDECLARED_COMPENSATION: "the selected task declares no compensate action",
    BlockRule.COMPENSATION_IN_PROGRESS: "another compensation run of this source is not finished",
    BlockRule.COMPENSATION_EFFECT_REVERSED: "the earlier inverse was itself reconciled compensated",
    BlockRule.UNRECONCILED_COMPENSATION_EFFECT: "reconcile the earlier inverse's uncertain effect",
    BlockRule.UNCONFIRMED_COMPENSATION_EFFECT: "the earlier inverse succeeded but is unconfirmed",
    BlockRule.UNRECONCILED_SOURCE_EFFECT: "reconcile the uncertain source effect first",
    BlockRule.UNCONFIRMED_SOURCE_EFFECT: "the source effect succeeded but is unconfirmed",
    BlockRule.COMPENSATION_INPUT_UNAVAILABLE: "the compensate input cannot be rendered",
}

_PRIOR_RULES = {
    PriorOutcome.BLOCK_REVERSED: BlockRule.COMPENSATION_EFFECT_REVERSED,
    PriorOutcome.BLOCK_UNRECONCILED: BlockRule.UNRECONCILED_COMPENSATION_EFFECT,
    PriorOutcome.BLOCK_UNCONFIRMED: BlockRule.UNCONFIRMED_COMPENSATION_EFFECT,
}
_SOURCE_RULES = {
    Eligibility.BLOCK_UNRECONCILED: BlockRule.UNRECONCILED_SOURCE_EFFECT,
    Eligibility.BLOCK_UNCONFIRMED: BlockRule.UNCONFIRMED_SOURCE_EFFECT,
}


@attrs.frozen
class Block:
    task_id: str
    rule: BlockRule
    effect_id: str | None = None

    @property
    def message(self) -> str:
        return _MESSAGES[self.rule]

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"taskId": self.task_id, "rule": self.rule.value}
        if self.effect_id is not None:
            body["effectId"] = self.effect_id
        body["message"] = self.message
        return body


@attrs.frozen
class PlanEntry:
    source_task_id: str
    action: str
    source_effect_ids: tuple[str, ...]
    input_json: str = "{}"

    @property
    def compensation_task_id(self) -> str:
        return COMPENSATION_TASK_PREFIX + self.source_task_id

    def to_json(self) -> dict[str, Any]:
        return {
            "sourceTaskId": self.source_task_id,
            "compensationTaskId": self.compensation_task_id,
            "action": self.action,
            "sourceEffectIds": list(self.source_effect_ids),
        }


@attrs.frozen
class CompensationPlan:
    source_run_id: str
    automatic: bool
    selected_tasks: tuple[str, ...]
    tasks: tuple[PlanEntry, ...]
    blocked: tuple[Block, ...]
    already_compensated_effects: tuple[str, ...]

    @property
    def executable(self) -> bool:
        return bool(self.tasks) and all(
            block.rule is not BlockRule.COMPENSATION_IN_PROGRESS for block in self.blocked
        )

    @property
    def complete(self) -> bool:
        return not self.blocked

    def to_json(self) -> dict[str, Any]:
        return {
            "apiVersion": API_VERSION,
            "sourceRunId": self.source_run_id,
            "executable": self.executable,
            "complete": self.complete,
            "automatic": self.automatic,
            "selectedTasks": list(self.selected_tasks),
            "tasks": [entry.to_json() for entry in self.tasks],
            "blocked": [block.to_json() for block in self.blocked],
            "alreadyCompensatedEffects": list(self.already_compensated_effects),
        }


def _selection_blocks(lineage: Lineage, selection: tuple[str, ...]) -> list[Block]:
    tasks = lineage.source.by_id
    blocks = []
    for task_id in selection:
        if task_id not in tasks:
            blocks.append(Block(task_id, BlockRule.UNKNOWN_TASK))
        elif tasks[task_id].compensate is None:
            blocks.append(Block(task_id, BlockRule.UNDECLARED_COMPENSATION))
    return blocks


def _prior_blocks(lineage: Lineage) -> list[Block]:
    blocks = []
    for run in lineage.runs:
        if not run.terminal:
            blocks.append(Block(ALL_TASKS, BlockRule.COMPENSATION_IN_PROGRESS))
            continue
        for task in run.tasks:
            inverse = task.latest_effect
            if inverse is None:
                continue
            latest = lineage.overlay.latest_status(inverse.effect_id)
            outcome = decide(PRIOR_EFFECT_ROWS, latest, inverse.status, inverse.confirmed)
            if outcome in _PRIOR_RULES:
                blocks.append(Block(task.source_task_id, _PRIOR_RULES[outcome], inverse.effect_id))
    return blocks


def _render_input(lineage: Lineage, task: SourceTask) -> str:
    """The rendered compensate input; a TemplateError propagates, a non-object is a hard
    error."""
    declaration = task.compensate
    if declaration is None:
        raise ValueError("only declared tasks are rendered")
    source = lineage.source
    context = Context(
        inputs_json=source.inputs_json,
        vars_json=task.vars_json,
        memory_json=source.memory_json,
        outputs={other.task_id: other.output_json for other in source.tasks},
    )
    rendered = render(json.loads(declaration.with_json), context)
    if not isinstance(rendered, dict):
        raise CompensationInputNotObject(task_id=task.task_id)
    return canonical_json(rendered)


def _revalidate(entries: list[PlanEntry]) -> None:
    """SG-98: agentctl compiles the generated compensation workflow while it plans, and the
    rendered inputs are that workflow's ``with``: a rendered string that is an invalid
    template, or one that names any task (none is in ``needs``; most do not exist), makes
    the compile, and so the whole plan, fail."""
    for entry in entries:
        for text in strings_in(json.loads(entry.input_json)):
            try:
                validate(text)
            except TemplateError:
                raise GeneratedWorkflowInvalid(task_id=entry.source_task_id) from None
            if tasks_named_by(text):
                raise GeneratedWorkflowInvalid(task_id=entry.source_task_id)


def plan_compensation(
    lineage: Lineage, selection: tuple[str, ...] = ()
) -> tuple[Lineage, CompensationPlan]:
    """The finalized lineage and the plan. Raises when the source run is not terminal."""
    source = lineage.source
    if not source.terminal:
        raise SourceRunNotTerminal(run_id=source.run_id, state=source.state.value)
    lineage = finalize_terminal_runs(lineage)
    # agentctl keeps the selection in a sorted set: blocks and selectedTasks come out sorted.
    selection = tuple(sorted(set(selection)))
    blocks = _selection_blocks(lineage, selection)
    prior = _prior_blocks(lineage)
    blocks.extend(prior)
    blocked_tasks = {block.task_id for block in prior}
    entries: list[PlanEntry] = []
    already: list[str] = []
    tasks = source.by_id
    for task_id in reversed(source.compiled_order):
        task = tasks[task_id]
        if selection and task_id not in selection:
            continue
        if task.compensate is None or task_id in blocked_tasks:
            continue
        eligible: list[str] = []
        for effect in task.effects:
            if not effect.effect_class.compensation_relevant:
                continue
            latest = lineage.overlay.latest_status(effect.effect_id)
            outcome = decide(SOURCE_EFFECT_ROWS, latest, effect.status, effect.confirmed)
            if outcome is Eligibility.ELIGIBLE:
                eligible.append(effect.effect_id)
            elif outcome is Eligibility.ALREADY_COMPENSATED:
                already.append(effect.effect_id)
            elif outcome in _SOURCE_RULES:
                blocks.append(Block(task_id, _SOURCE_RULES[outcome], effect.effect_id))
        if not eligible:
            continue
        try:
            input_json = _render_input(lineage, task)
        except TemplateError:
            blocks.append(Block(task_id, BlockRule.COMPENSATION_INPUT_UNAVAILABLE))
            continue
        # SG-91: the plan names the inverse by its ``uses`` as written (``action:NAME``).
        entries.append(PlanEntry(task_id, task.compensate.uses, tuple(eligible), input_json))
    if entries:
        _revalidate(entries)
    plan = CompensationPlan(
        source_run_id=source.run_id,
        automatic=source.policy.on_failure is OnFailure.AUTOMATIC,
        selected_tasks=selection,
        tasks=tuple(entries),
        blocked=tuple(blocks),
        already_compensated_effects=tuple(already),
    )
    return lineage, plan
