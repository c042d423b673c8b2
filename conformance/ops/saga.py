"""Operations of capability ``saga``: agentctl planning/runs/declarations, CaseHub binding
validation and ordering, and the lifecycle tables (one operation per vector group)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from rescind.conformance.interpreters import saga_documents as documents
from rescind.conformance.ops.declaration import Declared, Operation

GROUP_OPERATIONS: dict[str, Callable[[Any], dict[str, Any]]] = {
    "plan": documents.plan_document,
    "run": documents.run_document,
    "declare": documents.declare_document,
    "order": documents.validate_document,
    "transition": documents.transition_document,
    "classify": documents.classify_document,
    "reconcile": documents.reconcile_document,
    "case": documents.case_document,
    "work-item": documents.work_item_document,
}


def _refusing_binding_sets(function: Callable[[Any], dict[str, Any]]) -> Operation:
    def run(args: Mapping[str, Any]) -> dict[str, Any]:
        try:
            return function(dict(args))
        except documents.BindingSetRefused as refused:  # saga.order reads a binding set too
            raise refused.error from None

    return run


def validate(args: Mapping[str, Any]) -> dict[str, Any]:
    """A refused binding set is reported as its first error (findings are informative)."""
    try:
        return documents.validate_document(dict(args))
    except documents.BindingSetRefused as refused:
        raise refused.error from None


OPERATIONS = (
    *(
        Declared(f"saga.{name}", "saga", _refusing_binding_sets(function))
        for name, function in GROUP_OPERATIONS.items()
    ),
    Declared("saga.validate", "saga", validate),
)
