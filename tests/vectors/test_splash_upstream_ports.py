"""The Splash upstream-test ports: every vector cites a real upstream test and passes."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from rescind.conformance import cases
from rescind.conformance.driver import handle
from rescind.conformance.harness import InProcessDriver
from rescind.conformance.provenance import SPLASH
from rescind.conformance.vectors import tool as vectortool
from rescind.conformance.vectors.checks import vector_checks
from rescind.conformance.vectors.sets import splash_upstream_tests
from rescind.conformance.vectors.sets._splash_port_support import PortDisagrees
from rescind.conformance.vectors.sets.topics import binding_of

ROOT = Path(__file__).resolve().parents[2]
INVENTORY = ROOT / "tests" / "upstream" / "splash_tests.txt"
VECTORS = ROOT / "vectors" / "splash-upstream-tests.json"
_CITATION = re.compile(re.escape(SPLASH) + r" (\S+) test ([a-z0-9_]+)\Z")


def _inventory() -> set[tuple[str, str]]:
    rows = (line.split(" ") for line in INVENTORY.read_text(encoding="utf-8").splitlines())
    return {(path, name) for path, name in rows}


def _document() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(VECTORS.read_text(encoding="utf-8"))
    return document


def _tests() -> list[dict[str, Any]]:
    """The ports as the module states them, before an observation of upstream upgrades a
    port's provenance (the upstream test stays cited then: see the exported-file test)."""
    built = splash_upstream_tests.build().to_json()
    return [test for group in built["testGroups"] for test in group["tests"]]


def test_the_inventory_lists_the_counted_files() -> None:
    counts: dict[str, int] = {}
    for path, _ in _inventory():
        counts[path] = counts.get(path, 0) + 1
    assert counts == {
        "crates/splash-protocol/src/lib.rs": 40,
        "crates/splash-worker/src/lib.rs": 19,
        "crates/splash-worker/src/cancellable.rs": 5,
        "crates/splash-workflow/src/lib.rs": 70,
        "crates/splash-storage/src/lib.rs": 10,
        "crates/splash-storage/src/sqlite.rs": 8,
    }


def test_every_vector_cites_one_inventoried_upstream_test() -> None:
    inventory = _inventory()
    tests = _tests()
    assert tests
    for test in tests:
        provenance = test["provenance"]
        assert provenance["kind"] == "upstream-test", test["id"]
        match = _CITATION.match(provenance["citation"])
        assert match, provenance["citation"]
        assert (match.group(1), match.group(2)) in inventory, test["id"]


def test_the_id_names_the_cited_test() -> None:
    for test in _tests():
        cited = _CITATION.match(test["provenance"]["citation"])
        assert cited is not None
        stem = test["id"].split(".")[2]
        assert stem == cited.group(2).replace("_", "-"), test["id"]


def test_the_exported_file_is_what_the_module_builds() -> None:
    files, problems = vectortool.observed_files()
    assert problems == []
    (observed,) = (f for f in files if f.topic == splash_upstream_tests.TOPIC)
    assert vectortool.self_describing(observed.to_json()) == _document()
    # Observing upstream changes provenance only, and keeps the upstream test cited.
    exported = {test["id"]: test for group in _document()["testGroups"] for test in group["tests"]}
    for test in _tests():
        again = exported[test["id"]]
        assert {**again, "provenance": test["provenance"]} == test, test["id"]
        assert test["provenance"]["citation"] in again["provenance"]["citation"], test["id"]


def test_every_group_is_sent_as_its_own_topic_sends_it() -> None:
    groups = {group["type"]: group for group in _document()["testGroups"]}
    assert set(groups) == set(splash_upstream_tests.GROUP_TOPICS)
    for kind, topic in splash_upstream_tests.GROUP_TOPICS.items():
        sent = {
            key: groups[kind][key]
            for key in ("capability", "operation", "operationFromInput")
            if key in groups[kind]
        }
        assert sent == binding_of(topic).route(kind).fields(), kind


def test_the_reference_passes_every_port() -> None:
    checks = [check for check in vector_checks() if check.source == splash_upstream_tests.TOPIC]
    assert len(checks) == len(_tests())
    driver = InProcessDriver(handle)
    outcomes = {check.id: check.run(driver) for check in checks}
    failures = {
        name: outcome.message for name, outcome in outcomes.items() if outcome.status != "pass"
    }
    assert failures == {}


_TABLE = cases.read_table_text(splash_upstream_tests.TOPIC)


@pytest.mark.parametrize(
    ("stated", "contradicted"),
    [
        # a value the upstream test asserts (with.asserts), per kind of fragment
        (
            '{ what = "revision 1", step = 4, equals = 1 }',
            '{ what = "revision 1", step = 4, equals = 2 }',
        ),
        ('lacks = ["1.2.3"]', 'lacks = ["release.publish"]'),
        ("distinct = 1", "distinct = 2"),
        ('matches = "op-[0-9a-f]{64}"', 'matches = "op-[0-9a-f]{63}"'),
        ('path = ["operations"], length = 1', 'path = ["operations"], length = 2'),
        ('equals = { "$step" = 1 } }', 'equals = { "$step" = 2 } }'),
        ('path = ["request_ids"], equals = 1024', 'path = ["request_ids"], equals = 1023'),
        (
            'path = ["calls", "math.add"], equals = 1, absent = 0',
            'path = ["calls", "math.add"], equals = 2, absent = 0',
        ),
        (
            'path = ["after", "dispatch_calls"], equals = 1 }',
            'path = ["after", "dispatch_calls"], equals = 2 }',
        ),
        ('has = { tool = "text.echo" }', 'has = { tool = "text.other" }'),
        ('path = ["fence"], equals = 2', 'path = ["fence"], equals = 1'),
        ('equals = "absent", absent = "absent"', 'equals = "pending", absent = "absent"'),
        (
            "has = { max_calls = 1, max_input_bytes = 64, max_compensations = 1 }",
            "has = { max_calls = 2, max_input_bytes = 64, max_compensations = 1 }",
        ),
        (
            'path = ["grants", "*", "tool"], equals = ["math.add"]',
            'path = ["grants", "*", "tool"], equals = ["text.echo"]',
        ),
        ('matches = "[0-9a-f]{102}"', 'matches = "[0-9a-f]{100}"'),
        ('step = "rest", equals = "6e', 'step = "rest", equals = "6f'),
        ("has = { expected = 2, actual = 1 }", "has = { expected = 3, actual = 1 }"),
        ('path = ["ok"], has = { token = 1 } }', 'path = ["ok"], has = { token = 7 } }'),
        ('has = { record = { "$json" = "null" } }', 'has = { record = { "$json" = "0" } }'),
        # an outcome the upstream test asserts (a step's expect, the session's open, a single
        # operation's with.expect)
        ('expect = "duplicate_grant"', 'expect = "ok"'),
        ('{ expect = "fencing_required", op = "cas"', '{ expect = "ok", op = "cas"'),
        ('expect = "attenuation_expands_resources"', 'expect = "attenuation_widens_limits"'),
        ('open = "missing_adapter"', 'open = "unknown_tool"'),
        ('expect = "stale_revision"', 'expect = "ok"'),
        ('expect = "compensation_requires_succeeded_operation"', 'expect = "ok"'),
    ],
)
def test_a_tabled_port_that_contradicts_its_upstream_assertion_is_refused(
    stated: str, contradicted: str
) -> None:
    assert stated in _TABLE
    changed = cases.parse_table(
        splash_upstream_tests.TOPIC, _TABLE.replace(stated, contradicted, 1)
    )
    with pytest.raises(PortDisagrees):
        splash_upstream_tests.build(changed)
