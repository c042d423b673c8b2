"""Issue 29's readings of agentctl's newer code (SG-94..SG-99, SG-103) and the order matcher
(SG-100), unit by unit; the vectors pin the same behaviour end to end."""

from __future__ import annotations

from typing import Any

import pytest

from rescind.conformance.harness.orders import linear_extension, violation
from rescind.conformance.interpreters.saga_documents import declare_document, plan_document
from rescind.reference.errors import RescindError
from rescind.reference.saga.identifiers import is_agentctl_identifier, is_identifier
from rescind.reference.saga.templates import (
    Context,
    TemplateError,
    render,
    split_comparison,
    validate,
)

CONTEXT = Context(inputs_json='{"n": 2, "label": "ready", "flag": true, "none": {}, "list": []}')


@pytest.mark.parametrize(
    ("expression", "split"),
    [
        ("a <= 1", ("a ", "<=", " 1")),
        ("a >= 1", ("a ", ">=", " 1")),
        ("a != b", ("a ", "!=", " b")),
        ("a == b < c", ("a ", "==", " b < c")),  # == is tried first, wherever it is
        ("a < b == c", ("a < b ", "==", " c")),
        ("inputs.x", None),
    ],
)
def test_split_comparison_tries_the_operators_in_agentctls_order(
    expression: str, split: tuple[str, str, str] | None
) -> None:
    assert split_comparison(expression) == split


@pytest.mark.parametrize(
    ("template", "value"),
    [
        ("${{ inputs.n != 1 }}", True),
        ("${{ inputs.n < 3 }}", True),
        ("${{ inputs.n <= 2 }}", True),
        ("${{ inputs.n > 2 }}", False),
        ("${{ not inputs.n > 2 }}", True),  # not wraps the whole comparison
        ("${{ inputs.n == 2.0 }}", False),  # an integer never equals a float
        ("${{ inputs.flag == 1 }}", False),  # nor a boolean a number
        ("${{ inputs.label == 'ready' }}", True),  # quotes trimmed
        ("${{ not inputs.none }}", True),
        ("${{ not inputs.list }}", True),
    ],
)
def test_comparisons_render_to_booleans(template: str, value: bool) -> None:
    assert render(template, CONTEXT) is value


@pytest.mark.parametrize(
    "template",
    [
        '${{ inputs.label < "z" }}',
        "${{ inputs.n == }}",
        "${{ inputs.n >= x }}",
        "${{ inputs.n < 1e400 }}",  # serde_json refuses a number beyond f64
        "${{ inputs.x + 1 }}",
    ],
)
def test_compile_time_comparison_refusals(template: str) -> None:
    with pytest.raises(TemplateError):
        validate(template)


def test_ordering_a_string_fails_at_render_time() -> None:
    validate("${{ inputs.label > 1 }}")
    with pytest.raises(TemplateError):
        render("${{ inputs.label > 1 }}", CONTEXT)


def test_identifiers_take_capitals_and_agentctl_is_stricter() -> None:
    assert is_identifier("exportService") and is_agentctl_identifier("exportService")
    assert is_identifier("a.b") and not is_agentctl_identifier("a.b")
    assert is_identifier("9lives") and not is_agentctl_identifier("9lives")
    assert not is_identifier("x y") and not is_identifier("é")


ACTIONS = {"write": "builtin.write", "read": "builtin.read"}


def _rules(workflow: dict[str, Any], entry: str = "compile") -> list[tuple[str, str, str]]:
    answer = declare_document({"workflow": {"actions": ACTIONS, **workflow}, "entry": entry})
    return [(d["taskId"], d["rule"], d["subject"]) for d in answer["diagnostics"]]


def test_template_diagnostics_follow_the_compilers_stack() -> None:
    with_ = {"b": "${{ tasks.ghost.output }}", "a": "${{ }}", "c": ["x", "${{ tasks.zed }}"]}
    task = {
        "id": "t",
        "uses": "action:write",
        "compensate": {"uses": "action:write", "with": with_},
    }
    assert _rules({"tasks": [task]}) == [
        ("t", "invalid_template", ""),
        ("t", "missing_template_task", "zed"),
        ("t", "missing_template_task", "ghost"),
        ("t", "invalid_template", ""),
    ]


def test_compile_stops_where_agentctl_stops() -> None:
    broken = {"uses": "action:gone"}
    invocation = {"id": "sub", "uses": "workflow:child", "compensate": {"uses": "action:write"}}
    other = {"id": "t", "uses": "action:write", "compensate": broken}
    assert _rules({"tasks": [invocation, other]}) == [
        ("sub", "workflow_task_compensate", "compensate")
    ]
    twice = [{"id": "t", "uses": "action:write"}, other]
    assert _rules({"tasks": twice}) == [("t", "duplicate_task", "t")]
    unknown = {"id": "t", "uses": "agent:nobody", "compensate": broken}
    assert _rules({"tasks": [unknown]}) == [("t", "unknown_uses", "agent:nobody")]


def test_the_cli_parser_refuses_bounds_before_compile() -> None:
    task = {
        "id": "t",
        "uses": "action:read",
        "compensate": {"uses": "action:read", "retry": {"maxAttempts": 0}, "timeoutSeconds": 0},
    }
    assert _rules({"tasks": [task]}, "cli") == [
        ("t", "out_of_bounds", "timeoutseconds"),
        ("t", "out_of_bounds", "retry.maxattempts"),
    ]
    assert [rule for _, rule, _ in _rules({"tasks": [task]})] == [
        "no_mutating_effect",
        "action_not_effectful",
        "out_of_bounds",
        "out_of_bounds",
    ]
    with pytest.raises(RescindError):
        declare_document({"workflow": {"tasks": [task]}, "entry": "library"})


def _source(output: Any, *effects: dict[str, Any]) -> dict[str, Any]:
    task = {
        "id": "write",
        "compensate": {"uses": "action:undo", "with": {"p": "${{ tasks.write.output.p }}"}},
        "output": {"p": output},
        "effects": list(effects) or [{"id": "e-1", "status": "succeeded"}],
    }
    return {"sourceRun": {"runId": "src", "state": "failed", "tasks": [task]}}


def test_a_rendered_template_fails_the_plan_only_when_it_does_not_compile() -> None:
    for text in ("${{ }}", "${{ tasks.write.output }}", "x ${{ inputs..y }}"):
        with pytest.raises(RescindError) as refused:
            plan_document(_source(text))
        assert refused.value.code == "saga_generated_workflow_invalid"
    assert plan_document(_source("${{ inputs.y }}"))["executable"] is True
    assert plan_document(_source("{{ tasks.write.output }}"))["executable"] is True


def test_effects_are_listed_by_attempt() -> None:
    late = {"id": "e-2", "status": "succeeded", "attempt": 2}
    early = {"id": "e-1", "status": "succeeded", "attempt": 1}
    (entry,) = plan_document(_source("a", late, early))["tasks"]
    assert entry["sourceEffectIds"] == ["e-1", "e-2"]


def test_the_order_matcher_accepts_every_linear_extension_and_nothing_else() -> None:
    expected = linear_extension(["c", "a", "b"], [["a", "c"]])
    for order in (["a", "b", "c"], ["a", "c", "b"], ["b", "a", "c"]):
        assert violation(expected, order) is None
    assert violation(expected, ["c", "a", "b"]) == "breaks ordering pair 0"
    assert violation(expected, ["a", "b"]) is not None
    assert violation(expected, ["a", "a", "c"]) is not None
    assert violation(expected, "abc") is not None


def test_the_comparisons_apply_the_matcher_in_place_of_a_list() -> None:
    from rescind.conformance.harness import Reply
    from rescind.conformance.verdict import judge

    expected = {"undo": linear_extension(["a", "b"], []), "status": "COMPENSATED"}
    for order in (["a", "b"], ["b", "a"]):
        judged = judge(expected, Reply(ok={"undo": order, "status": "COMPENSATED"}))
        assert judged.problem is None and judged.differences == ()
    wrong = judge(expected, Reply(ok={"undo": ["a"], "status": "COMPENSATED"}))
    assert wrong.problem == "/undo is not an order of the 2 expected items"
    assert [path for path, _, _ in wrong.differences] == [("undo",)]
