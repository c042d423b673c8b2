# ruff: noqa: E501  (the row tables below keep one vector per line)
"""Vectors for the host-side derivations: plan fingerprint, canonical and host input
fingerprints, ``op-`` and ``cmp-`` keys (docs/spec/host-keys.md, rules HK-n).

Byte strings are written as a JSON string (its UTF-8 bytes), ``{"hex": ...}`` or
``{"repeat": <text>, "count": N}``. An ``input`` is a tool payload in wire form (its canonical
input bytes are meant) or raw bytes in one of those forms. Expected values are computed by the
reference; each row states the result it must have and building fails on disagreement.
"""

from __future__ import annotations

from typing import Any

from rescind.conformance.interpreters.host_key_ops import expected_of
from rescind.conformance.provenance import derived
from rescind.conformance.vectors.format import (
    Flag,
    VectorFile,
    VectorGroup,
    VectorTest,
    test_from_row,
)

TOPIC = "host-keys"

PLAN = [["publish", "let release = true"]]
PLAN_FP = "0b261b22f61c0dbd5c290a54cf1ee60f4a5bb598f480f32c5d637d5de0b68d20"
OP_KEY = "op-a6d9d328a46ad9d5a8ed39963fda367dd8cca56b67999b055cd2466a760e1584"
GRANT_FP = "f868e4d5cb807c8d016259c0201e3a02526188043f9a64188bc86364d9b142a6"
VERSION = {"format": "json", "value": {"version": "1.2.3"}}
UNDO = {"format": "json", "value": {"undo": "release"}}
NONCE = "release-42:publish:1"
UNDO_NONCE = "release-42:publish:undo:1"


def _plan(steps: list[list[Any]]) -> dict[str, Any]:
    return {"operation": "plan_fingerprint", "steps": steps}


def _op(
    steps: list[list[Any]] | None = None,
    step_id: str = "publish",
    tool: str = "release.publish",
    input: Any = None,
    nonce: Any = NONCE,
) -> dict[str, Any]:
    return {
        "operation": "operation_key",
        "steps": PLAN if steps is None else steps,
        "step_id": step_id,
        "tool": tool,
        "input": VERSION if input is None else input,
        "nonce": nonce,
    }


def _cmp(input: Any = None, nonce: Any = UNDO_NONCE, **changes: str) -> dict[str, Any]:
    case: dict[str, Any] = {
        "operation": "compensation_key",
        "plan_fingerprint": PLAN_FP,
        "operation_key": OP_KEY,
        "tool": "release.publish",
        "tenant_scope": "tenant-release",
        "grant_fingerprint": GRANT_FP,
        "input": UNDO if input is None else input,
        "nonce": nonce,
    }
    case.update(changes)
    return case


Row = tuple[str, str, str, tuple[str, ...], str, dict[str, Any]]

# fmt: off
PLAN_ROWS: list[Row] = [
    ("hostkeys.plan.upstream-doc", "HK-2", "valid", ("KnownAnswer",), "The upstream doc plan: one step `publish` with source `let release = true`.", _plan(PLAN)),
    ("hostkeys.plan.two-steps", "HK-2", "valid", (), "Two steps; the count and both (id, source) pairs are hashed in order.", _plan([["build", "make"], ["publish", "let release = true"]])),
    ("hostkeys.plan.two-steps-swapped", "HK-2", "valid", ("OrderSensitive",), "The same two steps in the other order give another fingerprint.", _plan([["publish", "let release = true"], ["build", "make"]])),
    ("hostkeys.plan.source-changed", "HK-2", "valid", (), "One character of source changed: another fingerprint.", _plan([["publish", "let release = false"]])),
    ("hostkeys.plan.empty-source", "HK-2", "valid", (), "An empty source is allowed and still length-prefixed.", _plan([["publish", ""]])),
    ("hostkeys.plan.non-ascii-source", "HK-2", "valid", (), "Source is hashed as UTF-8 bytes.", _plan([["publish", "let name = \"caf\u00e9 \u4e2d\""]])),
    ("hostkeys.plan.boundary-split", "HK-2", "valid", ("LengthPrefix",), "Id `ab` source `c` versus id `a` source `bc` (next row): length prefixes keep them apart.", _plan([["ab", "c"]])),
    ("hostkeys.plan.boundary-split-other", "HK-2", "valid", ("LengthPrefix",), "Id `a` source `bc`: must differ from the previous row.", _plan([["a", "bc"]])),
    ("hostkeys.plan.max-step-id", "HK-3", "valid", (), "A 128-byte step id is allowed.", _plan([["s" * 128, "x"]])),
    ("hostkeys.plan.source-exactly-1mib", "HK-3", "valid", (), "Total source of exactly 1,048,576 bytes is allowed.", _plan([["a", {"repeat": "x", "count": 1_048_576}]])),
    ("hostkeys.plan.no-steps", "HK-3", "invalid", (), "A plan needs at least one step.", _plan([])),
    ("hostkeys.plan.duplicate-step-ids", "HK-3", "invalid", (), "Step ids must be unique.", _plan([["publish", "a"], ["publish", "b"]])),
    ("hostkeys.plan.exactly-1024-steps", "HK-3", "valid", (), "1,024 steps, the most a plan may have, are allowed and all hashed.", _plan([[f"s{index}", ""] for index in range(1024)])),
    ("hostkeys.plan.too-many-steps", "HK-3", "invalid", (), "1,025 steps are one too many.", _plan([[f"s{index}", ""] for index in range(1025)])),
    ("hostkeys.plan.source-over-1mib", "HK-3", "invalid", (), "Total source of 1,048,577 bytes is refused.", _plan([["a", {"repeat": "x", "count": 524_288}], ["b", {"repeat": "y", "count": 524_289}]])),
    ("hostkeys.plan.uppercase-step-id", "HK-3", "invalid", (), "Step ids use the token grammar: no uppercase.", _plan([["Publish", "x"]])),
    ("hostkeys.plan.long-step-id", "HK-3", "invalid", (), "A 129-byte step id is refused.", _plan([["s" * 129, "x"]])),
]

INPUT_ROWS: list[Row] = [
    ("hostkeys.canonical.json-version", "HK-4", "valid", ("KnownAnswer",), "Canonical input of JSON `{\"version\":\"1.2.3\"}`.", {"operation": "canonical_input", "input": VERSION}),
    ("hostkeys.canonical.text-release", "HK-4", "valid", ("KnownAnswer",), "Canonical input of text `release-1.2.3`.", {"operation": "canonical_input", "input": {"format": "text", "value": "release-1.2.3"}}),
    ("hostkeys.canonical.json-sorted-keys", "HK-4", "valid", ("KnownAnswer",), "Keys are sorted: `json`, u64 38, `{\"channel\":\"stable\",\"version\":\"1.2.3\"}`.", {"operation": "canonical_input", "input": {"format": "json", "value": {"version": "1.2.3", "channel": "stable"}}}),
    ("hostkeys.input-fp.json-version", "HK-5", "valid", ("KnownAnswer",), "Host input fingerprint of the canonical `{\"version\":\"1.2.3\"}` input.", {"operation": "host_input_fingerprint", "input": VERSION}),
    ("hostkeys.input-fp.empty", "HK-5", "valid", ("KnownAnswer", "LengthPrefix"), "Host input fingerprint of the empty byte string (the length prefix is still hashed).", {"operation": "host_input_fingerprint", "input": {"hex": ""}}),
    ("hostkeys.input-fp.undo", "HK-5", "valid", ("KnownAnswer",), "Host input fingerprint of the compensation input `{\"undo\":\"release\"}`.", {"operation": "host_input_fingerprint", "input": UNDO}),
    ("hostkeys.input-fp.text", "HK-5", "valid", (), "Host input fingerprint of a text payload.", {"operation": "host_input_fingerprint", "input": {"format": "text", "value": "release-1.2.3"}}),
]

OPERATION_ROWS: list[Row] = [
    ("hostkeys.op.upstream-doc", "HK-6", "valid", ("KnownAnswer",), "The doc scenario: plan above, step `publish`, tool `release.publish`, `{\"version\":\"1.2.3\"}`, nonce `release-42:publish:1`.", _op()),
    ("hostkeys.op.other-nonce", "HK-11", "valid", (), "Only the nonce differs: another key.", _op(nonce="release-42:publish:2")),
    ("hostkeys.op.other-input", "HK-11", "valid", (), "Only the input differs: another key.", _op(input={"format": "json", "value": {"version": "1.2.4"}})),
    ("hostkeys.op.reordered-input", "HK-11", "valid", (), "JSON `{\"channel\":\"stable\",\"version\":\"1.2.3\"}`; the next row writes the keys in the other order and must give this same key.", _op(input={"format": "json", "value": {"channel": "stable", "version": "1.2.3"}})),
    ("hostkeys.op.reordered-input-other", "HK-11", "valid", (), "The same JSON with its keys reordered: the canonical input and so the key equal the previous row's.", _op(input={"format": "json", "value": {"version": "1.2.3", "channel": "stable"}})),
    ("hostkeys.op.other-plan-source", "HK-11", "valid", (), "Only the plan source differs: another plan fingerprint, another key.", _op(steps=[["publish", "let release = false"]])),
    ("hostkeys.op.other-tool", "HK-11", "valid", (), "Only the tool differs: another key.", _op(tool="release.promote")),
    ("hostkeys.op.text-input", "HK-6", "valid", (), "A text payload input.", _op(input={"format": "text", "value": "release-1.2.3"})),
    ("hostkeys.op.binary-nonce", "HK-8", "valid", (), "A nonce is any bytes (here 0x00 0xff), no grammar.", _op(nonce={"hex": "00ff"})),
    ("hostkeys.op.nonce-128", "HK-8", "valid", (), "A 128-byte nonce is the largest allowed.", _op(nonce={"repeat": "n", "count": 128})),
    ("hostkeys.op.input-262144", "HK-7", "valid", (), "Raw input of exactly 262,144 bytes is allowed.", _op(input={"repeat": "a", "count": 262_144})),
    ("hostkeys.op.second-step", "HK-6", "valid", (), "A key for the second step of a two-step plan.", _op(steps=[["build", "make"], ["publish", "let release = true"]])),
    ("hostkeys.op.empty-nonce", "HK-8", "invalid", (), "An empty nonce is refused.", _op(nonce="")),
    ("hostkeys.op.nonce-129", "HK-8", "invalid", (), "A 129-byte nonce is refused (actual 129, maximum 128).", _op(nonce={"repeat": "n", "count": 129})),
    ("hostkeys.op.input-262145", "HK-7", "invalid", (), "Input of 262,145 bytes is refused (actual 262145, maximum 262144).", _op(input={"repeat": "a", "count": 262_145})),
    ("hostkeys.op.invalid-tool", "HK-7", "invalid", (), "The tool must be a token (`Release.Publish` has uppercase).", _op(tool="Release.Publish")),
    ("hostkeys.op.tool-with-space", "HK-7", "invalid", (), "`bad tool` is not a token.", _op(tool="bad tool")),
    ("hostkeys.op.unknown-step", "HK-7", "invalid", (), "The step must be one of the plan's steps.", _op(step_id="deploy")),
    ("hostkeys.op.unknown-step-beats-tool", "HK-7", "invalid", ("CheckOrder",), "Unknown step and invalid tool: the step is checked first.", _op(step_id="deploy", tool="bad tool")),
    ("hostkeys.op.tool-beats-input", "HK-7", "invalid", ("CheckOrder",), "Invalid tool and oversized input: the tool is checked first.", _op(tool="bad tool", input={"repeat": "a", "count": 262_145})),
    ("hostkeys.op.input-beats-nonce", "HK-7", "invalid", ("CheckOrder",), "Oversized input and empty nonce: the input is checked first.", _op(input={"repeat": "a", "count": 262_145}, nonce="")),
]

COMPENSATION_ROWS: list[Row] = [
    ("hostkeys.cmp.upstream-doc", "HK-9", "valid", ("KnownAnswer",), "The doc scenario: undo `{\"undo\":\"release\"}`, tenant `tenant-release`, grant fingerprint of json(`release.publish`) with one compensation, nonce `release-42:publish:undo:1`.", _cmp()),
    ("hostkeys.cmp.other-nonce", "HK-11", "valid", (), "Only the nonce differs.", _cmp(nonce="release-42:publish:undo:2")),
    ("hostkeys.cmp.other-tenant", "HK-11", "valid", (), "Only the tenant differs.", _cmp(tenant_scope="tenant-other")),
    ("hostkeys.cmp.other-grant", "HK-11", "valid", (), "Only the grant fingerprint differs.", _cmp(grant_fingerprint="0" * 64)),
    ("hostkeys.cmp.other-operation", "HK-11", "valid", (), "Only the original operation key differs.", _cmp(operation_key="release-2026-1")),
    ("hostkeys.cmp.other-input", "HK-11", "valid", (), "Only the compensation input differs.", _cmp(input={"format": "json", "value": {"undo": "other"}})),
    ("hostkeys.cmp.nonce-128", "HK-8", "valid", (), "A 128-byte compensation nonce is allowed.", _cmp(nonce={"repeat": "u", "count": 128})),
    ("hostkeys.cmp.empty-nonce", "HK-10", "invalid", (), "An empty compensation nonce is refused with the operation nonce error.", _cmp(nonce="")),
    ("hostkeys.cmp.nonce-129", "HK-10", "invalid", (), "A 129-byte compensation nonce is refused.", _cmp(nonce={"repeat": "u", "count": 129})),
    ("hostkeys.cmp.input-262145", "HK-10", "invalid", (), "A compensation input of 262,145 bytes is refused.", _cmp(input={"repeat": "a", "count": 262_145})),
    ("hostkeys.cmp.input-beats-nonce", "HK-10", "invalid", ("CheckOrder",), "Oversized input and empty nonce: the input is checked first.", _cmp(input={"repeat": "a", "count": 262_145}, nonce="")),
]

GROUPS = (
    ("plan-fingerprint", PLAN_ROWS),
    ("input-fingerprint", INPUT_ROWS),
    ("operation-key", OPERATION_ROWS),
    ("compensation-key", COMPENSATION_ROWS),
)

NOTES = (
    Flag("KnownAnswer", "wrong recipe (domain tag, field order, length prefixes)", "keys and fingerprints that disagree with upstream's hosts and journals, so deduplication fails across implementations"),
    Flag("LengthPrefix", "fields concatenated without their 8-byte big-endian lengths", "different field splits collide on one digest, so two different steps or inputs share a key"),
    Flag("OrderSensitive", "plan steps hashed as a set or sorted", "reordering a plan keeps its fingerprint, so a ledger validates against a plan it was not written for"),
    Flag("CheckOrder", "checks run in another order", "a different error code for the same call than upstream reports"),
)
# fmt: on

_BYTES = {"oneOf": [{"type": "string"}, {"type": "object"}]}
TEST_SCHEMA = {
    "input": {
        "type": "object",
        "required": ["operation"],
        "properties": {
            "operation": {
                "enum": [
                    "plan_fingerprint",
                    "canonical_input",
                    "host_input_fingerprint",
                    "operation_key",
                    "compensation_key",
                ]
            },
            "steps": {
                "type": "array",
                "items": {
                    "type": "array",
                    "prefixItems": [{"type": "string"}, _BYTES],
                    "minItems": 2,
                    "maxItems": 2,
                },
            },
            "step_id": {"type": "string"},
            "tool": {"type": "string"},
            "input": {"type": "object"},
            "nonce": _BYTES,
            "plan_fingerprint": {"type": "string"},
            "operation_key": {"type": "string"},
            "tenant_scope": {"type": "string"},
            "grant_fingerprint": {"type": "string"},
        },
        "additionalProperties": False,
    },
    "expected": {
        "type": "object",
        "properties": {
            "fingerprint": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
            "canonical_input_hex": {"type": "string", "pattern": "^([0-9a-f]{2})*$"},
            "key": {"type": "string"},
            "error": {"type": "string"},
            "actual": {"type": "integer"},
            "maximum": {"type": "integer"},
        },
        "additionalProperties": False,
    },
}


def _test(row: Row) -> VectorTest:
    # Every answer here, the doc scenario's known answers included, is computed from the
    # recipes: upstream prints or asserts none of these values (docs/spec/host-keys.md).
    return test_from_row(row, expected_of, derived(row[1]))


def build() -> VectorFile:
    return VectorFile(
        topic=TOPIC,
        header=(
            "Host-side derivations: plan fingerprint, canonical input and host input",
            "fingerprints, op- and cmp- keys. Rules: docs/spec/host-keys.md (HK-n).",
            'Byte strings: a JSON string (UTF-8), {"hex": ...} or {"repeat": text, "count": N}.',
            "An input is a tool payload (use its canonical input bytes) or raw bytes.",
            "Compare error codes; actual and maximum are informative.",
        ),
        notes=NOTES,
        groups=[VectorGroup(name, tuple(_test(row) for row in rows)) for name, rows in GROUPS],
        test_schema=TEST_SCHEMA,
    )
