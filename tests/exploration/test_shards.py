"""Shards: every check in exactly one shard, exploration budgets split, and report merge
joins shard reports into the full run or refuses them with a typed error."""

from __future__ import annotations

import json
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest

from rescind.cli import main
from rescind.conformance.catalogue import all_checks
from rescind.conformance.driver import handle
from rescind.conformance.explore.sharding import SLICE_MARK, Shard, unsliced
from rescind.conformance.harness import InProcessDriver
from rescind.conformance.report import merge as report_merge

START = lambda: InProcessDriver(handle)  # noqa: E731


@pytest.mark.parametrize("count", [2, 3])
def test_every_check_is_in_exactly_one_shard(count: int) -> None:
    full = [c.id for c in all_checks(START, explore_steps=10, seed=5)]
    shards = [
        [c.id for c in all_checks(START, explore_steps=10, seed=5, shard=Shard(i, count))]
        for i in range(1, count + 1)
    ]
    for left, right in combinations(shards, 2):
        assert not set(left) & set(right)
    assert sorted(unsliced(i) for shard in shards for i in shard if SLICE_MARK not in i) == sorted(
        i for i in full if not i.startswith("explore.")
    )
    explored = {i for i in full if i.startswith("explore.")}
    assert explored and all(
        {unsliced(i) for i in shard if SLICE_MARK in i} == explored for shard in shards
    )


@pytest.mark.parametrize("total", [0, 1, 7, 200])
@pytest.mark.parametrize("count", [1, 2, 3, 8])
def test_budgets_sum_to_the_total(total: int, count: int) -> None:
    parts = [Shard(i, count).budget(total) for i in range(1, count + 1)]
    assert sum(parts) == total and max(parts) - min(parts) <= 1


@pytest.mark.parametrize("text", ["0/2", "3/2", "1/0", "a/b", "1", "1/2/3"])
def test_bad_shards_are_refused(text: str) -> None:
    with pytest.raises(ValueError):
        Shard.parse(text)


FAST = ["check", "--no-model", "--explore-steps", "6", "--example-db", "none", "--json"]


def _run(capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, dict[str, Any]]:
    code = main([*FAST, *extra])
    return code, json.loads(capsys.readouterr().out)


def _write(tmp_path: Path, name: str, document: dict[str, Any]) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def test_merged_shards_are_the_full_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, full = _run(capsys, "--seed", "9")
    assert code == 0 and full["run"]["shard"] is None and full["run"]["seed"] == 9
    paths = []
    for index in (1, 2):
        code, shard = _run(capsys, "--seed", "9", "--shard", f"{index}/2")
        assert code == 0 and shard["run"]["plan"] == full["run"]["plan"]
        paths.append(_write(tmp_path, f"s{index}.json", shard))
    out = tmp_path / "merged.json"
    junit = tmp_path / "merged.xml"
    markdown = tmp_path / "merged.md"
    arguments = ["--json", str(out), "--junit", str(junit), "--markdown", str(markdown)]
    assert main(["report", "merge", *map(str, paths), *arguments]) == 0
    merged = json.loads(out.read_text())
    assert {c["id"]: c["status"] for c in merged["checks"]} == {
        c["id"]: c["status"] for c in full["checks"]
    }
    assert merged["counts"] == full["counts"] and merged["run"]["shard"] is None
    assert junit.read_text().count("<testcase") == len(full["checks"])
    assert "PASS" in markdown.read_text()


def _shard_document(seed: int = 1, shard: str = "1/2", checks: Any = None) -> dict[str, Any]:
    entry = {
        "id": "canon.x",
        "tier": "must",
        "rule": "CJ-1",
        "source": "canonical-input",
        "capability": "canonical",
        "provenance": "derived",
        "status": "pass",
        "message": "",
        "seconds": 0.1,
    }
    return {
        "implementation": {"name": "impl", "version": "1"},
        "capabilities": ["canonical"],
        "profiles": [],
        "harnessFailures": [],
        "seconds": 1.0,
        "checks": [entry] if checks is None else checks,
        "run": {
            "seed": seed,
            "shard": shard,
            "plan": report_merge.plan_section(["canon.x", "canon.y"]),
        },
    }


def _other(document: dict[str, Any], check_id: str) -> dict[str, Any]:
    return {**document, "checks": [{**document["checks"][0], "id": check_id}]}


@pytest.mark.parametrize(
    ("documents", "error"),
    [
        (
            [_shard_document(), _other(_shard_document(seed=2, shard="2/2"), "canon.y")],
            report_merge.IncompatibleShards,
        ),
        ([_shard_document(), _shard_document()], report_merge.OverlappingShards),
        ([_shard_document(), _shard_document(shard="2/2")], report_merge.OverlappingShards),
        ([_shard_document()], report_merge.IncompleteShards),
        (
            [_shard_document(), _other(_shard_document(shard="2/2"), "canon.z")],
            report_merge.IncompleteShards,
        ),
        (
            [_shard_document(), _other(_shard_document(shard="2/3"), "canon.y")],
            report_merge.IncompatibleShards,
        ),
        ([{**_shard_document(), "run": {"seed": 1}}], report_merge.NotAShardReport),
    ],
    ids=["seed", "shard-twice", "check-twice", "missing", "foreign-check", "count", "unsharded"],
)
def test_merge_refuses_with_a_typed_error(documents: list[dict[str, Any]], error: type) -> None:
    named = [(f"s{i}.json", document) for i, document in enumerate(documents)]
    with pytest.raises(error) as caught:
        report_merge.merge(named)
    assert caught.value.code.startswith("report_")


def test_merge_of_complete_shards_and_the_cli_refusal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one = _shard_document()
    two = _other(_shard_document(shard="2/2"), "canon.y")
    report, run = report_merge.merge([("a", one), ("b", two)])
    assert [r.check.id for r in report.results] == ["canon.x", "canon.y"]
    assert run["seed"] == 1 and report.exit_code() == 0
    path = _write(tmp_path, "a.json", one)
    assert main(["report", "merge", str(path), str(path)]) == 2
    assert "report_shards_overlap" in capsys.readouterr().err


def test_exploration_slices_join_into_one_check_failing_if_any_slice_failed() -> None:
    base = _shard_document()["checks"][0]
    plan = report_merge.plan_section(["explore.ledger"])
    documents = []
    for index, status in ((1, "pass"), (2, "fail")):
        entry = {
            **base,
            "id": f"explore.ledger{SLICE_MARK}{index}/2",
            "status": status,
            "message": "m",
        }
        document = {**_shard_document(shard=f"{index}/2", checks=[entry])}
        document["run"] = {**document["run"], "plan": plan}
        documents.append((f"s{index}", document))
    report, _ = report_merge.merge(documents)
    (result,) = report.results
    assert result.check.id == "explore.ledger" and result.outcome.status == "fail"
    assert report.exit_code() == 1
