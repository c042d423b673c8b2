"""Every invariant is proven inductive, and every strengthening is needed."""

from __future__ import annotations

import pytest

from rescind.model.core.invariant import Invariant
from rescind.model.core.prover import prove
from rescind.model.core.system import TransitionSystem
from rescind.model.safety.invariants import INVARIANTS
from rescind.model.safety.proofs import checks, run_invariant

STRENGTHENED = [inv for inv in INVARIANTS if inv.strengthening]


def test_the_issue_invariants_are_all_present() -> None:
    names = {inv.name for inv in INVARIANTS}
    assert {
        "host_at_most_one_compensation",
        "worker_at_most_one_compensation",
        "terminal_states_never_change",
        "host_worker_terminal_agreement",
        "attenuation_never_widens",
        "fingerprint_tracks_grant",
        "compensation_matches_original",
        "effect_requires_durable_admission",
        "compensation_budget_respected",
        "superseded_lease_never_writes",
        "approval_used_at_most_once",
    } <= names
    rules = [inv.rule for inv in INVARIANTS]
    assert len(set(rules)) == len(rules)


@pytest.mark.parametrize("invariant", INVARIANTS, ids=lambda inv: inv.name)
def test_invariant_is_proven_inductive(invariant: Invariant) -> None:
    result = prove(TransitionSystem(), invariant)
    assert result.inductive, f"induction fails at {result.failing_step}"
    assert not result.unknown


@pytest.mark.parametrize("invariant", STRENGTHENED, ids=lambda inv: inv.name)
def test_dropping_the_strengthening_breaks_the_induction_step(invariant: Invariant) -> None:
    result = prove(TransitionSystem(), invariant, strengthen=False)
    assert not result.inductive
    assert not result.unknown, "z3 must find a counterexample to induction, not give up"
    assert result.failing_step not in ("", "base"), "the base case holds; the step must fail"


@pytest.mark.parametrize("invariant", STRENGTHENED, ids=lambda inv: inv.name)
def test_a_failed_bare_induction_is_not_a_reachable_violation(invariant: Invariant) -> None:
    # The property itself still holds: the bare induction failure is an unreachable
    # counterexample to induction, so `prove` must not turn it into "violated".
    from rescind.model.safety.proofs import counterexample

    assert counterexample(TransitionSystem(), invariant, depth=4) == ()


def test_protocol_checks_report_proven_with_timing() -> None:
    results = {check.name: check.run() for check in checks()}
    assert set(results) == {inv.name for inv in INVARIANTS}
    for name, result in results.items():
        assert result.status == "proven", name
        assert result.seconds > 0
        assert result.counterexample == ()


def test_run_invariant_on_correct_model_has_no_detail() -> None:
    result = run_invariant(INVARIANTS[0])
    assert (result.status, result.detail) == ("proven", "")


def test_every_invariant_cites_a_rule_that_docs_spec_model_defines() -> None:
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "spec" / "model.md").read_text()
    defined = dict(re.findall(r"^- \*\*(MD-\d+)\*\* `([a-z_]+)`", text, flags=re.MULTILINE))
    for inv in INVARIANTS:
        assert defined.get(inv.rule) == inv.name, f"{inv.rule} should define {inv.name}"
