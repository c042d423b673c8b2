"""SG-31..SG-33: compile-time checks of compensate declarations (AG-S15, AG-S16)."""

from __future__ import annotations

import hashlib
import json

import pytest

from rescind.reference.saga.declarations import (
    CompileRule,
    Structure,
    TaskDefinition,
    WorkflowDefinition,
    check_compensation,
    expand,
)
from rescind.reference.saga.errors import SagaInvalidInput
from rescind.reference.saga.workflow import (
    CompensateDeclaration,
    RetryPolicy,
    SourceRun,
    SourceTask,
)
from rescind.tables.saga import RunState

ACTIONS = (
    ("write", "builtin.write"),
    ("read", "builtin.read"),
    ("assign", "builtin.assign"),
    ("shell", "builtin.shell.exec"),
    ("mcp", "mcp.call"),
)


def workflow(
    *tasks: TaskDefinition, agents: tuple[tuple[str, tuple[str, ...]], ...] = ()
) -> WorkflowDefinition:
    return WorkflowDefinition(tasks, ACTIONS, agents)


def task(uses: str = "action:write", undo: str = "action:write", **extra: object) -> TaskDefinition:
    return TaskDefinition("t", uses=uses, compensate=CompensateDeclaration(uses=undo, **extra))  # type: ignore[arg-type]


def found(definition: WorkflowDefinition) -> list[tuple[str, str, str]]:
    return [(d.rule.value, d.code, d.subject) for d in check_compensation(definition)]


def test_clean_declaration() -> None:
    assert found(workflow(task())) == []
    assert found(workflow(task(uses="action:shell", undo="action:mcp"))) == []


def test_ag_s15_assign_with_read_inverse_reports_both() -> None:
    assert found(workflow(task(uses="action:assign", undo="action:read"))) == [
        ("no_mutating_effect", "UnsupportedCapability", ""),
        ("action_not_effectful", "UnsupportedCapability", "read"),
    ]


def test_ag_s15_agent_cannot_be_inverse_and_missing_action() -> None:
    assert found(workflow(task(undo="agent:x"))) == [
        ("not_a_named_action", "UnsupportedCapability", "agent")
    ]
    assert found(workflow(task(undo="action:missing"))) == [
        ("missing_action", "MissingReference", "missing")
    ]


@pytest.mark.parametrize(
    ("retry", "timeout", "field"),
    [
        (RetryPolicy(0, 0), None, "retry.maxattempts"),
        (RetryPolicy(21, 0), None, "retry.maxattempts"),
        (RetryPolicy(1, 60001), None, "retry.backoffms"),
        (RetryPolicy(1, 0), 0, "timeoutseconds"),
        (RetryPolicy(1, 0), 86401, "timeoutseconds"),
    ],
)
def test_ag_s15_bounds(retry: RetryPolicy, timeout: int | None, field: str) -> None:
    assert found(workflow(task(retry=retry, timeout_seconds=timeout))) == [
        ("out_of_bounds", "SchemaViolation", field)
    ]


def test_bounds_edges_accepted() -> None:
    for retry, timeout in ((RetryPolicy(1, 0), 1), (RetryPolicy(20, 60000), 86400)):
        assert found(workflow(task(retry=retry, timeout_seconds=timeout))) == []


def test_ag_s15_workflow_invocation() -> None:
    assert found(workflow(task(uses="workflow:child"))) == [
        ("workflow_task_compensate", "SchemaViolation", "compensate")
    ]


def test_ag_s15_template_references() -> None:
    body = (
        '{"a":"${{ tasks.ghost.output }}","b":"${{ tasks.t.output.path }}",'
        '"c":"${{ tasks.o.output }}"}'
    )
    definition = WorkflowDefinition(
        (TaskDefinition("o", uses="action:write"), task(with_json=body)), ACTIONS
    )
    assert found(definition) == [("missing_template_task", "MissingReference", "ghost")]
    for text in ("${{ inputs.x", "${{  }}", "${{ inputs }}", "${{ tasks.t.path }}", "${{ a.b }}"):
        bad = task(with_json=json.dumps({"a": text}))
        assert found(workflow(bad)) == [("invalid_template", "InvalidTemplate", "")], text
    # agentctl's syntax needs the dollar sign; {{ ... }} alone is plain text.
    assert found(workflow(task(with_json='{"a":"prefix {{ inputs.x }}"}'))) == []


def test_agents_and_structural_tasks() -> None:
    agents = (("w", ("observe", "workspace")), ("l", ("observe", "model", "pure")))
    assert found(workflow(task(uses="agent:w"), agents=agents)) == []
    assert found(workflow(task(uses="agent:l"), agents=agents)) == [
        ("no_mutating_effect", "UnsupportedCapability", "")
    ]
    for structure in (Structure.AGGREGATE, Structure.ROUTER, Structure.LOOP_AGGREGATE):
        router = TaskDefinition(
            "r", compensate=CompensateDeclaration(uses="action:write"), structure=structure
        )
        assert [d.rule for d in check_compensation(workflow(router))] == [
            CompileRule.NO_MUTATING_EFFECT
        ]


def test_ag_s16_foreach_children_inherit_aggregate_does_not() -> None:
    definition = workflow(
        TaskDefinition(
            "create",
            uses="action:write",
            foreach=("one", "two"),
            compensate=CompensateDeclaration(uses="action:write"),
        )
    )
    # agentctl compiler.rs expanded_task_id: the bindings' compact JSON, written out by hand.
    one = "create--0000-" + hashlib.sha256(b'{"item":"one","foreachIndex":0}').hexdigest()[:12]
    two = "create--0001-" + hashlib.sha256(b'{"item":"two","foreachIndex":1}').hexdigest()[:12]
    expanded = {t.task_id: t for t in expand(definition).tasks}
    assert set(expanded) == {one, two, "create"}
    assert expanded["create"].compensate is None
    assert expanded["create"].needs == (one, two)
    assert expanded[one].compensate is not None


def test_planner_input_rejects_what_the_compiler_rejects() -> None:
    for declaration in (
        CompensateDeclaration(uses="agent:x"),
        CompensateDeclaration(uses="action:w", retry=RetryPolicy(0, 0)),
        CompensateDeclaration(uses="action:w", with_json='"${{ nope }}"'),
    ):
        with pytest.raises(SagaInvalidInput):
            SourceRun(
                run_id="r", state=RunState.FAILED, tasks=(SourceTask("t", compensate=declaration),)
            )


_BROKEN = {
    "retry": RetryPolicy(max_attempts=0),
    "timeout_seconds": 0,
    "with_json": '{"path": "${{ }}", "from": "${{ tasks.ghost.output }}"}',
}


@pytest.mark.parametrize(
    ("forward", "undo", "expected"),
    [
        # agentctl's compile_compensation returns early after these two: nothing follows.
        ("action:write", "agent:x", [("not_a_named_action", "UnsupportedCapability", "agent")]),
        (
            "action:assign",
            "action:gone",
            [
                ("no_mutating_effect", "UnsupportedCapability", ""),
                ("missing_action", "MissingReference", "gone"),
            ],
        ),
    ],
)
def test_sg92_no_named_or_missing_action_stops_the_task(
    forward: str, undo: str, expected: list[tuple[str, str, str]]
) -> None:
    assert found(workflow(task(uses=forward, undo=undo, **_BROKEN))) == expected


def test_sg92_template_diagnostics_follow_every_other_check_of_every_task() -> None:
    first = TaskDefinition(
        "a",
        uses="action:write",
        compensate=CompensateDeclaration(uses="action:write", with_json=_BROKEN["with_json"]),  # type: ignore[arg-type]
    )
    second = TaskDefinition(
        "b",
        uses="action:write",
        compensate=CompensateDeclaration(uses="action:read", retry=RetryPolicy(backoff_ms=60001)),
    )
    assert [(d.task_id, d.rule.value) for d in check_compensation(workflow(first, second))] == [
        ("b", "action_not_effectful"),
        ("b", "out_of_bounds"),
        ("a", "invalid_template"),
        ("a", "missing_template_task"),
    ]
