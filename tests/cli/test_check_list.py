"""``rescind check --list``: every check id grouped by source, with counts, capability,
profile and provenance; it starts no driver and proves nothing, and its ids round-trip
through ``--select``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rescind.cli import main


def _listed(capsys: pytest.CaptureFixture[str], *words: str) -> dict[str, Any]:
    assert main(["check", "--list", "--json", *words]) == 0
    listed: dict[str, Any] = json.loads(capsys.readouterr().out)
    return listed


ROOT = Path(__file__).resolve().parents[2]


def _ids(listed: dict[str, Any]) -> list[str]:
    return [check["id"] for group in listed["sources"] for check in group["checks"]]


def test_the_list_groups_every_check_by_source(capsys: pytest.CaptureFixture[str]) -> None:
    # an --impl that cannot start: listing never runs it
    listed = _listed(capsys, "--impl", "/nonexistent/driver --never")
    ids = _ids(listed)
    assert listed["checks"] == len(ids) == len(set(ids)) > 2000
    sources = {group["source"]: group for group in listed["sources"]}
    assert {"model-protocol", "canonical-input", "exploration", "refinement-saga"} <= set(sources)
    for group in listed["sources"]:
        assert group["count"] == len(group["checks"])
        for check in group["checks"]:
            assert set(check) == {"id", "capability", "profile", "provenance", "tier", "rule"}
    canonical = sources["canonical-input"]["checks"]
    assert {c["capability"] for c in canonical} == {"canonical"}
    assert {c["profile"] for c in canonical} == {"splash-v5", "splash-v5-f64"}
    assert {c["provenance"] for c in sources["model-protocol"]["checks"]} == {"model"}


def test_listed_ids_round_trip_through_select(capsys: pytest.CaptureFixture[str]) -> None:
    every = _ids(_listed(capsys))
    # all at once: selecting every listed id gives back exactly the list, in its order
    assert _ids(_listed(capsys, *(w for i in every for w in ("--select", i)))) == every
    # one id per source: it selects itself (and only checks whose ids it prefixes)
    listed = _listed(capsys)
    for group in listed["sources"]:
        first = group["checks"][0]["id"]
        chosen = _ids(_listed(capsys, "--select", first))
        assert first in chosen and all(i.startswith(first) for i in chosen), first
        assert _ids(_listed(capsys, "--select", group["source"])) == [
            c["id"] for c in group["checks"]
        ]


def test_the_text_list_says_counts_per_source(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--list", "--select", "host-keys", "--select", "refinement"]) == 0
    lines = capsys.readouterr().out.splitlines()
    headers = [line for line in lines if not line.startswith(" ")]
    vectors = json.loads((ROOT / "vectors/host-keys.json").read_text(encoding="utf-8"))
    host_keys = sum(len(group["tests"]) for group in vectors["testGroups"])
    assert headers[0].startswith(
        f"host-keys: {host_keys} checks; capability host-keys {host_keys}; profile "
    )
    refinement = [line for line in lines if line.startswith("  refinement.saga.")]
    count = len(refinement)
    assert count and headers[1].startswith(
        f"refinement-saga: {count} checks; capability rescind-reference {count}"
    )
    assert headers[-1] == f"{host_keys + count} checks in 2 sources"


def test_an_empty_selection_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--list", "--select", "no-such-check"]) == 2
    assert "no check matches the selection" in capsys.readouterr().err


def test_a_shard_lists_its_own_checks(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    every = set(_ids(_listed(capsys)))
    halves = [set(_ids(_listed(capsys, "--shard", f"{i}/2"))) for i in (1, 2)]
    # exploration is sliced per shard; every other check belongs to exactly one shard
    whole = {i for i in every if not i.startswith("explore.")}
    assert {i for i in halves[0] | halves[1] if not i.startswith("explore.")} == whole
    assert not (halves[0] & halves[1] & whole)
    assert list(tmp_path.iterdir()) == []  # listing opens no example database
