"""Exploration of agentctl compensate templates (``saga.run``, docs/spec/saga.md SG-81, SG-94):
Hypothesis writes the ``with`` of a compensate declaration from template pieces (literal text,
``{{ }}`` without ``$``, ``${{ path }}``, ``not``, the comparisons ``==``, ``!=``, ``<``,
``<=``, ``>``, ``>=`` against literals, single-quoted ones included, empty and unclosed
expressions) over paths that exist, hold objects, empty arrays and objects, integers, floats
whose text needs an exponent, booleans or nothing (so equality across types is asked too);
the run plans, compensates and shows the generated workflow, so the driver's rendering (or its
block, or its refusal of the source) must equal the reference's.

A trace is the ``saga.run`` request; its steps are the ``with`` entries, so a disagreement
shrinks to the one template that shows it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hypothesis import strategies as st

from rescind.conformance.explore.engine import Area

OUTPUT = {
    "path": "a.txt",
    "meta": {"k": "v"},
    "count": 3,
    "ratio": 1.5,
    "flag": False,
    "tiny": 1e-7,
    "huge": 1e21,
    "small": 2.5e-300,
    "list": [],
    "obj": {},
}
INPUTS = {"mode": "safe", "flag": True, "zero": 0, "empty": ""}
PRESENT = (
    "inputs.mode",
    "inputs.flag",
    "inputs.zero",
    "inputs.empty",
    "inputs.missing",
    "tasks.first.output",
    "tasks.first.output.meta",
    "tasks.first.output.meta.k",
    "tasks.first.output.count",
    "tasks.first.output.ratio",
    "tasks.first.output.flag",
    "tasks.first.output.path",
    "tasks.first.output.tiny",
    "tasks.first.output.huge",
    "tasks.first.output.small",
    "tasks.first.output.list",
    "tasks.first.output.obj",
)
MISSING = (
    "inputs.missing",
    "tasks.first.output.nothing",
    "tasks.ghost.output",
    "vars.v",
    "memory.m",
)
# A missing value blocks the whole task (SG-81), so missing paths are drawn less often.
PATHS = PRESENT * 4 + MISSING
LITERALS = (
    "safe",
    '"safe"',
    "'safe'",
    "3",
    "3.0",
    "1.5",
    "0",
    "1",
    "true",
    "false",
    "null",
    '""',
    "a.txt",
    "[]",
    "{}",
)
NUMBERS = ("3", "3.0", "-1", "0", "1e-7", "1e21", "2.5e-300")
"""Right sides of the orderings, which need a JSON number to compile (SG-94)."""


@st.composite
def _piece(draw: st.DrawFn) -> str:
    path = draw(st.sampled_from(PATHS))
    literal = draw(st.sampled_from(LITERALS))
    number = draw(st.sampled_from(NUMBERS))
    ordering = draw(st.sampled_from(("<", "<=", ">", ">=")))
    return draw(
        st.sampled_from(
            (
                f"${{{{ {path} }}}}",
                f"${{{{ {path} }}}}",
                f"${{{{{path}}}}}",
                f"{{{{ {path} }}}}",
                f"${{{{ not {path} }}}}",
                f"${{{{ {path} == {literal} }}}}",
                f"${{{{ not {path} == {literal} }}}}",
                f"${{{{ {path} != {literal} }}}}",
                f"${{{{ {path} {ordering} {number} }}}}",
                f"${{{{ not {path} {ordering} {number} }}}}",
                "at ",
                "-",
                "",
            )
        )
    )


def _template(draw: st.DrawFn) -> Any:
    if draw(st.integers(0, 19)) == 0:
        return draw(st.sampled_from(("${{ }}", "${{ inputs.mode", "${{ inputs..mode }}")))
    return "".join(draw(st.lists(_piece(), min_size=1, max_size=3)))


def _request(templates: Sequence[Any]) -> dict[str, Any]:
    first = {
        "id": "first",
        "effects": [{"id": "e-first", "status": "succeeded"}],
        "output": OUTPUT,
        "compensate": {"uses": "action:restore"},
    }
    second = {
        "id": "second",
        "needs": ["first"],
        "effects": [{"id": "e-second", "status": "succeeded"}],
        "compensate": {
            "uses": "action:restore",
            "with": {f"v{index}": value for index, value in enumerate(templates)},
        },
    }
    source = {
        "runId": "src-1",
        "state": "failed",
        "policyApproval": "never",
        "tasks": [first, second],
        "inputs": INPUTS,
    }
    steps = [{"do": "plan"}, {"do": "compensate", "runId": "cmp-1"}]
    return {
        "lineage": {"sourceRun": source},
        "steps": [*steps, {"do": "workflow", "runId": "cmp-1"}],
    }


@st.composite
def template_runs(draw: st.DrawFn) -> dict[str, Any]:
    count = draw(st.integers(1, 4))
    return _request([_template(draw) for _ in range(count)])


def _with(trace: Mapping[str, Any]) -> Mapping[str, Any]:
    tasks = trace["lineage"]["sourceRun"]["tasks"]
    values: Mapping[str, Any] = tasks[1]["compensate"]["with"]
    return values


def _steps_of(trace: Mapping[str, Any]) -> Sequence[Mapping[str, Any]]:
    return [{"template": value} for value in _with(trace).values()]


def _rebuild(trace: Mapping[str, Any], steps: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    return _request([step["template"] for step in steps])


TEMPLATE_AREA = Area(
    name="saga-templates",
    op="saga.run",
    capability="saga",
    rule="SG-81",
    description="random agentctl compensate templates (literal {{ }}, ${{ }} over objects, "
    "empty arrays and objects, integers, floats needing exponents, booleans and missing "
    "values, not, == != < <= > >= with single-quoted and cross-type literals, empty and "
    "unclosed expressions) render, block or refuse as the reference does",
    traces=template_runs(),
    rebuild=_rebuild,
    steps_of=_steps_of,
)
