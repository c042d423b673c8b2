"""The proof cache and the worker processes of ``rescind prove`` / ``rescind check``
(``rescind.conformance.sources.proofs``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import z3

from rescind.cli import main
from rescind.cli import prove as prove_cli
from rescind.conformance.sources import proofs
from rescind.model.core.proof_check import Check, CheckResult

FAST = "saga.final-no-exit"
OTHER_UNIT = "host_at_most_one_compensation"


def _counting(status: str, calls: list[str]) -> Check:
    def run() -> CheckResult:
        calls.append(status)
        if status == "proven":
            return CheckResult("proven", 0.25, (), "why")
        return CheckResult(status, 0.25, ("1. persist",), "why", "lasso_x")  # type: ignore[arg-type]

    return Check(name=f"counted_{status}", statement="s", rule="MD-99", run=run, group="test")


@pytest.fixture
def cache_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "cache"
    monkeypatch.setenv("RESCIND_CACHE_DIR", str(root))
    return root


def test_cache_directory_follows_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("RESCIND_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert proofs.default_cache_dir() == tmp_path / "xdg" / "rescind"
    monkeypatch.setenv("RESCIND_CACHE_DIR", str(tmp_path / "own"))
    assert proofs.default_cache_dir() == tmp_path / "own"


def test_digest_depends_on_the_z3_version(monkeypatch: pytest.MonkeyPatch) -> None:
    before = proofs.source_digest()
    assert before == proofs.source_digest()
    monkeypatch.setattr(z3, "get_version_string", lambda: "0.0.0")
    assert proofs.source_digest() != before


def test_a_passing_result_is_stored_and_read_back(cache_root: Path) -> None:
    calls: list[str] = []
    check = _counting("proven", calls)
    cache = proofs.ProofCache.open(cache_root)
    first = proofs.run_all([check], cache=cache)
    second = proofs.run_all([check], cache=cache)
    assert calls == ["proven"]
    assert not first[0][1].cached and second[0][1].cached
    assert second[0][1].result == first[0][1].result


@pytest.mark.parametrize("status", ["violated", "unknown"])
def test_failing_results_are_never_stored(status: str, cache_root: Path) -> None:
    calls: list[str] = []
    check = _counting(status, calls)
    cache = proofs.ProofCache.open(cache_root)
    proofs.run_all([check], cache=cache)
    proofs.run_all([check], cache=cache)
    assert calls == [status, status]


@pytest.mark.parametrize("garbage", ["{not json", '{"check": "counted_proven"}', "[]", ""])
def test_a_corrupt_entry_is_ignored_and_rebuilt(garbage: str, cache_root: Path) -> None:
    calls: list[str] = []
    check = _counting("proven", calls)
    cache = proofs.ProofCache.open(cache_root)
    proofs.run_all([check], cache=cache)
    (entry,) = cache.directory.glob("*.json")
    entry.write_text(garbage, encoding="utf-8")
    assert not proofs.run_all([check], cache=cache)[0][1].cached
    assert calls == ["proven", "proven"]
    assert json.loads(entry.read_text(encoding="utf-8"))["status"] == "proven"


def test_prove_reads_the_cache_and_no_cache_proves_again(
    cache_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def cached_flags(*extra: str) -> list[bool]:
        assert main(["prove", "--json", "--invariant", FAST, *extra]) == 0
        return [row["cached"] for row in json.loads(capsys.readouterr().out)["invariants"]]

    assert cached_flags() == [False]
    assert cached_flags() == [True]
    assert cached_flags("--no-cache") == [False]


def test_checks_run_in_worker_processes(
    cache_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Two units (saga, protocol): a pool of two workers proves them.
    args = ["prove", "--json", "--no-cache", "--jobs", "2", "--invariant", FAST]
    assert main([*args, "--invariant", OTHER_UNIT]) == 0
    rows = json.loads(capsys.readouterr().out)["invariants"]
    assert [(row["name"], row["status"]) for row in rows] == [
        (FAST, "proven"),
        (OTHER_UNIT, "proven"),
    ]


def test_a_check_the_workers_do_not_know_runs_here(
    monkeypatch: pytest.MonkeyPatch, cache_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    calls: list[str] = []
    fakes = [_counting("proven", calls), _counting("finding", calls)]
    fakes[1] = Check("other", "s", "MD-99", fakes[1].run, group="other")
    monkeypatch.setattr(prove_cli, "discover_checks", lambda: fakes)
    assert main(["prove", "--json", "--no-cache", "--jobs", "2"]) == 0
    assert sorted(calls) == ["finding", "proven"]
    capsys.readouterr()


def test_jobs_must_be_positive(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["prove", "--jobs", "0"]) == 2
    assert "--jobs" in capsys.readouterr().err


def test_check_keeps_the_catalogue_order_with_proofs_in_the_background(
    cache_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["check", "--json", "--explore-steps", "0", "--jobs", "2", "--select", "canonical-input"]
    assert main([*args, "--select", f"model.{FAST}", "--select", f"model.{OTHER_UNIT}"]) == 0
    ids = [row["id"] for row in json.loads(capsys.readouterr().out)["checks"]]
    assert ids[:2] == [f"model.{OTHER_UNIT}", f"model.{FAST}"]
    assert len(ids) > 2 and not any(i.startswith("model.") for i in ids[2:])
