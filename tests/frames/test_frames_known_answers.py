"""Frame tags, frames and the bootstrap against upstream's probe output (tests/upstream/) and
the known-answer values of docs/spec/frames.md (FR-2, FR-3, FR-13)."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest

from rescind.conformance.vectors.sets import frames as frame_vectors
from rescind.reference.frames import (
    AuthenticatedFrame,
    PipeBootstrap,
    SessionAuthenticator,
    SessionRole,
)
from rescind.reference.messages import OperationReconcileRequest
from rescind.reference.worker_message import (
    CloseSession,
    DispatchOperation,
    ReconcileOperation,
    decode_message_line,
    encode_message_line,
)
from tests.worker.probe_lines import error_code, labelled
from tests.worker.support import dispatch

KEY_07 = bytes([0x07]) * 32
KEY_0D = bytes([0x0D]) * 32
CLOSE = CloseSession(session_id="session-1")
# Upstream probe output: out_ap.txt rows `manual tag`, `manual worker tag`; out_other.txt row
# `host seq1 close tag`.
HOST_CLOSE_TAG = "c22ef937e66a578371dc94dba959c06b8d44b4acda5dcef8d94c47be88abb4d8"
WORKER_CLOSE_TAG = "c319a83b1d2d7f9dfe258c532cc8bf4012b4edd1b7aa72010255e13f33c5351b"
HOST_DISPATCH_TAG = "05bcb9cec2d0f7a7e01f67f727aa2d0d1d492c33e7716ae1c6f21d2d497d6363"
LEDGER_RECONCILE_TAG = "75fbe2d8828b9ee237139b673cbf5685bdb56e3140199500c1770011364b4a9d"
BOOTSTRAP_HEX = "53504c50424f4f54010973657373696f6e2d31" + "0d" * 32


def _pair() -> tuple[SessionAuthenticator, SessionAuthenticator]:
    return (
        SessionAuthenticator("session-1", KEY_07, SessionRole.HOST),
        SessionAuthenticator("session-1", KEY_07, SessionRole.WORKER),
    )


def test_host_frames_are_the_probe_lines() -> None:
    host, worker = _pair()
    first = host.seal(CLOSE)
    assert first.to_json() == labelled("out_ap.txt", "frame")
    assert first.auth_tag == HOST_CLOSE_TAG == labelled("out_other.txt", "host seq1 close tag")
    assert labelled("out_ap.txt", "manual tag") == HOST_CLOSE_TAG
    # The request is built with its input keys right, left, as upstream's probe did.
    message = DispatchOperation(dispatch('{"right":22,"left":20}'))
    second = host.seal(message)
    assert second.to_json() == labelled("out_other.txt", "host seq2 dispatch frame")
    assert second.auth_tag == HOST_DISPATCH_TAG
    assert labelled("out_ap.txt", "worker open") == "Ok(())"
    assert worker.open(first) == CLOSE
    assert worker.open(second) == message


def test_worker_frame_is_the_probe_line() -> None:
    _, worker = _pair()
    frame = worker.seal(CLOSE)
    assert frame.to_json() == labelled("out_ap.txt", "worker frame")
    assert frame.auth_tag == WORKER_CLOSE_TAG == labelled("out_ap.txt", "manual worker tag")


def test_host_ledger_reconcile_tag() -> None:
    host = SessionAuthenticator("worker-1", KEY_0D, SessionRole.HOST)
    request = OperationReconcileRequest(
        session_id="worker-1",
        request_id="reconcile-1",
        tool="release.publish",
        operation_key="release-2026-1",
    )
    assert host.seal(ReconcileOperation(request)).auth_tag == LEDGER_RECONCILE_TAG


def test_frame_line_round_trip() -> None:
    line = labelled("out_other.txt", "host seq2 dispatch frame")
    frame = AuthenticatedFrame.from_json_line(line)
    assert frame.to_json_line() == line


def test_bootstrap_is_the_probe_hex() -> None:
    assert labelled("out_ap.txt", "bootstrap hex") == BOOTSTRAP_HEX
    assert PipeBootstrap("session-1", KEY_0D).encode().hex() == BOOTSTRAP_HEX
    decoded, rest = PipeBootstrap.decode(bytes.fromhex(BOOTSTRAP_HEX))
    assert (decoded.session_id, decoded.key, rest) == ("session-1", KEY_0D, b"")


@cache
def _vectors() -> dict[str, dict[str, Any]]:
    return {test.id: test.to_json() for test in frame_vectors.build().tests}


@pytest.mark.parametrize(
    ("vector_id", "tag"),
    [
        ("tag.probe.host-close-seq-1", HOST_CLOSE_TAG),
        ("tag.probe.worker-close-seq-1", WORKER_CLOSE_TAG),
        ("tag.probe.host-dispatch-seq-2", HOST_DISPATCH_TAG),
        ("tag.host-ledger.reconcile", LEDGER_RECONCILE_TAG),
        ("tag.parsed-message-not-bytes", HOST_DISPATCH_TAG),
    ],
)
def test_tag_vectors_hold_the_known_answers(vector_id: str, tag: str) -> None:
    assert _vectors()[vector_id]["expected"]["tag"] == tag


def test_tag_vector_auth_text_is_the_probe_guess() -> None:
    expected = _vectors()["tag.probe.host-close-seq-1"]["expected"]
    assert expected["auth_payload"] == labelled("out_ap.txt", "auth payload guess")


def test_number_profiles_give_different_tags() -> None:
    ap = _vectors()["tag.numbers.ap"]["expected"]
    f64 = _vectors()["tag.numbers.f64"]["expected"]
    assert '{"a":1.50}' in ap["auth_payload"] and '{"a":1.5}' in f64["auth_payload"]
    assert ap["tag"] != f64["tag"]


def test_bootstrap_and_trace_vectors_hold_probe_values() -> None:
    assert _vectors()["bootstrap.probe.encode"]["expected"]["bytes"] == BOOTSTRAP_HEX
    steps = _vectors()["trace.probe.close-then-dispatch"]["expected"]["steps"]
    assert steps[0]["result"]["frame"] == labelled("out_ap.txt", "frame")
    assert steps[1]["result"]["frame"] == labelled("out_other.txt", "host seq2 dispatch frame")


@pytest.mark.parametrize("section", ["f64", "ap"])
def test_probe_syntax_rows(section: str) -> None:
    for label, vector_id in (
        ("seq 0", "trace.probe.sequence-zero"),
        ("uppercase tag", "trace.probe.uppercase-tag"),
    ):
        step = _vectors()[vector_id]["expected"]["steps"][0]
        assert step["error"] == error_code(labelled("out_other.txt", label, section=section))


def test_message_json_rows_decode_and_re_encode() -> None:
    for label in (
        "dispatch msg json",
        "compensate msg json",
        "compensation result json",
        "operation result json",
        "reconcile msg json",
        "reconciled msg json",
    ):
        line = labelled("out_ap.txt", label)
        decoded = decode_message_line(line)
        assert encode_message_line(decoded) == line
        assert json.loads(line)["type"] == decoded.kind
