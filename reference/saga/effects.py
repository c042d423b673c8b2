"""agentctl effects: the immutable record of one effectful dispatch.

An effect is created ``requested`` (or ``waiting_for_approval``) and then only moves along
``EFFECT_TABLE``. A success is confirmed; a definitive error fails; a timeout, cancellation or
lost acknowledgement leaves it ``uncertain``. Nothing changes a completed record: what happened
afterwards is told by the reconciliation overlay (``reconciliation.py``).
"""

from __future__ import annotations

import enum
import hashlib

import attrs

from rescind.reference.saga.errors import SagaInvalidInput
from rescind.reference.saga.identifiers import check_identifier
from rescind.reference.saga.transitions import fire
from rescind.tables.saga import (
    EFFECT_TABLE,
    IRRELEVANT_EFFECT_CLASSES,
    EffectStatus,
)


class EffectClass(enum.Enum):
    """What an effect touches; ``pure``, ``observe`` and ``model`` never need compensation."""

    PURE = "pure"
    OBSERVE = "observe"
    MODEL = "model"
    INTERNAL_STATE = "internal_state"
    WORKSPACE = "workspace"
    PROCESS = "process"
    NETWORK = "network"
    EXTERNAL = "external"
    REMOTE_AGENT = "remote_agent"

    @property
    def compensation_relevant(self) -> bool:
        return self.value not in IRRELEVANT_EFFECT_CLASSES


def _positive(_: object, attribute: attrs.Attribute[int], value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise SagaInvalidInput(field=attribute.name, reason="must be >= 1")


@attrs.frozen
class Effect:
    effect_id: str = attrs.field(validator=check_identifier)
    run_id: str = attrs.field(validator=check_identifier)
    task_id: str = attrs.field(validator=check_identifier)
    status: EffectStatus
    effect_class: EffectClass
    confirmed: bool = False
    attempt: int = attrs.field(default=1, validator=_positive)

    def __attrs_post_init__(self) -> None:
        # Only a success is ever confirmed; an unconfirmed success is a legacy record.
        if self.confirmed and self.status is not EffectStatus.SUCCEEDED:
            raise SagaInvalidInput(field="confirmed", reason="only a succeeded effect")

    @property
    def confirmed_success(self) -> bool:
        return self.status is EffectStatus.SUCCEEDED and self.confirmed

    def advance(self, trigger: str) -> Effect:
        """Move along ``EFFECT_TABLE``; ``succeed`` confirms, every other trigger does not."""
        status = fire(EFFECT_TABLE, self.status, trigger)
        return attrs.evolve(self, status=status, confirmed=status is EffectStatus.SUCCEEDED)


def effect_identity(
    run_id: str, task_id: str, attempt: int, ordinal: int, operation: str, input_digest: str
) -> str:
    """A stable id for one dispatch: a new attempt or a new run gives a new id.

    agentctl's layout (``EffectRequest::new``, docs/spec/saga.md SG-80): the lowercase hex
    SHA-256 of the six fields joined by NUL bytes, attempt and ordinal in decimal. Upstream's
    ``input_digest`` is the hex SHA-256 of the action's own request JSON and ``operation`` the
    action kind; the values Rescind passes for them are its own, so its ids follow the layout
    but not upstream's values.
    """
    fields = (run_id, task_id, str(attempt), str(ordinal), operation, input_digest)
    return hashlib.sha256("\0".join(fields).encode("utf-8")).hexdigest()


def open_effect(
    *,
    run_id: str,
    task_id: str,
    attempt: int,
    operation: str,
    input_digest: str,
    effect_class: EffectClass,
    approval_required: bool,
    ordinal: int = 1,
) -> Effect:
    """A new effect: ``waiting_for_approval`` when approval is required, else ``requested``."""
    return Effect(
        effect_id=effect_identity(run_id, task_id, attempt, ordinal, operation, input_digest),
        run_id=run_id,
        task_id=task_id,
        status=EffectStatus.WAITING_FOR_APPROVAL if approval_required else EffectStatus.REQUESTED,
        effect_class=effect_class,
        attempt=attempt,
    )
