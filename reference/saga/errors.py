"""Typed failures of the saga layer (agentctl planning, CaseHub cases and work items).

Every code starts with ``saga_`` so it can never collide with a protocol or ledger code. Each
class names the upstream failure it stands for in ``upstream``: an agentctl diagnostic or
runtime error kind, or the Java exception CaseHub throws. All of them are definite: they are
raised before anything is dispatched or recorded.
"""

from __future__ import annotations

from rescind.reference.errors import RescindError


class SagaError(RescindError):
    """Any failure of the workflow-level compensation layer."""


class SagaInvalidInput(SagaError):
    """A described source run, binding set or scenario is malformed (shape, type, grammar)."""

    code = "saga_invalid_input"
    upstream = "SchemaViolation"


class SagaDependencyCycle(SagaError):
    """The forward task graph (``needs``) has a cycle, so it has no compiled order."""

    code = "saga_dependency_cycle"
    upstream = "SchemaViolation"


class IllegalTransition(SagaError):
    """A lifecycle table has no row for this (state, trigger) pair."""

    code = "saga_illegal_transition"
    upstream = "InvalidState"


class SourceRunNotTerminal(SagaError):
    """Compensation was planned for a source run that is still running or paused."""

    code = "saga_source_not_terminal"
    upstream = "InvalidState"


class CompensationInputNotObject(SagaError):
    """The rendered compensate ``with`` is a JSON value other than an object."""

    code = "saga_compensation_input_not_object"
    upstream = "InvalidState"


class GeneratedWorkflowInvalid(SagaError):
    """The compensation workflow generated from the plan does not compile: a rendered input
    string is itself a template that is invalid or names a task (SG-98). agentctl compiles the
    generated workflow inside planning, so the whole plan fails, not just the task."""

    code = "saga_generated_workflow_invalid"
    upstream = "InvalidState"


class UnknownEffect(SagaError):
    code = "saga_unknown_effect"
    upstream = "NotFound"


class UnknownRun(SagaError):
    code = "saga_unknown_run"
    upstream = "NotFound"


class RunNotPaused(SagaError):
    """Approve or resume was asked of a compensation run that is not paused."""

    code = "saga_run_not_paused"
    upstream = "InvalidState"


class ReconciliationFieldMissing(SagaError):
    """Empty actor or reason, ``applied`` without a result, ``compensated`` without a link."""

    code = "saga_reconciliation_field_missing"
    upstream = "InvalidState"


class ReconciliationNotAllowed(SagaError):
    """A first reconciliation whose status the raw effect status does not admit."""

    code = "saga_reconciliation_not_allowed"
    upstream = "InvalidState"


class ContradictoryReconciliation(SagaError):
    """A later reconciliation that contradicts the latest one (append-only overlay)."""

    code = "saga_contradictory_reconciliation"
    upstream = "InvalidState"


class SelfCompensation(SagaError):
    """A ``compensated`` record that names the effect itself as its compensation."""

    code = "saga_self_compensation"
    upstream = "InvalidState"


class UnrelatedCompensationEffect(SagaError):
    """The compensation effect is neither in the same run nor in a source-linked one."""

    code = "saga_unrelated_compensation_effect"
    upstream = "InvalidState"


class UnconfirmedCompensationEffect(SagaError):
    """The compensation effect is not confirmed applied."""

    code = "saga_unconfirmed_compensation_effect"
    upstream = "InvalidState"


class CaseNotFound(SagaError):
    code = "saga_case_not_found"
    upstream = "IllegalArgumentException"


class CaseNotCompensable(SagaError):
    """``compensate`` on a case that is neither COMPLETED nor COMPENSATION_FAULTED."""

    code = "saga_case_not_compensable"
    upstream = "IllegalStateException"


class UnknownPlanItem(SagaError):
    code = "saga_unknown_plan_item"
    upstream = "IllegalArgumentException"


class WorkItemNotFound(SagaError):
    code = "saga_work_item_not_found"
    upstream = "WorkItemNotFoundException"


class WorkItemNotCompleted(SagaError):
    code = "saga_work_item_not_completed"
    upstream = "IllegalStateException"


class CompensationAlreadyActive(SagaError):
    """The original already has compensation activity (COMPENSATING or COMPENSATED)."""

    code = "saga_compensation_already_active"
    upstream = "IllegalStateException"


class CompensatorNotCompensable(SagaError):
    """A compensating work item cannot itself be compensated (a pair, never a chain)."""

    code = "saga_compensator_not_compensable"
    upstream = "IllegalStateException"


class BindingInvalid(SagaError):
    """A binding set failed build-time validation; ``rule`` names the first failing rule."""


class MissingCompensationTarget(BindingInvalid):
    code = "saga_binding_missing_target"
    upstream = "IllegalArgumentException"


class SelfCompensatingBinding(BindingInvalid):
    code = "saga_binding_self_reference"
    upstream = "IllegalArgumentException"


class CompensationCycle(BindingInvalid):
    code = "saga_binding_cycle"
    upstream = "IllegalArgumentException"


class OrphanCompensationBinding(BindingInvalid):
    """A compensation-only binding no ``compensate`` names: CaseHub's validator returns it with
    the errors and the YAML loader refuses the definition."""

    code = "saga_binding_orphan"
    upstream = "IllegalArgumentException"
