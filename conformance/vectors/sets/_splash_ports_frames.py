"""Splash protocol tests of message lines, authenticated frames and the private-pipe bootstrap
(``crates/splash-protocol/src/lib.rs``), in the frames topic's three vocabularies
(docs/spec/frames.md): message lines, frame traces and bootstrap byte strings.

Upstream's helpers: ``manifest()`` is session ``session-1`` with ``json_grant`` (math.add,
json, 2 calls, 128 bytes in and out, network origin math-api, no compensation);
``session_key(b)`` is 32 bytes ``b``. A frame trace opens frames by their text, so a frame
the trace seals is also written out here (``sealed``, the frames topic's recipe) and every
port checks that the sealed text is exactly that frame.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import attrs

from rescind.conformance.interpreters.frame_lines import run_bootstrap, run_message
from rescind.conformance.interpreters.frame_trace import run_frame_trace
from rescind.conformance.vectors.format import VectorTest
from rescind.conformance.vectors.sets._splash_port_support import (
    OK,
    PROTOCOL,
    PortDisagrees,
    SinglePort,
    cite,
    single_vector,
    words,
)
from rescind.conformance.vectors.sets._splash_ports_grants import JSON_GRANT
from rescind.conformance.vectors.sets._worker_fixtures import manifest, operation_result
from rescind.conformance.vectors.sets.frames import sealed
from rescind.reference.errors import RescindError

OPEN = '{"type":"open_session","manifest":' + manifest(JSON_GRANT) + "}"
CLOSE = '{"type":"close_session","protocol_version":5,"session_id":"session-1"}'
CANCEL = (
    '{"type":"cancel","request":{"protocol_version":5,"session_id":"session-1",'
    '"cancellation_id":"cancel-1","request_id":"request-1","tool":"math.add"}}'
)
CANCELLED_UNSUPPORTED = (
    '{"type":"cancellation_result","result":{"protocol_version":5,"session_id":"session-1",'
    '"cancellation_id":"cancel-1","request_id":"request-1","tool":"math.add",'
    '"outcome":"unsupported"}}'
)
BAD_SESSION_INVOKE = (
    '{"type":"invoke","invocation":{"protocol_version":5,"session_id":"bad session",'
    '"request_id":"request-1","tool":"math.add","payload":{"format":"json",'
    '"value":{"left":20,"right":22}}}}'
)
RECONCILE = (
    '{"type":"reconcile_operation","request":{"protocol_version":5,"session_id":"session-1",'
    '"request_id":"reconcile-1","tool":"text.remote","operation_key":"operation-1"}}'
)


def _reconciled(status: str) -> str:
    body = operation_result(status, key="operation-1", tool="text.remote", request_id="reconcile-1")
    return '{"type":"reconciled_operation","result":' + body + "}"


RECONCILED = _reconciled('{"state":"succeeded","payload":{"format":"json","value":{"status":"done"}}}')  # fmt: skip

KEY_07 = "07" * 32
KEY_13 = "0d" * 32
KEY_14 = "0e" * 32
KEY_17 = "11" * 32
MAGIC = b"SPLPBOOT".hex()
SESSION_HEX = b"session-1".hex()


def _bootstrap(key: str) -> str:
    """Upstream's encoding of session-1 and ``key`` (FR-13), byte by byte."""
    return MAGIC + "01" + "09" + SESSION_HEX + key


def _with_byte(data: str, index: int, byte: str) -> str:
    return data[: 2 * index] + byte + data[2 * index + 2 :]


def _party(role: str, key: str) -> dict[str, Any]:
    return {"role": role, "session_id": "session-1", "key": key}


def _st(call: str, by: str, **args: Any) -> dict[str, Any]:
    return {"call": call, "args": {"by": by, **args}}


def _message_of(line: str) -> str:
    """A message line as ``open`` re-encodes it: compact, in field order."""
    return str(run_message({"line": line})["encoded"])


# -- single requests: message lines and bootstrap bytes -----------------------------------------


def _single(
    test: str,
    rule: str,
    comment: str,
    body: dict[str, Any],
    intended: str,
    suffix: str = "",
    holds: Callable[[Mapping[str, Any]], bool] | None = None,
) -> SinglePort:
    return SinglePort(test, PROTOCOL, rule, comment, body, intended, suffix, holds=holds)


MESSAGE_PORTS = [
    _single(
        "worker_messages_round_trip_through_bounded_json_frames",
        "WM-2",
        "upstream asserts: open_session with manifest() encodes to a line that decodes to the "
        "same message; here the line re-encodes to itself",
        {"line": OPEN},
        OK,
        holds=lambda answer: answer["encoded"] == OPEN,
    ),
    _single(
        "frame_decoding_validates_message_headers",
        "WM-9",
        "upstream asserts: an invoke line whose session_id is 'bad session' is invalid_token "
        "(field session id; the field is not pinned, details are informative)",
        {"line": BAD_SESSION_INVOKE},
        "invalid_token",
    ),
    _single(
        "authenticated_reconciliation_binds_status_to_the_requested_operation",
        "WM-7",
        "upstream asserts: a reconciliation result failed with an empty message is "
        "invalid_operation_failure",
        {"line": _reconciled('{"state":"failed","message":""}')},
        "invalid_operation_failure",
        ".empty-failure",
    ),
    _single(
        "authenticated_reconciliation_binds_status_to_the_requested_operation",
        "WM-7",
        "upstream asserts: a reconciliation result succeeded with the JSON payload 42 is "
        "invalid_json_envelope",
        {"line": _reconciled('{"state":"succeeded","payload":{"format":"json","value":42}}')},
        "invalid_json_envelope",
        ".scalar-success",
    ),
]

GOOD_13 = _bootstrap(KEY_13)
GOOD_14 = _bootstrap(KEY_14)
ROUND_TRIP = "private_pipe_bootstrap_round_trips_before_the_opening_frame"
MALFORMED = "private_pipe_bootstrap_rejects_malformed_or_weak_input"
LENGTH_AT = 9
"""Byte offset of the length byte (after 8 magic bytes and the version)."""

BOOTSTRAP_PORTS = [
    _single(
        ROUND_TRIP,
        "FR-13",
        "upstream asserts: the bootstrap of session-1 and key 32 x 13 is 8 + 2 + 9 + 32 bytes",
        {"operation": "encode", "session_id": "session-1", "key": KEY_13},
        OK,
        ".encode",
        lambda answer: len(answer["bytes"]) == 2 * (8 + 2 + 9 + 32),
    ),
    _single(
        ROUND_TRIP,
        "FR-13",
        "upstream asserts: followed by the bytes of next-json-frame, it decodes to session-1 "
        "and leaves exactly next-json-frame unread. Not pinned: the redacted debug text",
        {"operation": "decode", "bytes": GOOD_13 + b"next-json-frame".hex()},
        OK,
        ".decode",
        lambda answer: (
            answer["session_id"] == "session-1" and answer["rest"] == b"next-json-frame".hex()
        ),
    ),
    _single(
        MALFORMED,
        "FR-14",
        "upstream asserts: the first magic byte with its low bit flipped is InvalidMagic",
        {"operation": "decode", "bytes": _with_byte(GOOD_14, 0, "52")},
        "invalid_bootstrap_magic",
        ".magic",
    ),
    _single(
        MALFORMED,
        "FR-14",
        "upstream asserts: version byte 2 is UnsupportedVersion(2)",
        {"operation": "decode", "bytes": _with_byte(GOOD_14, 8, "02")},
        "unsupported_bootstrap_version",
        ".version",
    ),
    _single(
        MALFORMED,
        "FR-14",
        "upstream asserts: length byte 0 is InvalidSessionIdLength (actual 0, maximum 128)",
        {"operation": "decode", "bytes": _with_byte(GOOD_14, LENGTH_AT, "00")},
        "invalid_session_id_length",
        ".empty-session-id",
    ),
    _single(
        MALFORMED,
        "FR-14",
        "upstream asserts: a first session id byte 0xff is InvalidSessionIdEncoding",
        {"operation": "decode", "bytes": _with_byte(GOOD_14, LENGTH_AT + 1, "ff")},
        "invalid_session_id_encoding",
        ".session-id-encoding",
    ),
    _single(
        MALFORMED,
        "FR-14",
        "upstream asserts: a first session id byte ' ' is invalid_token (session id)",
        {"operation": "decode", "bytes": _with_byte(GOOD_14, LENGTH_AT + 1, "20")},
        "invalid_token",
        ".session-id-token",
    ),
    _single(
        MALFORMED,
        "FR-14",
        "upstream asserts: an all-zero key is WeakSessionKey",
        {"operation": "decode", "bytes": MAGIC + "01" + "09" + SESSION_HEX + "00" * 32},
        "weak_session_key",
        ".weak-key",
    ),
    _single(
        MALFORMED,
        "FR-14",
        "upstream asserts: without its last byte the stream ends early (an I/O unexpected "
        "end of file; Rescind's code bootstrap_truncated, FR-14)",
        {"operation": "decode", "bytes": GOOD_14[:-2]},
        "bootstrap_truncated",
        ".truncated",
    ),
    _single(
        "authenticated_frames_reject_wrong_session_keys_without_advancing_state",
        "FR-13",
        "upstream asserts: an all-zero session key is WeakSessionKey; here the bootstrap "
        "encoder is the entry point that builds a session key. Not pinned: a 31-byte key is "
        "InvalidSessionKeyLength (no vocabulary builds a key of another length)",
        {"operation": "encode", "session_id": "session-1", "key": "00" * 32},
        "weak_session_key",
        ".weak-key",
    ),
]


# -- frame traces -------------------------------------------------------------------------------


@attrs.frozen
class FramePort:
    test: str
    rule: str
    comment: str
    parties: dict[str, Any]
    steps: list[tuple[str, dict[str, Any]]]
    """(the outcome upstream asserts, the trace step)."""
    answers: dict[int, dict[str, Any]] = attrs.field(factory=dict)
    """By step index, the answer upstream asserts (a sealed frame, an opened message)."""
    suffix: str = ""
    details: dict[int, dict[str, Any]] = attrs.field(factory=dict)
    """By step index, error details upstream asserts."""

    def trace(self) -> dict[str, Any]:
        return {"setup": {"authenticators": self.parties}, "steps": [s for _, s in self.steps]}


def _pair(key: str) -> dict[str, Any]:
    return {"host": _party("host", key), "worker": _party("worker", key)}


OPEN_07 = sealed(1, OPEN, key=KEY_07)
CLOSE_FROM_WORKER_07 = sealed(1, CLOSE, sender="worker", key=KEY_07)
TAMPERED_07 = json.dumps(
    {**json.loads(OPEN_07), "message": json.loads(CLOSE)}, separators=(",", ":")
)
OPEN_13 = sealed(1, OPEN, key=KEY_13)
OPEN_17 = sealed(1, OPEN, key=KEY_17)
CANCEL_17 = sealed(2, CANCEL, key=KEY_17)
CANCELLED_17 = sealed(1, CANCELLED_UNSUPPORTED, sender="worker", key=KEY_17)
RECONCILE_07 = sealed(1, RECONCILE, key=KEY_07)
RECONCILED_07 = sealed(1, RECONCILED, sender="worker", key=KEY_07)

FRAME_PORTS = [
    FramePort(
        ROUND_TRIP,
        "FR-6",
        "upstream asserts: the worker authenticator the bootstrap of key 32 x 13 gives "
        "opens the host's open_session frame",
        _pair(KEY_13),
        [(OK, _st("seal", "host", message=OPEN)), (OK, _st("open", "worker", frame=OPEN_13))],
        {0: {"frame": OPEN_13}, 1: {"message": _message_of(OPEN)}},
        ".opening-frame",
    ),
    FramePort(
        "authenticated_frames_round_trip_with_directional_sequence_numbers",
        "FR-5",
        "upstream asserts: the host's open_session frame, written as a line and read back, "
        "opens at the worker as open_session; the worker's close_session frame opens at the "
        "host",
        _pair(KEY_07),
        [
            (OK, _st("seal", "host", message=OPEN)),
            (OK, _st("open", "worker", frame=OPEN_07)),
            (OK, _st("seal", "worker", message=CLOSE)),
            (OK, _st("open", "host", frame=CLOSE_FROM_WORKER_07)),
        ],
        {
            0: {"frame": OPEN_07},
            1: {"message": _message_of(OPEN)},
            2: {"frame": CLOSE_FROM_WORKER_07},
            3: {"message": CLOSE},
        },
    ),
    FramePort(
        "directional_authentication_halves_preserve_sequences_for_multiplexing",
        "FR-5",
        "upstream asserts: through split sealer and opener halves, the host's open_session "
        "(sequence 1) and cancel (2) open at the worker, and the worker's "
        "cancellation_result (its sequence 1) opens at the host. Not pinned: that the halves "
        "are Send, and the halves themselves (one authenticator per side here)",
        _pair(KEY_17),
        [
            (OK, _st("seal", "host", message=OPEN)),
            (OK, _st("open", "worker", frame=OPEN_17)),
            (OK, _st("seal", "host", message=CANCEL)),
            (OK, _st("open", "worker", frame=CANCEL_17)),
            (OK, _st("seal", "worker", message=CANCELLED_UNSUPPORTED)),
            (OK, _st("open", "host", frame=CANCELLED_17)),
        ],
        {
            0: {"frame": OPEN_17},
            1: {"message": _message_of(OPEN)},
            2: {"frame": CANCEL_17},
            3: {"message": _message_of(CANCEL)},
            4: {"frame": CANCELLED_17},
            5: {"message": _message_of(CANCELLED_UNSUPPORTED)},
        },
    ),
    FramePort(
        "authenticated_frames_reject_tampering_reflection_and_replay",
        "FR-10",
        "upstream asserts: the host's open_session frame with its message replaced by "
        "close_session is invalid_authentication_tag at the worker; the host opening its own "
        "frame is invalid_authentication_tag; the worker opens the frame once, and again is "
        "unexpected_sequence (expected 2, actual 1)",
        _pair(KEY_07),
        [
            (OK, _st("seal", "host", message=OPEN)),
            ("invalid_authentication_tag", _st("open", "worker", frame=TAMPERED_07)),
            ("invalid_authentication_tag", _st("open", "host", frame=OPEN_07)),
            (OK, _st("open", "worker", frame=OPEN_07)),
            ("unexpected_sequence", _st("open", "worker", frame=OPEN_07)),
        ],
        {0: {"frame": OPEN_07}},
        details={4: {"expected": 2, "actual": 1}},
    ),
    FramePort(
        "authenticated_frames_reject_wrong_session_keys_without_advancing_state",
        "FR-8",
        "upstream asserts: a worker holding key 32 x 8 refuses the host's key-7 frame "
        "(invalid_authentication_tag) and a worker holding key 7 opens it. The trace also "
        "checks that the refusal moved no counter (the test's 'without advancing state')",
        {
            "host": _party("host", KEY_07),
            "wrong": _party("worker", "08" * 32),
            "worker": _party("worker", KEY_07),
        },
        [
            (OK, _st("seal", "host", message=OPEN)),
            ("invalid_authentication_tag", _st("open", "wrong", frame=OPEN_07)),
            (OK, _st("counters", "wrong")),
            (OK, _st("open", "worker", frame=OPEN_07)),
        ],
        {0: {"frame": OPEN_07}, 2: {"next_outgoing": 1, "next_incoming": 1}},
    ),
    FramePort(
        "authenticated_reconciliation_binds_status_to_the_requested_operation",
        "FR-6",
        "upstream asserts: the host's reconcile_operation frame (reconcile-1, text.remote, "
        "operation-1) opens at the worker as that request, and the worker's "
        "reconciled_operation frame (succeeded, {status: done}) opens at the host as that "
        "result. Not pinned: matches_request (the journal and ledger topics pin the binding)",
        _pair(KEY_07),
        [
            (OK, _st("seal", "host", message=RECONCILE)),
            (OK, _st("open", "worker", frame=RECONCILE_07)),
            (OK, _st("seal", "worker", message=RECONCILED)),
            (OK, _st("open", "host", frame=RECONCILED_07)),
        ],
        {
            0: {"frame": RECONCILE_07},
            1: {"message": RECONCILE},
            2: {"frame": RECONCILED_07},
            3: {"message": RECONCILED},
        },
        ".frames",
    ),
]


def _check_frames(port: FramePort, run: dict[str, Any]) -> None:
    outcomes = [OK if "result" in step else str(step["error"]) for step in run["steps"]]
    intended = [outcome for outcome, _ in port.steps]
    if outcomes != intended:
        raise PortDisagrees(f"{port.test}: upstream asserts {intended}, reference {outcomes}")
    for index, answer in port.answers.items():
        if run["steps"][index]["result"] != answer:
            raise PortDisagrees(f"{port.test} step {index}: the answer is not {answer!r}")
    for index, details in port.details.items():
        actual = run["steps"][index]["details"]
        if any(actual.get(key) != value for key, value in details.items()):
            raise PortDisagrees(f"{port.test} step {index}: details {actual!r}, not {details!r}")


def _error(error: RescindError) -> dict[str, Any]:
    return {"error": error.code}


def message_vectors(prefix: str) -> list[VectorTest]:
    return [single_vector(prefix, port, run_message, _error) for port in MESSAGE_PORTS]


def bootstrap_vectors(prefix: str) -> list[VectorTest]:
    return [single_vector(prefix, port, run_bootstrap, _error) for port in BOOTSTRAP_PORTS]


def trace_vectors(prefix: str) -> list[VectorTest]:
    built = []
    for port in FRAME_PORTS:
        trace = port.trace()
        expected = run_frame_trace(trace)
        _check_frames(port, expected)
        built.append(
            VectorTest(
                f"{prefix}.{words(port.test)}{port.suffix}",
                port.rule,
                port.comment,
                trace,
                expected,
                "valid",
                provenance=cite(PROTOCOL, port.test),
            )
        )
    return built
