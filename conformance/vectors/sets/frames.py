# ruff: noqa: E501  (the header lines below are kept whole)
"""Vectors for worker messages, authenticated frames and the private-pipe bootstrap
(docs/spec/messages.md WM-n, docs/spec/frames.md FR-n).

The cases are rows of ``conformance/cases/frames.toml``, each with its stated provenance.
Groups: ``message-line`` (decode a WorkerMessage line, re-encode it), ``frame-tag`` (the tag
and the exact text it covers), ``frame-trace`` (seal/open traces run by
``rescind.conformance.interpreters.frame_trace``), ``bootstrap`` (encode and decode the binary
bootstrap). The frames a trace opens were sealed with the reference when the rows were
written, so every tag in an input is either genuine or deliberately broken in the way the
comment says; ``sealed`` makes new ones.
"""

from __future__ import annotations

import json
from typing import Any

from rescind.conformance import cases
from rescind.conformance.cases import CaseRow, CaseTable, Family
from rescind.conformance.interpreters.frame_lines import run_bootstrap, run_message, run_tag
from rescind.conformance.interpreters.frame_trace import run_frame_trace
from rescind.conformance.precedence import PROTOCOL
from rescind.conformance.provenance import splash_code
from rescind.conformance.vectors.format import Flag, VectorFile
from rescind.conformance.vectors.sets._precedence import (
    FLAG,
    NOTE,
    Faults,
    last_step,
    pair_rows,
    trace_test,
)
from rescind.conformance.vectors.sets._tabled import Computation, tabled_groups
from rescind.conformance.vectors.sets._trace_cases import trace_builder
from rescind.reference.errors import RescindError
from rescind.reference.frames import SessionRole, compute_tag
from rescind.reference.numbers import NumberMode
from rescind.reference.wirejson import read_document
from rescind.reference.worker_message import message_from_node

TOPIC = "frames"
KEY_07 = "07" * 32


def sealed(
    sequence: int, message: str, sender: str = "host", key: str = KEY_07, session: str = "session-1"
) -> str:
    """A frame whose tag the reference computed: for writing rows and upstream-test ports."""
    mode = NumberMode.AP
    parsed = message_from_node(read_document(message, mode), mode)
    tag = compute_tag(bytes.fromhex(key), SessionRole(sender), sequence, session, parsed)
    return f'{{"sequence":{sequence},"message":{message},"auth_tag":"{tag}"}}'


NOTES = [
    Flag(FLAG, *NOTE),
    Flag(
        "Boundary",
        "an off-by-one at a numeric limit (u16 max and max + 1) or a key check skipped",
        "a version past u16 read as a version error, or a tag computed under a weak or short key",
    ),
    Flag(
        "UpstreamProbe",
        "divergence from observed upstream behaviour",
        "frames or messages accepted by one side are refused by the other",
    ),
    Flag(
        "UpstreamKnownAnswer",
        "wrong encoding of the authenticated text or the bootstrap",
        "no frame authenticates between implementations",
    ),
    Flag(
        "StrictDecoding",
        "unknown or repeated fields accepted where upstream refuses them",
        "two readers act on different messages in the same bytes",
    ),
    Flag(
        "LenientDecoding",
        "forms upstream accepts are refused",
        "valid peers cannot talk to the implementation",
    ),
    Flag(
        "CheckOrder",
        "checks run in another order",
        "a different error is reported for the same input",
    ),
    Flag(
        "DuplicateKeyLastWins",
        "a repeated payload key resolved first-wins or rejected",
        "the two sides compute different tags and inputs",
    ),
    Flag(
        "PrefixPolicy",
        "the host ledger's cmp- rule applied to protocol messages",
        "valid messages are refused",
    ),
    Flag(
        "OpaqueBody",
        "bodies Rescind does not model re-encoded in another member order",
        "tags over invoke, result, cancel and cancellation_result frames differ",
    ),
    Flag(
        "SizeBound",
        "the 1 MiB bound off by one or measured on another text",
        "valid frames refused or oversized ones parsed",
    ),
    Flag(
        "NumberMode",
        "payload numbers re-encoded in another profile's layout",
        "tags and canonical inputs differ between implementations",
    ),
    Flag(
        "F64Profile",
        "informative splash-v5-f64 profile",
        "only implementations of that profile must match; splash-v5 implementations skip it",
    ),
    Flag(
        "ReserializedMessage",
        "the tag computed over the received bytes instead of the re-encoded message",
        "frames from senders with other spacing or key order fail to authenticate",
    ),
    Flag(
        "Reflection",
        "the opener computes the tag with its own role",
        "a frame can be reflected back to its sender",
    ),
    Flag(
        "Replay",
        "sequence checked with a window or not at all",
        "a captured frame is accepted again",
    ),
    Flag(
        "CounterOnFailure",
        "a counter advanced by a rejected frame",
        "one forged frame desynchronises the session",
    ),
    Flag(
        "SequenceEdge",
        "the u64 maximum used as a sequence",
        "counters wrap or saturate and frames repeat",
    ),
    Flag(
        "LongInteger",
        "an integer field parsed into an unbounded integer, or by a parser with a digit limit, before its range check",
        "a number thousands of digits long raises the parser's own error, or costs quadratic time, instead of the out-of-range decode error",
    ),
    Flag(
        "ByteLength",
        "a session id length counted in characters instead of UTF-8 bytes",
        "a session id of multi-byte text judged against the wrong bound: the wrong code, or a length byte that disagrees with the bytes sent",
    ),
]


_CLOSE = {"type": "close_session", "protocol_version": 5, "session_id": "session-1"}
_LAST = 2**64 - 1


def _bootstrap_bytes(document: dict[str, Any]) -> dict[str, Any]:
    sid = document["sid"]
    record = document["magic"] + bytes((document["version"], len(sid))) + sid + document["key"]
    return {"operation": "decode", "bytes": record.hex()}


def _long_sid(document: dict[str, Any], _: int) -> None:
    document["sid"] = document["sid"].ljust(129, b"s")


def _bad_utf8(document: dict[str, Any], _: int) -> None:
    document["sid"] = b"\xff" + document["sid"][1:]


def bootstrap_precedence() -> list[CaseRow]:
    """EP-12's pairs: a bootstrap record with two of its fields broken."""
    return pair_rows(
        Faults(
            "frames.bootstrap",
            "bootstrap",
            lambda: {"magic": b"SPLPBOOT", "version": 1, "sid": b"session-1", "key": b"\x07" * 32},
            {
                "magic": lambda document, _: document.update(magic=b"SPLPBOOX"),
                "version": lambda document, _: document.update(version=2),
                "length": _long_sid,
                "utf8": _bad_utf8,
                "token": lambda document, _: document.update(sid=document["sid"].upper()),
                "weak_key": lambda document, _: document.update(key=bytes(32)),
            },
            _bootstrap_bytes,
            run_bootstrap,
            splash_code(
                PROTOCOL,
                "PrivatePipeWorkerBootstrap::read_from",
                note="the order of the reads and checks in the function; read, not run (EP-12)",
            ),
        )
    )


def _frame_trace(document: dict[str, Any]) -> dict[str, Any]:
    """The worker opens one frame from the host; its tag is the genuine one unless a fault
    replaced it (with one computed under another key, or a malformed one)."""
    incoming = document["next_incoming"]
    sequence = document["sequence"]
    if sequence is None:
        offset = document["offset"]
        sequence = incoming + offset if incoming + offset <= _LAST else incoming - offset
    message = json.dumps(document["message"], separators=(",", ":"))
    try:
        tag = json.loads(sealed(sequence, message, key=document["tag_key"]))["auth_tag"]
    except RescindError:  # an invalid message has no genuine tag; any well-formed one will do
        tag = "ab" * 32
    if document["upper_tag"]:
        tag = tag.upper()
    frame = f'{{"sequence":{sequence},"message":{message},"auth_tag":"{tag}"}}'
    worker = {"role": "worker", "session_id": "session-1", "key": KEY_07}
    if incoming != 1:
        worker["next_incoming"] = incoming
    return {
        "setup": {"authenticators": {"worker": worker}},
        "steps": [{"call": "open", "args": {"by": "worker", "frame": frame}}],
    }


def _message(name: str, value: object) -> Any:
    def fault(document: dict[str, Any], _: int) -> None:
        document["message"][name] = value

    return fault


def frame_precedence() -> list[CaseRow]:
    """EP-13's pairs: one frame the worker opens, with two of its checks broken."""
    return pair_rows(
        Faults(
            "frames.open",
            "frame.open",
            lambda: {
                "sequence": None,
                "offset": 0,
                "next_incoming": 1,
                "message": dict(_CLOSE),
                "tag_key": KEY_07,
                "upper_tag": False,
            },
            {
                "sequence_zero": lambda document, _: document.update(sequence=0),
                "message": _message("protocol_version", 4),
                "tag_format": lambda document, _: document.update(upper_tag=True),
                "tag": lambda document, _: document.update(tag_key="08" * 32),
                "session": _message("session_id", "session-2"),
                "sequence_expected": lambda document, _: document.update(offset=1),
                "sequence_exhausted": lambda document, _: document.update(next_incoming=_LAST),
            },
            _frame_trace,
            last_step(run_frame_trace),
            splash_code(
                PROTOCOL,
                "SessionAuthenticator::open",
                "AuthenticatedWorkerMessage::validate_syntax",
                note="the order of the checks in these functions; read, not run (EP-13)",
            ),
        )
    )


def _seal_trace(document: dict[str, Any]) -> dict[str, Any]:
    """The host seals one dispatch message (its text payload long past 1 MiB when the size
    fault is on)."""
    prefix = (
        '{"type":"dispatch_operation","request":{"protocol_version":'
        f'{document["version"]},"session_id":"{document["session"]}","request_id":"d",'
        '"tool":"t","operation_key":"k","payload":{"format":"text","value":"'
    )
    count = 1_048_400 if document["big"] else 1
    message = {"prefix": prefix, "repeat": "x", "count": count, "suffix": '"}}}'}
    host: dict[str, Any] = {"role": "host", "session_id": "session-1", "key": KEY_07}
    if document["next_outgoing"] != 1:
        host["next_outgoing"] = document["next_outgoing"]
    return {
        "setup": {"authenticators": {"host": host}},
        "steps": [{"call": "seal", "args": {"by": "host", "message": message}}],
    }


def seal_precedence() -> list[CaseRow]:
    """EP-19's pairs: one message the host seals, with two of its checks broken."""
    return pair_rows(
        Faults(
            "frames.seal",
            "frame.seal",
            lambda: {"version": 5, "session": "session-1", "big": False, "next_outgoing": 1},
            {
                "message": lambda document, _: document.update(version=4),
                "session": lambda document, _: document.update(session="session-2"),
                "sequence_exhausted": lambda document, _: document.update(next_outgoing=_LAST),
                "size": lambda document, _: document.update(big=True),
            },
            _seal_trace,
            last_step(run_frame_trace),
            splash_code(
                PROTOCOL,
                "SessionAuthenticator::seal",
                note="the order of the checks in the function; read, not run (EP-19)",
            ),
        )
    )


# A session id of multi-byte UTF-8 (FR-13, FR-14): the length byte counts bytes, so 128 bytes
# of 2-byte characters pass the length and UTF-8 checks and fail the token rule, and 129 bytes
# in 128 characters fail the length before anything reads them as text.
_BOOT_KEY = b"\x0d" * 32
_BOOTSTRAP_CODE = splash_code(
    PROTOCOL,
    "PrivatePipeWorkerBootstrap::read_from",
    "PrivatePipeWorkerBootstrap::write_to",
    "validate_token",
    note="the length byte and MAX_TOKEN_BYTES count bytes (str::len); the token rule is a byte grammar",
)


def bootstrap_multibyte() -> list[CaseRow]:
    """The bootstrap's session id bound with 2-byte characters, decoded and encoded."""
    at = "\u00e9" * 64
    over = "a" * 127 + "\u00e9"
    rows = []
    for name, sid, why in (
        (
            "128-bytes-2byte",
            at,
            "128 bytes in 64 characters: the length and UTF-8 pass, the token rule refuses",
        ),
        (
            "129-bytes-in-128-chars",
            over,
            "129 bytes in 128 characters: the length byte is refused first",
        ),
    ):
        raw = sid.encode("utf-8")
        record = b"SPLPBOOT" + bytes((1, len(raw))) + raw + _BOOT_KEY
        rows.append(
            CaseRow(
                f"bootstrap.session-id-{name}",
                "FR-14",
                f"a session id of {why}",
                {"operation": "decode", "bytes": record.hex()},
                _BOOTSTRAP_CODE,
                result="invalid",
                flags=("ByteLength", "Boundary"),
            )
        )
        rows.append(
            CaseRow(
                f"bootstrap.encode-session-id-{name}",
                "FR-13",
                f"the encoder refuses a session id of {len(raw)} bytes in {len(sid)} characters: not a token",
                {"operation": "encode", "session_id": sid, "key": _BOOT_KEY.hex()},
                _BOOTSTRAP_CODE,
                result="invalid",
                flags=("ByteLength", "Boundary"),
            )
        )
    return rows


FAMILIES: dict[str, Family] = {
    "seal-precedence": seal_precedence,
    "bootstrap-precedence": bootstrap_precedence,
    "frame-precedence": frame_precedence,
    "bootstrap-multibyte": bootstrap_multibyte,
}


def build(source: CaseTable | None = None) -> VectorFile:
    return VectorFile(
        topic=TOPIC,
        header=(
            "Worker messages, authenticated frames and the private-pipe bootstrap (docs/spec/messages.md, docs/spec/frames.md).",
            "Keys and bootstrap bytes are hex; a text given as {prefix, repeat, count, suffix} is prefix + repeat*count + suffix.",
            "Tests flagged F64Profile apply to the splash-v5-f64 profile only.",
        ),
        notes=NOTES,
        groups=tabled_groups(
            source or cases.load(TOPIC, FAMILIES),
            {
                "message-line": Computation(run_message),
                "frame-tag": Computation(run_tag),
                "frame-trace": trace_builder(run_frame_trace, ("profile", "authenticators")),
                "bootstrap": Computation(run_bootstrap),
                "bootstrap-precedence": Computation(run_bootstrap),
                "frame-precedence": trace_test(run_frame_trace),
            },
        ),
        test_schema={"input": {"type": "object"}, "expected": {"type": "object"}},
    )
