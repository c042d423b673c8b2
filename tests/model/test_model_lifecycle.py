"""The model reads the lifecycle table as data (MD-1)."""

from __future__ import annotations

import itertools

import pytest
import z3

from rescind.model.core.logic import PHASE, LifecycleLogic, phase
from rescind.tables.operation import OPERATION_LIFECYCLE, Phase, Verdict

PAIRS = list(itertools.product(Phase, [p for p in Phase if p is not Phase.PENDING]))


def _value(formula: object) -> bool:
    simplified = z3.simplify(formula)
    assert z3.is_true(simplified) or z3.is_false(simplified)
    return bool(z3.is_true(simplified))


@pytest.mark.parametrize(("current", "observed"), PAIRS, ids=lambda p: p.value)
@pytest.mark.parametrize("same", [True, False])
def test_each_pair_has_the_verdict_the_table_gives(
    current: Phase, observed: Phase, same: bool
) -> None:
    logic = LifecycleLogic()
    seen = logic.observe(phase(current), phase(observed), z3.BoolVal(same))
    verdict = OPERATION_LIFECYCLE.verdict(current, observed)
    accepted = verdict in (Verdict.ADVANCE, Verdict.STAY) or (
        verdict is Verdict.STAY_IF_SAME and same
    )
    assert _value(seen.accepted) is accepted
    assert _value(seen.advanced) is (verdict is Verdict.ADVANCE)
    expected_next = observed if verdict is Verdict.ADVANCE else current
    assert _value(seen.next_phase == phase(expected_next))


def test_upstream_table_facts_hold_in_the_model() -> None:
    # WJ-6 / HL-10, written out independently of the table: a terminal state only
    # accepts its own kind, and pending/running accept every terminal observation.
    logic = LifecycleLogic()
    terminal = [Phase.SUCCEEDED, Phase.FAILED, Phase.CANCELLED]
    for current in terminal:
        for observed in [Phase.RUNNING, *terminal]:
            seen = logic.observe(phase(current), phase(observed), z3.BoolVal(True))
            assert _value(seen.accepted) is (observed is current)
            assert not _value(seen.advanced)
    for current in (Phase.PENDING, Phase.RUNNING):
        for observed in terminal:
            seen = logic.observe(phase(current), phase(observed), z3.BoolVal(False))
            assert _value(seen.advanced)


def test_phase_sort_is_built_from_the_table_states() -> None:
    names = [PHASE.constructor(i).name() for i in range(PHASE.num_constructors())]
    assert names == ["absent", *(p.value for p in OPERATION_LIFECYCLE.states)]


def test_a_lifecycle_with_other_states_is_refused() -> None:
    import attrs

    shorter = attrs.evolve(OPERATION_LIFECYCLE, states=OPERATION_LIFECYCLE.states[:-1])
    with pytest.raises(ValueError, match="phase sort"):
        LifecycleLogic(shorter)
