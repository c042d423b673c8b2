"""The proof cache is a file anyone can write: its entries are claims, read as hostile data.

Before: a cached finding holding Rich markup (``[/]``) crashed ``rescind prove``
(``MarkupError``), escapes reached stdout, NaN seconds were shown, a forged ``proven`` for a
check that documents a finding was reported proven, and under CI a restored cache was read.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import pytest

from rescind import __version__
from rescind.cli import main
from rescind.conformance.sources import proofs

FAST = "saga.final-no-exit"
FINDING = "used_approval_can_settle"


@pytest.fixture
def cache_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "cache"
    monkeypatch.setenv("RESCIND_CACHE_DIR", str(root))
    monkeypatch.delenv("CI", raising=False)
    return root


def _forge(root: Path, name: str, **changes: Any) -> Path:
    cache = proofs.ProofCache.open(root)
    entry: dict[str, Any] = {
        "format": proofs.FORMAT,
        "check": name,
        "digest": cache.digest,
        "z3": proofs.solver_version(),
        "rescind": __version__,
        "status": "proven",
        "seconds": 0.5,
        "counterexample": [],
        "detail": "",
        "finding": "",
        **changes,
    }
    cache.directory.mkdir(parents=True, exist_ok=True)
    path = cache.directory / f"{name}.json"
    path.write_text(json.dumps(entry), encoding="utf-8")  # NaN is written as the NaN literal
    return path


def _prove(capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[dict[str, Any], str]:
    assert main(["prove", "--json", *extra]) == 0
    captured = capsys.readouterr()
    return json.loads(captured.out), captured.err


def test_markup_and_escapes_in_cached_text_are_shown_inert(
    cache_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _forge(cache_root, FAST, detail="[/] [bold red]x[/] \x1b]0;PWNED\x07\x1b[2J")
    assert main(["prove", "--invariant", FAST]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out
    assert "[/] [bold red]x[/]" in out and "\\x1b]0;PWNED\\x07" in out


@pytest.mark.parametrize(
    "change",
    [
        {"seconds": math.nan},
        {"seconds": -1},
        {"seconds": "0.5"},
        {"seconds": True},
        {"counterexample": "1. x"},
        {"detail": 7},
        {"check": "another"},
        {"digest": "0" * 32},
        {"z3": "0.0.0"},
        {"rescind": "0.0.0"},
        {"format": 1},
        {"status": "violated"},
        {"counterexample": ["1. forged"]},
    ],
    ids=lambda change: "-".join(f"{k}={v!r}" for k, v in change.items()),
)
def test_an_entry_of_the_wrong_shape_or_model_is_ignored_with_a_warning(
    cache_root: Path, capsys: pytest.CaptureFixture[str], change: dict[str, Any]
) -> None:
    _forge(cache_root, FAST, **change)
    report, err = _prove(capsys, "--invariant", FAST)
    (row,) = report["invariants"]
    assert not row["cached"] and report["fromCache"] == 0 and math.isfinite(row["seconds"])
    assert f"proof cache entry {FAST}.json ignored" in err


def test_a_forged_proven_for_a_documented_finding_is_refused(
    cache_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _forge(cache_root, FINDING)
    report, err = _prove(capsys, "--invariant", FINDING)
    (row,) = report["invariants"]
    assert row["status"] == "finding" and not row["cached"]
    assert "documents the finding compensation_outcome_lost_in_crash" in err


def test_a_cached_finding_is_derived_again_never_shown_from_the_file(
    cache_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _forge(cache_root, FINDING, status="finding", counterexample=["1. forged"], finding="forged")
    report, _ = _prove(capsys, "--invariant", FINDING)
    (row,) = report["invariants"]
    assert not row["cached"] and row["finding"] == "compensation_outcome_lost_in_crash"
    assert "1. forged" not in row["counterexample"]


def test_under_ci_the_cache_is_read_only_with_cache(
    cache_root: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _forge(cache_root, FAST)
    monkeypatch.setenv("CI", "true")
    report, err = _prove(capsys, "--invariant", FAST)
    assert report["fromCache"] == 0 and "CI is set" in err
    report, err = _prove(capsys, "--invariant", FAST, "--cache")
    assert report["fromCache"] == 1 and "1 of 1 model results read from it" in err


def test_check_reports_say_how_many_results_came_from_the_cache(
    cache_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _forge(cache_root, FAST)
    code = main(["check", "--select", f"model.{FAST}", "--jobs", "1", "--json"])
    assert code == 0
    notes = json.loads(capsys.readouterr().out)["notes"]
    assert any("proof cache: 1 of 1 model results read from it" in note for note in notes)


def test_a_fifo_entry_is_refused_unopened(
    cache_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _forge(cache_root, FAST)
    path.unlink()
    os.mkfifo(path)  # opening it for reading would block until a writer comes
    report, err = _prove(capsys, "--invariant", FAST)
    assert report["fromCache"] == 0 and "not a regular file" in err
