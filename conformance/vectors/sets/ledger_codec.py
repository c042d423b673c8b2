# ruff: noqa: E501  (the row tables below keep one vector per line)
"""Vectors for the host ledger's format version 2: decoding, structural validation, size
bounds and re-encoding (docs/spec/ledger.md HL-1 .. HL-9, HL-30).

Each input is a ledger text (``text`` plus ``trailing_spaces`` spaces, so that size-bound
texts stay small in this file). A valid vector expects the decoded revision, the number of
operations and the exact re-encoding (``encoded``, or ``encoded_is_input`` when it equals
``text`` byte for byte); if re-encoding is refused, ``encode_error`` says why.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rescind.conformance.cases import CaseRow
from rescind.conformance.interpreters.ledger_load import expected_of, run
from rescind.conformance.provenance import derived, splash_code
from rescind.conformance.vectors.format import Flag, VectorFile, VectorGroup, VectorTest
from rescind.conformance.vectors.sets._ledger_texts import (
    CMP_KEY,
    MAX_REVISION,
    OMIT,
    OP_KEY,
    compensation,
    estimate_of,
    ledger,
    max_field_operations,
    numbered_operations,
    operation,
    text,
)
from rescind.conformance.vectors.sets._precedence import FLAG, NOTE, Faults, pair_rows

TOPIC = "ledger-codec"


def _t(document: Any, spaces: int = 0) -> dict[str, Any]:
    case: dict[str, Any] = {"text": text(document) if not isinstance(document, str) else document}
    if spaces:
        case["trailing_spaces"] = spaces
    return case


def _padded_to(document: Any, size: int) -> dict[str, Any]:
    body = text(document)
    return _t(body, size - len(body.encode()))


SUCCEEDED_WITH_CMP = operation(state="succeeded", comp=compensation())
BASE = text(ledger())
MAX47 = ledger(max_field_operations(47), revision=94)
MAX46 = ledger(max_field_operations(46), revision=92)


def _boundary(key_length: int) -> dict[str, Any]:
    """46 maximal compensated operations plus one plain operation sized so the estimate is
    65,536 (key of 64 bytes) or 65,537 (key of 65 bytes)."""
    extra = operation(step="b".ljust(96, "b"), tool="c" * 64, key="e" * key_length)
    operations = [*max_field_operations(46), extra]
    assert estimate_of(operations) == 65_536 + (key_length - 64)
    return ledger(operations, revision=93)


Row = tuple[str, str, str, tuple[str, ...], str, dict[str, Any]]

# fmt: off
VALID_ROWS: list[Row] = [
    ("ledger.codec.empty", "HL-2", "valid", (), "A new ledger: revision 0, no operations.", _t(ledger([], revision=0))),
    ("ledger.codec.doc-example", "HL-2", "valid", ("KnownAnswer",), "The upstream doc scenario after one derived record; re-encodes byte-identically.", _t(ledger())),
    ("ledger.codec.with-compensation", "HL-2", "valid", (), "A succeeded operation with a pending compensation.", _t(ledger([SUCCEEDED_WITH_CMP], revision=3))),
    ("ledger.codec.compensation-omitted", "HL-2", "valid", ("CompensationAlwaysWritten",), "`compensation` may be missing on decode; the encoder writes it back as null.", _t(ledger([operation(comp=OMIT)]))),
    ("ledger.codec.whitespace", "HL-2", "valid", (), "Any JSON whitespace is accepted; the encoding is compact.", _t('{ "format_version" : 2 ,\n "revision" : 1 ,\t"plan_fingerprint" : "' + ledger()["plan_fingerprint"] + '" , "operations" : [ ] }\r\n')),
    ("ledger.codec.member-order", "HL-2", "valid", ("FieldOrder",), "Members in any order decode; the encoding uses the declared order.", _t({"operations": [], "plan_fingerprint": ledger()["plan_fingerprint"], "revision": 5, "format_version": 2})),
    ("ledger.codec.max-revision", "HL-2", "valid", (), "The revision is a u64: 18446744073709551615 decodes.", _t(ledger(revision=MAX_REVISION))),
    ("ledger.codec.revision-below-count", "HL-30", "valid", (), "Nothing compares the revision with the number of operations.", _t(ledger(numbered_operations(3), revision=0))),
    ("ledger.codec.sixty-four-operations", "HL-3", "valid", (), "64 operations is the maximum.", _t(ledger(numbered_operations(64), revision=64))),
    ("ledger.codec.shared-compensation-key", "HL-30", "valid", ("CompensationKeyReuse",), "Two operations may carry the same compensation key: uniqueness is not checked.", _t(ledger([operation(key="op-1", state="succeeded", comp=compensation()), operation(key="op-2", state="succeeded", comp=compensation())], revision=4))),
    ("ledger.codec.every-state", "HL-2", "valid", (), "All five states decode.", _t(ledger([operation(key=f"op-{state}", state=state) for state in ("pending", "running", "succeeded", "failed", "cancelled")], revision=9))),
    ("ledger.codec.terminal-compensations", "HL-2", "valid", (), "Compensation states are the same five-value enum.", _t(ledger([operation(key=f"op-{state}", state="succeeded", comp=compensation(state=state)) for state in ("running", "succeeded", "failed", "cancelled")], revision=12))),
    ("ledger.codec.exactly-65536-bytes", "HL-8", "valid", (), "Decode input of exactly 65,536 bytes (trailing whitespace included) is accepted.", _padded_to(ledger(), 65_536)),
    ("ledger.codec.estimate-exactly-bound", "HL-9", "valid", (), "46 maximal compensated operations plus one plain one: the estimate is exactly 65,536, so the ledger re-encodes.", _t(_boundary(64))),
    ("ledger.codec.max-fields-46", "HL-9", "valid", (), "46 maximal compensated operations: estimate 64,992, re-encodes.", _t(MAX46)),
]

QUIRK_ROWS: list[Row] = [
    ("ledger.codec.estimate-quirk-47", "HL-9", "acceptable", ("EncoderEstimateQuirk",), "47 maximal compensated operations: the text is about 49 KB and decodes, but the encoder's estimate is 66,400, so upstream refuses to re-encode it (ledger_too_large).", _t(MAX47)),
    ("ledger.codec.estimate-one-over", "HL-9", "acceptable", ("EncoderEstimateQuirk",), "As the exact-bound case with a 65-byte plain key: estimate 65,537, re-encoding refused although the text is far smaller.", _t(_boundary(65))),
]

SIZE_ROWS: list[Row] = [
    ("ledger.codec.too-large-65537", "HL-8", "invalid", ("SizeBeforeParse",), "A valid ledger padded with whitespace to 65,537 bytes is refused before parsing.", _padded_to(ledger(), 65_537)),
    ("ledger.codec.too-large-garbage", "HL-8", "invalid", ("SizeBeforeParse",), "65,537 bytes that are not JSON: the size error wins over the syntax error.", _t("x" * 65_537)),
    # The bound counts bytes (upstream: the &str's len()), so multi-byte text one byte past it
    # is refused by size although it has far fewer characters, and text of exactly 65,536
    # bytes reaches the parser.
    ("ledger.codec.too-large-2byte-garbage", "HL-8", "invalid", ("SizeBeforeParse", "ByteLength"), "One 2-byte character and 65,535 spaces: 65,537 bytes in 65,536 characters, not JSON: refused by size.", _t("\u00e9", 65_535)),
    ("ledger.codec.too-large-4byte-garbage", "HL-8", "invalid", ("SizeBeforeParse", "ByteLength"), "One 4-byte character and 65,533 spaces: 65,537 bytes in 65,534 characters, not JSON: refused by size.", _t("\U0001f600", 65_533)),
    ("ledger.codec.exactly-65536-bytes-2byte-garbage", "HL-8", "invalid", ("ByteLength",), "One 2-byte character and 65,534 spaces: exactly 65,536 bytes, within the bound, so the parser refuses it (not JSON).", _t("\u00e9", 65_534)),
]

ENCODING_ROWS: list[Row] = [
    ("ledger.codec.not-json", "HL-2", "invalid", (), "Not JSON.", _t("ledger")),
    ("ledger.codec.trailing-comma", "HL-2", "invalid", (), "A trailing comma.", _t(BASE[:-1] + ",}")),
    ("ledger.codec.trailing-characters", "HL-2", "invalid", (), "Characters after the ledger.", _t(BASE + "x")),
    ("ledger.codec.top-level-array", "HL-2", "invalid", (), "The ledger must be an object.", _t("[]")),
    ("ledger.codec.unknown-ledger-field", "HL-2", "invalid", ("UnknownField",), "An unknown ledger member is refused.", _t({**ledger(), "approval": "x"})),
    ("ledger.codec.unknown-operation-field", "HL-2", "invalid", ("UnknownField",), "An unknown operation member is refused.", _t(ledger([{**operation(), "payload": "x"}]))),
    ("ledger.codec.unknown-compensation-field", "HL-2", "invalid", ("UnknownField",), "An unknown compensation member is refused.", _t(ledger([operation(state="succeeded", comp={**compensation(), "session_id": "s"})]))),
    ("ledger.codec.duplicate-revision", "HL-2", "invalid", ("DuplicateField",), "A repeated member is refused, not last-wins.", _t(BASE.replace('"revision":1,', '"revision":1,"revision":2,'))),
    ("ledger.codec.duplicate-state", "HL-2", "invalid", ("DuplicateField",), "A repeated operation member is refused.", _t(BASE.replace('"state":"pending"', '"state":"pending","state":"running"'))),
    ("ledger.codec.missing-revision", "HL-2", "invalid", (), "A required member is missing.", _t({k: v for k, v in ledger().items() if k != "revision"})),
    ("ledger.codec.missing-input-fingerprint", "HL-2", "invalid", (), "A required operation member is missing.", _t(ledger([{k: v for k, v in operation().items() if k != "input_fingerprint"}]))),
    ("ledger.codec.missing-compensation-state", "HL-2", "invalid", (), "A required compensation member is missing.", _t(ledger([operation(state="succeeded", comp={k: v for k, v in compensation().items() if k != "state"})]))),
    ("ledger.codec.negative-revision", "HL-2", "invalid", (), "The revision is unsigned.", _t(ledger(revision=-1))),
    ("ledger.codec.revision-overflow", "HL-2", "invalid", (), "2^64 does not fit the u64 revision.", _t(ledger(revision=MAX_REVISION + 1))),
    ("ledger.codec.revision-5000-digits", "HL-2", "invalid", ("LongInteger",), "A 5,000-digit revision does not fit the u64 either: the same encoding error as 2^64.", _t(BASE.replace('"revision":1,', '"revision":' + "1" * 5000 + ","))),
    ("ledger.codec.revision-negative-5000-digits", "HL-2", "invalid", ("LongInteger",), "Nor does a negative one of 5,000 digits.", _t(BASE.replace('"revision":1,', '"revision":-' + "1" * 5000 + ","))),
    ("ledger.codec.version-5000-digits", "HL-2", "invalid", ("LongInteger", "CheckOrder"), "A 5,000-digit format_version does not fit a u8: an encoding error, as for 256.", _t(BASE.replace('"format_version":2,', '"format_version":' + "2" * 5000 + ","))),
    ("ledger.codec.revision-fraction", "HL-2", "invalid", (), "`1.0` is not an integer.", _t(BASE.replace('"revision":1,', '"revision":1.0,'))),
    ("ledger.codec.revision-string", "HL-2", "invalid", (), "The revision is a number, not a string.", _t(ledger(revision="1"))),
    ("ledger.codec.version-overflow", "HL-2", "invalid", ("CheckOrder",), "format_version 256 does not fit a u8: an encoding error, not an unsupported version.", _t(ledger(version=256))),
    ("ledger.codec.state-uppercase", "HL-2", "invalid", (), "States are lowercase names.", _t(ledger([operation(state="Pending")]))),
    ("ledger.codec.state-unknown", "HL-2", "invalid", (), "`compensated` is not a state.", _t(ledger([operation(state="compensated")]))),
    ("ledger.codec.operations-object", "HL-2", "invalid", (), "`operations` must be an array.", _t({**ledger(), "operations": {}})),
    ("ledger.codec.compensation-string", "HL-2", "invalid", (), "`compensation` must be null or an object.", _t(ledger([operation(state="succeeded", comp="none")]))),
    ("ledger.codec.null-revision", "HL-2", "invalid", (), "`null` is not a revision.", _t(ledger(revision=None))),
]

STRUCTURE_ROWS: list[Row] = [
    ("ledger.codec.version-1", "HL-3", "invalid", (), "Only format version 2 is accepted.", _t(ledger(version=1))),
    ("ledger.codec.version-3", "HL-3", "invalid", (), "Only format version 2 is accepted.", _t(ledger(version=3))),
    ("ledger.codec.version-beats-plan", "HL-3", "invalid", ("CheckOrder",), "Version 3 and a bad plan fingerprint: the version is checked first.", _t(ledger(version=3, plan="X"))),
    ("ledger.codec.plan-fingerprint-uppercase", "HL-3", "invalid", (), "Fingerprints are lowercase hex.", _t(ledger(plan=ledger()["plan_fingerprint"].upper()))),
    ("ledger.codec.plan-fingerprint-short", "HL-3", "invalid", (), "63 characters is not a fingerprint.", _t(ledger(plan=ledger()["plan_fingerprint"][:63]))),
    ("ledger.codec.sixty-five-operations", "HL-3", "invalid", (), "65 operations are too many.", _t(ledger(numbered_operations(65), revision=65))),
    ("ledger.codec.plan-beats-count", "HL-3", "invalid", ("CheckOrder",), "A bad plan fingerprint and 65 operations: the plan fingerprint is checked first.", _t(ledger(numbered_operations(65), plan="0"))),
    ("ledger.codec.step-id-uppercase", "HL-3", "invalid", (), "Step ids use the token grammar.", _t(ledger([operation(step="Publish")]))),
    ("ledger.codec.step-id-129", "HL-3", "invalid", (), "A 129-byte step id.", _t(ledger([operation(step="s" * 129)]))),
    ("ledger.codec.tool-with-space", "HL-3", "invalid", (), "A stored tool edited to `bad tool`.", _t(ledger([operation(tool="bad tool")]))),
    ("ledger.codec.operation-key-cmp", "HL-3", "invalid", ("CmpPrefix",), "An operation key may not start with `cmp-`.", _t(ledger([operation(key="cmp-reserved")]))),
    ("ledger.codec.operation-key-empty", "HL-3", "invalid", (), "An empty operation key.", _t(ledger([operation(key="")]))),
    ("ledger.codec.input-fingerprint-bad", "HL-3", "invalid", (), "The operation's input fingerprint is not 64 hex.", _t(ledger([operation(fp="f" * 63)]))),
    ("ledger.codec.step-beats-tool", "HL-3", "invalid", ("CheckOrder",), "Bad step and bad tool: the step is checked first.", _t(ledger([operation(step="Bad", tool="bad tool")]))),
    ("ledger.codec.compensation-on-running", "HL-3", "invalid", (), "A compensated operation edited to running: the compensation needs a succeeded original.", _t(ledger([operation(state="running", comp=compensation())]))),
    ("ledger.codec.compensation-on-pending-bad-key", "HL-3", "invalid", ("CheckOrder",), "Compensation on a pending original with a bad key: the state is checked first.", _t(ledger([operation(state="pending", comp=compensation(key="undo-1"))]))),
    ("ledger.codec.compensation-key-no-prefix", "HL-3", "invalid", ("CmpPrefix",), "A compensation key must start with `cmp-`.", _t(ledger([operation(state="succeeded", comp=compensation(key="undo-1"))]))),
    ("ledger.codec.compensation-key-not-token", "HL-3", "invalid", (), "`CMP-1` is not a token; still invalid_compensation_key in the ledger.", _t(ledger([operation(state="succeeded", comp=compensation(key="CMP-1"))]))),
    ("ledger.codec.compensation-input-fingerprint-bad", "HL-3", "invalid", (), "The compensation's input fingerprint is not 64 hex.", _t(ledger([operation(state="succeeded", comp=compensation(fp="G" * 64))]))),
    ("ledger.codec.compensation-tenant-uppercase", "HL-3", "invalid", (), "Tenant `Tenant` is not a token.", _t(ledger([operation(state="succeeded", comp=compensation(tenant="Tenant"))]))),
    ("ledger.codec.compensation-grant-bad", "HL-3", "invalid", (), "The grant fingerprint is not 64 hex.", _t(ledger([operation(state="succeeded", comp=compensation(grant="0" * 65))]))),
    ("ledger.codec.duplicate-operation-key", "HL-3", "invalid", (), "Two operations with one key.", _t(ledger([operation(), operation(step="build")], revision=2))),
    ("ledger.codec.duplicate-key-after-bad-tool", "HL-3", "invalid", ("CheckOrder",), "A repeated key on an operation whose tool is bad: each operation is validated before its key is compared.", _t(ledger([operation(), operation(tool="bad tool")], revision=2))),
    ("ledger.codec.edited-compensation-state-pending", "HL-3", "valid", (), "A compensation may be in any state, including pending after a crash.", _t(ledger([operation(state="succeeded", comp=compensation(state="pending"))], revision=2))),
]

def _operation_fault(name: str, value: str) -> Callable[[dict[str, Any], int], None]:
    def fault(document: dict[str, Any], at: int) -> None:
        document["operations"][at][name] = value

    return fault


def _compensation_fault(name: str, value: str) -> Callable[[dict[str, Any], int], None]:
    def fault(document: dict[str, Any], at: int) -> None:
        document["operations"][at]["compensation"][name] = value

    return fault


def _too_many(document: dict[str, Any], _: int) -> None:
    operations = document["operations"]
    operations.extend(operation(key=f"op-extra-{i}") for i in range(65 - len(operations)))


def _repeat_key(document: dict[str, Any], at: int) -> None:
    operations = document["operations"]
    operations[at - 1]["operation_key"] = operations[at]["operation_key"]


def _base() -> dict[str, Any]:
    return ledger(
        [
            operation(key=f"op-{i}", state="succeeded", comp=compensation(key=f"cmp-{i}"))
            for i in range(3)
        ],
        revision=6,
    )


def precedence_rows() -> list[CaseRow]:
    """EP-4's pairs: a three-operation ledger with two of its checks broken."""
    return pair_rows(
        Faults(
            "ledger.load",
            "ledger.codec",
            _base,
            {
                "version": lambda document, _: document.update(format_version=3),
                "plan_fingerprint": lambda document, _: document.update(plan_fingerprint="G" * 64),
                "operation_count": _too_many,
                "step_id": _operation_fault("step_id", "Publish"),
                "tool": _operation_fault("tool", "Release.Publish"),
                "operation_key": _operation_fault("operation_key", "cmp-not-an-operation"),
                "input_fingerprint": _operation_fault("input_fingerprint", "0" * 63),
                "compensation_state": _operation_fault("state", "pending"),
                "compensation_key": _compensation_fault("compensation_key", "op-not-cmp"),
                "compensation_input_fingerprint": _compensation_fault("input_fingerprint", "G" * 64),
                "tenant_scope": _compensation_fault("tenant_scope", "Tenant"),
                "grant_fingerprint": _compensation_fault("grant_fingerprint", "0" * 65),
                "operation_key_unique": _repeat_key,
            },
            _t,
            run,
            splash_code(
                "crates/splash-workflow/src/lib.rs",
                "WorkflowOperationLedger::validate_syntax",
                "WorkflowOperationRecord::validate_syntax",
                "WorkflowCompensationRecord::validate_syntax",
                note="the order of the checks in the functions; read, not run (EP-4)",
            ),
        )
    )


def _precedence_test(row: CaseRow) -> VectorTest:
    result, expected = expected_of(row.input)
    if result != row.result:
        raise ValueError(f"{row.id}: reference gives {result} {expected}")
    return VectorTest(
        row.id, row.rule, row.comment, row.input, expected, result, row.flags,
        provenance=row.provenance,
    )


GROUPS = (
    ("decode-valid", VALID_ROWS),
    ("encoder-estimate", QUIRK_ROWS),
    ("size-bound", SIZE_ROWS),
    ("decode-encoding", ENCODING_ROWS),
    ("decode-structure", STRUCTURE_ROWS),
)

NOTES = (
    Flag("KnownAnswer", "a different field order, spacing or value rendering in the encoder", "ledgers written by one host differ byte-wise from upstream's, breaking storage tags and diffs"),
    Flag("CompensationAlwaysWritten", "the encoder omits `compensation` when there is none", "byte-different ledgers; upstream re-encodes with an explicit null"),
    Flag("FieldOrder", "encoding members in input order or sorted order", "byte-different ledgers from the same state"),
    Flag("CompensationKeyReuse", "refusing ledgers in which two operations share a compensation key", "a ledger upstream accepts is rejected, so a host cannot recover it"),
    Flag("EncoderEstimateQuirk", "measuring only the real encoding instead of upstream's size estimate", "an implementation persists ledgers that upstream refuses to re-encode; upstream itself can decode a ledger it cannot write back. Either behaviour is accepted, upstream's is shown"),
    Flag("SizeBeforeParse", "parsing before checking the size bound", "oversized input is parsed (cost) and reported with a different error"),
    Flag("ByteLength", "the decode bound counted in characters instead of UTF-8 bytes", "multi-byte text past 65,536 bytes is parsed and reported with a syntax error, or a ledger upstream refuses is read"),
    Flag("UnknownField", "ignoring unknown members", "a ledger carrying data upstream would refuse (for example an approval or a payload) is accepted"),
    Flag("DuplicateField", "last-wins handling of a repeated member", "two readers of one ledger disagree about its revision or state"),
    Flag("CmpPrefix", "not separating the op- and cmp- key spaces", "an operation key can collide with a compensation key in the worker journal"),
    Flag("CheckOrder", "checks run in another order", "a different error code than upstream for the same input"),
    Flag(FLAG, *NOTE),
    Flag("LongInteger", "an integer field parsed into an unbounded integer, or by a parser with a digit limit, before its range check", "a number thousands of digits long raises the parser's own error, or costs quadratic time, instead of the out-of-range decode error"),
)
# fmt: on

TEST_SCHEMA = {
    "input": {
        "type": "object",
        "required": ["text"],
        "properties": {
            "text": {"type": "string"},
            "trailing_spaces": {"type": "integer", "minimum": 1},
        },
        "additionalProperties": False,
    },
    "expected": {
        "type": "object",
        "properties": {
            "revision": {"type": "integer"},
            "operations": {"type": "integer"},
            "encoded": {"type": "string"},
            "encoded_is_input": {"const": True},
            "encode_error": {"type": "string"},
            "error": {"type": "string"},
            "actual": {"type": "integer"},
            "maximum": {"type": "integer"},
            "estimate": {"type": "integer"},
            "version": {"type": "integer"},
        },
        "additionalProperties": False,
    },
}


ESTIMATE = splash_code(
    "crates/splash-workflow/src/lib.rs",
    "WorkflowOperationLedger::encoded_size_upper_bound",
    "MAX_WORKFLOW_OPERATION_LEDGER_BYTES",
    note="the reference ports the estimate (HL-9); upstream was not run on these ledgers",
)
"""The quirk rows show what upstream's size estimate makes of a ledger: read from source."""


def _test(row: Row) -> VectorTest:
    test_id, rule, intended, flags, comment, case = row
    result, expected = expected_of(case)
    if intended == "acceptable":
        if result != "valid" or "encode_error" not in expected:
            raise ValueError(f"{test_id}: expected the estimate quirk, got {expected}")
        result = "acceptable"
    elif result != intended:
        raise ValueError(f"{test_id}: reference gives {result} {expected}, row says {intended}")
    provenance = ESTIMATE if "EncoderEstimateQuirk" in flags else derived(rule)
    return VectorTest(test_id, rule, comment, case, expected, result, flags, provenance=provenance)


def build() -> VectorFile:
    return VectorFile(
        topic=TOPIC,
        header=(
            "Host workflow operation ledger, format version 2: decoding, structural",
            "validation, size bounds and the exact re-encoding. Rules: docs/spec/ledger.md.",
            "Input text is `text` followed by `trailing_spaces` spaces. A valid result gives the",
            "re-encoding as `encoded`, or `encoded_is_input` when it equals `text` exactly.",
            "Compare error codes;",
            "every other error field is informative.",
            "ErrorPrecedence vectors break two checks at once (docs/spec/precedence.md):",
            "the earlier check's code is expected.",
            f"The doc-example operation key is {OP_KEY}; its compensation key {CMP_KEY}.",
        ),
        notes=NOTES,
        groups=[
            *(VectorGroup(name, tuple(_test(row) for row in rows)) for name, rows in GROUPS),
            VectorGroup("precedence", tuple(_precedence_test(row) for row in precedence_rows())),
        ],
        test_schema=TEST_SCHEMA,
    )
