"""The saga refinement checks keep a passing result in the proof cache, keyed by the model
(the cache directory) and by the code they run (``code_digest``): a warm run does not call
z3 again, an edit of that code does, and a failing result is never kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from rescind.conformance.runner_check import Check
from rescind.conformance.sources import saga_model, saga_refinement
from rescind.conformance.sources.options import SourceOptions
from rescind.conformance.sources.proofs import ProofCache
from rescind.model.core.proof_check import CheckResult

PLANNER = "refinement.saga.plan-excludes-unsettled"


def _planner_check(cache: ProofCache | None) -> Check:
    checks = saga_refinement.saga_refinement_checks(
        lambda: None,  # type: ignore[arg-type,return-value]  # never started: run in process
        SourceOptions(proof_cache=cache),
    )
    return next(check for check in checks if check.id == PLANNER)


def _counting(monkeypatch: pytest.MonkeyPatch, result: CheckResult | None = None) -> list[int]:
    calls: list[int] = []
    real = saga_model.check_planner

    def counted() -> CheckResult:
        calls.append(1)
        return real() if result is None else result

    monkeypatch.setattr(saga_model, "check_planner", counted)
    return calls


def test_a_warm_run_is_served_from_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _counting(monkeypatch)
    cache = ProofCache(tmp_path / "proofs" / "model-digest")
    first = _planner_check(cache).run(None)  # type: ignore[arg-type]
    second = _planner_check(cache).run(None)  # type: ignore[arg-type]
    assert first.status == second.status == "pass"
    assert second.message == first.message and "64 one-effect worlds" in second.message
    assert len(calls) == 1
    stored = [path.name for path in cache.directory.iterdir()]
    assert stored == [f"{PLANNER}@{saga_refinement.code_digest()}.json"]


def test_other_code_is_checked_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _counting(monkeypatch)
    cache = ProofCache(tmp_path / "proofs" / "model-digest")
    _planner_check(cache).run(None)  # type: ignore[arg-type]
    monkeypatch.setattr(saga_refinement, "code_digest", lambda: "0" * 16)
    _planner_check(cache).run(None)  # type: ignore[arg-type]
    assert len(calls) == 2


def test_without_a_cache_every_run_checks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _counting(monkeypatch, CheckResult("proven", 0.0, detail="stub world"))
    for _ in range(2):
        assert _planner_check(None).run(None).status == "pass"  # type: ignore[arg-type]
    assert len(calls) == 2


def test_a_failure_is_never_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    broken = CheckResult("violated", 0.0, ("1. the planner lists e",))
    calls = _counting(monkeypatch, broken)
    cache = ProofCache(tmp_path / "proofs" / "model-digest")
    for _ in range(2):
        outcome = _planner_check(cache).run(None)  # type: ignore[arg-type]
        assert outcome.status == "fail" and "the planner lists e" in outcome.message
    assert len(calls) == 2
    assert not cache.directory.exists() or not any(cache.directory.iterdir())


def test_the_digest_is_read_from_files_without_z3() -> None:
    """Computing it must not load z3: a cached run never needs it."""
    import subprocess
    import sys

    probe = (
        "import sys\n"
        "from rescind.conformance.sources import saga_refinement\n"
        "assert len(saga_refinement.code_digest()) == 16\n"
        "assert 'z3' not in sys.modules, 'z3 loaded'\n"
    )
    subprocess.run([sys.executable, "-c", probe], check=True)
