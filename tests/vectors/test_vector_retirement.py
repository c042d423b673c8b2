"""Retiring a published vector ID: accepted only for an ID that no longer exports, recorded in
the registry, and permanent (rescind.conformance.vectors.retired)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from rescind.conformance.vectors import tool as vectortool
from rescind.conformance.vectors.retired import RETIRED, Retirement, live_id, retired_by_id

OLD = "topic.old-case"
NEW = "topic.new-case"
RETIREMENT = {OLD: Retirement(OLD, NEW, "expectation was wrong")}


def _test(result: str) -> tuple[str, dict[str, Any]]:
    return ("topic", {"input": {}, "expected": {}, "result": result})


def _registry(*test_ids: str) -> dict[str, dict[str, str]]:
    return {
        test_id: {"topic": "topic", "meaning": vectortool.meaning(_test("valid")[1])}
        for test_id in test_ids
    }


def test_a_missing_published_id_is_accepted_only_when_retired() -> None:
    tests = {NEW: _test("valid")}
    assert vectortool.registry_problems(_registry(OLD), tests, {}) == [
        f"published test id {OLD} disappeared"
    ]
    assert vectortool.registry_problems(_registry(OLD), tests, RETIREMENT) == []


def test_a_retired_id_that_is_exported_again_is_refused() -> None:
    tests = {OLD: _test("valid"), NEW: _test("valid")}
    problems = vectortool.registry_problems(_registry(OLD), tests, RETIREMENT)
    assert problems == [f"retired test id {OLD} is exported again; use a new id"]


def test_a_retirement_needs_an_exported_replacement() -> None:
    problems = vectortool.registry_problems(_registry(OLD), {}, RETIREMENT)
    assert problems == [f"{NEW}, which replaces {OLD}, is not exported"]


def test_a_replacement_retired_in_turn_needs_the_end_of_its_chain_exported() -> None:
    newer = "topic.newer-case"
    chain = {**RETIREMENT, NEW: Retirement(NEW, newer, "expectation changed again")}
    registry = _registry(OLD, NEW)
    assert vectortool.registry_problems(registry, {newer: _test("valid")}, chain) == []
    assert vectortool.registry_problems(registry, {}, chain) == [
        f"{newer}, which replaces {NEW}, is not exported",
        f"{NEW}, which replaces {OLD}, is not exported",
    ]


def test_an_id_cannot_be_retired_twice() -> None:
    twice = (RETIREMENT[OLD], Retirement(OLD, "topic.other", "again"))
    with pytest.raises(ValueError, match="retired twice"):
        retired_by_id(twice)


def test_the_committed_registry_keeps_each_retired_id_and_records_its_retirement() -> None:
    registry = json.loads((vectortool.default_directory() / "registry.json").read_text())
    exported = {test_id for test_id, _ in _exported_tests()}
    for retirement in RETIRED:
        assert retirement.test_id in registry["ids"]
        assert registry["retired"][retirement.test_id] == retirement.to_json()
        assert retirement.test_id not in exported
        assert live_id(retirement.replaced_by) in exported


def _exported_tests() -> list[tuple[str, str]]:
    found = []
    for path in vectortool.default_directory().glob("*.json"):
        if path.name == "registry.json":
            continue
        for group in json.loads(path.read_text())["testGroups"]:
            found.extend((test["id"], path.name) for test in group["tests"])
    return found


def _copy_with_registry(tmp_path: Path, edit: Any) -> Path:
    target = tmp_path / "vectors"
    shutil.copytree(
        vectortool.default_directory(), target, ignore=shutil.ignore_patterns("*.py", "__pycache__")
    )
    path = target / "registry.json"
    registry = json.loads(path.read_text())
    edit(registry)
    path.write_text(json.dumps(registry))
    return target


def test_check_requires_the_registry_to_record_declared_retirements(tmp_path: Path) -> None:
    directory = _copy_with_registry(tmp_path, lambda registry: registry.pop("retired"))
    assert any("is not in the registry" in problem for problem in vectortool.check(directory))
    assert vectortool.export(directory) == []
    assert vectortool.check(directory) == []


def test_a_recorded_retirement_cannot_be_withdrawn(tmp_path: Path) -> None:
    def add_undeclared(registry: dict[str, Any]) -> None:
        registry["retired"]["canon.never-declared"] = {"replacedBy": NEW, "reason": "x"}

    directory = _copy_with_registry(tmp_path, add_undeclared)
    for problems in (vectortool.check(directory), vectortool.export(directory)):
        assert any("was withdrawn" in problem for problem in problems)


def test_a_recorded_retirement_cannot_be_reworded(tmp_path: Path) -> None:
    def reword(registry: dict[str, Any]) -> None:
        for entry in registry["retired"].values():
            entry["reason"] = "something else"

    directory = _copy_with_registry(tmp_path, reword)
    for problems in (vectortool.check(directory), vectortool.export(directory)):
        assert any("was changed" in problem for problem in problems)


def test_a_generated_id_follows_its_retirement_chain() -> None:
    chain = (
        Retirement("t.a", "t.a.r2", "first correction"),
        Retirement("t.a.r2", "t.a.r3", "second correction"),
    )
    assert live_id("t.a", chain) == "t.a.r3"
    assert live_id("t.untouched", chain) == "t.untouched"


def test_a_retirement_cycle_is_refused() -> None:
    chain = (Retirement("t.a", "t.b", "x"), Retirement("t.b", "t.a", "y"))
    with pytest.raises(ValueError, match="cycle"):
        live_id("t.a", chain)


def test_every_exported_transition_row_is_live() -> None:
    # The lifecycle generator asks live_id, so no retired row can be exported again.
    exported = {test_id for test_id, _ in vectortool._tests_by_id(vectortool.generate()).items()}
    assert not exported & set(retired_by_id())
