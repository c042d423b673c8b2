"""The ``storage`` vector set: structure, spec known answers, and a replay on SQLite."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import rescind.reference.storage.errors  # noqa: F401  (registers the storage codes)
from rescind.conformance.interpreters.storage_harness import TRACE_OPS, run_trace
from rescind.conformance.vectors.sets.storage import build
from rescind.reference.errors import error_registry
from rescind.stores.sqlite import SqliteBackend

DOC = Path(__file__).resolve().parents[2] / "docs" / "spec" / "storage.md"
FILE = build()
TESTS = {test.id: test for test in FILE.tests}


def codes(test_id: str) -> list[str]:
    return [step.get("error", "ok") for step in TESTS[test_id].expected["steps"]]


def test_file_is_consistent_and_large_enough() -> None:
    FILE.check_consistency()
    assert len(TESTS) >= 40
    assert {group.type for group in FILE.groups} == {
        "storage-record-tag",
        "storage-envelope-open",
        "storage-cas-trace",
        "storage-open-precedence",
    }


def test_rules_are_defined_in_the_docs() -> None:
    defined = re.findall(r"^- \*\*(ST-\d+)\*\*", DOC.read_text(encoding="utf-8"), re.M)
    assert len(defined) == len(set(defined))
    precedence = DOC.with_name("precedence.md").read_text(encoding="utf-8")
    orders = set(re.findall(r"^- \*\*(EP-\d+)\*\*", precedence, re.M))  # ErrorPrecedence
    assert {test.rule for test in FILE.tests} <= set(defined) | orders


def test_error_codes_are_registered() -> None:
    registry = error_registry()
    for test in FILE.tests:
        expected = test.expected
        found = [expected["error"]] if "error" in expected else []
        found += [step["error"] for step in expected.get("steps", []) if "error" in step]
        assert set(found) <= set(registry), test.id


def test_trace_ops_are_known() -> None:
    for test in FILE.tests:
        for step in test.input.get("steps", []):
            assert step["op"] in TRACE_OPS


def test_known_answers() -> None:
    journal = TESTS["tag.known-answer.worker-journal"].expected
    assert journal["auth_tag"] == "ac29801f8d4eea9d2bfaec4a1e914084fe6e178dad5aeeb459a95ad79f198ef4"
    assert journal["payload_field"] == (
        "eyJmb3JtYXRfdmVyc2lvbiI6Miwic2NvcGUiOiJ0ZW5hbnQtcmVsZWFzZSIsInJlY29yZHMiOltdfQ"
    )
    ledger = TESTS["tag.known-answer.workflow-ledger"].expected
    assert ledger["auth_tag"] == "981f75935e226abc73d195bed73eb6e373b268fdc23871aeff1a986464a882d9"
    assert ledger["payload_field"] == "Zmlyc3QgcGF5bG9hZA"
    opened = TESTS["open.known-answer.workflow-ledger"].expected["record"]
    assert bytes.fromhex(opened["payload_hex"]) == b"first payload"


def test_binding_cases_all_differ() -> None:
    tags = [
        test.expected["auth_tag"]
        for test in FILE.tests
        if test.id.startswith(("tag.bind.", "tag.split.", "tag.known-answer.workflow"))
    ]
    assert len(tags) == len(set(tags)) == 9


def test_spec_sequences() -> None:
    # Upstream test writes_authenticated_records_with_compare_and_swap.
    assert codes("trace.create-replace-conflict")[:3] == ["ok", "write_conflict", "ok"]
    # Upstream test fenced_compare_and_swap_rejects_a_superseded_writer_after_a_conflict, its
    # five steps (plus the fence read after step 2 and a load).
    assert codes("trace.fencing-superseded-after-conflict") == [
        "ok", "write_conflict", "ok", "fencing_required", "fencing_token_rejected", "ok", "ok",
    ]  # fmt: skip
    steps = TESTS["trace.fencing-superseded-after-conflict"].expected["steps"]
    assert steps[2]["ok"] == {"token": 6}
    assert steps[4]["details"] == {"current": 6, "supplied": 5}
    assert steps[5]["ok"]["revision"] == 2
    # Upstream tests reserves_distinct_monotonic_fences_without_read_then_increment and
    # rejects_zero_fencing_tokens.
    assert [s.get("ok", s.get("error")) for s in
            TESTS["trace.reserve-monotonic"].expected["steps"][:3]] == [
        {"token": 1}, {"token": 2}, {"token": 2}]  # fmt: skip
    assert codes("trace.reserve-monotonic")[4] == "fencing_token_exhausted"
    assert codes("trace.zero-token")[0] == "invalid_fencing_token"
    # Upstream tests rejects_a_record_rolled_back_below_its_trusted_floor,
    # enforces_payload_and_revision_floor_bounds, rejects_tampering_and_record_transplants.
    rollback = TESTS["trace.rollback-restore"].expected["steps"][4]
    assert rollback == {
        "error": "rollback_detected",
        "details": {"record_revision": 1, "revision_floor": 2},
    }
    assert codes("trace.floor-forced-zero")[2] == "revision_floor_mismatch"
    assert codes("trace.transplant")[3] == "storage_invalid_authentication_tag"
    assert codes("trace.tampered-payload")[2] == "storage_invalid_authentication_tag"
    # Upstream test rotation_reads_old_records_and_rewrites_with_the_active_key.
    rotation = TESTS["trace.key-rotation"].expected["steps"]
    assert rotation[3]["ok"] == {"revision": 2, "key_id": "storage-v2"}
    assert rotation[5]["ok"]["key_ids"] == ["storage-v2"]
    # RC-14 (storage side); upstream test a_new_recovery_fence_rejects_the_superseded_writer.
    writers = TESTS["trace.two-recovering-writers"].expected["steps"]
    assert writers[3]["details"] == {"current": 2, "supplied": 1}


TRACES = [test for test in FILE.tests if test.id.startswith("trace.")]


@pytest.mark.parametrize("test", TRACES, ids=lambda test: test.id)
def test_traces_replay_on_sqlite(test, tmp_path: Path) -> None:
    with SqliteBackend(tmp_path / "replay.sqlite3") as backend:
        assert run_trace(test.input, backend) == dict(test.expected)
