"""Vectors for CaseHub binding sets: build-time validation and the compensation order.

The cases are rows of ``conformance/cases/saga-bindings.toml``, each with its stated
provenance. Input is a `rescind saga validate` file (docs/saga.md). A set with an error is
``invalid``: CaseHub refuses to load it, and ``expected.error`` is the first error's code;
every finding is listed too. Valid sets also show the compensation order: CaseHub undoes one
step at a time, dependents first, independent steps in whatever order its hash walk yields
(SG-100), so ``order.before`` lists the pairs every order keeps and ``order.undo`` accepts any
order of the steps that keeps them (``harness.orders``).
"""

from __future__ import annotations

from typing import Any

from rescind.conformance import cases
from rescind.conformance.cases import CaseTable
from rescind.conformance.harness.orders import linear_extension
from rescind.conformance.interpreters.saga_documents import BindingSetRefused, validate_document
from rescind.conformance.vectors.format import Flag, VectorFile, VectorGroup
from rescind.conformance.vectors.sets import _saga_precedence
from rescind.conformance.vectors.sets._precedence import FLAG, NOTE
from rescind.conformance.vectors.sets._tabled import Computation, tabled_groups

TOPIC = "saga-bindings"

NOTES = (
    Flag(FLAG, *NOTE),
    Flag(
        "DesignOnly",
        "the rule is in CaseHub's design text; no upstream code or test was seen",
        "a loader built from the upstream code alone may accept or reject differently",
    ),
    Flag(
        "AnyOrder",
        "CaseHub fixes only the dependency order; independent steps come in hash order",
        "a check that wants one fixed order of independent steps fails correct runs",
    ),
    Flag(
        "CodeOverridesDesign",
        "CaseHub's design calls an orphan compensation binding a warning; its validator lists it"
        " with the errors and its loader refuses any listed finding",
        "a loader that follows the design loads a set that CaseHub refuses",
    ),
    Flag(
        "RescindChoice",
        "a detail upstream does not settle (cycle length beyond two, how a cycle is named)",
        "another implementation may report the same problem in another form",
    ),
)


def _refusal(error: Exception) -> dict[str, Any]:
    assert isinstance(error, BindingSetRefused)
    return {"error": error.error.code, "findings": error.findings}


def validate_answer(document: Any) -> dict[str, Any]:
    """The reference's answer, its one undo order widened to every order CaseHub may take."""
    found = validate_document(document)
    order = found["order"]
    return {**found, "order": {**order, "undo": linear_extension(order["undo"], order["before"])}}


_VALIDATE = Computation(validate_answer, _refusal, (BindingSetRefused,))


def table() -> CaseTable:
    return cases.load(TOPIC)


_FINDING = {
    "type": "object",
    "required": ["severity", "rule", "binding", "names"],
    "properties": {
        "severity": {"enum": ["error", "warning", "info"]},
        "rule": {"type": "string"},
        "binding": {"type": "string"},
        "names": {"type": "array", "items": {"type": "string"}},
    },
}
_SCHEMA = {
    "input": {
        "type": "object",
        "required": ["bindings"],
        "properties": {"bindings": {"type": "array"}, "workers": {"type": "array"}},
        "additionalProperties": False,
    },
    "expected": {
        "type": "object",
        "required": ["findings"],
        "properties": {
            "error": {"type": "string"},
            "findings": {"type": "array", "items": _FINDING},
            "bindings": {"type": "array"},
            "order": {
                "type": "object",
                "required": ["undo", "before"],
                "properties": {"undo": {"type": "object"}, "before": {"type": "array"}},
            },
        },
        "additionalProperties": False,
    },
}


def build(source: CaseTable | None = None) -> VectorFile:
    return VectorFile(
        topic=TOPIC,
        header=(
            "CaseHub compensation bindings (docs/spec/saga.md SG-47, SG-50..SG-55).",
            "Findings: errors refuse the set (expected.error is the first), warnings and gaps",
            "do not. order.undo: any order of the steps keeping every pair of order.before.",
        ),
        notes=NOTES,
        groups=(
            *tabled_groups(source or table(), {"validate": _VALIDATE, "order": _VALIDATE}),
            # EP-39 (docs/spec/precedence.md): sets with two errors; either code is acceptable
            VectorGroup(
                "validate-precedence", tuple(map(_VALIDATE, _saga_precedence.bindings_rows()))
            ),
        ),
        test_schema=_SCHEMA,
    )
