# ruff: noqa: E501  (the row tables below keep one vector per line)
"""Vectors for loading and re-encoding a worker journal (docs/spec/journal.md WJ-1..WJ-5).

Input: the journal text (or a ``{"prefix","repeat","count","suffix"}`` spec for large ones),
an optional expected scope (``from_json_for_scope``) and an optional profile. A valid vector
expects the compact re-encoding; an invalid one the error code. Rows reproduce every
"loading" row of upstream's probe plus worker edge cases 27-32.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rescind.conformance.interpreters.worker_trace import text_of
from rescind.conformance.provenance import Provenance, derived, observed
from rescind.conformance.vectorformat import Flag, VectorFile, VectorGroup, VectorTest
from rescind.reference.errors import RescindError
from rescind.reference.numbers import NumberMode
from rescind.reference.worker.journal import WorkerOperationJournal

TOPIC = "journal-codec"

FP_ADD = "97b596370568d8bf144de6def87e9d0d3d52f25e96bed12dc4be35526fceb39a"
FP_UNDO = "5cc121e4a0ce2f79ae6b83397eb4f81a66bf12a9b1fe5836835a8118de24d578"
FP_GRANT = "a312a58bbb8e2dc99c371b7d80b2fe7ddb877fc94dca018f2782f982223ab6f2"
PENDING = '{"state":"pending"}'
TOTAL = '{"state":"succeeded","payload":{"format":"json","value":{"total":42}}}'


def journal(*records: str, scope: str = "tenant-release", version: str = "2") -> str:
    return f'{{"format_version":{version},"scope":"{scope}","records":[{",".join(records)}]}}'


def comp(
    state: str = PENDING,
    key: str = "cmp-release-42-add-undo",
    fp: str = FP_UNDO,
    grant: str = FP_GRANT,
) -> str:
    return f'{{"compensation_key":"{key}","input_fingerprint":"{fp}","grant_fingerprint":"{grant}","state":{state}}}'


def rec(
    state: str = PENDING,
    compensation: str | None = "null",
    key: str = "release-42-add",
    tool: str = "math.add",
    fp: str = FP_ADD,
    extra: str = "",
) -> str:
    text = f'{{"tool":"{tool}","operation_key":"{key}","input_fingerprint":"{fp}","state":{state}{extra}'
    if compensation is not None:
        text += f',"compensation":{compensation}'
    return text + "}"


def _failed(length: int) -> str:
    return '{"state":"failed","message":"' + "x" * length + '"}'


PROBE_FAILED = journal(rec(TOTAL, comp('{"state":"failed","message":"boom"}')))
PROBE_PENDING = journal(rec())
EMPTY = journal()


def run(case: Mapping[str, Any]) -> dict[str, Any]:
    mode = NumberMode(case.get("profile", NumberMode.AP.profile))
    text = text_of(case["text"])
    if "expected_scope" in case:
        loaded = WorkerOperationJournal.from_json_for_scope(text, case["expected_scope"], mode)
    else:
        loaded = WorkerOperationJournal.from_json(text, mode)
    return {"journal": loaded.to_json(), "records": len(loaded.records)}


def _t(text: str | dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"text": text, **extra}


def _padded(length: int) -> dict[str, Any]:
    return {"prefix": EMPTY, "repeat": " ", "count": length - len(EMPTY), "suffix": ""}


def _records(count: int) -> str:
    return journal(*(rec(key=f"k-{index}") for index in range(count)))


PROBE = ("UpstreamProbe",)
STRICT = ("StrictDecoding",)
LENIENT = ("LenientDecoding",)
ORDER = ("CheckOrder",)

Row = tuple[str, str, str, tuple[str, ...], str, dict[str, Any]]
"""(id, rule, intended result, flags, comment, input)."""

# fmt: off
ROWS: list[Row] = [
    ("codec.probe.roundtrip", "WJ-1", "valid", PROBE, "probe journal with a failed compensation re-encodes byte for byte", _t(PROBE_FAILED)),
    ("codec.probe.pending", "WJ-1", "valid", PROBE, "probe journal with one pending record", _t(PROBE_PENDING)),
    ("codec.empty", "WJ-1", "valid", PROBE, "empty journal", _t(EMPTY)),
    ("codec.probe.format-version-1", "WJ-3", "invalid", PROBE, "edge case 30", _t(journal(version="1"))),
    ("codec.probe.format-version-3", "WJ-3", "invalid", PROBE, "edge case 30", _t(journal(version="3"))),
    ("codec.probe.format-version-2-point-0", "WJ-4", "invalid", (*PROBE, *STRICT), "edge case 30: a u8 field must be written as an integer", _t(journal(version="2.0"))),
    ("codec.probe.format-version-256", "WJ-4", "invalid", (*PROBE, *STRICT), "edge case 30: 256 does not fit u8", _t(journal(version="256"))),
    ("codec.format-version-negative", "WJ-4", "invalid", STRICT, "-1 does not fit u8", _t(journal(version="-1"))),
    ("codec.format-version-5000-digits", "WJ-4", "invalid", (*STRICT, "LongInteger"), "a 5,000-digit format_version is out of u8's range, like 256", _t({"prefix": '{"format_version":', "repeat": "1", "count": 5000, "suffix": ',"scope":"tenant-release","records":[]}'})),
    ("codec.format-version-5000-digits-f64", "WJ-4", "invalid", (*STRICT, "LongInteger", "F64Profile"), "the same journal in splash-v5-f64, whose parser refuses the number as out of f64's range", _t({"prefix": '{"format_version":', "repeat": "1", "count": 5000, "suffix": ',"scope":"tenant-release","records":[]}'}, profile="splash-v5-f64")),
    ("codec.format-version-missing", "WJ-4", "invalid", STRICT, "format_version is required", _t('{"scope":"tenant-release","records":[]}')),
    ("codec.probe.unknown-top-level-field", "WJ-4", "invalid", (*PROBE, *STRICT), "edge case 30: unknown fields are denied", _t('{"x":1,"format_version":2,"scope":"tenant-release","records":[]}')),
    ("codec.probe.unknown-record-field", "WJ-4", "invalid", (*PROBE, *STRICT), "edge case 30", _t(journal(rec(extra=',"x":1')))),
    ("codec.unknown-compensation-field", "WJ-4", "invalid", STRICT, "the compensation record denies unknown fields too", _t(journal(rec(TOTAL, comp()[:-1] + ',"x":1}')))),
    ("codec.probe.duplicate-scope", "WJ-4", "invalid", (*PROBE, *STRICT), "edge case 30: a repeated struct field", _t('{"format_version":2,"scope":"tenant-release","scope":"tenant-release","records":[]}')),
    ("codec.duplicate-record-field", "WJ-4", "invalid", STRICT, "a record repeating tool", _t(journal(rec(extra=',"tool":"math.add"')))),
    ("codec.probe.missing-compensation", "WJ-4", "valid", (*PROBE, *LENIENT), "edge case 31: an omitted compensation is none and is written back as null", _t(journal(rec(compensation=None)))),
    ("codec.compensation-explicit-null", "WJ-4", "valid", LENIENT, "null compensation", _t(journal(rec(compensation="null")))),
    ("codec.probe.state-extra-field", "WJ-4", "valid", (*PROBE, *LENIENT), "edge case 31: extra keys inside a state object are ignored", _t(journal(rec('{"state":"pending","x":1}')))),
    ("codec.probe.state-tag-after-payload", "WJ-4", "valid", (*PROBE, *LENIENT), "edge case 31: the state tag may follow the payload", _t(journal(rec('{"payload":{"format":"json","value":{"total":42}},"state":"succeeded"}')))),
    ("codec.probe.state-duplicate-tag", "WJ-4", "invalid", (*PROBE, *STRICT), "a repeated state tag", _t(journal(rec('{"state":"pending","state":"running"}')))),
    ("codec.probe.state-unknown-variant", "WJ-4", "invalid", (*PROBE, *STRICT), "edge case 32: paused is no state", _t(journal(rec('{"state":"paused"}')))),
    ("codec.probe.state-succeeded-without-payload", "WJ-4", "invalid", (*PROBE, *STRICT), "edge case 32", _t(journal(rec('{"state":"succeeded"}')))),
    ("codec.state-failed-without-message", "WJ-4", "invalid", STRICT, "failed needs its message", _t(journal(rec('{"state":"failed"}')))),
    ("codec.probe.state-as-string", "WJ-4", "invalid", (*PROBE, *STRICT), "edge case 32: a bare string is not a state object", _t(journal(rec('"pending"')))),
    ("codec.probe.state-failed-empty", "WJ-3", "invalid", PROBE, "a stored failure message must not be empty", _t(journal(rec('{"state":"failed","message":""}')))),
    ("codec.probe.state-failed-4096", "WJ-3", "valid", PROBE, "4096-byte failure message", _t(journal(rec(_failed(4096))))),
    ("codec.probe.state-failed-4097", "WJ-3", "invalid", PROBE, "edge case 30: 4097-byte failure message", _t(journal(rec(_failed(4097))))),
    ("codec.probe.state-succeeded-scalar", "WJ-3", "invalid", PROBE, "edge case 12: a stored success must be an object or array", _t(journal(rec('{"state":"succeeded","payload":{"format":"json","value":42}}')))),
    ("codec.probe.state-succeeded-text", "WJ-3", "valid", PROBE, "a text success", _t(journal(rec('{"state":"succeeded","payload":{"format":"text","value":"done"}}')))),
    ("codec.state-succeeded-too-deep", "WJ-3", "invalid", (), "a stored success 33 levels deep", _t(journal(rec('{"state":"succeeded","payload":{"format":"json","value":' + "[" * 32 + "{}" + "]" * 32 + "}}")))),
    ("codec.probe.uppercase-fingerprint", "WJ-3", "invalid", PROBE, "edge case 30", _t(journal(rec(fp=FP_ADD.upper())))),
    ("codec.short-fingerprint", "WJ-3", "invalid", (), "63 hex digits", _t(journal(rec(fp=FP_ADD[:63])))),
    ("codec.compensation-uppercase-input-fingerprint", "WJ-3", "invalid", (), "a compensation's input fingerprint follows the same rule", _t(journal(rec(TOTAL, comp(fp=FP_UNDO.upper()))))),
    ("codec.compensation-bad-grant-fingerprint", "WJ-3", "invalid", (), "a compensation's grant fingerprint must be 64 lowercase hex", _t(journal(rec(TOTAL, comp(grant=FP_GRANT.upper()))))),
    ("codec.probe.compensation-bad-key", "WJ-3", "invalid", PROBE, "a compensation key needs the cmp- prefix", _t(journal(rec(TOTAL, comp(key="undo-1"))))),
    ("codec.compensation-key-uppercase", "WJ-3", "invalid", (), "CMP-x fails the token rule before the prefix rule", _t(journal(rec(TOTAL, comp(key="CMP-x"))))),
    ("codec.probe.compensation-on-pending-operation", "WJ-3", "invalid", PROBE, "a compensation only exists on a succeeded original", _t(journal(rec(PENDING, comp())))),
    ("codec.edge-29.compensation-on-running-operation", "WJ-3", "invalid", (), "edge case 29: a persisted original edited to running while it has a compensation", _t(journal(rec('{"state":"running"}', comp())))),
    ("codec.compensation-on-failed-operation", "WJ-3", "invalid", (), "failed original with a compensation", _t(journal(rec('{"state":"failed","message":"no"}', comp())))),
    ("codec.probe.bad-scope", "WJ-3", "invalid", PROBE, "the scope must be a token", _t(journal(scope="Tenant"))),
    ("codec.record-tool-invalid", "WJ-3", "invalid", (), "record tool must be a token", _t(journal(rec(tool="Math.add")))),
    ("codec.record-key-invalid", "WJ-3", "invalid", (), "record key must be a token", _t(journal(rec(key="release 42")))),
    ("codec.probe.duplicate-operation-key", "WJ-3", "invalid", PROBE, "edge case 30", _t(journal(rec(), rec()))),
    ("codec.record-checked-before-duplicate", "WJ-3", "invalid", ORDER, "the second record repeats the key and has a bad fingerprint: the record's own check comes first", _t(journal(rec(), rec(fp=FP_ADD.upper())))),
    ("codec.probe.64-records", "WJ-3", "valid", PROBE, "64 records", _t(_records(64))),
    ("codec.probe.65-records", "WJ-3", "invalid", PROBE, "edge case 30: 65 records", _t(_records(65))),
    ("codec.count-checked-before-records", "WJ-3", "invalid", ORDER, "65 records, the first invalid: the count is checked first", _t(journal(rec(fp="bad"), *(rec(key=f"k-{index}") for index in range(64))))),
    ("codec.probe.whitespace", "WJ-4", "valid", (*PROBE, *LENIENT), "edge case 31: whitespace between tokens", _t(' { "format_version" : 2 ,\n "scope" : "tenant-release" , "records" : [ ] } ')),
    ("codec.probe.trailing-characters", "WJ-4", "invalid", (*PROBE, *STRICT), "non-whitespace after the journal", _t(EMPTY + "x")),
    ("codec.probe.trailing-whitespace", "WJ-4", "valid", PROBE, "trailing whitespace is fine", _t(EMPTY + " \n")),
    ("codec.probe.empty-string", "WJ-4", "invalid", (*PROBE, *STRICT), "nothing to parse", _t("")),
    ("codec.records-not-an-array", "WJ-4", "invalid", STRICT, "records must be a sequence", _t('{"format_version":2,"scope":"tenant-release","records":{}}')),
    ("codec.duplicate-key-inside-payload-last-wins", "WJ-4", "valid", ("DuplicateKeyLastWins",), "inside a payload value a repeated key keeps the last value", _t(journal(rec('{"state":"succeeded","payload":{"format":"json","value":{"a":1,"a":2}}}')))),
    ("codec.edge-27.input-over-256-kib", "WJ-4", "invalid", ("SizeBound",), "edge case 27: 262145 bytes are refused before parsing", _t(_padded(262145))),
    ("codec.input-exactly-256-kib", "WJ-4", "valid", ("SizeBound",), "262144 bytes (trailing spaces) are accepted", _t(_padded(262144))),
    ("codec.probe.scope-check-mismatch", "WJ-5", "invalid", (*PROBE, "ScopeIsolation"), "edge case 28: loading under another scope", _t(EMPTY, expected_scope="tenant-other")),
    ("codec.probe.scope-check-invalid-expected", "WJ-5", "invalid", PROBE, "the expected scope must be a token", _t(EMPTY, expected_scope="Bad")),
    ("codec.scope-check-load-errors-first", "WJ-5", "invalid", ORDER, "a load error is reported before the scope comparison", _t(journal(version="3"), expected_scope="tenant-other")),
    ("codec.scope-check-match", "WJ-5", "valid", (), "loading under its own scope", _t(PROBE_FAILED, expected_scope="tenant-release")),
    ("codec.numbers.ap", "WJ-1", "valid", ("NumberMode",), "stored numbers re-encode in the splash-v5 profile: spellings kept, E to e+, -0 to 0", _t(journal(rec('{"state":"succeeded","payload":{"format":"json","value":{"a":1.50,"b":1E2,"c":-0}}}')))),
    ("codec.numbers.f64", "WJ-1", "valid", ("NumberMode", "F64Profile"), "the same journal in the splash-v5-f64 profile", _t(journal(rec('{"state":"succeeded","payload":{"format":"json","value":{"a":1.50,"b":1E2,"c":-0}}}')), profile="splash-v5-f64")),
]
# fmt: on

NOTES = [
    Flag(
        "UpstreamProbe",
        "divergence from observed upstream behaviour",
        "journals written by one implementation are rejected or read differently by the other",
    ),
    Flag(
        "StrictDecoding",
        "unknown, repeated or mistyped fields accepted",
        "two readers see different journals in the same bytes, or a tampered journal loads",
    ),
    Flag(
        "LenientDecoding",
        "forms upstream accepts are refused",
        "journals written by upstream fail to load after an upgrade",
    ),
    Flag(
        "CheckOrder",
        "validation in another order",
        "a different error is reported for the same journal",
    ),
    Flag(
        "DuplicateKeyLastWins",
        "a repeated payload key resolved first-wins or rejected",
        "the stored result differs between implementations",
    ),
    Flag(
        "SizeBound",
        "the 256 KiB bound off by one or measured after parsing",
        "oversized journals are parsed, or a maximal one is refused",
    ),
    Flag(
        "ScopeIsolation",
        "a journal loaded for a scope it does not belong to",
        "one tenant's operations deduplicate against another's",
    ),
    Flag(
        "NumberMode",
        "stored numbers re-encoded in another profile's layout",
        "the journal bytes, and a persisted tag over them, differ",
    ),
    Flag(
        "F64Profile",
        "informative splash-v5-f64 profile",
        "only implementations of that profile must match; splash-v5 implementations skip it",
    ),
    Flag(
        "LongInteger",
        "an integer field parsed into an unbounded integer, or by a parser with a digit limit, before its range check",
        "a number thousands of digits long raises the parser's own error, or costs quadratic time, instead of the out-of-range decode error",
    ),
]


# WJ-3's order, as a class: an original that is not succeeded carrying a compensation that
# also fails one of its own checks is refused for the original's state, whatever that check.
_BAD_COMPENSATIONS = {
    "bad-key": comp(key="undo-1"),
    "uppercase-key": comp(key="CMP-x"),
    "uppercase-fingerprint": comp(fp=FP_UNDO.upper()),
    "bad-grant": comp(grant=FP_GRANT.upper()),
}
_NOT_SUCCEEDED = {
    "pending": PENDING,
    "running": '{"state":"running"}',
    "failed": '{"state":"failed","message":"no"}',
}
ROWS += [
    (
        f"codec.order.{state}-original-{name}-compensation",
        "WJ-3",
        "invalid",
        ORDER,
        f"a {state} original whose compensation has a {name.replace('-', ' ')}: the original's "
        "state is checked before the compensation's own checks",
        _t(journal(rec(text, compensation))),
    )
    for state, text in _NOT_SUCCEEDED.items()
    for name, compensation in _BAD_COMPENSATIONS.items()
]


# The probe's loading rows print Ok("OK") or the error of loading exactly these texts.
LOADING_ROWS = {
    "codec.probe.roundtrip": "roundtrip",
    "codec.probe.pending": "pending",
    "codec.probe.format-version-1": "v1",
    "codec.probe.format-version-3": "v3",
    "codec.probe.format-version-2-point-0": "v2.0",
    "codec.probe.format-version-256": "v256",
    "codec.probe.unknown-top-level-field": "unknown top",
    "codec.probe.unknown-record-field": "unknown record field",
    "codec.probe.missing-compensation": "missing compensation",
    "codec.probe.duplicate-scope": "dup scope",
    "codec.probe.state-extra-field": "state extra field",
    "codec.probe.state-duplicate-tag": "state dup tag",
    "codec.probe.state-unknown-variant": "state unknown",
    "codec.probe.state-succeeded-without-payload": "state succeeded no payload",
    "codec.probe.state-failed-empty": "state failed empty",
    "codec.probe.state-failed-4096": "state failed 4096",
    "codec.probe.state-failed-4097": "state failed 4097",
    "codec.probe.state-succeeded-scalar": "state succeeded scalar",
    "codec.probe.state-succeeded-text": "state succeeded text",
    "codec.probe.state-as-string": "state as string",
    "codec.probe.uppercase-fingerprint": "uppercase fp",
    "codec.probe.bad-scope": "bad scope",
    "codec.probe.whitespace": "whitespace",
    "codec.probe.trailing-characters": "trailing",
    "codec.probe.trailing-whitespace": "trailing ws",
    "codec.probe.duplicate-operation-key": "dup op key",
    "codec.probe.compensation-on-pending-operation": "comp on pending op",
    "codec.probe.compensation-bad-key": "comp bad key",
    "codec.probe.64-records": "64 records",
    "codec.probe.65-records": "65 records",
    "codec.probe.empty-string": "empty string",
    "codec.probe.scope-check-mismatch": "scope check",
    "codec.probe.scope-check-invalid-expected": "scope check invalid expected",
}
_REENCODED = "the re-encoding of a loaded journal computed by the reference (WJ-1)"


def provenance_of(test_id: str, rule: str, result: str) -> Provenance:
    scope = _REENCODED if result == "valid" and test_id != "codec.probe.roundtrip" else ""
    if test_id == "codec.probe.pending":
        scope = f"the loading row (Ok), not the journal text of that label; {scope}"
    if test_id in LOADING_ROWS:
        return observed("out_ap.txt", LOADING_ROWS[test_id], scope=scope)
    if test_id == "codec.empty":
        return derived(
            rule,
            note="out_ap.txt row `empty` prints this text as a new journal's encoding; "
            "upstream did not load it",
        )
    if test_id == "codec.probe.state-tag-after-payload":
        return observed("out_other.txt", "state tag last", scope=f"both sections; {scope}")
    return derived(rule)


def _vector(row: Row) -> VectorTest:
    test_id, rule, intended, flags, comment, case = row
    try:
        result, expected = "valid", run(case)
    except RescindError as error:
        result, expected = "invalid", {"error": error.code}
    if result != intended:
        raise AssertionError(f"{test_id}: intended {intended}, reference gives {expected}")
    provenance = provenance_of(test_id, rule, result)
    return VectorTest(test_id, rule, comment, case, expected, result, flags, provenance=provenance)


def build() -> VectorFile:
    text_spec = {
        "oneOf": [
            {"type": "string"},
            {"type": "object", "required": ["prefix", "repeat", "count", "suffix"]},
        ]
    }
    return VectorFile(
        topic=TOPIC,
        header=(
            "Loading a worker journal (from_json / from_json_for_scope) and re-encoding it (docs/spec/journal.md WJ-1..WJ-5).",
            "A text given as {prefix, repeat, count, suffix} is prefix + repeat*count + suffix.",
        ),
        notes=NOTES,
        groups=[VectorGroup("journal-load", [_vector(row) for row in ROWS])],
        test_schema={
            "input": {
                "type": "object",
                "required": ["text"],
                "additionalProperties": False,
                "properties": {
                    "text": text_spec,
                    "expected_scope": {"type": "string"},
                    "profile": {"enum": ["splash-v5", "splash-v5-f64"]},
                },
            },
            "expected": {
                "type": "object",
                "properties": {
                    "journal": {"type": "string"},
                    "records": {"type": "integer"},
                    "error": {"type": "string"},
                },
            },
        },
    )
