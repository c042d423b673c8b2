"""Upstream's probe rows for the journal and the authorizer, against the reference and the
generated vectors. The probe output is the oracle; nothing expected here is computed by the
code under test."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

import pytest

from rescind.conformance.vectors.sets import authorizer_traces, journal_codec, journal_traces
from rescind.reference.errors import RescindError
from rescind.reference.messages import OperationStatus
from rescind.reference.numbers import NumberMode
from rescind.reference.worker.authorized import (
    AuthorizedCompensation,
    AuthorizedDispatch,
    AuthorizedReconciliation,
)
from rescind.reference.worker.journal import Existing, WorkerOperationJournal
from rescind.tables.operation import Phase
from tests.worker.probe_lines import error_code, labelled, lines, section_lines
from tests.worker.support import (
    ECHO_GRANT,
    MATH_GRANT,
    compensate,
    dispatch,
    reconcile,
    success,
)


@cache
def _vectors(module: Any) -> dict[str, dict[str, Any]]:
    return {test.id: test.to_json() for test in module.build().tests}


def _step_code(step: dict[str, Any]) -> str:
    return "ok" if "result" in step else str(step["error"])


def _probe_kind(text: str) -> str | None:
    match = re.search(r"WorkerOperationState::([A-Za-z]+)", text)
    return match.group(1).lower() if match else None


# -- journal texts --------------------------------------------------------------------------

JOURNAL_LABELS = {
    "empty": "empty",
    "pending": "pending",
    "running": "running",
    "succeeded": "succeeded",
    "with compensation pending": "compensation-pending",
    "with compensation failed": "compensation-failed",
}


def test_direct_calls_reproduce_every_probe_journal_text() -> None:
    add = AuthorizedDispatch(dispatch(), MATH_GRANT)
    undo = AuthorizedCompensation(compensate(), MATH_GRANT)
    journal = WorkerOperationJournal.new("tenant-release")
    seen = {"empty": journal.to_json()}
    journal = journal.admit(add).journal
    seen["pending"] = journal.to_json()
    journal = journal.observe(add, OperationStatus.running()).journal
    seen["running"] = journal.to_json()
    journal = journal.observe(add, success('{"total":42}')).journal
    seen["succeeded"] = journal.to_json()
    journal = journal.admit_compensation(undo).journal
    seen["with compensation pending"] = journal.to_json()
    journal = journal.observe_compensation(undo, OperationStatus.failed("boom")).journal
    seen["with compensation failed"] = journal.to_json()
    for label, text in seen.items():
        assert text == labelled("out_ap.txt", label), label


def test_lifecycle_vector_checkpoints_are_the_probe_texts() -> None:
    expected = _vectors(journal_traces)["journal.probe.upstream-lifecycle"]["expected"]
    for label, checkpoint in JOURNAL_LABELS.items():
        assert expected["checkpoints"][checkpoint]["journal"] == labelled("out_ap.txt", label)


# probe label -> step index in journal.probe.upstream-lifecycle
LIFECYCLE_ROWS = {
    "admit": 1,
    "admit again": 2,
    "observe running": 3,
    "observe running again": 4,
    "observe succeeded": 5,
    "observe succeeded different payload": 6,
    "observe running after success": 7,
    "observe_compensation before admission": 8,
    "admit_compensation": 9,
    "observe_compensation failed": 10,
    "observe_compensation failed same msg": 11,
    "observe_compensation failed other msg": 12,
    "observe_compensation cancelled": 13,
    "admit_compensation existing": 14,
    "second cmp key": 15,
    "compensation with other tool": 16,
    "compensation unknown op": 17,
    "compensation wrong scope + unknown op": 18,
    "same key other tool": 19,
}


@pytest.mark.parametrize("label", sorted(LIFECYCLE_ROWS))
def test_lifecycle_vector_steps_match_probe_rows(label: str) -> None:
    probe = labelled("out_ap.txt", label)
    step = _vectors(journal_traces)["journal.probe.upstream-lifecycle"]["expected"]["steps"][
        LIFECYCLE_ROWS[label]
    ]
    assert _step_code(step) == error_code(probe)
    kind = _probe_kind(probe)
    if kind is not None and "result" in step:
        assert f'"state":"{kind}"' in step["result"]["state"]
    transition = re.search(r"current: (\w+), observed: (\w+)", probe)
    if transition:
        assert step["details"]["current"] == transition.group(1).lower()
        assert step["details"]["observed"] == transition.group(2).lower()
    scope = re.search(r'expected: "([^"]+)", actual: "([^"]+)"', probe)
    if scope:
        assert (step["details"]["expected"], step["details"]["actual"]) == scope.groups()


TRACE_ROWS = [
    ("observe unknown op", "journal.edge-24.observe-unknown-key", 0),
    ("new invalid scope", "journal.new.invalid-scope", 0),
    ("65th admit", "journal.edge-25.record-limit-after-lookup", 1),
    ("existing admit when full", "journal.edge-25.record-limit-after-lookup", 2),
    ("observe #4 large payload", "journal.edge-26.bound-on-observation", 1),
]


@pytest.mark.parametrize(("label", "vector_id", "index"), TRACE_ROWS)
def test_trace_vectors_match_probe_rows(label: str, vector_id: str, index: int) -> None:
    step = _vectors(journal_traces)[vector_id]["expected"]["steps"][index]
    assert _step_code(step) == error_code(labelled("out_ap.txt", label))


def test_record_stays_pending_after_oversized_observation() -> None:
    assert labelled("out_ap.txt", "record state after failed observe").endswith("::Pending")
    steps = _vectors(journal_traces)["journal.edge-26.bound-on-observation"]["expected"]["steps"]
    assert '"state":{"state":"pending"}' in steps[2]["result"]["record"]


# -- loading ------------------------------------------------------------------------------------

LOAD_ROWS = {
    "v1": "codec.probe.format-version-1",
    "v3": "codec.probe.format-version-3",
    "v2.0": "codec.probe.format-version-2-point-0",
    "v256": "codec.probe.format-version-256",
    "unknown top": "codec.probe.unknown-top-level-field",
    "unknown record field": "codec.probe.unknown-record-field",
    "missing compensation": "codec.probe.missing-compensation",
    "dup scope": "codec.probe.duplicate-scope",
    "state extra field": "codec.probe.state-extra-field",
    "state dup tag": "codec.probe.state-duplicate-tag",
    "state unknown": "codec.probe.state-unknown-variant",
    "state succeeded no payload": "codec.probe.state-succeeded-without-payload",
    "state failed empty": "codec.probe.state-failed-empty",
    "state failed 4096": "codec.probe.state-failed-4096",
    "state failed 4097": "codec.probe.state-failed-4097",
    "state succeeded scalar": "codec.probe.state-succeeded-scalar",
    "state succeeded text": "codec.probe.state-succeeded-text",
    "state as string": "codec.probe.state-as-string",
    "uppercase fp": "codec.probe.uppercase-fingerprint",
    "bad scope": "codec.probe.bad-scope",
    "whitespace": "codec.probe.whitespace",
    "trailing": "codec.probe.trailing-characters",
    "trailing ws": "codec.probe.trailing-whitespace",
    "dup op key": "codec.probe.duplicate-operation-key",
    "comp on pending op": "codec.probe.compensation-on-pending-operation",
    "comp bad key": "codec.probe.compensation-bad-key",
    "64 records": "codec.probe.64-records",
    "65 records": "codec.probe.65-records",
    "empty string": "codec.probe.empty-string",
    "scope check": "codec.probe.scope-check-mismatch",
    "scope check invalid expected": "codec.probe.scope-check-invalid-expected",
    "roundtrip": "codec.probe.roundtrip",
}


def _loading_row(label: str) -> str:
    """Loading rows print ``Ok("OK")`` or ``Err(..)``; ``pending`` also labels a journal."""
    matches = [
        line[len(label) + 2 :]
        for line in lines("out_ap.txt")
        if line.startswith(label + ": ") and line[len(label) + 2 :].startswith(("Ok(", "Err("))
    ]
    return matches[-1]


@pytest.mark.parametrize("label", sorted(LOAD_ROWS))
def test_codec_vectors_match_probe_loading_rows(label: str) -> None:
    vector = _vectors(journal_codec)[LOAD_ROWS[label]]
    outcome = "ok" if vector["result"] == "valid" else vector["expected"]["error"]
    assert outcome == error_code(_loading_row(label))


def test_pending_loading_row() -> None:
    assert error_code(_loading_row("pending")) == "ok"
    assert _vectors(journal_codec)["codec.probe.pending"]["result"] == "valid"


@pytest.mark.parametrize("section", ["f64", "ap"])
def test_state_tag_last_row(section: str) -> None:
    assert error_code(labelled("out_other.txt", "state tag last", section=section)) == "ok"
    assert _vectors(journal_codec)["codec.probe.state-tag-after-payload"]["result"] == "valid"


# -- terminal equality (out_other.txt, both number modes) ----------------------------------------

TERMINAL = re.compile(r"^terminal (\S+) then (\S+): (.*); stored=(.*)$")


def _terminal_rows(section: str) -> list[tuple[str, str, str, str]]:
    rows = []
    for line in section_lines("out_other.txt", section):
        match = TERMINAL.match(line)
        if match:
            first, second, outcome, stored = match.groups()
            rows.append((first, second, outcome, stored))
    return rows


@pytest.mark.parametrize(
    ("mode", "section"), [(NumberMode.AP, "ap"), (NumberMode.F64, "f64")], ids=["ap", "f64"]
)
def test_terminal_equality_rows(mode: NumberMode, section: str) -> None:
    rows = _terminal_rows(section)
    assert len(rows) == 4
    for first, second, outcome, stored in rows:
        add = AuthorizedDispatch(dispatch(key="k", mode=mode), MATH_GRANT)
        journal = WorkerOperationJournal.new("tenant-release").admit(add).journal
        journal = journal.observe(add, success(first, mode)).journal
        try:
            journal = journal.observe(add, success(second, mode)).journal
            code = "ok"
        except RescindError as error:
            code = error.code
        assert code == error_code(outcome), (first, second)
        assert journal.to_json().endswith(stored)


@pytest.mark.parametrize("profile", ["ap", "f64"])
def test_terminal_equality_vectors_match_probe(profile: str) -> None:
    rows = _terminal_rows("ap" if profile == "ap" else "f64")
    names = ["negative-zero", "integer-then-float", "fraction-spelling", "key-order"]
    for name, (_, _, outcome, stored) in zip(names, rows, strict=True):
        vector = _vectors(journal_traces)[f"journal.terminal-equality.{profile}.{name}"]
        steps = vector["expected"]["steps"]
        assert _step_code(steps[2]) == error_code(outcome)
        assert vector["expected"]["checkpoints"]["final"]["journal"].endswith(stored)


# -- other out_other.txt journal rows -------------------------------------------------------------


@pytest.mark.parametrize("section", ["f64", "ap"])
def test_out_other_journal_rows(section: str) -> None:
    mode = NumberMode.AP if section == "ap" else NumberMode.F64

    def row(label: str) -> str:
        return error_code(labelled("out_other.txt", label, section=section))

    def outcome(call: Any) -> str:
        try:
            call()
        except RescindError as error:
            return error.code
        return "ok"

    echo = AuthorizedDispatch(dispatch("x", key="k", tool="text.echo", text=True), ECHO_GRANT)
    journal = WorkerOperationJournal.new("tenant").admit(echo).journal
    assert outcome(lambda: journal.observe(echo, success('{"a":1}', mode))) == row(
        "observe json on text grant"
    )
    assert outcome(lambda: journal.observe(echo, OperationStatus.failed(""))) == row(
        "observe failed empty"
    )
    failure = OperationStatus.failed("x" * 4096)
    assert outcome(lambda: journal.observe(echo, failure)) == row(
        "observe failed 4096 msg with grant output 65536"
    )
    cancelled = journal.observe(echo, OperationStatus.cancelled())
    assert row("observe cancelled from pending") == "ok"
    assert cancelled.result.phase is Phase.CANCELLED
    again = cancelled.journal.observe(echo, OperationStatus.cancelled())
    assert row("observe cancelled again") == "ok" and again.journal is cancelled.journal
    admitted = again.journal.admit(echo).result
    assert row("admit existing cancelled") == "ok"
    assert isinstance(admitted, Existing) and admitted.state.phase is Phase.CANCELLED
    other_tool = AuthorizedReconciliation(reconcile(key="k", tool="text.other"), ECHO_GRANT)
    assert outcome(lambda: again.journal.validate_reconciliation(other_tool)) == row(
        "reconcile other tool"
    )


# -- authorizer rows -----------------------------------------------------------------------------

AUTHORIZER_ROWS = [
    ("third op (max_calls 2)", "authorizer.probe.call-budget", 4),
    ("dup request id after exhausted", "authorizer.probe.call-budget", 5),
    ("format mismatch", "authorizer.probe.input-checks", 0),
    ("input too large", "authorizer.probe.input-checks", 1),
    ("input exactly 128", "authorizer.probe.input-checks", 2),
    ("input 129", "authorizer.probe.input-checks", 3),
    ("wrong session", "authorizer.probe.session-and-tool", 0),
    ("unknown tool", "authorizer.probe.session-and-tool", 1),
    ("comp stale fp", "authorizer.probe.compensation-budget", 0),
    ("comp text payload on json grant", "authorizer.probe.compensation-budget", 1),
    ("comp same request id", "authorizer.probe.compensation-budget", 4),
    ("comp retransmission new id", "authorizer.probe.compensation-budget", 5),
    ("comp retransmission whitespace-different input", "authorizer.probe.compensation-budget", 6),
    ("comp different input (budget 1)", "authorizer.probe.compensation-budget", 7),
    ("comp other scope (budget 1)", "authorizer.probe.compensation-budget", 9),
]


@pytest.mark.parametrize(("label", "vector_id", "index"), AUTHORIZER_ROWS)
def test_authorizer_vectors_match_probe_rows(label: str, vector_id: str, index: int) -> None:
    probe = labelled("out_ap.txt", label)
    step = _vectors(authorizer_traces)[vector_id]["expected"]["steps"][index]
    assert _step_code(step) == error_code(probe)
    actual = re.search(r"actual: (\d+), maximum: (\d+)", probe)
    if actual:
        assert (step["details"]["actual"], step["details"]["maximum"]) == tuple(
            int(group) for group in actual.groups()
        )


def test_authorizer_counter_rows() -> None:
    budget = _vectors(authorizer_traces)["authorizer.probe.call-budget"]["expected"]
    calls = budget["checkpoints"]["after-one"]["authorizers"]["a"]["calls"]["math.add"]
    assert calls == int(labelled("out_ap.txt", "calls after op"))
    inputs = _vectors(authorizer_traces)["authorizer.probe.input-checks"]["expected"]["steps"]
    assert inputs[4]["result"]["calls"]["math.add"] == int(
        labelled("out_ap.txt", "calls after too-large")
    )
    compensation = _vectors(authorizer_traces)["authorizer.probe.compensation-budget"]["expected"]
    after_first = compensation["checkpoints"]["after-first"]["authorizers"]["a"]
    count, calls_text = re.fullmatch(
        r"(\d+) calls (\d+)", labelled("out_ap.txt", "comp count after 1")
    ).groups()  # type: ignore[union-attr]
    assert after_first["compensations"]["math.add"] == int(count)
    assert after_first["calls"].get("math.add", 0) == int(calls_text)
    later = compensation["steps"][8]["result"]
    assert later["compensations"]["math.add"] == int(labelled("out_ap.txt", "comp count"))


@pytest.mark.parametrize("section", ["f64", "ap"])
def test_reconciliation_rows(section: str) -> None:
    vector = _vectors(authorizer_traces)["authorizer.probe.reconciliation-spends-no-budget"]
    steps = vector["expected"]["steps"]
    assert _step_code(steps[1]) == error_code(
        labelled("out_other.txt", "reconcile unknown tool", section=section)
    )
    assert steps[4]["result"]["calls"].get("math.add", 0) == int(
        labelled("out_other.txt", "reconcile calls_for u", section=section)
    )
    provenance = _vectors(authorizer_traces)["authorizer.provenance"]["expected"]["steps"]
    assert error_code(
        labelled("out_other.txt", "journal accepts token from another authorizer", section=section)
    ) == _step_code(provenance[5])
