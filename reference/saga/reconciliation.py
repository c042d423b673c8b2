"""The append-only reconciliation overlay on agentctl effects.

Raw effect records never change. What an operator (or the runtime, after a successful inverse)
learns later is appended as a reconciliation record: ``applied``, ``not_applied`` or
``compensated``. Each new record supersedes the previous latest one for the same effect. The
first record must fit the raw status (``FIRST_RECONCILIATION``), later ones must not contradict
the latest (``LATER_RECONCILIATION``); both tables live in ``rescind.tables.saga`` (SG-83).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from types import MappingProxyType

import attrs

from rescind.reference.saga.effects import Effect
from rescind.reference.saga.errors import (
    ContradictoryReconciliation,
    ReconciliationFieldMissing,
    ReconciliationNotAllowed,
    SelfCompensation,
    UnconfirmedCompensationEffect,
    UnknownEffect,
    UnrelatedCompensationEffect,
)
from rescind.reference.saga.identifiers import check_identifier
from rescind.tables.saga import (
    FIRST_RECONCILIATION,
    LATER_RECONCILIATION,
    NO_RECONCILIATION,
    EffectStatus,
    ReconciliationStatus,
)

FORMAT_VERSION = 1
RUNTIME_ACTOR = "agentctl-runtime"
DECLARED_COMPENSATION = "declared-compensation"
OPERATOR_STATEMENT = "operator-statement"


@attrs.frozen
class Reconciliation:
    reconciliation_id: str = attrs.field(validator=check_identifier)
    effect_id: str = attrs.field(validator=check_identifier)
    run_id: str = attrs.field(validator=check_identifier)
    status: ReconciliationStatus
    actor: str
    reason: str
    evidence_source: str
    result_json: str | None = None
    """The operator's result as canonical JSON text; opaque to Rescind."""
    compensation_effect_id: str | None = None
    supersedes_id: str | None = None
    format_version: int = FORMAT_VERSION


def _frozen_effects(value: Mapping[str, Effect]) -> Mapping[str, Effect]:
    return MappingProxyType(dict(value))


def _frozen_text(value: Mapping[str, str]) -> Mapping[str, str]:
    return MappingProxyType(dict(value))


@attrs.frozen
class EffectRegistry:
    """Every known effect, and which runs are compensation runs of which source run."""

    effects: Mapping[str, Effect] = attrs.field(converter=_frozen_effects, factory=dict)
    compensation_sources: Mapping[str, str] = attrs.field(converter=_frozen_text, factory=dict)
    """compensation run id -> source run id."""

    def effect(self, effect_id: str) -> Effect:
        found = self.effects.get(effect_id)
        if found is None:
            raise UnknownEffect(effect_id=effect_id)
        return found


@attrs.frozen
class Overlay:
    records: tuple[Reconciliation, ...] = ()

    def history(self, effect_id: str) -> tuple[Reconciliation, ...]:
        return tuple(record for record in self.records if record.effect_id == effect_id)

    def latest(self, effect_id: str) -> Reconciliation | None:
        history = self.history(effect_id)
        return history[-1] if history else None

    def latest_status(self, effect_id: str) -> str:
        """The latest status value, or ``"none"`` when the effect was never reconciled."""
        latest = self.latest(effect_id)
        return NO_RECONCILIATION if latest is None else latest.status.value

    def confirmed_applied(self, effect: Effect) -> bool:
        """Counts as having happened: a confirmed success (whatever was recorded about it
        later), or latest reconciled ``applied``. agentctl's store and its finalizer use this
        same test (docs/spec/saga.md SG-8, SG-26)."""
        if effect.confirmed_success:
            return True
        return self.latest_status(effect.effect_id) == ReconciliationStatus.APPLIED.value

    def append(self, record: Reconciliation) -> Overlay:
        return Overlay((*self.records, record))


def _check_link(
    registry: EffectRegistry, overlay: Overlay, effect: Effect, compensation_effect_id: str
) -> None:
    if compensation_effect_id == effect.effect_id:
        raise SelfCompensation(effect_id=effect.effect_id)
    inverse = registry.effect(compensation_effect_id)
    linked = inverse.run_id == effect.run_id or (
        registry.compensation_sources.get(inverse.run_id) == effect.run_id
    )
    if not linked:
        raise UnrelatedCompensationEffect(
            effect_id=effect.effect_id, compensation_effect_id=compensation_effect_id
        )
    if not overlay.confirmed_applied(inverse):
        raise UnconfirmedCompensationEffect(compensation_effect_id=compensation_effect_id)


def reconcile(
    overlay: Overlay,
    registry: EffectRegistry,
    *,
    effect_id: str,
    status: ReconciliationStatus,
    actor: str,
    reason: str,
    evidence_source: str = OPERATOR_STATEMENT,
    result_json: str | None = None,
    compensation_effect_id: str | None = None,
) -> Overlay:
    """Append one record, or raise the typed reason it is refused (nothing is appended).

    Checks run in agentctl's store order: the fields, the effect, the transition, then the
    compensating effect, which is checked whenever one is named, whatever the status."""
    if not actor.strip():
        raise ReconciliationFieldMissing(field="actor")
    if not reason.strip():
        raise ReconciliationFieldMissing(field="reason")
    if status is ReconciliationStatus.APPLIED and result_json is None:
        raise ReconciliationFieldMissing(field="result")
    if status is ReconciliationStatus.COMPENSATED and compensation_effect_id is None:
        raise ReconciliationFieldMissing(field="compensation_effect_id")
    effect = registry.effect(effect_id)
    previous = overlay.latest(effect_id)
    if previous is None:
        if (effect.status, effect.confirmed) not in FIRST_RECONCILIATION[status]:
            raise ReconciliationNotAllowed(
                effect_id=effect_id, raw_status=effect.status.value, status=status.value
            )
    elif status not in LATER_RECONCILIATION[previous.status]:
        raise ContradictoryReconciliation(
            effect_id=effect_id, latest=previous.status.value, status=status.value
        )
    if compensation_effect_id is not None:
        _check_link(registry, overlay, effect, compensation_effect_id)
    record = Reconciliation(
        reconciliation_id=f"rec-{len(overlay.records) + 1}",
        effect_id=effect_id,
        run_id=effect.run_id,
        status=status,
        actor=actor,
        reason=reason,
        evidence_source=evidence_source,
        result_json=result_json,
        compensation_effect_id=compensation_effect_id,
        supersedes_id=None if previous is None else previous.reconciliation_id,
    )
    return overlay.append(record)


class EffectiveState(enum.Enum):
    """The compensation-relevant reading of raw status plus overlay (a derived view)."""

    APPLIED = "applied"
    NOT_APPLIED = "not_applied"
    COMPENSATED = "compensated"
    UNCERTAIN = "uncertain"
    UNCONFIRMED = "unconfirmed"
    INERT = "inert"


def effective_state(effect: Effect, overlay: Overlay) -> EffectiveState:
    latest = overlay.latest_status(effect.effect_id)
    if latest != NO_RECONCILIATION:
        return EffectiveState(latest)
    if effect.status in (EffectStatus.STARTED, EffectStatus.UNCERTAIN):
        return EffectiveState.UNCERTAIN
    if effect.status is EffectStatus.SUCCEEDED:
        return EffectiveState.APPLIED if effect.confirmed else EffectiveState.UNCONFIRMED
    return EffectiveState.INERT
