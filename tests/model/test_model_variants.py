"""Non-vacuity: each broken variant is caught with a counterexample, and the interesting
states are reachable in the correct model."""

from __future__ import annotations

import re

import pytest

from rescind.model.core.counterexample import render_path
from rescind.model.core.prover import search, violation_target
from rescind.model.core.system import TransitionSystem
from rescind.model.safety.invariants import INVARIANTS, invariant
from rescind.model.safety.proofs import run_invariant
from rescind.model.safety.variants import BROKEN_VARIANTS, WITNESSES, BrokenVariant, Witness

NUMBERED = re.compile(r"^(\d+)\. [a-z_]+( |$)")


def _numbers(lines: tuple[str, ...]) -> list[int]:
    return [int(m.group(1)) for line in lines if (m := NUMBERED.match(line))]


def test_every_invariant_has_a_broken_variant() -> None:
    covered = {variant.breaks for variant in BROKEN_VARIANTS}
    assert covered == {inv.name for inv in INVARIANTS}


@pytest.mark.parametrize("variant", BROKEN_VARIANTS, ids=lambda v: v.name)
def test_broken_variant_is_caught_with_a_numbered_trace(variant: BrokenVariant) -> None:
    system = TransitionSystem(variant.config)
    target = invariant(variant.breaks)
    path = search(
        system,
        violation_target(target),
        depth=variant.depth,
        index_sorts=target.indices,
        bounded=variant.bounds,
    )
    assert path is not None, f"{variant.name} was not caught within {variant.depth} steps"
    lines = render_path(path, frozenset(), "violated")
    assert _numbers(lines) == list(range(1, len(path) + 1))
    # The same check `rescind prove` runs reports the variant as violated, with its trace.
    result = run_invariant(target, variant.config)
    assert result.status == "violated"
    assert result.counterexample[-1].startswith("violated: ")
    assert _numbers(result.counterexample)[0] == 1


@pytest.mark.parametrize("variant", BROKEN_VARIANTS, ids=lambda v: v.name)
def test_broken_variant_changes_only_what_it_says(variant: BrokenVariant) -> None:
    # The correct model proves the invariant the variant breaks: the failure comes from the
    # one protection the variant removes.
    assert run_invariant(invariant(variant.breaks)).status == "proven"


WHOLE_PROTOCOL = (
    "record_operation",
    "admit",
    "persist",
    "observe",
    "apply_result",
    "record_compensation",
    "approve",
    "prepare",
    "authorize_compensation",
    "admit_compensation",
    "compensation_effect",
    "observe_compensation",
    "apply_compensation_result",
)


@pytest.mark.parametrize("witness", WITNESSES, ids=lambda w: w.name)
def test_interesting_state_is_reachable(witness: Witness) -> None:
    system = TransitionSystem()
    path = search(
        system,
        lambda m, previous, last, indices: witness.target(m, last, indices),
        depth=witness.depth,
        index_sorts=witness.index_sorts,
        bounded=witness.bounds,
    )
    assert path is not None, f"{witness.name} unreachable within {witness.depth} steps"
    if witness.name == "compensated_original":
        actions = [path.chosen(i).action.name for i in range(len(path))]
        assert set(WHOLE_PROTOCOL) <= set(actions)
        # An inverse effect needs a persisted attachment first (MD-9).
        assert actions.index("persist") < actions.index("compensation_effect")
