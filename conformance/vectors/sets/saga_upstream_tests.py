"""Upstream's own compensation tests, transcribed as saga vectors (provenance ``upstream-test``).

The ports are rows of ``conformance/cases/saga-upstream-tests.toml``, one a test: its id built
from the test's name, its citation naming the repository, commit, path and test function. The
input replays what the test sets up in Rescind's step vocabulary (docs/saga.md); the expected
value is the reference's answer (computed here through the operation of each group's format),
and the comment says which of the test's assertions that answer pins and which it cannot
(things Rescind does not model: file contents, audit rows, recorded replay, actor checks,
timestamps). docs/upstream-readings.md lists every upstream test of these areas, ported or not.
"""

from __future__ import annotations

from typing import Any

from rescind.conformance import cases
from rescind.conformance.cases import CaseTable
from rescind.conformance.interpreters.saga_documents import (
    BindingSetRefused,
    case_document,
    reconcile_document,
    run_document,
    work_item_document,
)
from rescind.conformance.vectors.format import Flag, VectorFile
from rescind.conformance.vectors.sets._tabled import Computation, tabled_groups
from rescind.conformance.vectors.sets.saga_bindings import validate_answer
from rescind.reference.errors import RescindError

TOPIC = "saga-upstream-tests"

NOTES = (
    Flag(
        "PartialPort",
        "reading every assertion of the upstream test into this vector",
        "some of the test's assertions concern things Rescind does not model (the comment "
        "names them); the vector pins the rest",
    ),
    Flag(
        "UnlinkedCompensationItem",
        "treating a compensation plan item without a compensated-item link as an error",
        "CaseHub completes or faults such an item like any other compensation item",
    ),
)


def _refusal(error: Exception) -> dict[str, Any]:
    if isinstance(error, BindingSetRefused):
        return {"error": error.error.code, "findings": error.findings}
    assert isinstance(error, RescindError)
    return {"error": error.code}


def _computation(answer: Any) -> Computation:
    return Computation(answer, _refusal, (BindingSetRefused, RescindError))


COMPUTATIONS = {
    "run": _computation(run_document),
    "reconcile": _computation(reconcile_document),
    "case": _computation(case_document),
    "validate": _computation(validate_answer),
    "work-item": _computation(work_item_document),
}
"""Each group's format: saga-plans (run), saga-lifecycles (reconcile, case, work-item) and
saga-bindings (validate)."""

_SCHEMA = {"input": {"type": "object"}, "expected": {"type": "object"}}


def build(source: CaseTable | None = None) -> VectorFile:
    return VectorFile(
        topic=TOPIC,
        header=(
            "Upstream compensation tests transcribed one vector per test (docs/spec/saga.md).",
            "Each test's provenance names the upstream test; groups reuse the saga-plans (run),",
            "saga-lifecycles (reconcile, case, work-item) and saga-bindings (validate) formats.",
            "docs/upstream-readings.md lists every upstream test of these areas and why some",
            "were not ported.",
        ),
        notes=NOTES,
        groups=tabled_groups(source or cases.load(TOPIC), COMPUTATIONS),
        test_schema=_SCHEMA,
    )
