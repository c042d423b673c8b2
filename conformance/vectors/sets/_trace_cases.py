"""Building blocks for trace vectors: a step with its *intended* outcome, and a trace case.

A case lists each step with the outcome its author expects from the spec ("ok" or an error
code). The exported expectation is always computed by the reference interpreter; ``build``
then refuses to export if the reference disagrees with the author on any step, so a
regression in the reference cannot silently rewrite a vector.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import attrs

from rescind.conformance import cases
from rescind.conformance.cases import CaseRow, CaseTableError
from rescind.conformance.fixtures.worker import STANDARD_GRANTS
from rescind.conformance.interpreters.worker_trace import run_trace
from rescind.conformance.provenance import Provenance
from rescind.conformance.vectors.format import VectorTest, string_tuple

OK = "ok"


@attrs.frozen
class Step:
    call: str
    expect: str
    args: Mapping[str, Any] = attrs.field(factory=dict)
    checkpoint: str | None = None

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"call": self.call, "args": dict(self.args)}
        if self.checkpoint is not None:
            body["checkpoint"] = self.checkpoint
        return body


def s(call: str, expect: str = OK, checkpoint: str | None = None, **args: Any) -> Step:
    """A step; ``as_`` becomes the ``as`` argument (a Python keyword)."""
    if "as_" in args:
        args["as"] = args.pop("as_")
    return Step(call, expect, args, checkpoint)


def _step_tuple(steps: Iterable[Step]) -> tuple[Step, ...]:
    return tuple(steps)


@attrs.frozen
class Case:
    id: str
    rule: str
    comment: str
    steps: tuple[Step, ...] = attrs.field(converter=_step_tuple)
    requests: Mapping[str, Any] = attrs.field(factory=dict)
    flags: tuple[str, ...] = attrs.field(default=(), converter=string_tuple)
    journal: Mapping[str, Any] | None = None
    authorizers: Mapping[str, str] | None = None
    profile: str | None = None
    grants: Mapping[str, str] | None = None


def _used(steps: Iterable[Step], argument: str) -> list[str]:
    return sorted({str(step.args[argument]) for step in steps if argument in step.args})


def trace_input(case: Case) -> dict[str, Any]:
    table = dict(STANDARD_GRANTS) if case.grants is None else dict(case.grants)
    setup: dict[str, Any] = {}
    if case.profile is not None:
        setup["profile"] = case.profile
    grants = _used(case.steps, "grant")
    if grants:
        setup["grants"] = {name: table[name] for name in grants}
    requests = _used(case.steps, "request")
    if requests:
        setup["requests"] = {name: case.requests[name] for name in requests}
    if case.authorizers:
        setup["authorizers"] = dict(case.authorizers)
    if case.journal:
        setup["journal"] = dict(case.journal)
    return {"setup": setup, "steps": [step.to_json() for step in case.steps]}


def outcome_code(outcome: Mapping[str, Any]) -> str:
    return OK if "result" in outcome else str(outcome["error"])


def vector(case: Case, provenance: Provenance) -> VectorTest:
    """The exported test; raises if the reference disagrees with the intended outcomes."""
    document = trace_input(case)
    expected = run_trace(document)
    for index, (step, outcome) in enumerate(zip(case.steps, expected["steps"], strict=True)):
        actual = outcome_code(outcome)
        if actual != step.expect:
            raise AssertionError(
                f"{case.id} step {index} ({step.call}): intended {step.expect}, reference {actual}"
            )
    return VectorTest(
        id=case.id,
        rule=case.rule,
        comment=case.comment,
        input=document,
        expected=expected,
        result="valid",
        flags=case.flags,
        provenance=provenance,
    )


SETUP_KEYS = ("profile", "grants", "requests", "authorizers", "journal")
"""A worker trace setup's parts, in the order a vector lists them (``trace_input``)."""


def trace_builder(
    run: Callable[[Mapping[str, Any]], dict[str, Any]], setup_keys: tuple[str, ...] = SETUP_KEYS
) -> Callable[[CaseRow], VectorTest]:
    """The vector builder of a tabled trace that ``run`` interprets. Each step of the row's
    input states the outcome its author intends (``expect``: "ok" or an error code); the
    vector's input is the trace without those, its expectation what the reference computes,
    and a step whose computed outcome differs from the intended one refuses the export."""

    def to_vector(row: CaseRow) -> VectorTest:
        steps = row.input["steps"]
        setup = row.input.get("setup", {})
        unknown = sorted(set(row.input) - {"setup", "steps"}) + sorted(set(setup) - set(setup_keys))
        if unknown:
            raise CaseTableError(f"row {row.id}: a trace has no {', '.join(unknown)}")
        # A table may write the setup after the steps and its parts in any order (TOML puts
        # sub-tables last); the vector always lists them in the one documented order.
        document = {
            "setup": {key: setup[key] for key in setup_keys if key in setup},
            "steps": [
                {key: value for key, value in step.items() if key != "expect"} for step in steps
            ],
        }
        expected = run(document)
        for index, (step, outcome) in enumerate(zip(steps, expected["steps"], strict=True)):
            actual = outcome_code(outcome)
            if actual != step["expect"]:
                raise CaseTableError(
                    f"row {row.id} step {index} ({step['call']}): intended {step['expect']},"
                    f" the reference computes {actual}"
                )
        return VectorTest(
            id=row.id,
            rule=row.rule,
            comment=row.comment,
            input=document,
            expected=expected,
            result=cases.intended(row, "valid"),
            flags=row.flags,
            provenance=row.provenance,
        )

    return to_vector


trace_vector = trace_builder(run_trace)
"""Worker journal and authorizer traces."""


TRACE_INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["setup", "steps"],
    "additionalProperties": False,
    "properties": {
        "setup": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "profile": {"enum": ["splash-v5", "splash-v5-f64"]},
                "grants": {"type": "object", "additionalProperties": {"type": "string"}},
                "requests": {"type": "object"},
                "authorizers": {"type": "object", "additionalProperties": {"type": "string"}},
                "journal": {"type": "object"},
            },
        },
        "steps": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["call", "args"],
                "additionalProperties": False,
                "properties": {
                    "call": {"type": "string"},
                    "args": {"type": "object"},
                    "checkpoint": {"type": "string"},
                },
            },
        },
    },
}

TRACE_EXPECTED_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["steps", "checkpoints"],
    "additionalProperties": False,
    "properties": {
        "steps": {
            "type": "array",
            "items": {
                "oneOf": [
                    {"type": "object", "required": ["result"], "properties": {"result": {}}},
                    {
                        "type": "object",
                        "required": ["error", "details"],
                        "properties": {"error": {"type": "string"}, "details": {"type": "object"}},
                    },
                ]
            },
        },
        "checkpoints": {"type": "object", "required": ["final"]},
    },
}
