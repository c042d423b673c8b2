"""Progress properties: proofs, findings with their lassos, broken variants, non-vacuity."""

from __future__ import annotations

import json
import re
from pathlib import Path

import attrs
import pytest
import z3

from rescind.cli import main
from rescind.cli import prove as prove_cli
from rescind.model.core.proof_check import Check, CheckResult
from rescind.model.core.prover import prove
from rescind.model.core.system import SCHEMA, State
from rescind.model.progress.fair_system import (
    BASE_STEPS,
    TERMINAL,
    UPSTREAM,
    FairFamily,
    ProgressSystem,
    base_action,
    restricted,
)
from rescind.model.progress.lasso import LassoShape, find_lasso, find_witness, render_lasso
from rescind.model.progress.lemmas import ATTACHMENT_IS_THE_HOSTS
from rescind.model.progress.proofs import (
    COMPENSATION,
    LEFT_RUNNING,
    ORIGINAL_UNKNOWABLE,
    OUTCOME_LOST_IN_CRASH,
    PROPERTIES,
    checks,
    progress_property,
    run_progress,
)
from rescind.model.progress.ranking import closed_under_every_action, prove_leads_to
from rescind.model.safety.invariants import INVARIANTS

SPEC = Path(__file__).resolve().parents[2] / "docs" / "spec" / "progress.md"
NUMBERED = re.compile(r"^(\d+)\. [a-z_]+( |$)")
CRASH = "compensation_outcome_lost_in_crash"


def _numbers(lines: tuple[str, ...]) -> list[int]:
    return [int(m.group(1)) for line in lines if (m := NUMBERED.match(line))]


def _terminal_answer(m: object, s: State, p: dict[str, z3.ExprRef]) -> dict[str, z3.ExprRef]:
    return {"terminal_answer": z3.Or([p["observed"] == value for value in TERMINAL])}


def _answers(m: object, s: State, ix: object) -> list[dict[str, z3.ExprRef]]:
    return [{"observed": value} for value in TERMINAL]


def compensation_reconcile_fixture() -> ProgressSystem:
    """A stand-in for a compensation reconciliation (any session asks the adapter about an
    attached compensation, when no inverse call is owed): enough to show the progress checks
    prove PG-2 and PG-3 once such an action exists. Not a protocol profile."""
    action = restricted(
        base_action("observe_compensation"),
        "reconcile_compensation",
        "adapter reports a compensation's status on a reconciliation",
        lambda m, s, p: {"no_call_owed": z3.Not(s["worker.cmp_owed"][p["key"]])},
    )
    family = FairFamily(
        "compensation_reconciliation_answers",
        "reconcile_compensation",
        "the adapter, asked again and again, eventually reports a terminal compensation status",
        "key",
        _terminal_answer,  # type: ignore[arg-type]
        _answers,  # type: ignore[arg-type]
    )
    return ProgressSystem(UPSTREAM.adding("test-fixture", "fixture", [action], [family]))


@pytest.fixture(scope="module")
def upstream() -> ProgressSystem:
    return ProgressSystem()


@pytest.fixture(scope="module")
def upstream_results(upstream: ProgressSystem) -> dict[str, CheckResult]:
    return {prop.name: run_progress(prop, upstream) for prop in PROPERTIES}


def test_upstream_original_progress_is_proven(upstream_results: dict[str, CheckResult]) -> None:
    result = upstream_results["original_reaches_terminal"]
    assert result.status == "proven", result.detail
    assert "outcome_unknown<-reconciliation_answers" in result.detail
    assert "witness: a fair run of" in result.detail


@pytest.mark.parametrize("name", ["approved_compensation_settles", "used_approval_can_settle"])
def test_stuck_compensation_is_a_named_finding(
    name: str, upstream_results: dict[str, CheckResult]
) -> None:
    result = upstream_results[name]
    assert result.status == "finding", result.detail
    assert result.finding == CRASH
    lines = result.counterexample
    steps = [line for line in lines if NUMBERED.match(line)]
    assert _numbers(lines) == list(range(1, len(steps) + 1))
    actions = [line.split()[1] for line in steps]
    # The inverse ran and answered, the session died before the answer was stored, and a
    # new session got the resend: the lasso is the hazard of issue 12, step by step.
    call, crash = actions.index("compensation_call"), actions.index("crash_restore")
    assert actions.index("prepare") < call < crash < actions.index("restart")
    assert actions[-1] == "send_compensation"
    assert any(line.startswith("loop: the state after step 17 repeats forever") for line in lines)
    assert any(line.startswith("trap: no action of the 17 leaves it") for line in lines)
    assert lines[-1].startswith("finding: ") and lines[-1].endswith(f"lasso {CRASH}")


def test_second_upstream_hazard_compensation_left_running(upstream: ProgressSystem) -> None:
    # The search over every schedule still finds it (not only the recorded run).
    lasso = find_lasso(upstream, COMPENSATION, LEFT_RUNNING, use_recorded=False)
    assert lasso is not None and lasso.genuine and lasso.searched


@pytest.mark.parametrize("shape", [OUTCOME_LOST_IN_CRASH, LEFT_RUNNING], ids=lambda s: s.name)
def test_recorded_lasso_is_confirmed_without_a_search(
    shape: LassoShape, upstream: ProgressSystem
) -> None:
    lasso = find_lasso(upstream, COMPENSATION, shape)
    assert lasso is not None and lasso.genuine and not lasso.searched
    taken = [
        line.split()[1] for line in render_lasso(lasso, frozenset(), "") if NUMBERED.match(line)
    ]
    assert tuple(taken) == shape.recorded


def test_a_recorded_lasso_that_no_longer_holds_falls_back_to_the_search() -> None:
    variant = ProgressSystem(UPSTREAM.without("reconcile"))
    spec = progress_property("original_reaches_terminal").spec
    stale = attrs.evolve(ORIGINAL_UNKNOWABLE, recorded=("record_operation", "admit", "persist"))
    lasso = find_lasso(variant, spec, stale)
    assert lasso is not None and lasso.genuine and lasso.searched
    taken = [
        line.split()[1] for line in render_lasso(lasso, frozenset(), "") if NUMBERED.match(line)
    ]
    assert taken == ["record_operation", "admit", "persist", "crash_restore", "restart"]


def test_no_reconcile_for_originals_fails_with_a_named_lasso() -> None:
    variant = ProgressSystem(UPSTREAM.without("reconcile"))
    result = run_progress(progress_property("original_reaches_terminal"), variant)
    assert result.status == "violated"
    assert result.finding == "original_outcome_unknowable"
    actions = [line.split()[1] for line in result.counterexample if NUMBERED.match(line)]
    assert actions == ["record_operation", "admit", "persist", "crash_restore", "restart"]
    assert result.counterexample[-1].startswith("violated: ")
    assert "trap: no action of the 16 leaves it" in result.counterexample[-2]


def test_a_fairness_assumption_is_needed() -> None:
    # Without "a live session persists", an outcome held only in memory need never be stored:
    # the ranking fails at that stage (and no named lasso applies, so the result is unknown).
    unfair = ProgressSystem(
        type(UPSTREAM)(
            "unfair-persist",
            "test",
            UPSTREAM.actions,
            UPSTREAM.faults,
            tuple(f for f in UPSTREAM.fairness if f.name != "worker_persists"),
        )
    )
    proof = prove_leads_to(unfair, progress_property("original_reaches_terminal").spec)
    assert not proof.holds and proof.stage == "outcome_in_memory"


def test_expected_finding_that_is_proven_fails_loudly() -> None:
    profile = type(UPSTREAM)(
        "expects-too-much",
        "test",
        UPSTREAM.actions,
        UPSTREAM.faults,
        UPSTREAM.fairness,
        {"original_reaches_terminal": "original_outcome_unknowable"},
    )
    result = run_progress(progress_property("original_reaches_terminal"), ProgressSystem(profile))
    assert result.status == "violated"
    assert result.detail.startswith("expected finding not reproduced: original_outcome_unknowable")


def test_expected_lasso_that_disappears_fails_loudly() -> None:
    # Without crashes the outcome cannot be lost: the expected lasso is gone, and the other
    # upstream hazard (a compensation left running) is reported instead, as a violation.
    no_crash = ProgressSystem(
        UPSTREAM.without("crash_restore", expected=UPSTREAM.expected_findings)
    )
    result = run_progress(progress_property("approved_compensation_settles"), no_crash)
    assert result.status == "violated"
    assert result.detail.startswith(f"expected finding {CRASH} not reproduced")
    assert result.finding == "compensation_left_running"


def test_compensation_reconciliation_makes_compensations_settle() -> None:
    system = compensation_reconcile_fixture()
    for name in ("approved_compensation_settles", "used_approval_can_settle"):
        result = run_progress(progress_property(name), system)
        assert result.status == "proven", result.detail
        assert "outcome_unknown<-compensation_reconciliation_answers" in result.detail
    closed, escape = closed_under_every_action(system, COMPENSATION, OUTCOME_LOST_IN_CRASH.trap)
    assert not closed and escape == "reconcile_compensation"


def test_compensation_proof_needs_the_honest_host_lemma() -> None:
    import attrs

    system = compensation_reconcile_fixture()
    weaker = attrs.evolve(
        COMPENSATION,
        supports=tuple(s for s in COMPENSATION.supports if s is not ATTACHMENT_IS_THE_HOSTS),
    )
    assert not prove_leads_to(system, weaker).holds


def test_fair_witness_reaches_each_goal(upstream: ProgressSystem) -> None:
    # Non-vacuity: the fairness assumptions, the trigger and the goal go together in one
    # fair run (for the compensation too, although upstream can also get stuck).
    for prop in PROPERTIES:
        witness = find_witness(upstream, prop.spec, prop.witness_depth)
        assert witness is not None and witness.quiet, prop.name


def test_progress_actions_are_sequences_of_safety_actions(upstream: ProgressSystem) -> None:
    """Each progress step, taken from any state, is its base actions' steps in order (same
    guards or stronger, same successor state): the safety invariants hold on it too."""
    for action in upstream.actions:
        pre = State.fresh("refine")
        step = upstream.instantiate(action, pre, tag="refine")
        state, enabled = pre, []
        for name in BASE_STEPS[action.name]:
            base = base_action(name)
            params = {param: step.params[param] for param, _ in base.params}
            guards = base.guards(upstream, state, params)
            enabled.extend(guards.values())
            state = state.updated(base.effects(upstream, state, params))
        same = z3.And([step.post[name] == state[name] for name in SCHEMA])
        solver = z3.Solver()
        solver.add(step.enabled, z3.Not(z3.And(*enabled, same)))
        solver.add(*upstream.fingerprints.axioms())
        assert solver.check() == z3.unsat, action.name


def test_safety_invariants_hold_on_the_progress_system(upstream: ProgressSystem) -> None:
    for invariant in INVARIANTS:
        assert prove(upstream, invariant).inductive, invariant.name


def test_every_progress_rule_is_in_the_spec() -> None:
    text = SPEC.read_text(encoding="utf-8")
    defined = dict(re.findall(r"^- \*\*(PG-\d+)\*\* `([a-z_]+)`", text, flags=re.MULTILINE))
    for prop in PROPERTIES:
        assert defined.get(prop.rule) == prop.name


def test_prove_json_lists_findings_with_their_lasso(capsys: pytest.CaptureFixture[str]) -> None:
    names = [prop.name for prop in PROPERTIES]
    args = ["prove", "--json"] + [part for name in names for part in ("--invariant", name)]
    assert main(args) == 0  # a finding does not fail `rescind prove`
    rows = {row["name"]: row for row in json.loads(capsys.readouterr().out)["invariants"]}
    assert rows["original_reaches_terminal"]["status"] == "proven"
    for name in names[1:]:
        row = rows[name]
        assert row["group"] == "progress" and row["status"] == "finding"
        assert row["finding"] == CRASH
        assert row["counterexample"][0] == "1. record_operation key=k0 tool=t0"
    # Upstream's checks come first; registered extension profiles follow (tests/extension).
    assert [check.name for check in checks()][: len(names)] == names


def _fake(status: str) -> Check:
    return Check(
        name=f"fake_{status}",
        statement="a stand-in check",
        rule="PG-99",
        run=lambda: CheckResult(status, 0.1, ("1. persist", "finding: x"), "why", "lasso_x"),  # type: ignore[arg-type]
        group="test",
    )


def test_prove_table_shows_a_finding_and_exits_0(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(prove_cli, "discover_checks", lambda: [_fake("proven"), _fake("finding")])
    assert main(["prove"]) == 0
    out = capsys.readouterr().out
    assert "finding lasso_x" in out and "1. persist" in out and "1 finding" in out


def test_conformance_treats_a_finding_as_a_pass_with_a_note(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import rescind.model.catalog as model_checks
    from rescind.conformance.catalogue import model_checks as catalogue_checks

    monkeypatch.setattr(
        model_checks, "discover_checks", lambda: [_fake("finding"), _fake("violated")]
    )
    finding, violated = [check.run(None) for check in catalogue_checks()]  # type: ignore[arg-type]
    assert finding.status == "pass" and finding.message == "finding lasso_x (docs/findings.md)"
    assert violated.status == "fail" and violated.message.startswith("violated: 1. persist")
