"""SG-1..SG-9: effect statuses and the append-only reconciliation overlay (AG-S18)."""

from __future__ import annotations

import pytest

from rescind.reference.saga.effects import Effect, EffectClass, effect_identity, open_effect
from rescind.reference.saga.errors import (
    ContradictoryReconciliation,
    IllegalTransition,
    ReconciliationFieldMissing,
    ReconciliationNotAllowed,
    SagaInvalidInput,
    SelfCompensation,
    UnconfirmedCompensationEffect,
    UnknownEffect,
    UnrelatedCompensationEffect,
)
from rescind.reference.saga.reconciliation import (
    EffectiveState,
    EffectRegistry,
    Overlay,
    effective_state,
    reconcile,
)
from rescind.tables.saga import EffectStatus, ReconciliationStatus

from .builders import effect

S = EffectStatus
APPLIED, NOT_APPLIED, COMPENSATED = (
    ReconciliationStatus.APPLIED,
    ReconciliationStatus.NOT_APPLIED,
    ReconciliationStatus.COMPENSATED,
)


def registry(*effects: object, links: dict[str, str] | None = None) -> EffectRegistry:
    return EffectRegistry({e.effect_id: e for e in effects}, links or {})  # type: ignore[attr-defined]


def record(
    overlay: Overlay,
    reg: EffectRegistry,
    effect_id: str,
    status: ReconciliationStatus,
    **extra: object,
) -> Overlay:
    fields: dict[str, object] = {"actor": "operator", "reason": "checked by hand"}
    if status is APPLIED:
        fields["result_json"] = "{}"
    fields.update(extra)
    return reconcile(overlay, reg, effect_id=effect_id, status=status, **fields)  # type: ignore[arg-type]


def _opened(*, approval_required: bool) -> Effect:
    """A first-attempt workspace ``write`` effect of task ``t`` in run ``r``."""
    return open_effect(
        run_id="r",
        task_id="t",
        attempt=1,
        operation="write",
        input_digest="d",
        effect_class=EffectClass.WORKSPACE,
        approval_required=approval_required,
    )


class TestEffectStatus:
    def test_success_confirms_and_others_do_not(self) -> None:
        started = _opened(approval_required=False).advance("dispatch")
        assert started.status is S.STARTED and not started.confirmed
        assert started.advance("succeed").confirmed
        assert not started.advance("fail").confirmed
        lost = started.advance("lose")
        assert lost.status is S.UNCERTAIN and not lost.confirmed

    def test_approval_path(self) -> None:
        waiting = _opened(approval_required=True)
        assert waiting.status is S.WAITING_FOR_APPROVAL
        assert waiting.advance("approve").status is S.REQUESTED
        assert waiting.advance("reject").status is S.CANCELLED

    @pytest.mark.parametrize(
        ("status", "trigger"),
        [
            (S.REQUESTED, "succeed"),
            (S.WAITING_FOR_APPROVAL, "dispatch"),
            (S.SUCCEEDED, "fail"),
            (S.UNCERTAIN, "succeed"),
            (S.FAILED, "dispatch"),
        ],
    )
    def test_only_listed_moves(self, status: EffectStatus, trigger: str) -> None:
        with pytest.raises(IllegalTransition):
            effect("e", "t", status, confirmed=False).advance(trigger)

    def test_only_a_success_is_confirmed(self) -> None:
        with pytest.raises(SagaInvalidInput):
            effect("e", "t", S.FAILED, confirmed=True)

    def test_new_attempt_or_run_gives_new_id(self) -> None:
        base = effect_identity("run", "task", 1, 0, "write", "digest")
        assert base != effect_identity("run", "task", 2, 0, "write", "digest")
        assert base != effect_identity("run-2", "task", 1, 0, "write", "digest")
        assert base == effect_identity("run", "task", 1, 0, "write", "digest")
        # Length prefixes keep field boundaries: ("ab", "c") and ("a", "bc") differ.
        assert effect_identity("ab", "c", 1, 0, "w", "d") != effect_identity(
            "a", "bc", 1, 0, "w", "d"
        )


class TestFirstReconciliation:
    @pytest.mark.parametrize("raw", [S.STARTED, S.UNCERTAIN])
    @pytest.mark.parametrize("status", [APPLIED, NOT_APPLIED])
    def test_unsettled_admits_applied_and_not_applied(
        self, raw: EffectStatus, status: ReconciliationStatus
    ) -> None:
        e = effect("e", "t", raw)
        assert record(Overlay(), registry(e), "e", status).latest_status("e") == status.value

    @pytest.mark.parametrize("raw", [S.SUCCEEDED, S.FAILED, S.CANCELLED, S.REQUESTED])
    def test_applied_refused_elsewhere(self, raw: EffectStatus) -> None:
        # AG-S18: first `applied` on a succeeded+confirmed effect is an error.
        with pytest.raises(ReconciliationNotAllowed):
            record(Overlay(), registry(effect("e", "t", raw)), "e", APPLIED)

    def test_compensated_first_needs_confirmed_success(self) -> None:
        inverse = effect("c", "u")
        for raw, confirmed in [(S.UNCERTAIN, False), (S.SUCCEEDED, False), (S.FAILED, False)]:
            reg = registry(effect("e", "t", raw, confirmed=confirmed), inverse)
            with pytest.raises(ReconciliationNotAllowed):
                record(Overlay(), reg, "e", COMPENSATED, compensation_effect_id="c")
        reg = registry(effect("e", "t"), inverse)
        assert (
            record(Overlay(), reg, "e", COMPENSATED, compensation_effect_id="c").latest_status("e")
            == "compensated"
        )


class TestLaterReconciliation:
    def test_ag_s18_uncertain_applied_compensated(self) -> None:
        reg = registry(effect("e", "t", S.UNCERTAIN), effect("c", "u"))
        overlay = record(Overlay(), reg, "e", APPLIED)
        overlay = record(overlay, reg, "e", COMPENSATED, compensation_effect_id="c")
        first, second = overlay.history("e")
        assert second.supersedes_id == first.reconciliation_id
        assert overlay.latest_status("e") == "compensated"
        assert second.compensation_effect_id == "c"

    @pytest.mark.parametrize(
        ("history", "new"),
        [
            ([APPLIED], NOT_APPLIED),
            ([NOT_APPLIED], APPLIED),
            ([NOT_APPLIED], COMPENSATED),
            ([APPLIED, COMPENSATED], APPLIED),
            ([APPLIED, COMPENSATED], NOT_APPLIED),
        ],
    )
    def test_contradictions(
        self, history: list[ReconciliationStatus], new: ReconciliationStatus
    ) -> None:
        reg = registry(effect("e", "t", S.UNCERTAIN), effect("c", "u"))
        overlay = Overlay()
        for status in history:
            overlay = record(overlay, reg, "e", status, compensation_effect_id="c")
        with pytest.raises(ContradictoryReconciliation):
            record(overlay, reg, "e", new, compensation_effect_id="c")
        assert len(overlay.records) == len(history)

    @pytest.mark.parametrize(
        ("history", "new"),
        [([APPLIED], APPLIED), ([NOT_APPLIED], NOT_APPLIED), ([APPLIED, COMPENSATED], COMPENSATED)],
    )
    def test_repeats_allowed(
        self, history: list[ReconciliationStatus], new: ReconciliationStatus
    ) -> None:
        reg = registry(effect("e", "t", S.UNCERTAIN), effect("c", "u"))
        overlay = Overlay()
        for status in [*history, new]:
            overlay = record(overlay, reg, "e", status, compensation_effect_id="c")
        assert overlay.latest_status("e") == new.value


class TestRecordFields:
    def test_blank_actor_reason_and_missing_result(self) -> None:
        reg = registry(effect("e", "t", S.UNCERTAIN))
        with pytest.raises(ReconciliationFieldMissing):
            record(Overlay(), reg, "e", NOT_APPLIED, actor="  ")
        with pytest.raises(ReconciliationFieldMissing):
            record(Overlay(), reg, "e", NOT_APPLIED, reason="")
        with pytest.raises(ReconciliationFieldMissing):
            reconcile(Overlay(), reg, effect_id="e", status=APPLIED, actor="a", reason="r")

    def test_compensated_needs_a_link(self) -> None:
        with pytest.raises(ReconciliationFieldMissing):
            record(Overlay(), registry(effect("e", "t")), "e", COMPENSATED)

    def test_unknown_effect(self) -> None:
        with pytest.raises(UnknownEffect):
            record(Overlay(), registry(), "ghost", NOT_APPLIED)


class TestCompensationLink:
    def test_cannot_compensate_itself(self) -> None:
        with pytest.raises(SelfCompensation):
            record(
                Overlay(), registry(effect("e", "t")), "e", COMPENSATED, compensation_effect_id="e"
            )

    def test_same_run_or_source_linked_run_only(self) -> None:
        source = effect("e", "t")
        same_run = effect("c1", "u")
        linked = effect("c2", "compensate--t", run_id="cmp-1")
        stranger = effect("c3", "compensate--t", run_id="other")
        reg = registry(source, same_run, linked, stranger, links={"cmp-1": "src-1", "other": "x"})
        for inverse in ("c1", "c2"):
            overlay = record(Overlay(), reg, "e", COMPENSATED, compensation_effect_id=inverse)
            assert overlay.latest_status("e") == "compensated"
        with pytest.raises(UnrelatedCompensationEffect):
            record(Overlay(), reg, "e", COMPENSATED, compensation_effect_id="c3")

    def test_inverse_must_be_confirmed_applied(self) -> None:
        failed = effect("c", "u", S.FAILED)
        reg = registry(effect("e", "t"), failed)
        with pytest.raises(UnconfirmedCompensationEffect):
            record(Overlay(), reg, "e", COMPENSATED, compensation_effect_id="c")
        # An uncertain inverse reconciled applied counts as confirmed applied.
        reg = registry(effect("e", "t"), effect("c", "u", S.UNCERTAIN))
        overlay = record(Overlay(), reg, "c", APPLIED)
        assert (
            record(overlay, reg, "e", COMPENSATED, compensation_effect_id="c").latest_status("e")
            == "compensated"
        )


@pytest.mark.parametrize(
    ("raw", "confirmed", "history", "state"),
    [
        (S.SUCCEEDED, True, [], EffectiveState.APPLIED),
        (S.SUCCEEDED, False, [], EffectiveState.UNCONFIRMED),
        (S.STARTED, False, [], EffectiveState.UNCERTAIN),
        (S.UNCERTAIN, False, [], EffectiveState.UNCERTAIN),
        (S.FAILED, False, [], EffectiveState.INERT),
        (S.REQUESTED, False, [], EffectiveState.INERT),
        (S.UNCERTAIN, False, [APPLIED], EffectiveState.APPLIED),
        (S.UNCERTAIN, False, [NOT_APPLIED], EffectiveState.NOT_APPLIED),
        (S.UNCERTAIN, False, [APPLIED, COMPENSATED], EffectiveState.COMPENSATED),
    ],
)
def test_effective_state(
    raw: EffectStatus, confirmed: bool, history: list[ReconciliationStatus], state: EffectiveState
) -> None:
    e = effect("e", "t", raw, confirmed=confirmed)
    reg = registry(e, effect("c", "u"))
    overlay = Overlay()
    for status in history:
        overlay = record(overlay, reg, "e", status, compensation_effect_id="c")
    assert effective_state(e, overlay) is state
