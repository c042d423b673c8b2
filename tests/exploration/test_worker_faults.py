"""The multi-fault worker areas (journal.trace, storage.trace): their traces break several
checks, the reference agrees with itself in every spelling, and a driver that runs two of
the storage checks in another order than upstream's is caught."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hypothesis import given, settings

from rescind.conformance.driver import handle
from rescind.conformance.explore.areas import AREAS
from rescind.conformance.explore.engine import explore
from rescind.conformance.explore.worker_faults import (
    JOURNAL_FAULTS_AREA,
    STORAGE_FAULTS_AREA,
)
from rescind.conformance.harness import InProcessDriver
from rescind.conformance.harness.restrictions import (
    AUTHORIZED_BY_AUTHORIZER,
    NO_BACKEND_STATE_INJECTION,
)
from rescind.conformance.ops import registry as operations


def test_the_areas_are_explored_by_rescind_check() -> None:
    for area in (JOURNAL_FAULTS_AREA, STORAGE_FAULTS_AREA):
        assert area in AREAS and area.op in operations.operation_names()


def _last_codes(area_traces: Any, op: str, examples: int) -> set[str]:
    codes: set[str] = set()

    @settings(max_examples=examples, database=None, deadline=None)
    @given(area_traces)
    def collect(trace: dict[str, Any]) -> None:
        last = operations.run(op, trace)["steps"][-1]
        codes.add(last.get("error", "ok"))

    collect()
    return codes


def test_journal_traces_reach_many_first_refusals() -> None:
    codes = _last_codes(JOURNAL_FAULTS_AREA.traces, JOURNAL_FAULTS_AREA.op, 300)
    # two faults at least, so never accepted; and the first refusal varies with the subset
    assert "ok" not in codes
    assert {
        "operation_identity_mismatch",
        "unknown_operation",
        "operation_failure_too_large",
        "operation_journal_scope_mismatch",
    } <= codes


def test_storage_traces_reach_many_first_refusals() -> None:
    codes = _last_codes(STORAGE_FAULTS_AREA.traces, STORAGE_FAULTS_AREA.op, 300)
    assert "ok" not in codes
    assert {"invalid_fencing_token", "payload_too_large", "unknown_key_id", "write_conflict"} <= (
        codes
    )


def test_a_driver_without_injection_gets_no_planted_record() -> None:
    area = STORAGE_FAULTS_AREA.under(frozenset({NO_BACKEND_STATE_INJECTION.name}))
    assert area.variant == NO_BACKEND_STATE_INJECTION.name

    @settings(max_examples=200, database=None, deadline=None)
    @given(area.traces)
    def check(trace: dict[str, Any]) -> None:
        assert all(step["op"] != "plant" for step in trace["steps"])

    check()


def test_the_reference_agrees_with_itself() -> None:
    driver = InProcessDriver(handle)
    for area in (
        JOURNAL_FAULTS_AREA,
        JOURNAL_FAULTS_AREA.under(frozenset({AUTHORIZED_BY_AUTHORIZER.name})),
        STORAGE_FAULTS_AREA,
        STORAGE_FAULTS_AREA.under(frozenset({NO_BACKEND_STATE_INJECTION.name})),
    ):
        assert explore(driver, area, 120, seed=5).disagreement is None, area.name


def _conflict_first(message: Mapping[str, Any]) -> Mapping[str, Any]:
    """A driver that compares the expected revision before it opens the current record: a
    create over a record it cannot open is a write conflict instead of the open's refusal."""
    reply = dict(handle(message))
    if message.get("op") != STORAGE_FAULTS_AREA.op or "ok" not in reply:
        return reply
    last = message["args"]["steps"][-1]
    steps = list(reply["ok"]["steps"])
    if last.get("expected", 0) is None and steps[-1].get("error") == "unknown_key_id":
        steps[-1] = {"error": "write_conflict"}
        reply["ok"] = {"steps": steps}
    return reply


def test_conflict_checked_before_the_current_record_is_caught() -> None:
    result = explore(InProcessDriver(_conflict_first), STORAGE_FAULTS_AREA, 300, seed=5)
    assert result.disagreement is not None
    assert result.disagreement.expected["steps"][-1]["error"] == "unknown_key_id"
