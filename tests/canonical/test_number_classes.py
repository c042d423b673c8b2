"""Number-text classes of the canonical-input vectors, against answers written by hand from
CJ-16 (splash-v5 keeps the exponent digits, `E` -> `e`, an unsigned exponent gains `+`) and
CJ-20 (splash-v5-f64: fixed notation while the decimal exponent is in -5..15, integers get
`.0`, otherwise `d[.ddd]e±x`)."""

from __future__ import annotations

import pytest

from rescind.conformance.vectors.sets import canonical_input

TESTS = {test.id: test for test in canonical_input.build().tests}

# id suffix -> (splash-v5 canonical JSON, splash-v5-f64 canonical JSON)
LEADING_ZEROS = {
    "1e05": ("[1e+05]", "[100000.0]"),
    "1e-minus-007": ("[1e-007]", "[1e-7]"),
    "upper-1e-minus-007": ("[1e-007]", "[1e-7]"),
    "2-5e-plus-0016": ("[2.5e+0016]", "[2.5e+16]"),
    "minus-3-upper-e00": ("[-3e+00]", "[-3.0]"),
    "1e-minus-0005": ("[1e-0005]", "[0.00001]"),
    "1e-minus-0006": ("[1e-0006]", "[1e-6]"),
    "7e000": ("[7e+000]", "[7.0]"),
    "0e0000": ("[0e+0000]", "[0.0]"),
    "1-5-upper-e-plus-015": ("[1.5e+015]", "[1500000000000000.0]"),
}
# id suffix -> splash-v5-f64 canonical JSON (values exactly representable or one digit).
SWITCH = {
    "e15-one-digit": "[1000000000000000.0]",
    "e16-one-digit": "[1e+16]",
    "e16-negative": "[-1.5e+16]",
    "e-5-one-digit": "[0.00001]",
    "e-5-many-digits": "[0.000012345]",
    "e-6-one-digit": "[1e-6]",
    "e-6-many-digits": "[1.2345e-6]",
    "e-6-negative": "[-9.9999e-6]",
}


def _f64(test_id: str) -> str:
    expected = TESTS[test_id].expected
    return str(expected.get("f64", expected)["canonicalJson"])


@pytest.mark.parametrize("label", sorted(LEADING_ZEROS))
def test_exponents_with_leading_zeros(label: str) -> None:
    test_id = f"canon.number.exp-leading-zeros.{label}"
    ap, f64 = LEADING_ZEROS[label]
    assert TESTS[test_id].expected["canonicalJson"] == ap
    assert _f64(test_id) == f64


@pytest.mark.parametrize("label", sorted(SWITCH))
def test_f64_layout_switch_points(label: str) -> None:
    assert _f64(f"canon.number.f64-switch.{label}") == SWITCH[label]


def test_every_switch_row_is_a_vector_with_its_rule() -> None:
    rows = [t for t in TESTS.values() if t.id.startswith("canon.number.f64-switch.")]
    assert len(rows) >= 16 and {t.rule for t in rows} == {"CJ-20"}
