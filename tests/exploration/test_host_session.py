"""The host-session generator (``session.host``): well-formed scenarios, recorded answers equal
to a fresh reference run, deep states reached, the reference agrees with itself, and a host
driver that breaks one of its duties is caught with a minimal scenario that replays."""

from __future__ import annotations

import collections
import copy
import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings

from rescind.conformance.driver import handle
from rescind.conformance.explore.areas import AREAS
from rescind.conformance.explore.engine import explore, replay, save_replay
from rescind.conformance.explore.host_session import HOST_SESSION_AREA as AREA
from rescind.conformance.harness import InProcessDriver
from rescind.conformance.interpreters import host_scenario
from rescind.conformance.ops import registry as operations
from rescind.reference.host.ledger import WorkflowOperationLedger
from rescind.reference.host.ledger_driver import HostLedgerDriver


def test_the_area_is_explored_by_rescind_check() -> None:
    assert AREA in AREAS and AREA.op in operations.operation_names()


def test_scenarios_are_well_formed_and_answers_match_a_fresh_run() -> None:
    lengths: list[int] = []
    seen: collections.Counter[tuple[str, str]] = collections.Counter()

    @settings(max_examples=60, database=None, phases=[Phase.generate], deadline=None)
    @given(AREA.traces)
    def check(trace: dict[str, Any]) -> None:
        assert json.loads(json.dumps(trace)) == trace
        recorded = AREA.answers.recall(trace) if AREA.answers else None
        fresh = operations.run(AREA.op, copy.deepcopy(trace))  # bad_request would raise
        assert recorded == fresh
        steps = AREA.steps_of(trace)
        lengths.append(len(steps))
        for step, outcome in zip(steps, fresh["steps"], strict=True):
            seen[(step["call"], str(outcome.get("error", "ok")))] += 1

    check()
    assert sum(lengths) / len(lengths) >= 8, lengths  # not cut short by malformed steps
    # Deep states, not only refusals: whole sagas applied, a recovery that loads the
    # record, a superseded writer refused and then poisoned, a worker answering a re-sent
    # frame from its journal.
    for reached in (
        ("driver_apply_dispatch", "ok"),
        ("driver_apply_compensation", "ok"),
        ("driver_recover", "ok"),
        ("deliver", "ok"),
    ):
        assert seen[reached] > 0, (reached, sorted(seen))


def test_the_reference_agrees_with_itself() -> None:
    result = explore(InProcessDriver(handle), AREA, 60, seed=3)
    assert result.disagreement is None and result.examples == 60 and result.steps > 60 * 8


class _NeverPoisons(HostLedgerDriver):
    """Goes on writing after a refused write (RC-17: a failed write poisons the driver)."""

    def _write(self, snapshot: WorkflowOperationLedger | None) -> int:
        try:
            return super()._write(snapshot)
        finally:
            self._poisoned = False


class _SendsUnpersisted(HostLedgerDriver):
    """Seals while the in-memory ledger is ahead of the durable one (RC-17: persist before
    send)."""

    def _require_persisted(self) -> None:
        self._require_usable()


@contextmanager
def _installed(driver_class: type[HostLedgerDriver]) -> Iterator[None]:
    original = host_scenario.HostLedgerDriver  # type: ignore[attr-defined]
    host_scenario.HostLedgerDriver = driver_class  # type: ignore[attr-defined]
    try:
        yield
    finally:
        host_scenario.HostLedgerDriver = original  # type: ignore[attr-defined]


def _with_driver(driver_class: type[HostLedgerDriver]) -> Any:
    def handler(message: Mapping[str, Any]) -> dict[str, Any]:
        if message.get("op") != "session.host":
            return handle(message)
        with _installed(driver_class):
            return handle(message)

    return handler


@pytest.mark.parametrize(
    "driver_class", [_NeverPoisons, _SendsUnpersisted], ids=["never-poisons", "sends-unpersisted"]
)
def test_a_wrong_host_driver_is_caught_and_the_minimal_scenario_replays(
    driver_class: type[HostLedgerDriver], tmp_path: Path
) -> None:
    handler = _with_driver(driver_class)
    result = explore(InProcessDriver(handler), AREA, 300, seed=1)
    assert result.disagreement is not None
    path = save_replay(result.disagreement, tmp_path, AREA.name)
    document = json.loads(path.read_text())
    assert document["op"] == "session.host"
    assert replay(document, InProcessDriver(handle)) is None
    assert replay(document, InProcessDriver(handler)) is not None
    # Dropping steps left a short scenario (start, worker and the few steps the fault needs).
    steps = list(AREA.steps_of(result.disagreement.trace))
    assert 2 <= len(steps) <= 12, [step["call"] for step in steps]


@settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck))
@given(AREA.traces)
def test_generated_scenarios_run_in_a_fresh_process_format(trace: dict[str, Any]) -> None:
    assert operations.capability_of(AREA.op) == AREA.capability
    assert "setup" in trace["scenario"] and trace["scenario"]["steps"]
