# ruff: noqa: E501  (the journal texts of the generated rows keep one record per line)
"""Vectors for loading and re-encoding a worker journal (docs/spec/journal.md WJ-1..WJ-5).

The cases are rows of ``conformance/cases/journal-codec.toml``; the two families whose journal
texts are long (failure messages at the size bound, record counts at the bound) are generated
here. Expected values come from the ``journal.load`` operation.

Input: the journal text (or a ``{"prefix","repeat","count","suffix"}`` spec for large ones),
an optional expected scope (``from_json_for_scope``) and an optional profile. A valid vector
expects the compact re-encoding; an invalid one the error code. Rows reproduce every
"loading" row of upstream's probe plus worker edge cases 27-32.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from rescind.conformance import cases
from rescind.conformance.cases import CaseRow, CaseTable, Family
from rescind.conformance.interpreters.journal_load import load_journal
from rescind.conformance.precedence import PROTOCOL
from rescind.conformance.provenance import Provenance, derived, observed, splash_code
from rescind.conformance.vectors.format import Flag, VectorFile
from rescind.conformance.vectors.sets._precedence import FLAG, NOTE, Faults, pair_rows
from rescind.conformance.vectors.sets._tabled import Computation, tabled_groups

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


def _failed(length: int, character: str = "x") -> str:
    return '{"state":"failed","message":"' + character * length + '"}'


PROBE_FAILED = journal(rec(TOTAL, comp('{"state":"failed","message":"boom"}')))
PROBE_PENDING = journal(rec())
EMPTY = journal()


def _padded(length: int) -> dict[str, Any]:
    return {"prefix": EMPTY, "repeat": " ", "count": length - len(EMPTY), "suffix": ""}


def _records(count: int) -> str:
    return journal(*(rec(key=f"k-{index}") for index in range(count)))


PROBE = ("UpstreamProbe",)
STRICT = ("StrictDecoding",)
LENIENT = ("LenientDecoding",)
ORDER = ("CheckOrder",)


PROBE = ("UpstreamProbe",)
ORDER = ("CheckOrder",)
_REENCODED = "the re-encoding of a loaded journal computed by the reference (WJ-1)"


def _probe_row(label: str, valid: bool) -> Provenance:
    return observed("out_ap.txt", label, scope=_REENCODED if valid else "")


def _row(
    test_id: str, comment: str, text: str, provenance: Provenance, flags: tuple[str, ...]
) -> CaseRow:
    return CaseRow(test_id, "WJ-3", comment, {"text": text}, provenance, flags=flags)


def failure_message_bounds() -> list[CaseRow]:
    """A stored failure message at WJ-3's 4,096-byte bound and one byte past it."""
    return [
        _row(
            "codec.probe.state-failed-4096",
            "4096-byte failure message",
            journal(rec(_failed(4096))),
            _probe_row("state failed 4096", True),
            PROBE,
        ),
        _row(
            "codec.probe.state-failed-4097",
            "edge case 30: 4097-byte failure message",
            journal(rec(_failed(4097))),
            _probe_row("state failed 4097", False),
            PROBE,
        ),
        # The bound counts UTF-8 bytes, not characters: a two-byte character at the edge.
        _row(
            "codec.failed-message-2048-two-byte-characters",
            "2,048 two-byte characters: 4,096 bytes, at the bound",
            journal(rec(_failed(2048, "\u00e9"))),
            derived("WJ-3"),
            (),
        ),
        _row(
            "codec.failed-message-2049-two-byte-characters",
            "2,049 two-byte characters: 2,049 characters but 4,098 bytes, past the bound",
            journal(rec(_failed(2049, "\u00e9"))),
            derived("WJ-3"),
            (),
        ),
    ]


def record_count_bounds() -> list[CaseRow]:
    """64 records (the bound), 65, and 65 whose first is invalid: the count is checked first."""
    first_invalid = journal(rec(fp="bad"), *(rec(key=f"k-{index}") for index in range(64)))
    return [
        _row(
            "codec.probe.64-records",
            "64 records",
            _records(64),
            _probe_row("64 records", True),
            PROBE,
        ),
        _row(
            "codec.probe.65-records",
            "edge case 30: 65 records",
            _records(65),
            _probe_row("65 records", False),
            PROBE,
        ),
        _row(
            "codec.count-checked-before-records",
            "65 records, the first invalid: the count is checked first",
            first_invalid,
            derived("WJ-3"),
            ORDER,
        ),
    ]


_LONG_FAILURE = {"state": "failed", "message": "x" * 4097}
_MAX_TEXT = 262_144


def _journal_base() -> dict[str, Any]:
    records = (rec(TOTAL, comp(key=f"cmp-undo-{i}"), key=f"k-{i}") for i in range(3))
    document: dict[str, Any] = json.loads(journal(*records))
    return document


def _record(name: str, value: object) -> Callable[[dict[str, Any], int], None]:
    def fault(document: dict[str, Any], at: int) -> None:
        document["records"][at][name] = value

    return fault


def _compensation(name: str, value: object) -> Callable[[dict[str, Any], int], None]:
    def fault(document: dict[str, Any], at: int) -> None:
        document["records"][at]["compensation"][name] = value

    return fault


def _not_succeeded(document: dict[str, Any], at: int) -> None:
    """A record that has not succeeded (one that an earlier fault already failed stays so)."""
    record = document["records"][at]
    if record["state"]["state"] == "succeeded":
        record["state"] = {"state": "pending"}


def _too_many_records(document: dict[str, Any], _: int) -> None:
    records = document["records"]
    records.extend(json.loads(rec(key=f"extra-{i}")) for i in range(65 - len(records)))


def _repeat_key(document: dict[str, Any], at: int) -> None:
    records = document["records"]
    records[at - 1]["operation_key"] = records[at]["operation_key"]


def _journal_input(document: dict[str, Any]) -> dict[str, Any]:
    """The journal text; padded with spaces past the bound when the text-size fault is on."""
    body = {key: value for key, value in document.items() if key != "pad"}
    text = json.dumps(body, separators=(",", ":"))
    if not document.get("pad"):
        return {"text": text}
    return {
        "text": {"prefix": text, "repeat": " ", "count": _MAX_TEXT + 1 - len(text), "suffix": ""}
    }


def precedence_pairs() -> list[CaseRow]:
    """EP-9's pairs: a three-record journal with two of its checks broken."""
    return pair_rows(
        Faults(
            "journal.load",
            "codec",
            _journal_base,
            {
                "text_size": lambda document, _: document.update(pad=True),
                "decode": lambda document, _: document.update(extra=1),
                "version": lambda document, _: document.update(format_version=1),
                "scope": lambda document, _: document.update(scope="Tenant-Release"),
                "record_count": _too_many_records,
                "tool": _record("tool", "Math.Add"),
                "operation_key": _record("operation_key", "K-1"),
                "input_fingerprint": _record("input_fingerprint", "0" * 63),
                "state": _record("state", _LONG_FAILURE),
                "compensation_state": _not_succeeded,
                "compensation_key": _compensation("compensation_key", "undo-1"),
                "compensation_input_fingerprint": _compensation("input_fingerprint", "G" * 64),
                "grant_fingerprint": _compensation("grant_fingerprint", "0" * 65),
                "compensation_state_valid": _compensation("state", _LONG_FAILURE),
                "operation_key_unique": _repeat_key,
            },
            _journal_input,
            load_journal,
            splash_code(
                PROTOCOL,
                "WorkerOperationJournal::validate_and_bound",
                "WorkerOperationRecord::validate",
                "WorkerCompensationRecord::validate",
                note="the order of the checks in these functions, after the size bound and strict"
                " decoding of loading; read, not run (EP-9)",
            ),
        )
    )


FAMILIES: dict[str, Family] = {
    "failure-message-bounds": failure_message_bounds,
    "record-count-bounds": record_count_bounds,
    "precedence-pairs": precedence_pairs,
}


def table() -> CaseTable:
    return cases.load(TOPIC, FAMILIES)


NOTES = [
    Flag(FLAG, *NOTE),
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
        "ByteLength",
        "the 256 KiB bound counted in characters instead of UTF-8 bytes",
        "multi-byte text past 262,144 bytes is parsed and reported with another error",
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


def build(source: CaseTable | None = None) -> VectorFile:
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
            "ErrorPrecedence vectors break two checks at once (docs/spec/precedence.md): the earlier check's code is expected.",
        ),
        notes=NOTES,
        groups=tabled_groups(
            source or table(),
            dict.fromkeys(("journal-load", "precedence"), Computation(load_journal)),
        ),
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
