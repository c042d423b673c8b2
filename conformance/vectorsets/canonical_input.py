"""Topic ``canonical-input``: canonical input bytes and both input fingerprints."""

from __future__ import annotations

from typing import Any

from rescind.conformance import operations
from rescind.conformance.provenance import Provenance, derived, joined, observed, upstream
from rescind.conformance.vectorformat import Flag, VectorFile, VectorGroup, VectorTest
from rescind.conformance.vectorsets._canonical_cases import (
    ESCAPE_CASES,
    NUMBER_CASES,
    ORDER_CASES,
    PROBE_INPUTS,
    PROBE_JSON,
    QUIRK_CASES,
    REJECT_CASES,
    STRUCTURE_CASES,
    TEXT_CASES,
    WHITESPACE_CASES,
    Case,
)
from rescind.reference.errors import RescindError
from rescind.reference.jsonparse import parse_json
from rescind.reference.numbers import NumberMode

NOTES = (
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


def case_input(case: Case) -> dict[str, Any]:
    """The vector's ``input`` object, which is also the ``canonical.input`` request."""
    result: dict[str, Any] = {"format": case.format}
    if case.data_hex is not None:
        result["hex"] = case.data_hex
    else:
        result["text"] = case.text
    if case.max_input_bytes is not None:
        result["maxInputBytes"] = case.max_input_bytes
    return result


def evaluate(case: Case, mode: NumberMode) -> dict[str, Any]:
    """The reference's answer for one case in one number mode."""
    request = case_input(case)
    if mode is not NumberMode.AP:
        request["profile"] = mode.value
    return operations.expected("canonical.input", request)


_COMPUTED = "bytes, size and fingerprints computed from that text by the reference (CJ-25 to CJ-28)"
_HOST_FP = "hostInputFingerprint (when there is one) computed by the reference (CJ-28)"


def _depth_rows() -> dict[str, tuple[str, str]]:
    """Depth cases and the probe row printing their outcome (and size when accepted)."""
    rows = {}
    for count, depth in ((30, 31), (31, 32), (32, 33)):
        rows[f"depth.arrays-{count}-object"] = (
            f"{count} arrays around {{}} (total container depth {depth})",
            "CJ-23",
        )
        rows[f"depth.arrays-{count}-scalar"] = (
            f"{count} arrays around scalar 1 (scalar depth {depth})",
            "CJ-23",
        )
    rows["depth.arrays-31-array"] = ("31 arrays around []", "CJ-23")
    rows["depth.arrays-32-array"] = ("32 arrays around []", "CJ-23")
    rows["depth.objects-32"] = ("32 nested objects", "CJ-23")
    rows["depth.objects-33"] = ("33 nested objects", "CJ-23")
    return rows


def _probed(case: Case) -> Provenance | None:
    """The probe rows that show this case's answer, when there are any.

    Only ``UpstreamProbe`` cases have rows; what a row does not print (the host fingerprint,
    and bytes derived from a printed canonical text) is named in the citation's scope."""
    probe_name = {entry[0]: name for name, entry in PROBE_JSON.items()}.get(case.id)
    if probe_name is not None:
        return joined(
            observed("out_ap.txt", f"JSON {probe_name}", scope=_HOST_FP),
            observed("out_noap.txt", f"JSON {probe_name}", scope="the splash-v5-f64 answer"),
        )
    if case.id.startswith("text.") and "UpstreamProbe" in case.flags:
        return observed("out_ap.txt", f"TEXT {case.id.removeprefix('text.')}", scope=_HOST_FP)
    if case.id.startswith("number.") and "UpstreamProbe" in case.flags:
        assert case.text is not None
        label = f"num {case.text.strip('[]')}"
        return observed(
            "out_other.txt", label, scope=f"after `--- AP extra` (AP), before it (f64); {_COMPUTED}"
        )
    if case.id.startswith("root.") and "UpstreamProbe" in case.flags:
        return observed("out_ap.txt", f"root {case.text}")
    depth = _depth_rows().get(case.id)
    if depth is not None:
        return observed("out_ap.txt", depth[0], scope=f"outcome and size; {_COMPUTED}")
    if case.id in ("parse.nesting-128", "parse.nesting-129"):
        return observed("out_ap.txt", f"parse {case.id.rsplit('-', 1)[1]} nested arrays")
    return None


SERDE_JSON_1_0_150 = "a1ae73ac6a6940a4a57c673aebaa13ed4dfe3e8c"
"""The serde_json release commit (tag v1.0.150) that Splash's Cargo.lock pins."""


def provenance_of(case: Case) -> Provenance:
    probed = _probed(case)
    if probed is not None:
        return probed
    if "UnprobedReading" in case.flags:
        # Read in serde_json's source at the release Splash locks; never run on this form, so
        # the result stays acceptable until a probe observes it.
        return upstream(
            "upstream-code",
            "serde-rs/json",
            SERDE_JSON_1_0_150,
            "src/value/de.rs",
            "ValueVisitor::visit_map, KeyClassifier (the unescaped first key); src/number.rs"
            " NumberFromString; src/de.rs parse_any_signed_number (CJ-11); not run upstream",
        )
    if case.id.startswith("parse.nesting-"):
        return derived(
            case.rule,
            "CJ-23",
            note="out_other.txt rows `parse 126 nested arrays` and `parse 127 nested arrays` "
            "show only that the parser accepts the text; the depth error is CJ-23's",
        )
    return derived(case.rule)


def to_test(case: Case) -> VectorTest:
    expected = evaluate(case, NumberMode.AP)
    flags = list(case.flags)
    informative = evaluate(case, NumberMode.F64)
    if informative != expected:
        expected = {**expected, "f64": informative}
        flags.append("NumberModeDiffers")
    reserved = case.text is not None and '"$serde_json::private::Number"' in case.text
    if reserved and case.format == "json" and "ReservedNumberKey" not in flags:
        flags.append("ReservedNumberKey")
    if case.text is not None and _has_duplicate_key(case) and "DuplicateKeyLastWins" not in flags:
        flags.append("DuplicateKeyLastWins")
    result = "invalid" if "error" in expected else "valid"
    if case.acceptable:
        result = "acceptable"
    return VectorTest(
        id=f"canon.{case.id}",
        rule=case.rule,
        comment=case.comment,
        input=case_input(case),
        expected=expected,
        result=result,
        flags=tuple(flags),
        provenance=provenance_of(case),
    )


def _has_duplicate_key(case: Case) -> bool:
    if case.format != "json" or case.text is None:
        return False
    seen: list[str] = []

    def observe(kind: str, _: str) -> None:
        seen.append(kind)

    try:
        parse_json(case.text, NumberMode.AP, observe)
    except RescindError:
        return False
    return "duplicate_key" in seen


def _probe_cases() -> list[Case]:
    cases = []
    for name, (case_id, rule, comment) in PROBE_JSON.items():
        cases.append(Case(case_id, rule, PROBE_INPUTS[name], comment, ("UpstreamProbe",)))
    return cases


GROUPS: tuple[tuple[str, str], ...] = (
    ("text", "Text payloads"),
    ("probe", "Rows of upstream's probe output"),
    ("numbers", "Number spellings in both number modes"),
    ("strings", "String escaping"),
    ("objects", "Key order and duplicate keys"),
    ("whitespace", "Whitespace independence"),
    ("structure", "Root, depth, recursion and size boundaries"),
    ("rejects", "Inputs upstream refuses to parse"),
    ("quirks", "The reserved number key"),
)


def build() -> VectorFile:
    by_group: dict[str, list[Case]] = {
        "text": TEXT_CASES,
        "probe": _probe_cases(),
        "numbers": NUMBER_CASES,
        "strings": ESCAPE_CASES,
        "objects": ORDER_CASES,
        "whitespace": WHITESPACE_CASES,
        "structure": STRUCTURE_CASES,
        "rejects": REJECT_CASES,
        "quirks": QUIRK_CASES,
    }
    groups = [
        VectorGroup(
            type="CanonicalInputTest",
            attributes={"group": name, "description": description},
            tests=tuple(to_test(case) for case in by_group[name]),
        )
        for name, description in GROUPS
    ]
    return VectorFile(
        topic="canonical-input",
        header=HEADER,
        notes=NOTES,
        groups=tuple(groups),
        test_schema=TEST_SCHEMA,
    )
