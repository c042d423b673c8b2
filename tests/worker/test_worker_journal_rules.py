"""Journal and authorizer rules checked directly against the spec's stated values."""

from __future__ import annotations

import attrs
import pytest

from rescind.reference.digests import worker_input_fingerprint
from rescind.reference.errors import RescindError
from rescind.reference.messages import OperationReconcileResult, OperationStatus
from rescind.reference.payload import ToolPayload
from rescind.reference.protocol_errors import (
    AuthorizationProvenanceMismatch,
    OperationJournalScopeMismatch,
    OperationJournalTooLarge,
    SessionRequestLimitExceeded,
)
from rescind.reference.worker.authorized import AuthorizedDispatch
from rescind.reference.worker.authorizer import SessionAuthorizer
from rescind.reference.worker.journal import Dispatch, Existing, WorkerOperationJournal
from rescind.reference.worker.records import WorkerOperationState
from rescind.tables.operation import Phase
from tests.worker.support import (
    ECHO_GRANT,
    MATH_GRANT,
    MATH_GRANT_FP,
    compensate,
    dispatch,
    manifest,
    reconcile,
    success,
)

ADD = AuthorizedDispatch(dispatch(), MATH_GRANT)
EMPTY = '{"format_version":2,"scope":"tenant-release","records":[]}'


def test_math_grant_fixture_has_the_upstream_fingerprint() -> None:
    assert MATH_GRANT.compensation_fingerprint() == MATH_GRANT_FP


def test_edge_28_no_raw_input_round_trip_and_scope() -> None:
    request = dispatch("private input", tool="text.echo", text=True)
    journal = WorkerOperationJournal.new("tenant-release")
    journal = journal.admit(AuthorizedDispatch(request, ECHO_GRANT)).journal
    text = journal.to_json()
    assert "private input" not in text
    assert WorkerOperationJournal.from_json(text) == journal
    with pytest.raises(OperationJournalScopeMismatch) as caught:
        WorkerOperationJournal.from_json_for_scope(text, "tenant-other")
    assert dict(caught.value.details) == {"expected": "tenant-other", "actual": "tenant-release"}


def test_edge_27_input_bound_details() -> None:
    with pytest.raises(OperationJournalTooLarge) as caught:
        WorkerOperationJournal.from_json(EMPTY + " " * (262_145 - len(EMPTY)))
    assert dict(caught.value.details) == {"actual": 262_145, "maximum": 262_144}


def test_rejected_call_keeps_the_original_and_noop_returns_it() -> None:
    journal = WorkerOperationJournal.new("tenant-release").admit(ADD).journal
    done = journal.observe(ADD, success('{"total":42}')).journal
    again = done.observe(ADD, success('{ "total" : 42 }'))
    assert again.journal is done
    with pytest.raises(RescindError):
        done.observe(ADD, OperationStatus.failed("late"))
    assert done.records[0].state.phase is Phase.SUCCEEDED
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        done.scope = "other"  # type: ignore[misc]


def test_admission_kinds() -> None:
    first = WorkerOperationJournal.new("tenant-release").admit(ADD)
    assert isinstance(first.result, Dispatch)
    second = first.journal.admit(ADD)
    assert isinstance(second.result, Existing)
    assert second.result.state == WorkerOperationState.pending()
    assert second.journal is first.journal


def test_state_shapes_are_enforced() -> None:
    with pytest.raises(ValueError):
        WorkerOperationState(Phase.SUCCEEDED)
    with pytest.raises(ValueError):
        WorkerOperationState(Phase.RUNNING, message="x")
    with pytest.raises(ValueError):
        OperationStatus(Phase.PENDING)
    assert WorkerOperationState.pending().as_status() is None


def test_provenance_and_capacity() -> None:
    first = SessionAuthorizer(manifest(MATH_GRANT))
    second = SessionAuthorizer(manifest(MATH_GRANT))
    authorized = first.authorize_operation(dispatch())
    result = OperationReconcileResult.for_request(authorized.request, OperationStatus.running())
    with pytest.raises(AuthorizationProvenanceMismatch):
        second.validate_operation_result(authorized, result)
    first.validate_operation_result(authorized, result)
    for index in range(1023):
        first.authorize_reconciliation(reconcile(request_id=f"fill-{index}"))
    assert first.request_count == 1024
    before = first.counters()
    with pytest.raises(SessionRequestLimitExceeded):
        first.authorize_compensation(compensate(request_id="late"))
    assert first.counters() == before


def test_text_compensation_input_fingerprint_known_answer() -> None:
    # CJ-27 (upstream `worker_operation_input_fingerprint`): text "undo" has this worker input
    # fingerprint, as upstream probe output shows in out_other.txt block `== 3`.
    assert worker_input_fingerprint(ToolPayload.text("undo")) == (
        "1db7eae338696ec319df898f5b569dcd661cd73512096746c135aeebd5a9f2b9"
    )
