"""WorkerMessage decoding and encoding against upstream's probe rows, plus the matching
helpers (five fields for operation results, eight for compensation results)."""

from __future__ import annotations

import json

import attrs
import pytest

from rescind.reference.errors import RescindError
from rescind.reference.messages import (
    OperationCompensationResult,
    OperationReconcileResult,
    OperationStatus,
)
from rescind.reference.worker_message import decode_message_line, encode_message_line
from tests.worker.probe_lines import error_code, labelled, lines
from tests.worker.support import compensate, dispatch, reconcile


def _msg_rows() -> list[tuple[str, str]]:
    text = lines("out_ap.txt")
    return [
        (line[4:], text[index + 1][len("  -> ") :])
        for index, line in enumerate(text)
        if line.startswith("msg ")
    ]


def _outcome(line: str) -> tuple[str, str | None]:
    try:
        return "ok", encode_message_line(decode_message_line(line))
    except RescindError as error:
        return error.code, None


@pytest.mark.parametrize(("line", "probe"), _msg_rows())
def test_probe_msg_rows(line: str, probe: str) -> None:
    code, encoded = _outcome(line)
    assert code == error_code(probe)
    if code == "ok":
        assert encoded == json.loads(probe[len("Ok(") : -1])


@pytest.mark.parametrize("section", ["f64", "ap"])
def test_probe_duplicate_key_rows(section: str) -> None:
    printed = labelled("out_other.txt", "frame dup keys in payload value", section=section)
    line = (
        '{"type":"dispatch_operation","request":{"protocol_version":5,"session_id":"s",'
        '"request_id":"r","tool":"t","operation_key":"k",'
        '"payload":{"format":"json","value":{"a":1,"a":2}}}}'
    )
    assert _outcome(line) == ("ok", json.loads(printed[len("Ok(") : -1]))
    duplicated = line.replace('"request_id":"r"', '"request_id":"r","request_id":"r"')
    assert _outcome(duplicated)[0] == error_code(
        labelled("out_other.txt", "frame dup request_id", section=section)
    )


def test_operation_result_matches_five_fields() -> None:
    request = dispatch()
    result = OperationReconcileResult.for_request(request, OperationStatus.running())
    assert result.matches_dispatch(request)
    for field, value in (("request_id", "other"), ("tool", "math.sub"), ("session_id", "s2")):
        assert not attrs.evolve(result, **{field: value}).matches_dispatch(request)
    assert attrs.evolve(result, status=OperationStatus.cancelled()).matches_dispatch(request)
    rec = reconcile()
    assert OperationReconcileResult.for_request(rec, OperationStatus.running()).matches_request(rec)


def test_compensation_result_matches_eight_fields() -> None:
    request = compensate()
    result = OperationCompensationResult.for_request(request, OperationStatus.running())
    assert result.matches_request(request)
    for field in ("compensation_key", "tenant_scope", "grant_fingerprint", "operation_key"):
        changed = attrs.evolve(result, **{field: "cmp-" + "0" * 64})
        assert not changed.matches_request(request)
