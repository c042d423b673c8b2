"""Topic ``canonical-input``: canonical input bytes and both input fingerprints.

The cases are rows of ``conformance/cases/canonical-input.toml`` (plus the generated families
of ``_canonical_families``); this module only turns a row into a vector by asking the reference
for the answer in both number modes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rescind.conformance import cases
from rescind.conformance.cases import CaseRow, CaseTable
from rescind.conformance.ops import registry as operations
from rescind.conformance.vectors.format import Flag, VectorFile, VectorGroup, VectorTest
from rescind.conformance.vectors.sets import _canonical_families as canonical_families
from rescind.conformance.vectors.sets._precedence import FLAG, NOTE
from rescind.reference.errors import RescindError
from rescind.reference.jsonparse import parse_json
from rescind.reference.numbers import NumberMode

NOTES = (
    Flag(FLAG, *NOTE),
    Flag(
        "UpstreamProbe",
        "Divergence from observed upstream behaviour",
        "The expected value reproduces a row of upstream's probe output; a mismatch means "
        "bytes or fingerprints differ from what upstream computes.",
    ),
    Flag(
        "KnownAnswer",
        "Wrong digest recipe",
        "A known-answer value from upstream probe output or docs/spec (HK-12); a mismatch means "
        "a wrong domain tag, length prefix or layout.",
    ),
    Flag(
        "NumberModeDiffers",
        "Number representation mismatch",
        "The informative splash-v5-f64 profile gives other bytes (or rejects); an "
        "implementation that parses numbers into binary floats lands there and computes "
        "different fingerprints and keys than splash-v5.",
    ),
    Flag(
        "DuplicateKeyLastWins",
        "Silent duplicate-key resolution",
        "Upstream keeps the last duplicate without error; first-wins or rejecting parsers "
        "compute other bytes, so two parties may dedupe different effects under one key.",
    ),
    Flag(
        "ReservedNumberKey",
        "serde_json private number key",
        "In splash-v5 an object whose first key is $serde_json::private::Number is a number; "
        "a generic JSON library keeps it as an object and hashes different bytes.",
    ),
    Flag(
        "SignificandTruncation",
        "Fraction digits cut at the wrong place",
        "serde_json (no float_roundtrip) keeps fraction digits while the significand fits a "
        "u64 and drops the rest unrounded; stopping one digit early or late, or rounding, "
        "gives a neighbouring f64 and so other splash-v5-f64 bytes.",
    ),
    Flag(
        "UnprobedReading",
        "Behaviour read from source, not observed",
        "Upstream's answer here was derived from serde_json's source and not run; either "
        "behaviour is accepted until it is observed.",
    ),
)

HEADER = (
    "Canonical input bytes (hex), worker and host input fingerprints of payloads.",
    "input.text is the exact payload text (input.hex when it is not UTF-8); input.format is "
    "json or text; input.maxInputBytes, when present, is an inclusive size bound to check.",
    "valid: produce expected exactly. invalid: reject with expected.error (an error code); "
    "expected.reason is informative. acceptable: either outcome conforms.",
    "expected.f64 (flag NumberModeDiffers) is the informative splash-v5-f64 result.",
)

TEST_SCHEMA: dict[str, Any] = {
    "input": {
        "type": "object",
        "required": ["format"],
        "additionalProperties": False,
        "properties": {
            "format": {"enum": ["json", "text"]},
            "text": {"type": "string"},
            "hex": {"type": "string", "pattern": "^([0-9a-f]{2})*$"},
            "maxInputBytes": {"type": "integer", "minimum": 1},
        },
        "oneOf": [{"required": ["text"]}, {"required": ["hex"]}],
    },
    "expected": {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "canonicalJson": {"type": "string"},
            "canonicalInputHex": {"type": "string", "pattern": "^([0-9a-f]{2})*$"},
            "size": {"type": "integer", "minimum": 0},
            "workerInputFingerprint": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
            "hostInputFingerprint": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
            "error": {"type": "string"},
            "reason": {"type": "string"},
            "f64": {"type": "object"},
        },
    },
}


def evaluate(request: Mapping[str, Any], mode: NumberMode) -> dict[str, Any]:
    """The reference's answer for one request in one number mode."""
    asked = dict(request)
    if mode is not NumberMode.AP:
        asked["profile"] = mode.value
    return operations.expected("canonical.input", asked)


def to_test(row: CaseRow) -> VectorTest:
    expected = evaluate(row.input, NumberMode.AP)
    flags = list(row.flags)
    # The flags added here describe the computed answer (another answer in the other number
    # mode, a duplicate or reserved key the parser met), never the evidence behind it.
    informative = evaluate(row.input, NumberMode.F64)
    if informative != expected:
        expected = {**expected, "f64": informative}
        flags.append("NumberModeDiffers")
    text = row.input.get("text")
    if row.input["format"] == "json" and isinstance(text, str):
        reserved = '"$serde_json::private::Number"' in text
        if reserved and "ReservedNumberKey" not in flags:
            flags.append("ReservedNumberKey")
        if _has_duplicate_key(text) and "DuplicateKeyLastWins" not in flags:
            flags.append("DuplicateKeyLastWins")
    return VectorTest(
        id=row.id,
        rule=row.rule,
        comment=row.comment,
        input=dict(row.input),
        expected=expected,
        result=cases.intended(row, "invalid" if "error" in expected else "valid"),
        flags=tuple(flags),
        provenance=row.provenance,
    )


def _has_duplicate_key(text: str) -> bool:
    seen: list[str] = []

    def observe(kind: str, _: str) -> None:
        seen.append(kind)

    try:
        parse_json(text, NumberMode.AP, observe)
    except RescindError:
        return False
    return "duplicate_key" in seen


def table() -> CaseTable:
    """The shipped case table with its generated families."""
    return cases.load("canonical-input", canonical_families.FAMILIES)


def build(source: CaseTable | None = None) -> VectorFile:
    """The topic's vector file, from the shipped table or from ``source``."""
    groups = [
        VectorGroup(
            type="CanonicalInputTest",
            attributes={"group": group.name, "description": group.description},
            tests=tuple(to_test(row) for row in group.rows),
        )
        for group in (source or table()).groups
    ]
    return VectorFile(
        topic="canonical-input",
        header=HEADER,
        notes=NOTES,
        groups=tuple(groups),
        test_schema=TEST_SCHEMA,
    )
