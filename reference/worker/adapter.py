"""The adapter contract a worker session drives (upstream ``WorkerAdapter``).

An adapter performs the real effects of one tool. The session calls it only at the points
docs/spec/session.md fixes (WS-7, WS-12, WS-13): a dispatch or compensation effect after the
admission is durable, a reconciliation read at any time. An adapter answers with a wire
``OperationStatus`` or raises a ``WorkerAdapterError`` (``session_errors``).

Two declarations gate what the session may ask of an adapter: ``durable_operations`` (the
adapter honours operation keys: the same key never acts twice, and it can answer a
reconciliation for any key it was given) is required for dispatch and compensation;
``invocation_safety`` is required for an ordinary ``invoke``.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import attrs

from rescind.reference.messages import (
    OperationCompensationRequest,
    OperationDispatchRequest,
    OperationReconcileRequest,
    OperationStatus,
)


@attrs.frozen
class AdapterDeclarations:
    durable_operations: bool = True
    invocation_safety: bool = True
    compensation_reconciliation: bool = False
    """Extension ``splash-v5+compensation-reconcile`` (CR-6): the adapter answers
    ``reconcile_compensation`` by looking the inverse effect up, never by running it."""

    @classmethod
    def none(cls) -> AdapterDeclarations:
        """An adapter that declared nothing (upstream's default trait methods)."""
        return cls(durable_operations=False, invocation_safety=False)


class WorkerAdapter(Protocol):
    @property
    def declarations(self) -> AdapterDeclarations: ...

    def dispatch_operation(self, request: OperationDispatchRequest) -> OperationStatus: ...

    def compensate_operation(self, request: OperationCompensationRequest) -> OperationStatus: ...

    def reconcile_operation(self, request: OperationReconcileRequest) -> OperationStatus: ...


@runtime_checkable
class CompensationReconcilingAdapter(WorkerAdapter, Protocol):
    """An adapter that also serves the compensation reconciliation extension (CR-6)."""

    def reconcile_compensation(self, request: OperationCompensationRequest) -> OperationStatus: ...
