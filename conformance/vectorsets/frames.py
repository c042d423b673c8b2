# ruff: noqa: E501  (the tables below keep one vector per line)
"""Vectors for worker messages, authenticated frames and the private-pipe bootstrap
(docs/spec/messages.md WM-n, docs/spec/frames.md FR-n).

Groups: ``message-line`` (decode a WorkerMessage line, re-encode it), ``frame-tag`` (the tag
and the exact text it covers), ``frame-trace`` (seal/open traces run by
``rescind.conformance.interpreters.frame_trace``), ``bootstrap`` (encode and decode the binary bootstrap).
Frames that a trace opens are produced here with the reference, so every tag in an input is
either genuine or deliberately broken in the way the comment says.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from rescind.conformance.interpreters.frame_trace import run_frame_trace
from rescind.conformance.provenance import Provenance, derived, observed
from rescind.conformance.vectorformat import Flag, VectorFile, VectorGroup, VectorTest
from rescind.conformance.vectorsets._worker_fixtures import (
    GRANT_MATH,
    RUNNING,
    compensate,
    compensation_result,
    dispatch,
    failed,
    manifest,
    operation_result,
    reconcile,
    succeeded,
)
from rescind.reference.digests import frame_auth_payload
from rescind.reference.errors import RescindError
from rescind.reference.frames import U64_MAX, PipeBootstrap, SessionRole, compute_tag
from rescind.reference.numbers import NumberMode
from rescind.reference.wirejson import read_document
from rescind.reference.worker_message import (
    decode_message_line,
    encode_message_line,
    message_from_node,
    message_json,
)

TOPIC = "frames"
KEY_07 = "07" * 32
KEY_0D = "0d" * 32
CLOSE = '{"type":"close_session","protocol_version":5,"session_id":"session-1"}'
DISPATCH_MSG = '{"type":"dispatch_operation","request":' + dispatch() + "}"
DISPATCH_MSG_SPACED = '{ "request" : {"payload":{"value":{"right":22, "left":20},"format":"json"},"operation_key":"release-42-add","tool":"math.add","request_id":"dispatch-1","session_id":"session-1","protocol_version":5} , "type":"dispatch_operation"}'


def _msg(kind: str, body_key: str, body: str) -> str:
    return f'{{"type":"{kind}","{body_key}":{body}}}'


def _frame(sequence: int, message: str, tag: str) -> str:
    return f'{{"sequence":{sequence},"message":{message},"auth_tag":"{tag}"}}'


def _tag(
    key: str, sender: str, sequence: int, session: str, message: str, profile: str = "splash-v5"
) -> str:
    mode = NumberMode(profile)
    parsed = message_from_node(read_document(message, mode), mode)
    return compute_tag(bytes.fromhex(key), SessionRole(sender), sequence, session, parsed)


def _sealed(
    sequence: int, message: str, sender: str = "host", key: str = KEY_07, session: str = "session-1"
) -> str:
    return _frame(sequence, message, _tag(key, sender, sequence, session, message))


# -- message lines ------------------------------------------------------------------------------


def run_message(case: Mapping[str, Any]) -> dict[str, Any]:
    mode = NumberMode(case.get("profile", NumberMode.AP.profile))
    line = case["line"]
    text = (
        line
        if isinstance(line, str)
        else line["prefix"] + line["repeat"] * line["count"] + line["suffix"]
    )
    return {"encoded": encode_message_line(decode_message_line(text, mode))}


PROBE = ("UpstreamProbe",)
STRICT = ("StrictDecoding",)
LENIENT = ("LenientDecoding",)
ORDER = ("CheckOrder",)

Row = tuple[str, str, str, tuple[str, ...], str, dict[str, Any]]

_DUP_RID = '{"type":"dispatch_operation","request":{"protocol_version":5,"session_id":"s","request_id":"r","request_id":"r","tool":"t","operation_key":"k","payload":{"format":"json","value":{"a":1}}}}'

# fmt: off
MESSAGE_ROWS: list[Row] = [
    ("message.probe.dispatch", "WM-2", "valid", PROBE, "probe dispatch msg json", {"line": DISPATCH_MSG}),
    ("message.probe.compensate", "WM-2", "valid", PROBE, "probe compensate msg json", {"line": _msg("compensate_operation", "request", compensate())}),
    ("message.probe.compensation-result", "WM-2", "valid", PROBE, "probe compensation result json", {"line": _msg("compensation_result", "result", compensation_result(succeeded('{"undone":true}')))}),
    ("message.probe.operation-result", "WM-2", "valid", PROBE, "probe operation result json", {"line": _msg("operation_result", "result", operation_result(failed("no")))}),
    ("message.probe.reconcile", "WM-2", "valid", PROBE, "probe reconcile msg json", {"line": _msg("reconcile_operation", "request", reconcile())}),
    ("message.probe.reconciled", "WM-2", "valid", PROBE, "probe reconciled msg json", {"line": _msg("reconciled_operation", "result", operation_result('{"state":"cancelled"}', request_id="reconcile-1"))}),
    ("message.probe.close-session", "WM-10", "valid", PROBE, "close_session carries its two fields directly", {"line": CLOSE}),
    ("message.open-session-version-u16-max", "WM-5", "invalid", ("Boundary",), "a manifest whose protocol_version is 65535 fits a u16 and is refused as an unsupported version", {"line": _msg("open_session", "manifest", manifest(GRANT_MATH).replace('"protocol_version":5', '"protocol_version":65535'))}),
    ("message.open-session", "WM-1", "valid", (), "open_session carries a manifest", {"line": _msg("open_session", "manifest", manifest(GRANT_MATH))}),
    ("message.reordered-and-spaced", "WM-2", "valid", LENIENT, "tag after the body, fields reversed, whitespace: re-encoded in field order with sorted payload keys", {"line": DISPATCH_MSG_SPACED}),
    ("message.whitespace-after-commas", "WM-2", "valid", LENIENT, "whitespace after every comma and colon, before each key and value, is skipped", {"line": '{"type": "close_session", "protocol_version": 5, "session_id": "session-1"}'}),
    ("message.probe.dispatch-unknown-field", "WM-4", "invalid", (*PROBE, *STRICT), "the dispatch request denies unknown fields", {"line": '{"type":"dispatch_operation","request":{"protocol_version":5,"session_id":"s","request_id":"r","tool":"t","operation_key":"k","payload":{"format":"text","value":"x"},"extra":1}}'}),
    ("message.probe.reconcile-unknown-field", "WM-4", "valid", (*PROBE, *LENIENT), "the reconcile request ignores unknown fields", {"line": '{"type":"reconcile_operation","request":{"protocol_version":5,"session_id":"s","request_id":"r","tool":"t","operation_key":"k","extra":1}}'}),
    ("message.compensate-unknown-field", "WM-4", "invalid", STRICT, "the compensation request denies unknown fields", {"line": _msg("compensate_operation", "request", compensate()[:-1] + ',"extra":1}')}),
    ("message.compensation-result-unknown-field", "WM-4", "invalid", STRICT, "the compensation result denies unknown fields", {"line": _msg("compensation_result", "result", compensation_result(RUNNING)[:-1] + ',"extra":1}')}),
    ("message.operation-result-unknown-field", "WM-4", "valid", LENIENT, "an operation result ignores unknown fields", {"line": _msg("operation_result", "result", operation_result(RUNNING)[:-1] + ',"extra":1}')}),
    ("message.probe.close-session-version-4", "WM-5", "invalid", PROBE, "protocol version 4", {"line": '{"type":"close_session","protocol_version":4,"session_id":"s"}'}),
    ("message.probe.close-session-extra-field", "WM-1", "valid", (*PROBE, *LENIENT), "unknown keys beside the tag are ignored", {"line": '{"type":"close_session","protocol_version":5,"session_id":"s","extra":1}'}),
    ("message.probe.payload-duplicate-key", "WM-13", "valid", (*PROBE, "DuplicateKeyLastWins"), "a repeated key inside a payload value keeps the last value", {"line": '{"type":"dispatch_operation","request":{"protocol_version":5,"session_id":"s","request_id":"r","tool":"t","operation_key":"k","payload":{"format":"json","value":{"a":1,"a":2}}}}'}),
    ("message.probe.duplicate-request-id", "WM-4", "invalid", (*PROBE, *STRICT), "a repeated struct field", {"line": _DUP_RID}),
    ("message.duplicate-type", "WM-1", "invalid", STRICT, "a repeated tag", {"line": '{"type":"close_session","type":"close_session","protocol_version":5,"session_id":"s"}'}),
    ("message.duplicate-body", "WM-1", "invalid", STRICT, "a repeated body key", {"line": '{"type":"reconcile_operation","request":' + reconcile() + ',"request":' + reconcile() + "}"}),
    ("message.unknown-type", "WM-1", "invalid", STRICT, "an unknown message kind", {"line": '{"type":"shutdown","protocol_version":5,"session_id":"s"}'}),
    ("message.missing-type", "WM-1", "invalid", STRICT, "no tag", {"line": '{"protocol_version":5,"session_id":"s"}'}),
    ("message.type-case-sensitive", "WM-1", "invalid", STRICT, "kind names are case-sensitive", {"line": '{"type":"Close_Session","protocol_version":5,"session_id":"s"}'}),
    ("message.header-order", "WM-5", "invalid", ORDER, "version is checked before the tokens", {"line": '{"type":"reconcile_operation","request":{"protocol_version":4,"session_id":"S","request_id":"r","tool":"t","operation_key":"k"}}'}),
    ("message.bad-operation-key", "WM-5", "invalid", (), "operation key must be a token", {"line": _msg("reconcile_operation", "request", reconcile(key="release/42"))}),
    ("message.compensation-key-prefix", "WM-6", "invalid", (), "a compensation key needs cmp-", {"line": _msg("compensate_operation", "request", compensate(cmp_key="undo-1"))}),
    ("message.compensation-key-token-first", "WM-6", "invalid", ORDER, "CMP-x fails the token rule first", {"line": _msg("compensate_operation", "request", compensate(cmp_key="CMP-x"))}),
    ("message.compensation-bad-tenant", "WM-6", "invalid", (), "tenant scope must be a token", {"line": _msg("compensate_operation", "request", compensate(tenant="Tenant"))}),
    ("message.compensation-grant-fingerprint-uppercase", "WM-6", "invalid", (), "grant fingerprint must be lowercase hex", {"line": _msg("compensate_operation", "request", compensate(grant_fp="A" * 64))}),
    ("message.cmp-prefixed-operation-key", "WM-5", "valid", ("PrefixPolicy",), "the protocol accepts an operation key starting cmp-", {"line": _msg("dispatch_operation", "request", dispatch(key="cmp-x"))}),
    ("message.scalar-payload", "WM-7", "invalid", (), "a request payload must be an object or array", {"line": _msg("dispatch_operation", "request", dispatch("42"))}),
    ("message.result-empty-failure", "WM-7", "invalid", (), "a failure message must not be empty", {"line": _msg("operation_result", "result", operation_result(failed("")))}),
    ("message.result-scalar-success", "WM-7", "invalid", (), "a success payload must be an object or array", {"line": _msg("operation_result", "result", operation_result(succeeded("42")))}),
    ("message.compensate-scalar-payload", "WM-7", "invalid", (), "a compensation request payload must be an object or array, as a dispatch one", {"line": _msg("compensate_operation", "request", compensate("42"))}),
    ("message.compensate-payload-depth-33", "WM-7", "invalid", ("Boundary",), "a compensation request payload nested 33 deep is refused by the message check", {"line": _msg("compensate_operation", "request", compensate("[" * 33 + "]" * 33))}),
    ("message.compensation-result-key-prefix", "WM-6", "invalid", (), "a compensation result's key needs cmp- too: the binding header is checked on results as on requests", {"line": _msg("compensation_result", "result", compensation_result(RUNNING, cmp_key="undo-1"))}),
    ("message.compensation-result-empty-failure", "WM-7", "invalid", (), "a compensation result's failure message must not be empty", {"line": _msg("compensation_result", "result", compensation_result(failed("")))}),
    ("message.compensation-result-scalar-success", "WM-7", "invalid", (), "a compensation result's success payload must be an object or array", {"line": _msg("compensation_result", "result", compensation_result(succeeded("42")))}),
    ("message.status-pending", "WM-8", "invalid", STRICT, "pending is not a wire status", {"line": _msg("operation_result", "result", operation_result('{"state":"pending"}'))}),
    ("message.status-extra-and-tag-last", "WM-8", "valid", LENIENT, "extra keys in a status are ignored and the tag may come last", {"line": _msg("operation_result", "result", operation_result('{"x":1,"payload":{"value":{"b":1,"a":2},"format":"json"},"state":"succeeded"}'))}),
    ("message.cancel-opaque", "WM-9", "valid", ("OpaqueBody",), "cancel is carried with its members in arrival order", {"line": '{"type":"cancel","request":{"protocol_version":5,"session_id":"session-1","request_id":"r1","cancellation_id":"x1"}}'}),
    ("message.cancel-opaque-duplicate-field", "WM-9", "invalid", ("OpaqueBody", *STRICT), "an opaque body still refuses a repeated member, as upstream's typed struct does", {"line": '{"type":"cancel","request":{"protocol_version":5,"session_id":"session-1","request_id":"r1","request_id":"r2"}}'}),
    ("message.cancel-opaque-missing-session", "WM-9", "invalid", ("OpaqueBody", *STRICT), "an opaque body without session_id is a missing-field decode error, as for a typed struct", {"line": '{"type":"cancel","request":{"protocol_version":5,"request_id":"r1"}}'}),
    ("message.reconcile-extra-outer-key", "WM-1", "valid", LENIENT, "an unknown key beside the tag and the body of a body kind is ignored, as beside a direct kind's fields", {"line": '{"type":"reconcile_operation","request":' + reconcile() + ',"extra":1}'}),
    ("message.invoke-opaque-bad-version", "WM-9", "invalid", ("OpaqueBody",), "an opaque body still needs version 5", {"line": '{"type":"invoke","invocation":{"protocol_version":3,"session_id":"session-1","request_id":"r1","tool":"t","payload":{"format":"text","value":"x"}}}'}),
    ("message.close-session-version-5000-digits", "WM-10", "invalid", ("LongInteger",), "a 5,000-digit protocol_version does not fit a u16: a decode error, as for 65536", {"line": {"prefix": '{"type":"close_session","protocol_version":', "repeat": "5", "count": 5000, "suffix": ',"session_id":"s"}'}}),
    ("message.close-session-version-5000-digits-f64", "WM-10", "invalid", ("LongInteger", "F64Profile"), "the same line in splash-v5-f64, whose parser refuses the number as out of f64's range", {"line": {"prefix": '{"type":"close_session","protocol_version":', "repeat": "5", "count": 5000, "suffix": ',"session_id":"s"}'}, "profile": "splash-v5-f64"}),
    ("message.reconcile-version-5000-digits", "WM-5", "invalid", ("LongInteger",), "a request header's protocol_version of 5,000 digits is a decode error", {"line": {"prefix": '{"type":"reconcile_operation","request":{"protocol_version":', "repeat": "5", "count": 5000, "suffix": ',"session_id":"s","request_id":"r","tool":"t","operation_key":"k"}}'}}),
    ("message.invoke-opaque-version-5000-digits", "WM-9", "invalid", ("OpaqueBody", "LongInteger"), "an opaque body's protocol_version of 5,000 digits is a decode error too", {"line": {"prefix": '{"type":"invoke","invocation":{"protocol_version":', "repeat": "5", "count": 5000, "suffix": ',"session_id":"session-1","request_id":"r1","tool":"t","payload":{"format":"text","value":"x"}}}'}}),
    ("message.line-over-1-mib", "WM-11", "invalid", ("SizeBound",), "a line over 1 MiB is refused before parsing", {"line": {"prefix": CLOSE, "repeat": " ", "count": 1048577 - len(CLOSE), "suffix": ""}}),
    ("message.line-exactly-1-mib", "WM-11", "valid", ("SizeBound",), "a 1 MiB line (trailing spaces) is accepted", {"line": {"prefix": CLOSE, "repeat": " ", "count": 1048576 - len(CLOSE), "suffix": ""}}),
    ("message.numbers.ap", "WM-2", "valid", ("NumberMode",), "payload numbers re-encode per profile (splash-v5)", {"line": _msg("dispatch_operation", "request", dispatch('{"a":1.50,"b":1E2}'))}),
    ("message.numbers.f64", "WM-2", "valid", ("NumberMode", "F64Profile"), "the same line in splash-v5-f64", {"line": _msg("dispatch_operation", "request", dispatch('{"a":1.50,"b":1E2}')), "profile": "splash-v5-f64"}),
    ("message.numbers.f64-significand-at-u64", "WM-2", "valid", ("NumberMode", "F64Profile", "Boundary"), "splash-v5-f64: a fraction digit that makes the significand exactly u64::MAX is kept, one that would pass it is dropped", {"line": _msg("dispatch_operation", "request", dispatch('{"a":1.8446744073709551615,"b":1.8446744073709551616}')), "profile": "splash-v5-f64"}),
    ("message.reconcile-version-u16-max", "WM-5", "invalid", ("Boundary",), "protocol_version 65535 fits a u16 and is refused as an unsupported version", {"line": '{"type":"reconcile_operation","request":{"protocol_version":65535,"session_id":"s","request_id":"r","tool":"t","operation_key":"k"}}'}),
    ("message.reconcile-version-u16-max-plus-1", "WM-5", "invalid", ("Boundary",), "protocol_version 65536 does not fit a u16: a decode error, not a version error", {"line": '{"type":"reconcile_operation","request":{"protocol_version":65536,"session_id":"s","request_id":"r","tool":"t","operation_key":"k"}}'}),
    ("message.result-kind", "WM-1", "valid", (), "the result kind (a tool result) is a message kind of its own", {"line": '{"type":"result","result":{"protocol_version":5,"session_id":"session-1","request_id":"r1","status":{"state":"cancelled"}}}'}),
    ("message.session-id-not-a-string", "WM-5", "invalid", (), "a session id written as a number is a type error of the decoder", {"line": '{"type":"reconcile_operation","request":{"protocol_version":5,"session_id":5,"request_id":"r","tool":"t","operation_key":"k"}}'}),
    ("message.reserved-number-not-a-string", "WM-13", "invalid", ("NumberMode",), "in a payload value the reserved number key must hold a string (splash-v5)", {"line": _msg("dispatch_operation", "request", dispatch('{"n":{"$serde_json::private::Number":12}}'))}),
    ("message.reserved-number-then-member", "WM-13", "invalid", ("NumberMode",), "in a payload value nothing may follow the reserved number member (splash-v5)", {"line": _msg("dispatch_operation", "request", dispatch('{"n":{"$serde_json::private::Number":"1","a":2}}'))}),
    ("message.payload-extra-key", "WM-7", "valid", LENIENT, "a payload ignores keys beside format and value; they are not re-encoded", {"line": _msg("dispatch_operation", "request", dispatch().replace('"payload":{', '"payload":{"note":"x",'))}),
    ("message.reserved-number-object", "WM-13", "valid", ("NumberMode",), "an object holding only the reserved number key is that number in a payload value (splash-v5)", {"line": _msg("dispatch_operation", "request", dispatch('{"a":{"$serde_json::private::Number":"1.50"}}'))}),
]
# fmt: on


# -- frame tags ---------------------------------------------------------------------------------


def run_tag(case: Mapping[str, Any]) -> dict[str, Any]:
    mode = NumberMode(case.get("profile", NumberMode.AP.profile))
    parsed = message_from_node(read_document(case["message"], mode), mode)
    payload = frame_auth_payload(
        case["sender"], case["sequence"], case["session_id"], message_json(parsed)
    )
    tag = compute_tag(
        bytes.fromhex(case["key"]),
        SessionRole(case["sender"]),
        case["sequence"],
        case["session_id"],
        parsed,
    )
    return {"auth_payload": payload.decode("utf-8"), "tag": tag}


def _tag_case(
    key: str, sender: str, sequence: int, session: str, message: str, **extra: Any
) -> dict[str, Any]:
    return {
        "key": key,
        "sender": sender,
        "sequence": sequence,
        "session_id": session,
        "message": message,
        **extra,
    }


_LEDGER_RECONCILE = _msg(
    "reconcile_operation",
    "request",
    reconcile(session="worker-1", tool="release.publish", key="release-2026-1"),
)
_DECIMAL = _msg("dispatch_operation", "request", dispatch('{"a":1.50}'))

# fmt: off
TAG_ROWS: list[Row] = [
    ("tag.probe.host-close-seq-1", "FR-3", "valid", ("UpstreamKnownAnswer",), "key 32 x 07, host, sequence 1, close_session", _tag_case(KEY_07, "host", 1, "session-1", CLOSE)),
    ("tag.probe.worker-close-seq-1", "FR-3", "valid", ("UpstreamKnownAnswer",), "the same frame from the worker: the sender is bound", _tag_case(KEY_07, "worker", 1, "session-1", CLOSE)),
    ("tag.probe.host-dispatch-seq-2", "FR-3", "valid", ("UpstreamKnownAnswer",), "host dispatch at sequence 2 (input keys built right, left)", _tag_case(KEY_07, "host", 2, "session-1", DISPATCH_MSG)),
    ("tag.host-ledger.reconcile", "FR-3", "valid", ("UpstreamKnownAnswer",), "host ledger known answer: key 32 x 0d, session worker-1, reconcile_operation", _tag_case(KEY_0D, "host", 1, "worker-1", _LEDGER_RECONCILE)),
    ("tag.parsed-message-not-bytes", "FR-2", "valid", ("ReserializedMessage",), "spacing, member order and payload key order of the wire text do not change the tag", _tag_case(KEY_07, "host", 2, "session-1", DISPATCH_MSG_SPACED)),
    ("tag.numbers.ap", "FR-2", "valid", ("NumberMode",), "the tag covers payload numbers as the profile re-encodes them (1.50 kept)", _tag_case(KEY_07, "host", 1, "session-1", _DECIMAL)),
    ("tag.numbers.f64", "FR-2", "valid", ("NumberMode", "F64Profile"), "in splash-v5-f64 1.50 becomes 1.5 and the tag differs", _tag_case(KEY_07, "host", 1, "session-1", _DECIMAL, profile="splash-v5-f64")),
    ("tag.weak-key", "FR-4", "invalid", ("Boundary",), "an all-zero 32-byte key is weak: no tag is computed", _tag_case("00" * 32, "host", 1, "session-1", CLOSE)),
    ("tag.short-key", "FR-4", "invalid", ("Boundary",), "a 31-byte key has the wrong length: no tag is computed", _tag_case("07" * 31, "host", 1, "session-1", CLOSE)),
]
# fmt: on


# -- frame traces -------------------------------------------------------------------------------


def _party(
    role: str, key: str = KEY_07, session: str = "session-1", **counters: int
) -> dict[str, Any]:
    return {"role": role, "session_id": session, "key": key, **counters}


PAIR = {"host": _party("host"), "worker": _party("worker")}
F1 = _sealed(1, CLOSE)
F2 = _sealed(2, DISPATCH_MSG)
CANCEL = (
    '{"type":"cancel","request":{"protocol_version":5,"session_id":"session-1","request_id":"r1"}}'
)
TAMPERED = F2.replace('"right":22', '"right":23')
WRONG_SESSION_MSG = '{"type":"close_session","protocol_version":5,"session_id":"session-2"}'
BIG_DISPATCH = {
    "prefix": '{"type":"dispatch_operation","request":{"protocol_version":5,"session_id":"session-1","request_id":"d","tool":"t","operation_key":"k","payload":{"format":"text","value":"',
    "repeat": "x",
    "count": 1048400,
    "suffix": '"}}}',
}


def _st(call: str, by: str, **args: Any) -> dict[str, Any]:
    return {"call": call, "args": {"by": by, **args}}


def _trace(parties: dict[str, Any], *steps: dict[str, Any]) -> dict[str, Any]:
    return {"setup": {"authenticators": parties}, "steps": list(steps)}


# (id, rule, flags, comment, trace, intended step outcomes)
TraceRow = tuple[str, str, tuple[str, ...], str, dict[str, Any], tuple[str, ...]]

# fmt: off
TRACE_ROWS: list[TraceRow] = [
    ("trace.probe.close-then-dispatch", "FR-6", ("UpstreamKnownAnswer",), "the probe's two host frames, opened in order by the worker", _trace(PAIR, _st("seal", "host", message=CLOSE), _st("seal", "host", message=DISPATCH_MSG), _st("open", "worker", frame=F1), _st("open", "worker", frame=F2)), ("ok", "ok", "ok", "ok")),
    ("trace.reflection", "FR-9", ("Reflection",), "a host cannot open its own frame", _trace(PAIR, _st("open", "host", frame=F1), _st("open", "worker", frame=F1)), ("invalid_authentication_tag", "ok")),
    ("trace.replay", "FR-10", ("Replay",), "the same frame twice: expected 2, got 1", _trace(PAIR, _st("open", "worker", frame=F1), _st("open", "worker", frame=F1)), ("ok", "unexpected_sequence")),
    ("trace.out-of-order", "FR-10", ("Replay",), "sequence 2 before 1 is refused; in order both open", _trace(PAIR, _st("open", "worker", frame=F2), _st("open", "worker", frame=F1), _st("open", "worker", frame=F2)), ("unexpected_sequence", "ok", "ok")),
    ("trace.tamper-then-genuine", "FR-8", ("CounterOnFailure",), "a tampered payload fails; the genuine frames still open afterwards", _trace(PAIR, _st("open", "worker", frame=F1), _st("open", "worker", frame=TAMPERED), _st("open", "worker", frame=F2)), ("ok", "invalid_authentication_tag", "ok")),
    ("trace.wrong-key", "FR-8", ("CounterOnFailure",), "a worker holding another key rejects the frame and keeps its counter", _trace({"worker": _party("worker", key="08" * 32)}, _st("open", "worker", frame=F1), _st("counters", "worker")), ("invalid_authentication_tag", "ok")),
    ("trace.probe.sequence-zero", "FR-7", ("UpstreamProbe",), "probe row seq 0", _trace(PAIR, _st("open", "worker", frame=_frame(0, CLOSE, _tag(KEY_07, "host", 0, "session-1", CLOSE)))), ("invalid_sequence",)),
    ("trace.probe.uppercase-tag", "FR-7", ("UpstreamProbe",), "probe row uppercase tag: the genuine tag with one digit upper-cased", _trace(PAIR, _st("open", "worker", frame=F1.replace('"auth_tag":"c', '"auth_tag":"C'))), ("invalid_authentication_tag",)),
    ("trace.short-tag", "FR-7", (), "a 63-digit tag", _trace(PAIR, _st("open", "worker", frame=F1[:-3] + '"}')), ("invalid_authentication_tag",)),
    ("trace.wrong-session-in-message", "FR-7", ("CheckOrder",), "a correctly tagged frame whose message names another session", _trace(PAIR, _st("open", "worker", frame=_sealed(1, WRONG_SESSION_MSG))), ("unknown_session",)),
    ("trace.seal-wrong-session", "FR-6", (), "sealing a message of another session", _trace(PAIR, _st("seal", "host", message=WRONG_SESSION_MSG), _st("seal", "host", message=CLOSE)), ("unknown_session", "ok")),
    ("trace.open-invalid-message", "FR-7", ("CheckOrder", "CounterOnFailure"), "a correctly tagged frame whose message has version 4 fails the syntax check before the tag and moves no counter", _trace(PAIR, _st("open", "worker", frame=_frame(1, '{"type":"close_session","protocol_version":4,"session_id":"session-1"}', _tag(KEY_07, "host", 1, "session-1", '{"type":"close_session","protocol_version":4,"session_id":"session-1"}'))), _st("counters", "worker")), ("unsupported_version", "ok")),
    ("trace.seal-invalid-message", "FR-6", ("CheckOrder",), "an invalid message is refused before anything else and uses no sequence", _trace(PAIR, _st("seal", "host", message='{"type":"close_session","protocol_version":4,"session_id":"session-2"}'), _st("seal", "host", message=CLOSE)), ("unsupported_version", "ok")),
    ("trace.wrong-kind-consumes-sequence", "FR-11", (), "a frame of any kind that opens uses its sequence; the next frame must carry 2", _trace(PAIR, _st("open", "worker", frame=_sealed(1, CANCEL)), _st("open", "worker", frame=F1), _st("open", "worker", frame=F2)), ("ok", "unexpected_sequence", "ok")),
    ("trace.independent-counters", "FR-5", (), "each direction counts from 1", _trace(PAIR, _st("seal", "host", message=CLOSE), _st("seal", "worker", message=CLOSE), _st("open", "host", frame=_sealed(1, CLOSE, sender="worker")), _st("counters", "host"), _st("counters", "worker")), ("ok", "ok", "ok", "ok", "ok")),
    ("trace.seal-sequence-exhausted", "FR-6", ("SequenceEdge",), "the last u64 is never used for a frame", _trace({"host": _party("host", next_outgoing=U64_MAX - 1)}, _st("seal", "host", message=CLOSE), _st("seal", "host", message=CLOSE)), ("ok", "sequence_exhausted")),
    ("trace.open-sequence-exhausted", "FR-7", ("SequenceEdge",), "a correctly tagged frame at the last u64 is refused after the tag check", _trace({"worker": _party("worker", next_incoming=U64_MAX)}, _st("open", "worker", frame=_sealed(U64_MAX, CLOSE))), ("sequence_exhausted",)),
    ("trace.sequence-5000-digits", "FR-7", ("LongInteger", "CounterOnFailure"), "a frame whose sequence has 5,000 digits is a decode error and moves no counter", _trace(PAIR, _st("open", "worker", frame={"prefix": '{"sequence":', "repeat": "1", "count": 5000, "suffix": ',"message":' + CLOSE + ',"auth_tag":"' + "0" * 64 + '"}'}), _st("counters", "worker")), ("serialization", "ok")),
    ("trace.sequence-u64-max-plus-1", "FR-7", ("Boundary", "CounterOnFailure"), "a frame whose sequence is 2^64 (20 digits) is an out-of-range decode error and moves no counter", _trace(PAIR, _st("open", "worker", frame=_frame(U64_MAX + 1, CLOSE, "0" * 64)), _st("counters", "worker")), ("serialization", "ok")),
    ("trace.open-opaque-bad-session-token", "FR-7", ("OpaqueBody", "CounterOnFailure"), "a correctly tagged cancel whose session id is not a token fails the message check before the tag and moves no counter", _trace(PAIR, _st("open", "worker", frame=_frame(1, CANCEL.replace('"session-1"', '"Session-1"'), _tag(KEY_07, "host", 1, "session-1", CANCEL.replace('"session-1"', '"Session-1"')))), _st("counters", "worker")), ("invalid_token", "ok")),
    ("trace.sequence-written-as-float", "FR-7", ("CounterOnFailure",), "a sequence written 1.0 is a type error of the u64 field (serde's integer path), not sequence 1, and moves no counter", _trace(PAIR, _st("open", "worker", frame='{"sequence":1.0,"message":' + CLOSE + ',"auth_tag":"' + "0" * 64 + '"}'), _st("counters", "worker")), ("serialization", "ok")),
    ("trace.open-session-grants-not-a-list", "FR-7", ("CounterOnFailure",), "an open_session whose manifest grants are an object is a type error of the sequence field and moves no counter", _trace(PAIR, _st("open", "worker", frame=_frame(1, '{"type":"open_session","manifest":{"protocol_version":5,"session_id":"session-1","grants":{}}}', "0" * 64)), _st("counters", "worker")), ("serialization", "ok")),
    ("trace.open-opaque-missing-session", "FR-7", ("OpaqueBody", "CounterOnFailure"), "a cancel without session_id is a missing-field decode error (not a type error of an empty value) and moves no counter", _trace(PAIR, _st("open", "worker", frame=_frame(1, '{"type":"cancel","request":{"protocol_version":5,"request_id":"r1"}}', "0" * 64)), _st("counters", "worker")), ("serialization", "ok")),
    ("trace.frame-without-auth-tag", "FR-7", ("CounterOnFailure",), "a frame without auth_tag is a missing-field decode error and moves no counter", _trace(PAIR, _st("open", "worker", frame='{"sequence":1,"message":' + CLOSE + "}"), _st("counters", "worker")), ("serialization", "ok")),
    ("trace.frame-message-not-an-object", "FR-7", ("CounterOnFailure",), "a frame whose message is a string is a type error of the tagged message and moves no counter", _trace(PAIR, _st("open", "worker", frame=_frame(1, '"close_session"', "0" * 64)), _st("counters", "worker")), ("serialization", "ok")),
    ("trace.frame-extra-key", "FR-7", ("LenientDecoding",), "an unknown key beside sequence, message and auth_tag is ignored: the sealed frame still opens", _trace(PAIR, _st("open", "worker", frame=F1[:-1] + ',"note":"x"}')), ("ok",)),
    ("trace.frame-duplicate-sequence", "FR-7", ("StrictDecoding", "CounterOnFailure"), "a frame with sequence twice is a duplicate-field decode error and moves no counter", _trace(PAIR, _st("open", "worker", frame='{"sequence":1,"sequence":1,"message":' + CLOSE + ',"auth_tag":"' + "0" * 64 + '"}'), _st("counters", "worker")), ("serialization", "ok")),
    ("trace.frame-sequence-string", "FR-7", ("CounterOnFailure",), "a sequence written as the string \"1\" is a type error of the u64 field and moves no counter", _trace(PAIR, _st("open", "worker", frame='{"sequence":"1","message":' + CLOSE + ',"auth_tag":"' + "0" * 64 + '"}'), _st("counters", "worker")), ("serialization", "ok")),
    ("trace.payload-unknown-format", "FR-7", ("CounterOnFailure",), "a dispatch whose payload format is xml is an unknown-variant decode error and moves no counter", _trace(PAIR, _st("open", "worker", frame=_frame(1, _msg("dispatch_operation", "request", dispatch().replace('"format":"json"', '"format":"xml"')), "0" * 64)), _st("counters", "worker")), ("serialization", "ok")),
    ("trace.open-session-grants-trailing-comma", "FR-7", ("CounterOnFailure",), "a grants list ending in a comma and a space is a trailing-comma syntax error and moves no counter", _trace(PAIR, _st("open", "worker", frame=_frame(1, '{"type":"open_session","manifest":' + manifest(GRANT_MATH).replace("}]}", "}, ]}") + "}", "0" * 64)), _st("counters", "worker")), ("serialization", "ok")),
    ("trace.frame-over-1-mib", "FR-12", ("SizeBound",), "a frame line over 1 MiB is refused before parsing", _trace(PAIR, _st("open", "worker", frame={"prefix": F1, "repeat": " ", "count": 1048577 - len(F1), "suffix": ""})), ("wire_frame_too_large",)),
    ("trace.seal-auth-payload-over-1-mib", "FR-12", ("SizeBound",), "a message whose authentication text exceeds 1 MiB cannot be sealed", _trace({"host": _party("host")}, _st("seal", "host", message=BIG_DISPATCH), _st("counters", "host")), ("wire_frame_too_large", "ok")),
]
# fmt: on


# -- bootstrap ----------------------------------------------------------------------------------


def run_bootstrap(case: Mapping[str, Any]) -> dict[str, Any]:
    if case["operation"] == "encode":
        encoded = PipeBootstrap(case["session_id"], bytes.fromhex(case["key"])).encode()
        return {"bytes": encoded.hex()}
    bootstrap, rest = PipeBootstrap.decode(bytes.fromhex(case["bytes"]))
    return {"session_id": bootstrap.session_id, "key": bootstrap.key.hex(), "rest": rest.hex()}


_GOOD = "53504c50424f4f54" + "01" + "09" + b"session-1".hex() + KEY_0D


def _dec(data: str) -> dict[str, Any]:
    return {"operation": "decode", "bytes": data}


# fmt: off
BOOTSTRAP_ROWS: list[Row] = [
    ("bootstrap.probe.encode", "FR-13", "valid", ("UpstreamKnownAnswer",), "probe: session-1, key 32 x 0d", {"operation": "encode", "session_id": "session-1", "key": KEY_0D}),
    ("bootstrap.probe.decode", "FR-13", "valid", ("UpstreamKnownAnswer",), "the probe bytes decode back", _dec(_GOOD)),
    ("bootstrap.decode-leaves-rest", "FR-13", "valid", (), "bytes after the key are not consumed", _dec(_GOOD + "ff")),
    ("bootstrap.bad-magic", "FR-14", "invalid", (), "SPLPBOOX", _dec("53504c50424f4f58" + _GOOD[16:])),
    ("bootstrap.version-2", "FR-14", "invalid", (), "version 2", _dec(_GOOD[:16] + "02" + _GOOD[18:])),
    ("bootstrap.length-0", "FR-14", "invalid", (), "an empty session id", _dec(_GOOD[:18] + "00" + KEY_0D)),
    ("bootstrap.length-129", "FR-14", "invalid", (), "a session id longer than 128 bytes", _dec(_GOOD[:18] + "81" + "61" * 129 + KEY_0D)),
    ("bootstrap.invalid-utf8", "FR-14", "invalid", (), "session id bytes that are not UTF-8", _dec(_GOOD[:18] + "01" + "ff" + KEY_0D)),
    ("bootstrap.invalid-token", "FR-14", "invalid", (), "a session id that is not a token", _dec(_GOOD[:18] + "03" + b"Bad".hex() + KEY_0D)),
    ("bootstrap.weak-key", "FR-14", "invalid", (), "an all-zero key", _dec(_GOOD[:-64] + "00" * 32)),
    ("bootstrap.truncated-key", "FR-14", "invalid", (), "the stream ends inside the key", _dec(_GOOD[:-2])),
    ("bootstrap.truncated-magic", "FR-14", "invalid", (), "only four bytes", _dec("53504c50")),
    ("bootstrap.length-128", "FR-14", "valid", ("Boundary",), "a 128-byte session id, the longest, decodes", _dec(_GOOD[:18] + "80" + "61" * 128 + KEY_0D)),
    ("bootstrap.encode-invalid-token", "FR-13", "invalid", (), "the encoder refuses a session id that is not a token", {"operation": "encode", "session_id": "Session-1", "key": KEY_0D}),
    ("bootstrap.encode-weak-key", "FR-13", "invalid", (), "the encoder refuses an all-zero key", {"operation": "encode", "session_id": "session-1", "key": "00" * 32}),
]
# fmt: on


_AP = "out_ap.txt"
_OTHER = "out_other.txt"
_MSG_ROW = "the arrow line under it"
_AUTH_TEXT = "auth_payload computed by the reference (FR-2)"


def _both_sections(label: str) -> Provenance:
    return observed(_OTHER, label, scope="both sections")


PROBED: dict[str, Provenance] = {
    "message.probe.dispatch": observed(_AP, "dispatch msg json"),
    "message.probe.compensate": observed(_AP, "compensate msg json"),
    "message.probe.compensation-result": observed(_AP, "compensation result json"),
    "message.probe.operation-result": observed(_AP, "operation result json"),
    "message.probe.reconcile": observed(_AP, "reconcile msg json"),
    "message.probe.reconciled": observed(_AP, "reconciled msg json"),
    "message.probe.close-session": observed(_AP, "frame", scope="the message member of the frame"),
    "message.probe.dispatch-unknown-field": observed(
        _AP, 'msg {"type":"dispatch_operation"', scope=_MSG_ROW
    ),
    "message.probe.reconcile-unknown-field": observed(
        _AP, 'msg {"type":"reconcile_operation"', scope=_MSG_ROW
    ),
    "message.probe.close-session-version-4": observed(
        _AP, 'msg {"type":"close_session","protocol_version":4', scope=_MSG_ROW
    ),
    "message.probe.close-session-extra-field": observed(
        _AP, 'msg {"type":"close_session","protocol_version":5', scope=_MSG_ROW
    ),
    "message.probe.payload-duplicate-key": _both_sections("frame dup keys in payload value"),
    "message.probe.duplicate-request-id": _both_sections("frame dup request_id"),
    "tag.probe.host-close-seq-1": observed(_AP, "frame", "auth payload guess", "manual tag"),
    "tag.probe.worker-close-seq-1": observed(
        _AP, "worker frame", "manual worker tag", scope=_AUTH_TEXT
    ),
    "tag.probe.host-dispatch-seq-2": observed(
        _OTHER, "host seq2 dispatch frame", scope=f"its auth_tag; {_AUTH_TEXT}"
    ),
    "trace.probe.sequence-zero": _both_sections("seq 0"),
    "trace.probe.uppercase-tag": _both_sections("uppercase tag"),
    "bootstrap.probe.encode": observed(_AP, "bootstrap hex"),
}
"""Vectors whose answer probe rows print; every other vector is derived from its rule."""


def _provenance(test_id: str, rule: str) -> Provenance:
    if test_id == "trace.probe.close-then-dispatch":
        return derived(
            rule,
            note="steps 0 to 2 are out_ap.txt rows `frame` and `worker open` and out_other.txt "
            "row `host seq2 dispatch frame`; upstream did not open the second frame (step 3)",
        )
    if test_id == "tag.host-ledger.reconcile":
        return derived(rule, "FR-2", note="a known answer computed from the recipe; no probe row")
    if test_id == "bootstrap.probe.decode":
        return derived(rule, note="decodes the bytes of out_ap.txt row `bootstrap hex`")
    return PROBED.get(test_id) or derived(rule)


def _row_vector(row: Row, runner: Callable[[Mapping[str, Any]], dict[str, Any]]) -> VectorTest:
    test_id, rule, intended, flags, comment, case = row
    try:
        result, expected = "valid", runner(case)
    except RescindError as error:
        result, expected = "invalid", {"error": error.code}
    if result != intended:
        raise AssertionError(f"{test_id}: intended {intended}, reference gives {expected}")
    provenance = _provenance(test_id, rule)
    return VectorTest(test_id, rule, comment, case, expected, result, flags, provenance=provenance)


def _trace_vector(row: TraceRow) -> VectorTest:
    test_id, rule, flags, comment, trace, intended = row
    expected = run_frame_trace(trace)
    codes = tuple("ok" if "result" in step else step["error"] for step in expected["steps"])
    if codes != intended:
        raise AssertionError(f"{test_id}: intended {intended}, reference gives {codes}")
    provenance = _provenance(test_id, rule)
    return VectorTest(
        test_id, rule, comment, trace, expected, "valid", flags, provenance=provenance
    )


NOTES = [
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
]


def build() -> VectorFile:
    return VectorFile(
        topic=TOPIC,
        header=(
            "Worker messages, authenticated frames and the private-pipe bootstrap (docs/spec/messages.md, docs/spec/frames.md).",
            "Keys and bootstrap bytes are hex; a text given as {prefix, repeat, count, suffix} is prefix + repeat*count + suffix.",
            "Tests flagged F64Profile apply to the splash-v5-f64 profile only.",
        ),
        notes=NOTES,
        groups=[
            VectorGroup("message-line", [_row_vector(row, run_message) for row in MESSAGE_ROWS]),
            VectorGroup("frame-tag", [_row_vector(row, run_tag) for row in TAG_ROWS]),
            VectorGroup("frame-trace", [_trace_vector(row) for row in TRACE_ROWS]),
            VectorGroup("bootstrap", [_row_vector(row, run_bootstrap) for row in BOOTSTRAP_ROWS]),
        ],
        test_schema={"input": {"type": "object"}, "expected": {"type": "object"}},
    )
