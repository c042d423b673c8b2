"""Generated rows of ``conformance/cases/canonical-input.toml``: the families whose inputs are
computed (every control character, ladders of nesting depth, very long numbers), each row with
its provenance stated where it is made. A table names a family by ``family = "<name>"``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from rescind.conformance.cases import CaseRow, Family
from rescind.conformance.ops.canonical import canonical_input
from rescind.conformance.provenance import Provenance, derived, observed, splash_code
from rescind.conformance.vectors.sets._precedence import Faults, pair_rows

PROBE = ("UpstreamProbe",)
_COMPUTED = "bytes, size and fingerprints computed from that text by the reference (CJ-25 to CJ-28)"


def _json(
    case_id: str,
    rule: str,
    text: str,
    comment: str,
    provenance: Provenance,
    flags: tuple[str, ...] = (),
) -> CaseRow:
    return CaseRow(
        id=f"canon.{case_id}",
        rule=rule,
        comment=comment,
        input={"format": "json", "text": text},
        provenance=provenance,
        flags=tuple(flags),
    )


_SHORT_ESCAPES = {0x08: "b", 0x09: "t", 0x0A: "n", 0x0C: "f", 0x0D: "r"}


def control_escapes() -> Iterator[CaseRow]:
    """Every C0 control character, escaped in the input: its canonical escape (CJ-14)."""
    for code in range(0x20):
        written = (
            f"\\{_SHORT_ESCAPES[code]}" if code in _SHORT_ESCAPES else "as a lowercase \\u00xx"
        )
        yield _json(
            f"string.control-{code:02x}",
            "CJ-14",
            f'["\\u{code:04X}"]',
            f"U+{code:04X} is written {written}",
            derived("CJ-14"),
        )


# CJ-5 allows leading zeros in an exponent. splash-v5 keeps the digits (CJ-16: only `E` and a
# missing sign change); splash-v5-f64 reads the value and writes it afresh (CJ-19, CJ-20).
EXPONENT_LEADING_ZEROS = (
    ("1e05", "1e05"),
    ("1e-007", "1e-minus-007"),
    ("1E-007", "upper-1e-minus-007"),
    ("2.5e+0016", "2-5e-plus-0016"),
    ("-3E00", "minus-3-upper-e00"),
    ("1e-0005", "1e-minus-0005"),
    ("1e-0006", "1e-minus-0006"),
    ("7e000", "7e000"),
    ("0e0000", "0e0000"),
    ("1.5E+015", "1-5-upper-e-plus-015"),
)


def exponent_leading_zeros() -> Iterator[CaseRow]:
    for text, label in EXPONENT_LEADING_ZEROS:
        yield _json(
            f"number.exp-leading-zeros.{label}",
            "CJ-16",
            f"[{text}]",
            f"exponent with leading zeros {text}: kept in splash-v5, read as a value in"
            " splash-v5-f64",
            derived("CJ-16"),
        )


# Where the f64 layout switches between fixed and exponent notation (CJ-20: fixed while the
# decimal exponent of d.ddd x 10^E is in -5..15): one side of a switch point each, with one or
# many significant digits, either sign, and values whose shortest digits land on the boundary.
F64_SWITCH_POINTS = (
    ("999999999999999.9", "e14-many-digits"),
    ("1000000000000000.0", "e15-one-digit"),
    ("1234567890123456.0", "e15-many-digits"),
    ("-9999999999999998.0", "e15-negative"),
    ("10000000000000000.0", "e16-one-digit"),
    ("12345678901234567.0", "e16-many-digits"),
    ("-1.5e16", "e16-negative"),
    ("99999999999999999999", "e19-integer-beyond-u64-range"),
    ("0.00001", "e-5-one-digit"),
    ("0.000012345", "e-5-many-digits"),
    ("-0.00009999", "e-5-negative"),
    ("0.000001", "e-6-one-digit"),
    ("0.0000012345", "e-6-many-digits"),
    ("-0.0000099999", "e-6-negative"),
    ("0.0000099999999999999999", "e-6-rounds-to-e-5"),
    ("9.99999999999999999e15", "e15-rounds-to-e16"),
)


def f64_switch_points() -> Iterator[CaseRow]:
    for text, label in F64_SWITCH_POINTS:
        yield _json(
            f"number.f64-switch.{label}",
            "CJ-20",
            f"[{text}]",
            f"{text} next to the fixed/exponent switch of the f64 layout (exponent -5..15 fixed)",
            derived("CJ-20"),
        )


def long_integers() -> Iterator[CaseRow]:
    yield _json(
        "number.integer-5000-digits",
        "CJ-19",
        "[" + "1" * 5000 + "]",
        "AP keeps a 5,000-digit integer as written; F64 overflows it (past any parser digit limit)",
        derived("CJ-19"),
    )
    yield _json(
        "number.negative-integer-5000-digits",
        "CJ-19",
        "[-" + "9" * 5000 + "]",
        "the same for a negative integer",
        derived("CJ-19"),
    )


def _arrays(depth: int, inner: str) -> str:
    return "[" * depth + inner + "]" * depth


def _objects(depth: int) -> str:
    text = "{}"
    for _ in range(depth - 1):
        text = '{"a":' + text + "}"
    return text


def _depth_probe(label: str) -> Provenance:
    return observed("out_ap.txt", label, scope=f"outcome and size; {_COMPUTED}")


_PARSE_ONLY = derived(
    "CJ-9",
    "CJ-23",
    note="out_other.txt rows `parse 126 nested arrays` and `parse 127 nested arrays` "
    "show only that the parser accepts the text; the depth error is CJ-23's",
)


def nesting_depths() -> Iterator[CaseRow]:
    """Container depth around the payload limit (CJ-23) and the parser's recursion limit (CJ-9),
    each probed row cited by the label upstream's probe printed for it."""
    for count, inner, kind, what in (
        (30, "{}", "object", "31 containers"),
        (31, "{}", "object", "32 containers: the limit"),
        (32, "{}", "object", "33 containers"),
    ):
        label = f"{count} arrays around {{}} (total container depth {count + 1})"
        yield _json(
            f"depth.arrays-{count}-{kind}",
            "CJ-23",
            _arrays(count, inner),
            what,
            _depth_probe(label),
            PROBE,
        )
    for count in (30, 31, 32):
        label = f"{count} arrays around scalar 1 (scalar depth {count + 1})"
        yield _json(
            f"depth.arrays-{count}-scalar",
            "CJ-23",
            _arrays(count, "1"),
            f"scalar at depth {count + 1}",
            _depth_probe(label),
            PROBE,
        )
    for count in (31, 32):
        yield _json(
            f"depth.arrays-{count}-array",
            "CJ-23",
            _arrays(count, "[]"),
            f"empty array at depth {count + 1}",
            _depth_probe(f"{count} arrays around []"),
            PROBE,
        )
    for count in (32, 33):
        yield _json(
            f"depth.objects-{count}",
            "CJ-23",
            _objects(count),
            f"{count} nested objects",
            _depth_probe(f"{count} nested objects"),
            PROBE,
        )
    yield _json(
        "depth.object-31-string",
        "CJ-23",
        _arrays(31, '"x"'),
        "string counts as a level",
        derived("CJ-23"),
    )
    yield _json(
        "depth.wide-shallow",
        "CJ-23",
        "[" + ",".join(["[1]"] * 100) + "]",
        "width is free",
        derived("CJ-23"),
    )
    for count in (126, 127):
        yield _json(
            f"parse.nesting-{count}",
            "CJ-9",
            _arrays(count, ""),
            "parses; too deep as a payload",
            _PARSE_ONLY,
            PROBE,
        )
    for count in (128, 129):
        yield _json(
            f"parse.nesting-{count}",
            "CJ-9",
            _arrays(count, ""),
            "recursion limit",
            observed("out_ap.txt", f"parse {count} nested arrays"),
            PROBE,
        )
    yield _json(
        "parse.nesting-128-objects", "CJ-9", _objects(128), "objects count too", _PARSE_ONLY
    )


def _payload(value: Any, suffix: str = "", maximum: int | None = None) -> dict[str, Any]:
    return {"value": value, "suffix": suffix, "maximum": maximum}


def _payload_input(document: dict[str, Any]) -> dict[str, Any]:
    text = json.dumps(document["value"], separators=(",", ":")) + document["suffix"]
    request: dict[str, Any] = {"format": "json", "text": text}
    if document["maximum"] is not None:
        request["maxInputBytes"] = document["maximum"]
    return request


def _nest(document: dict[str, Any], _: int) -> None:
    value: Any = {}
    for _level in range(33):
        value = [value]
    document["value"] = value


def payload_precedence() -> Iterator[CaseRow]:
    """EP-36: payloads that break two checks of reading one (docs/spec/precedence.md)."""
    yield from pair_rows(
        Faults(
            "canonical.input",
            "canon",
            lambda: _payload({"k": "v"}),
            {
                "parse": lambda document, _: document.update(suffix=","),
                "envelope": lambda document, _: document.update(value=42),
                "depth": _nest,
                "size": lambda document, _: document.update(maximum=8),
            },
            _payload_input,
            canonical_input,
            splash_code(
                "crates/splash-protocol/src/lib.rs",
                "ToolPayload::validate_for",
                "validate_json_payload_depth",
                note="the order of the checks, read, not run (EP-36)",
            ),
        )
    )


FAMILIES: dict[str, Family] = {
    "payload-precedence": payload_precedence,
    "control-escapes": control_escapes,
    "exponent-leading-zeros": exponent_leading_zeros,
    "f64-switch-points": f64_switch_points,
    "long-integers": long_integers,
    "nesting-depths": nesting_depths,
}
