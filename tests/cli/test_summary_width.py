"""Piped or in a CI log, the summary table keeps every source name whole: without a
terminal Rich would assume 80 columns (or $COLUMNS) and cut them (``compensation-rec…``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rescind.cli import main


def test_a_piped_summary_prints_full_source_names(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "40")  # narrower than the table: still not cut
    selection = ["--select", "compensation-reconcile", "--select", "reference-canonical-fast"]
    assert main(["check", "--no-model", "--explore-steps", "0", *selection]) == 0
    out = capsys.readouterr().out
    assert "…" not in out
    table = [line for line in out.splitlines() if line.startswith("│")]
    rows = [line for line in table if "compensation-reconcile" in line]
    vectors = json.loads(
        (Path(__file__).resolve().parents[2] / "vectors/compensation-reconcile.json").read_text()
    )
    count = sum(len(group["tests"]) for group in vectors["testGroups"])
    assert rows and f" {count} " in rows[0].split("compensation-reconcile", 1)[1]
    assert any("reference-canonical-fast" in line for line in out.splitlines())
