"""Topic ``storage``: record tags, opening envelopes, and compare-and-swap / fencing traces.

Inputs are written here and in ``_storage_cases``; every expected value is computed by the
reference through ``interpreters.storage_harness`` on the memory backend. Ids are published:
never rename or reuse one.
"""

from __future__ import annotations

from typing import Any

from rescind.conformance.cases import CaseRow
from rescind.conformance.interpreters.storage_harness import run_open, run_trace
from rescind.conformance.provenance import Provenance, derived, splash_test
from rescind.conformance.vectors.format import Flag, VectorFile, VectorGroup, VectorTest
from rescind.conformance.vectors.sets._precedence import FLAG, NOTE, trace_test
from rescind.conformance.vectors.sets._storage_cases import (
    FIRST,
    K09,
    KEYRING_V1,
    LEDGER_NAME,
    LEDGER_NS,
    MAX,
    OVERSIZE,
    V1,
    V2,
    open_tests,
    tag_tests,
)
from rescind.conformance.vectors.sets._storage_precedence import precedence_rows, write_rows

NOTES = [
    Flag(FLAG, *NOTE),
    Flag("KnownAnswer", "tag recipe differs from upstream", "records cannot be exchanged"),
    Flag("LengthPrefixOmitted", "fields hashed without length prefixes", "record transplant"),
    Flag("FieldOrderAssumed", "reader insists on the writer's field order", "valid refused"),
    Flag("DuplicateFieldAccepted", "last-wins JSON reader", "readers disagree on a record"),
    Flag("IntegerLexeme", "1.0, 1e0 or -0 read as a revision", "parser differential"),
    Flag("NonCanonicalBase64", "lenient base64 decoder", "one record, several texts"),
    Flag("CheckOrder", "checks run in another order", "another error code is reported"),
    Flag("Rollback", "floor not compared with the record", "restored backup accepted"),
    Flag("Transplant", "tag does not bind the record key", "record moved between keys"),
    Flag("StaleWriter", "fence not established first or not rechecked", "lost update"),
    Flag("WeakStorageKey", "zero key refused or accepted: both conform (F14)", "guessable key"),
    Flag("LoneSurrogate", "JSON reader accepts lone surrogate escapes", "parser differential"),
    Flag("JsonStringEscape", "raw JSON text compared, not its value", "valid record refused"),
    Flag("SizeBound", "off-by-one size bound", "boundary record refused or accepted"),
    Flag(
        "ByteLength",
        "an identifier length counted in characters, or a Unicode-aware token class",
        "multi-byte names upstream refuses are accepted: records sealed that it cannot open",
    ),
]


# --- trace steps ------------------------------------------------------------------------------


def _p(payload: bytes) -> dict[str, str]:
    return {"payload_hex": payload.hex()}


def _fill(count: int) -> dict[str, Any]:
    return {"payload_fill": {"byte_hex": "61", "count": count}}


def _op(op: str, **args: Any) -> dict[str, Any]:
    return {"op": op, **args}


def create(payload: bytes = FIRST, /, **args: Any) -> dict[str, Any]:
    # Positional-only, so a ``**`` table of string arguments can never bind to ``payload``.
    return _op("create", **_p(payload), **args)


def replace(expected: int, payload: bytes, **args: Any) -> dict[str, Any]:
    return _op("replace", expected=expected, **_p(payload), **args)


def fenced(expected: int | None, payload: bytes, fence: int) -> dict[str, Any]:
    return _op("cas", expected=expected, fence=fence, **_p(payload))


def unfenced(expected: int | None, payload: bytes) -> dict[str, Any]:
    return _op("cas", expected=expected, **_p(payload))


def save(label: str) -> dict[str, Any]:
    return _op("save", label=label)


LOAD, INSPECT = _op("load"), _op("inspect")
RESERVE, FENCE = _op("reserve_fence"), _op("current_fence")
OTHER = {"name": "release-43"}
ROTATE_V2 = _op("rotate_to", key_id=V2, key_hex=K09)
BIG = _op("create", **_fill(262_145))
GARBAGE = _op("set_record", revision=1, record=["not json"])
HUGE = _op("set_record", revision=1, record=[{"repeat": " ", "count": OVERSIZE}])


_STORAGE = "crates/splash-storage/src/lib.rs"
_READ_BACK = "the final load and inspect results are the reference's read-back (ST-19)"


def _partly(test: str, rule: str, steps: str) -> Provenance:
    return derived(rule, note=f"{steps} follow Splash {_STORAGE} test {test}; the rest is computed")


TRACE_EVIDENCE: dict[str, Provenance] = {
    "trace.create-replace-conflict": splash_test(
        _STORAGE, "writes_authenticated_records_with_compare_and_swap", note=_READ_BACK
    ),
    "trace.fencing-superseded-after-conflict": splash_test(
        _STORAGE,
        "fenced_compare_and_swap_rejects_a_superseded_writer_after_a_conflict",
        note=_READ_BACK,
    ),
    "trace.key-rotation": _partly(
        "rotation_reads_old_records_and_rewrites_with_the_active_key", "ST-21", "steps 0 to 5"
    ),
    "trace.rollback-restore": _partly(
        "rejects_a_record_rolled_back_below_its_trusted_floor", "ST-7", "steps 0 to 4"
    ),
    "trace.floor-forced-zero": _partly(
        "enforces_payload_and_revision_floor_bounds", "ST-7", "steps 0 to 2"
    ),
    "trace.transplant": _partly(
        "rejects_tampering_and_record_transplants", "ST-16", "steps 0 to 3"
    ),
    "trace.two-recovering-writers": derived(
        "ST-28",
        "RC-14",
        note="the storage calls that Splash crates/splash-workflow/src/bubblewrap_recovery.rs "
        "test a_new_recovery_fence_rejects_the_superseded_writer makes, replayed at this layer",
    ),
}
"""Traces that follow an upstream test; the others are derived from their rule."""


def trace(test_id: str, rule: str, comment: str, steps: list[Any], *flags: str) -> VectorTest:
    inp = {
        "keyring": KEYRING_V1,
        "active_key_id": V1,
        "namespace": LEDGER_NS,
        "name": LEDGER_NAME,
        "steps": steps,
    }
    provenance = TRACE_EVIDENCE.get(test_id) or derived(rule)
    # Upstream's answer is one conformant reading of a weak key, refusing it the other (F14).
    result = "acceptable" if "WeakStorageKey" in flags else "valid"
    return VectorTest(
        test_id, rule, comment, inp, run_trace(inp), result, flags, provenance=provenance
    )


def _write_traces() -> list[VectorTest]:
    return [
        trace("trace.create-replace-conflict", "ST-19",
              "upstream test writes_authenticated_records_with_compare_and_swap",
              [create(), replace(0, b"stale payload"), replace(1, b"second payload"), LOAD,
               INSPECT]),
        trace("trace.create-on-existing", "ST-19", "create over revision 1",
              [create(), create(b"again"), INSPECT]),
        trace("trace.replace-absent", "ST-19", "replace with no record",
              [replace(1, FIRST), replace(0, FIRST), INSPECT]),
        trace("trace.payload-bound", "ST-18", "262,145 refused, 262,144 stored",
              [BIG, INSPECT, _op("create", **_fill(262_144)), LOAD], "SizeBound"),
        trace("trace.revision-exhausted", "ST-20", "replace at 2^64-1",
              [_op("plant", revision=MAX, **_p(b"payload")), LOAD, replace(MAX, b"next"),
               INSPECT]),
        trace("trace.revision-successor", "ST-20",
              "public writes only: each write stores the expected revision plus one",
              [create(), replace(1, b"second payload"), unfenced(2, b"third"),
               RESERVE, fenced(3, b"fourth", 1), LOAD, replace(3, b"stale"), INSPECT]),
        trace("trace.key-rotation", "ST-21",
              "upstream test rotation_reads_old_records_and_rewrites_with_the_active_key",
              [create(b"payload"), ROTATE_V2, LOAD, replace(1, b"payload"), LOAD,
               _op("retire", key_id=V1), LOAD]),
        trace("trace.retire-too-early", "ST-17", "old key retired before the rewrite",
              [create(b"payload"), ROTATE_V2, _op("retire", key_id=V1), LOAD,
               replace(1, b"payload")]),
        trace("trace.keyring-errors.r2", "ST-17", "duplicate, active, unknown, invalid",
              [_op("rotate_to", key_id=V1, key_hex=K09), _op("retire", key_id=V1),
               _op("retire", key_id="storage-v9"), _op("add_read_key", key_id=V2, key_hex=K09),
               _op("retire", key_id=V2), _op("rotate_to", key_id="Storage", key_hex=K09)]),
        trace("trace.keyring-all-zero-read-key", "ST-4",
              "an all-zero read key is added, as upstream does; refusing it also conforms",
              [_op("add_read_key", key_id="storage-v3", key_hex="00" * 32)],
              "WeakStorageKey"),
    ]  # fmt: skip


def _damage_traces() -> list[VectorTest]:
    return [
        trace("trace.rollback-restore", "ST-7",
              "old bytes back: upstream test rejects_a_record_rolled_back_below_its_trusted_floor",
              [create(), save("old"), replace(1, b"second payload"), _op("restore", label="old"),
               LOAD, replace(2, b"third payload"), replace(1, b"third payload"), INSPECT],
              "Rollback"),
        trace("trace.floor-forced-zero", "ST-7",
              "floor 0: upstream test enforces_payload_and_revision_floor_bounds",
              [create(), _op("set_floor", floor=0), LOAD, replace(1, b"second payload"),
               INSPECT]),
        trace("trace.record-deleted", "ST-7", "record gone, floor kept",
              [create(), replace(1, b"second payload"), _op("delete_record"), LOAD, create(),
               INSPECT], "Rollback"),
        trace("trace.revision-mismatch", "ST-11", "revision-1 bytes at backend revision 2",
              [create(), save("r1"), replace(1, b"second payload"),
               _op("set_record", from_label="r1", revision=2), LOAD]),
        trace("trace.transplant", "ST-16",
              "copied record: upstream test rejects_tampering_and_record_transplants",
              [create(), create(b"second payload", **OTHER),
               _op("copy_record", from_name="release-43"), LOAD, replace(1, b"third payload"),
               INSPECT], "Transplant"),
        trace("trace.tampered-payload", "ST-16", "payload field replaced",
              [create(), _op("edit_field", field="payload", value_json='"dGFtcGVyZWQ"'), LOAD,
               INSPECT]),
        trace("trace.oversize-record", "ST-8", "393,217-byte record blocks reads and writes",
              [create(), HUGE, LOAD, replace(1, b"second payload")], "SizeBound"),
    ]  # fmt: skip


def _fence_traces() -> list[VectorTest]:
    return [
        trace("trace.fencing-superseded-after-conflict", "ST-28",
              "upstream test fenced_compare_and_swap_rejects_a_superseded_writer_after_a_conflict",
              [fenced(None, FIRST, 5), fenced(0, b"stale snapshot", 6), FENCE,
               unfenced(1, b"unfenced writer"), fenced(1, b"old writer", 5),
               fenced(1, b"current writer", 6), LOAD], "StaleWriter"),
        trace("trace.reserve-monotonic", "ST-24", "1, 2, then exhausted at 2^64-1",
              [RESERVE, RESERVE, FENCE, _op("set_fence", fence=MAX), RESERVE, INSPECT]),
        trace("trace.zero-token", "ST-28", "token 0 creates nothing",
              [fenced(None, FIRST, 0), FENCE, LOAD, INSPECT]),
        trace("trace.establish", "ST-25", "raise, repeat, lower, zero",
              [_op("establish_fence", token=3), FENCE, _op("establish_fence", token=3),
               _op("establish_fence", token=2), _op("establish_fence", token=0), FENCE, LOAD,
               INSPECT], "StaleWriter"),
        trace("trace.two-recovering-writers", "ST-28",
              "RC-14; upstream test a_new_recovery_fence_rejects_the_superseded_writer",
              [RESERVE, fenced(None, b"ledger 1", 1), RESERVE, fenced(1, b"stale writer", 1),
               fenced(1, b"ledger 2", 2), RESERVE, fenced(2, b"ledger 3", 3), INSPECT],
              "StaleWriter"),
        trace("trace.unfenced-after-reserve", "ST-27", "a fence exists before the record",
              [RESERVE, create(), INSPECT], "StaleWriter"),
        trace("trace.conflict-before-fencing-required", "ST-27", "stale unfenced write",
              [RESERVE, fenced(None, FIRST, 1), replace(0, b"stale"), replace(1, b"unfenced")],
              "CheckOrder"),
        trace("trace.stale-token-before-read", "ST-28", "stale token refused before reading",
              [create(), RESERVE, RESERVE, GARBAGE, fenced(1, b"stale", 1),
               fenced(1, b"current", 2)], "CheckOrder", "StaleWriter"),
        trace("trace.newer-token-survives-rollback", "ST-28", "fence kept after a failure",
              [fenced(None, FIRST, 1), save("old"), fenced(1, b"second", 1),
               _op("restore", label="old"), fenced(1, b"recovery", 4), FENCE,
               fenced(1, b"stale", 1), INSPECT], "StaleWriter"),
        trace("trace.newer-token-survives-payload-bound", "ST-28", "token before payload bound",
              [fenced(None, FIRST, 1), _op("cas", expected=1, fence=2, **_fill(262_145)), FENCE,
               fenced(1, b"stale", 1), INSPECT], "CheckOrder", "StaleWriter"),
        trace("trace.same-token-repeats", "ST-26", "one writer, several writes",
              [RESERVE, fenced(None, FIRST, 1), fenced(1, b"second", 1), fenced(2, b"third", 1),
               INSPECT]),
        trace("trace.token-above-current", "ST-25", "a write establishes a higher token",
              [RESERVE, fenced(None, FIRST, 10), FENCE, RESERVE]),
        trace("trace.fences-per-key", "ST-24", "fences do not cross record keys",
              [RESERVE, _op("reserve_fence", **OTHER), create(**OTHER),
               _op("current_fence", name="release-44"), create(name="release-44")]),
        trace("trace.out-of-range-revisions", "ST-29", "2^64 and -1 as revisions and tokens",
              [create(), replace(2**64, b"x"), replace(-1, b"x"), fenced(1, b"x", 2**64),
               fenced(1, b"x", -1), _op("establish_fence", token=2**64),
               _op("establish_fence", token=-1), INSPECT]),
        trace("trace.rejected-calls-keep-state", "ST-29", "refusals leave everything alone",
              [RESERVE, fenced(None, FIRST, 1), INSPECT, fenced(0, b"x", 1), INSPECT,
               unfenced(1, b"x"), INSPECT, fenced(1, b"x", 0), INSPECT,
               _op("establish_fence", token=0), INSPECT, BIG, INSPECT]),
    ]  # fmt: skip


# --- the file ---------------------------------------------------------------------------------

_HEX = {"type": "string", "pattern": "^([0-9a-f]{2})*$"}
_SEGMENTS = {
    "type": "array",
    "items": {
        "oneOf": [
            {"type": "string"},
            {"type": "object", "required": ["hex"], "properties": {"hex": _HEX}},
            {
                "type": "object",
                "required": ["repeat", "count"],
                "properties": {"repeat": {"type": "string"}, "count": {"type": "integer"}},
            },
        ]
    },
}
_FILL = {
    "type": "object",
    "required": ["byte_hex", "count"],
    "properties": {"byte_hex": _HEX, "count": {"type": "integer", "minimum": 0}},
}
_KEYRING = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["key_id", "key_hex"],
        "properties": {"key_id": {"type": "string"}, "key_hex": _HEX},
    },
}
_STEP = {"type": "object", "required": ["op"], "properties": {"op": {"type": "string"}}}

TEST_SCHEMA = {
    "input": {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "key_hex": _HEX,
            "namespace": {"type": "string"},
            "name": {"type": "string"},
            "key_id": {"type": "string"},
            "revision": {"type": "integer", "minimum": 0},
            "payload_hex": _HEX,
            "payload_fill": _FILL,
            "keyring": _KEYRING,
            "active_key_id": {"type": "string"},
            "backend_revision": {"type": ["integer", "null"], "minimum": 0},
            "floor": {"type": "integer", "minimum": 0},
            "record": {"oneOf": [{"type": "null"}, _SEGMENTS]},
            "steps": {"type": "array", "items": _STEP},
        },
    },
    "expected": {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "error": {"type": "string"},
            "details": {"type": "object"},
            "auth_tag": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
            "payload_field": {"type": "string"},
            "envelope": {"type": "string"},
            "record": {"type": ["object", "null"]},
            "steps": {"type": "array", "items": {"type": "object"}},
        },
    },
}

HEADER = [
    "Storage record tags, envelope opening and compare-and-swap / fencing traces.",
    "Rules: docs/spec/storage.md (ST-1 .. ST-32).",
    "Tag tests: the recipe's fields in; auth_tag out (short payloads also give the unpadded",
    "base64 payload field and the compact envelope at that revision).",
    "Open tests: a backend returns record (byte segments, concatenated: a string is its UTF-8,",
    "hex is raw bytes, repeat is text repeated count times) at backend_revision with floor;",
    "open it for namespace/name with the keyring. Expected: the record, or an error code.",
    "Trace tests: run steps in order on a fresh backend; each step gives ok or an error code.",
    "Steps set_*, save, restore, copy_record, delete_record, edit_field and plant are fault",
    "injection on the backend (ST-32). Error details are informative (upstream variant fields).",
    "ErrorPrecedence vectors: the record opened, or a trace's last step, breaks two checks at",
    "once (docs/spec/precedence.md); the earlier check's code is expected.",
]


def _precedence_test(row: CaseRow) -> VectorTest:
    return VectorTest(
        row.id,
        row.rule,
        row.comment,
        row.input,
        run_open(row.input),
        "invalid",
        row.flags,
        provenance=row.provenance,
    )


def _write_precedence() -> list[VectorTest]:
    """EP-23 to EP-25: the trace's last step breaks two checks; the whole trace is expected."""
    to_vector = trace_test(run_trace)
    return [to_vector(row) for row in write_rows()]


def build() -> VectorFile:
    groups = [
        VectorGroup("storage-record-tag", tag_tests()),
        VectorGroup("storage-envelope-open", open_tests()),
        VectorGroup(
            "storage-cas-trace",
            _write_traces() + _damage_traces() + _fence_traces() + _write_precedence(),
        ),
        VectorGroup(
            "storage-open-precedence", tuple(_precedence_test(row) for row in precedence_rows())
        ),
    ]
    return VectorFile("storage", HEADER, NOTES, groups, TEST_SCHEMA)
