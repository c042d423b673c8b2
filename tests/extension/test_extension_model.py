"""The extension profile in the model: registered, keeps every protocol invariant, and turns
the stuck-compensation finding into proofs (CR-9, CR-11), while upstream keeps the finding."""

from __future__ import annotations

import attrs
import pytest
import z3

from rescind.model.core.prover import prove
from rescind.model.core.system import Action
from rescind.model.progress.extension import (
    COMPENSATION_RECONCILE,
    NAME,
    RECONCILE_COMPENSATION,
)
from rescind.model.progress.fair_system import UPSTREAM, ProgressSystem
from rescind.model.progress.profiles import PROFILES
from rescind.model.progress.proofs import (
    COMPENSATION,
    OUTCOME_LOST_IN_CRASH,
    PROPERTIES,
    checks,
    run_progress,
)
from rescind.model.progress.ranking import closed_under_every_action
from rescind.model.progress.refines_safety import run_refinement, unrefined_actions
from rescind.model.safety.invariants import INVARIANTS


@pytest.fixture(scope="module")
def extended() -> ProgressSystem:
    return ProgressSystem(COMPENSATION_RECONCILE)


def test_the_profile_is_registered_after_upstream() -> None:
    assert list(PROFILES) == ["splash-v5", NAME]
    names = [check.name for check in checks()]
    assert f"safety_invariants_hold@{NAME}" in names
    assert all(f"{prop.name}@{NAME}" in names for prop in PROPERTIES)
    assert COMPENSATION_RECONCILE.expected_findings == {}
    assert UPSTREAM.expected_findings  # upstream still expects its finding


def test_every_protocol_invariant_is_inductive_on_the_extension(
    extended: ProgressSystem,
) -> None:
    # Directly, not through the refinement argument the prove check uses.
    for invariant in INVARIANTS:
        assert prove(extended, invariant).inductive, invariant.name


def test_the_extension_step_refines_observe_compensation(extended: ProgressSystem) -> None:
    assert unrefined_actions(extended) == []
    assert run_refinement(extended).status == "proven"


def test_a_reconciliation_that_runs_the_inverse_is_caught() -> None:
    # A broken design: the lookup also performs the inverse effect. It is no longer a
    # safety-model step, so the prove check refuses it.
    def effects(m: object, s: object, p: object) -> dict[str, z3.ExprRef]:
        changes = dict(RECONCILE_COMPENSATION.effects(m, s, p))  # type: ignore[arg-type]
        key = p["key"]  # type: ignore[index]
        bumped = s["effects.inverse"][key] + 1  # type: ignore[index]
        changes["effects.inverse"] = z3.Store(s["effects.inverse"], key, bumped)  # type: ignore[index]
        return changes

    broken: Action = attrs.evolve(RECONCILE_COMPENSATION, effects=effects)
    profile = UPSTREAM.adding(
        "broken", "test", [broken], [], base_steps={broken.name: ("observe_compensation",)}
    )
    system = ProgressSystem(profile)
    assert unrefined_actions(system) == ["reconcile_compensation"]
    assert run_refinement(system).status == "violated"


@pytest.mark.parametrize("prop", PROPERTIES, ids=lambda p: p.name)
def test_progress_is_proven_under_the_profile(prop: object, extended: ProgressSystem) -> None:
    result = run_progress(prop, extended)  # type: ignore[arg-type]
    assert result.status == "proven", result.detail
    if prop is not PROPERTIES[0]:
        assert "outcome_unknown<-compensation_reconciliation_answers" in result.detail


def test_the_stuck_trap_is_left_only_by_the_extension_step(extended: ProgressSystem) -> None:
    closed, escape = closed_under_every_action(extended, COMPENSATION, OUTCOME_LOST_IN_CRASH.trap)
    assert not closed and escape == "reconcile_compensation"
    assert closed_under_every_action(ProgressSystem(), COMPENSATION, OUTCOME_LOST_IN_CRASH.trap)[0]


def test_without_its_fairness_the_extension_proves_nothing() -> None:
    # The step alone is not enough: the adapter must eventually answer a lookup terminally.
    unfair = attrs.evolve(
        COMPENSATION_RECONCILE,
        name="unfair-extension",
        fairness=UPSTREAM.fairness,
        expected_findings={},
    )
    result = run_progress(PROPERTIES[1], ProgressSystem(unfair))
    assert result.status != "proven"
