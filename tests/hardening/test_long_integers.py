"""Integer fields thousands of digits long are out of range, like 2^64: the decode error the
reference already gives for a too-large value, whatever the number of digits and whatever
Python's integer-string conversion limit is set to."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from rescind.reference.frames import AuthenticatedFrame
from rescind.reference.host.ledger import WorkflowOperationLedger
from rescind.reference.host.ledger_codec import LedgerInvalidEncoding
from rescind.reference.numbers import NumberMode
from rescind.reference.protocol_errors import Serialization
from rescind.reference.wirejson import as_uint, read_document
from rescind.reference.worker.journal import WorkerOperationJournal
from rescind.reference.worker_message import decode_message_line
from tests.sessions.test_sigkill import WorkerProcess

LONG = "1" * 5000
MIN_DIGIT_LIMIT = 640  # the smallest limit sys.set_int_max_str_digits accepts


@pytest.fixture(params=["default", "lowered"])
def digit_limit(request: pytest.FixtureRequest) -> Iterator[None]:
    """Run once under Python's default limit and once under the smallest one it allows."""
    saved = sys.get_int_max_str_digits()
    if request.param == "lowered":
        sys.set_int_max_str_digits(MIN_DIGIT_LIMIT)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(saved)


@pytest.mark.usefixtures("digit_limit")
@pytest.mark.parametrize("bits", [8, 16, 32, 64])
@pytest.mark.parametrize("written", [LONG, "-" + LONG, "9" * 700, "1" + "0" * 20])
def test_a_long_integer_field_is_out_of_range(bits: int, written: str) -> None:
    with pytest.raises(Serialization) as too_long:
        as_uint(read_document(written), bits)
    with pytest.raises(Serialization) as just_past:
        as_uint(read_document(str(2**bits)), bits)
    assert too_long.value.details == just_past.value.details  # invalid_value, u<bits>


@pytest.mark.usefixtures("digit_limit")
def test_the_widest_value_still_fits() -> None:
    assert as_uint(read_document(str(2**64 - 1)), 64) == 2**64 - 1


@pytest.mark.usefixtures("digit_limit")
@pytest.mark.parametrize(
    "line",
    [
        '{"type":"close_session","protocol_version":' + LONG + ',"session_id":"s"}',
        '{"type":"invoke","invocation":{"protocol_version":'
        + LONG
        + ',"session_id":"s","request_id":"r"}}',
        '{"type":"reconcile_operation","request":{"protocol_version":'
        + LONG
        + ',"session_id":"s","request_id":"r","tool":"t","operation_key":"k"}}',
    ],
)
@pytest.mark.parametrize("mode", list(NumberMode))
def test_a_long_protocol_version_is_a_decode_error(line: str, mode: NumberMode) -> None:
    with pytest.raises(Serialization):
        decode_message_line(line, mode)


@pytest.mark.usefixtures("digit_limit")
def test_journal_ledger_and_frame_decoders_answer_typed() -> None:
    with pytest.raises(Serialization):
        WorkerOperationJournal.from_json(f'{{"format_version":{LONG},"scope":"s","records":[]}}')
    ledger = (
        '{"format_version":2,"revision":' + LONG + ',"plan_fingerprint":"' + "0" * 64 + '",'
        '"operations":[]}'
    )
    with pytest.raises(LedgerInvalidEncoding):
        WorkflowOperationLedger.from_json(ledger)
    frame = '{"sequence":' + LONG + ',"message":{},"auth_tag":"' + "0" * 64 + '"}'
    with pytest.raises(Serialization):
        AuthenticatedFrame.from_json_line(frame)


def test_a_long_sequence_does_not_stop_the_worker_loop(tmp_path: Path) -> None:
    # Before authentication: the frame is read before its tag can be checked.
    worker = WorkerProcess(tmp_path / "journal.sqlite", tmp_path / "effects", "none", "worker-1")
    try:
        assert "opened" in worker.open()
        assert worker.process.stdin is not None
        worker.process.stdin.write('{"sequence":' + LONG + ',"message":{},"auth_tag":"x"}\n')
        worker.process.stdin.flush()
        answer = worker.lines.get(timeout=60)
        assert '"error": "serialization"' in answer
        assert "reply" in worker.dispatch("dispatch-1")  # the loop is still running
    finally:
        worker.close()
