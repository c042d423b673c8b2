"""CONTRIBUTING.md's two paths, followed end to end in a scratch directory.

"Adding a vector": one row in a copy of a real topic's case table, then an export; the new
vector carries the reference's answer (checked here against the spec's recipe, HK-2), enters
the registry, passes against the reference driver, and an expectation edited by hand fails
``vectors check``. "Adding a topic": one ``tabled`` declaration and one case table, exported
and run through the runner against the reference driver. And the refusals a contributor meets
first: a row citing a rule docs/spec does not define, a row without provenance.

Nothing is written into the repository: every export targets ``tmp_path``.
"""

from __future__ import annotations

import json
import shutil
import struct
from pathlib import Path
from typing import Any

import attrs
from blake3 import blake3

from rescind.conformance import cases
from rescind.conformance.driver import handle
from rescind.conformance.harness import InProcessDriver
from rescind.conformance.runner import run_checks
from rescind.conformance.vector_files import load_vector_files
from rescind.conformance.vectors import tool as vectortool
from rescind.conformance.vectors.checks import vector_checks
from rescind.conformance.vectors.format import Flag
from rescind.conformance.vectors.sets import host_keys
from rescind.conformance.vectors.sets.topics import TOPICS, Topic, by_group, tabled
from rescind.conformance.vectors.suite import Suite, shipped

NEW_ID = "hostkeys.plan.added-by-a-contributor"
NEW_ROW = f"""
[[group.case]]
id = "{NEW_ID}"
rule = "HK-2"
comment = "A row added by following CONTRIBUTING.md."
input = {{ operation = "plan_fingerprint", steps = [["deploy", "ship = true"]] }}
result = "valid"
"""


def plan_fingerprint(steps: list[tuple[str, str]]) -> str:
    """HK-2 as docs/spec/host-keys.md writes it, apart from the reference's code."""

    def lp(data: bytes) -> bytes:
        return struct.pack(">Q", len(data)) + data

    hasher = blake3(b"splash-workflow-plan-v1" + struct.pack(">Q", len(steps)))
    for step_id, source in steps:
        hasher.update(lp(step_id.encode("ascii")) + lp(source.encode("utf-8")))
    return hasher.hexdigest()


def with_row_in_group(text: str, group: str, row: str) -> str:
    """``text`` with ``row`` as the last case of ``group`` (before the next ``[[group]]``)."""
    start = text.index(f'name = "{group}"')
    following = text.find("[[group]]", start)
    cut = len(text) if following == -1 else following
    return text[:cut].rstrip("\n") + "\n" + row + "\n\n" + text[cut:]


def vector_by_id(directory: Path, topic: str, test_id: str) -> dict[str, Any]:
    document = json.loads((directory / f"{topic}.json").read_text(encoding="utf-8"))
    for group in document["testGroups"]:
        for test in group["tests"]:
            if test["id"] == test_id:
                return test  # type: ignore[no-any-return]
    raise AssertionError(f"{test_id} is not in {topic}.json")


def run_against_reference(directory: Path, ids: set[str] | None = None) -> dict[str, str]:
    """Every vector of ``directory`` (or those of ``ids``) through the runner, against the
    reference driver: check id -> status."""
    checks = [
        check
        for check in vector_checks(load_vector_files(directory))
        if ids is None or check.id in ids
    ]
    report = run_checks(checks, lambda: InProcessDriver(handle))
    assert report.harness_failures == ()
    return {result.check.id: result.outcome.status for result in report.results}


def copied_vectors(tmp_path: Path) -> Path:
    target = tmp_path / "vectors"
    shutil.copytree(
        vectortool.default_directory(), target, ignore=shutil.ignore_patterns("*.py", "__pycache__")
    )
    return target


def suite_with_edited_host_keys(table: Path) -> Suite:
    """The shipped suite, its host-keys topic built from the edited copy of its table."""
    edited = Topic(
        "host-keys",
        lambda: host_keys.build(cases.load_file(table, host_keys.FAMILIES)),
        next(topic.binding for topic in TOPICS if topic.name == "host-keys"),
    )
    return attrs.evolve(
        shipped(), topics=[edited if topic.name == "host-keys" else topic for topic in TOPICS]
    )


def test_adding_a_vector_is_one_row_and_an_export(tmp_path: Path) -> None:
    shipped_registry = (vectortool.default_directory() / "registry.json").read_bytes()
    table = tmp_path / "cases" / "host-keys.toml"
    table.parent.mkdir()
    table.write_text(
        with_row_in_group(cases.read_table_text("host-keys"), "plan-fingerprint", NEW_ROW),
        encoding="utf-8",
    )
    directory = copied_vectors(tmp_path)
    before = {path.name: path.read_bytes() for path in directory.glob("*.json")}
    suite = suite_with_edited_host_keys(table)

    assert vectortool.export(directory, suite=suite) == []

    after = {path.name: path.read_bytes() for path in directory.glob("*.json")}
    changed = {name for name in after if after[name] != before.get(name)}
    assert changed == {"host-keys.json", "registry.json"}
    added = vector_by_id(directory, "host-keys", NEW_ID)
    assert added["expected"] == {"fingerprint": plan_fingerprint([("deploy", "ship = true")])}
    assert added["result"] == "valid"
    assert added["provenance"]["kind"] == "derived"  # the file default of host-keys.toml
    old_registry = json.loads(before["registry.json"])["ids"]
    registry = json.loads(after["registry.json"])["ids"]
    assert set(registry) - set(old_registry) == {NEW_ID}
    assert registry[NEW_ID] == {"topic": "host-keys", "meaning": vectortool.meaning(added)}
    assert vectortool.check(directory, suite=suite) == []
    assert run_against_reference(directory, {NEW_ID}) == {NEW_ID: "pass"}

    # An expectation written by hand into the exported file: check refuses, the driver differs.
    path = directory / "host-keys.json"
    wrong = plan_fingerprint([("deploy", "ship = false")])
    path.write_text(
        path.read_text(encoding="utf-8").replace(added["expected"]["fingerprint"], wrong),
        encoding="utf-8",
    )
    problems = vectortool.check(directory, suite=suite)
    assert "host-keys.json differs from what the reference generates (stale or edited)" in problems
    assert run_against_reference(directory, {NEW_ID}) == {NEW_ID: "fail"}
    # Not one byte in the repository's own vectors.
    assert (vectortool.default_directory() / "registry.json").read_bytes() == shipped_registry


SCRATCH = "scratch-plans"
SCRATCH_TABLE = f"""
topic = "{SCRATCH}"

[provenance]
kind = "derived"

[[group]]
name = "plans"
description = "Plan fingerprints of a scratch topic"

[[group.case]]
id = "scratch.plan.one-step"
rule = "HK-2"
comment = "One step."
input = {{ steps = [["deploy", "ship = true"]] }}
result = "valid"

[[group.case]]
id = "scratch.plan.uppercase-id"
rule = "HK-3"
comment = "A step id outside the token grammar."
flags = ["StepIdGrammar"]
input = {{ steps = [["Deploy", "ship = true"]] }}
result = "invalid"
"""


def scratch_suite(table: Path) -> Suite:
    """One topic declared in a test, never in TOPICS: every row sent as the existing
    ``host-keys.plan_fingerprint`` operation."""
    topic = tabled(
        SCRATCH,
        by_group("host-keys", {"plans": "host-keys.plan_fingerprint"}),
        header=("Plan fingerprints (HK-2, HK-3) of a scratch topic.",),
        notes=(Flag("StepIdGrammar", "step ids not checked", "keys of invalid plans"),),
        table=lambda: cases.load_file(table),
    )
    return Suite([topic])


def write_scratch_table(tmp_path: Path, text: str) -> Path:
    table = tmp_path / f"{SCRATCH}.toml"
    table.write_text(text, encoding="utf-8")
    return table


def test_adding_a_topic_is_one_declaration_and_one_table(tmp_path: Path) -> None:
    suite = scratch_suite(write_scratch_table(tmp_path, SCRATCH_TABLE))
    directory = tmp_path / "vectors"

    assert vectortool.export(directory, suite=suite) == []

    assert sorted(path.relative_to(directory).as_posix() for path in directory.rglob("*")) == [
        "registry.json",
        "schema",
        f"schema/{SCRATCH}.schema.json",
        f"{SCRATCH}.json",
    ]
    assert set(json.loads((directory / "registry.json").read_text())["ids"]) == {
        "scratch.plan.one-step",
        "scratch.plan.uppercase-id",
    }
    document = json.loads((directory / f"{SCRATCH}.json").read_text())
    group = document["testGroups"][0]
    assert (group["capability"], group["operation"]) == ("host-keys", "host-keys.plan_fingerprint")
    valid = vector_by_id(directory, SCRATCH, "scratch.plan.one-step")
    assert valid["expected"] == {"fingerprint": plan_fingerprint([("deploy", "ship = true")])}
    invalid = vector_by_id(directory, SCRATCH, "scratch.plan.uppercase-id")
    assert (invalid["result"], invalid["expected"]["error"]) == ("invalid", "invalid_step_id")
    assert vectortool.check(directory, suite=suite) == []
    assert run_against_reference(directory) == {
        "scratch.plan.one-step": "pass",
        "scratch.plan.uppercase-id": "pass",
    }


def test_a_row_citing_an_undefined_rule_is_refused_and_nothing_is_written(
    tmp_path: Path,
) -> None:
    text = SCRATCH_TABLE.replace('rule = "HK-2"', 'rule = "HK-999"')
    suite = scratch_suite(write_scratch_table(tmp_path, text))
    directory = tmp_path / "vectors"
    assert vectortool.export(directory, suite=suite) == [
        "test id scratch.plan.one-step cites rule HK-999, which spec/ does not define"
        " (CONTRIBUTING.md, 'Adding a rule')"
    ]
    assert not directory.exists()


def test_a_row_without_provenance_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    text = SCRATCH_TABLE.replace('[provenance]\nkind = "derived"\n', "")
    suite = scratch_suite(write_scratch_table(tmp_path, text))
    directory = tmp_path / "vectors"
    assert vectortool.export(directory, suite=suite) == [
        f"{SCRATCH}.toml row scratch.plan.one-step states no provenance"
    ]
    assert not directory.exists()


def test_a_stated_result_the_reference_contradicts_is_refused(tmp_path: Path) -> None:
    text = SCRATCH_TABLE.replace('result = "invalid"', 'result = "valid"')
    suite = scratch_suite(write_scratch_table(tmp_path, text))
    problems = vectortool.export(tmp_path / "vectors", suite=suite)
    assert problems == [
        "row scratch.plan.uppercase-id states result valid, the reference computes invalid"
    ]


def test_a_row_its_operation_cannot_read_is_refused(tmp_path: Path) -> None:
    text = SCRATCH_TABLE.replace('input = { steps = [["Deploy", "ship = true"]] }', "input = {}")
    suite = scratch_suite(write_scratch_table(tmp_path, text))
    assert vectortool.export(tmp_path / "vectors", suite=suite) == [
        f"{SCRATCH}.toml row scratch.plan.uppercase-id: its input is not a request of the"
        " topic's operation (BadRequest)"
    ]


def test_a_flag_without_a_note_is_refused(tmp_path: Path) -> None:
    text = SCRATCH_TABLE.replace('flags = ["StepIdGrammar"]', 'flags = ["Unexplained"]')
    suite = scratch_suite(write_scratch_table(tmp_path, text))
    assert vectortool.export(tmp_path / "vectors", suite=suite) == [
        f"{SCRATCH}: flags without a note: ['Unexplained']"
    ]
