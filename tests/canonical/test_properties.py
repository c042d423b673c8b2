"""Properties of canonical bytes, checked against independent oracles where one exists."""

from __future__ import annotations

import json
import random

from hypothesis import assume, given
from hypothesis import strategies as st

from rescind.reference.errors import RescindError
from rescind.reference.jsonencode import canonical_json
from rescind.reference.jsonparse import parse_json
from rescind.reference.jsonvalue import json_equal
from rescind.reference.numbers import NumberMode, f64_value, zmij_text

scalars = st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.text(max_size=8)
json_data = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4)
    ),
    max_leaves=20,
)
containers = st.lists(json_data, max_size=4) | st.dictionaries(
    st.text(max_size=5), json_data, max_size=4
)


def _noisy(data: object, rng: random.Random) -> str:
    """Serialize with random whitespace, key order and escaping choices."""
    space = lambda: rng.choice(["", " ", "\n", "\t ", "\r\n"])  # noqa: E731
    if isinstance(data, dict):
        items = list(data.items())
        rng.shuffle(items)
        inner = ",".join(
            f"{space()}{json.dumps(k, ensure_ascii=rng.random() < 0.5)}{space()}:{_noisy(v, rng)}"
            for k, v in items
        )
        return "{" + inner + space() + "}"
    if isinstance(data, list):
        return "[" + ",".join(_noisy(item, rng) for item in data) + space() + "]"
    return space() + json.dumps(data, ensure_ascii=rng.random() < 0.5) + space()


def _oracle(data: object) -> bytes:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


@given(containers, st.integers(0, 2**32))
def test_bytes_ignore_key_order_whitespace_and_escaping(data: object, seed: int) -> None:
    try:
        _oracle(data)
    except UnicodeEncodeError:
        assume(False)  # lone surrogates cannot occur in upstream strings
    text = _noisy(data, random.Random(seed))
    assert canonical_json(parse_json(text, NumberMode.AP)) == _oracle(data)
    if _integers_fit(data):  # outside u64/i64 the F64 profile turns integers into floats
        assert canonical_json(parse_json(text, NumberMode.F64)) == _oracle(data)


def _integers_fit(data: object) -> bool:
    if isinstance(data, bool) or not isinstance(data, int | list | dict):
        return True
    if isinstance(data, int):
        return -(2**63) <= data < 2**64
    values = data.values() if isinstance(data, dict) else data
    return all(_integers_fit(item) for item in values)


@given(containers)
def test_canonical_output_is_a_fixed_point(data: object) -> None:
    assume(_encodable(data))
    once = canonical_json(parse_json(json.dumps(data)))
    assert canonical_json(parse_json(once)) == once


@given(containers, containers)
def test_distinct_values_give_distinct_bytes(left: object, right: object) -> None:
    assume(_encodable(left) and _encodable(right))
    a = parse_json(json.dumps(left))
    b = parse_json(json.dumps(right))
    assert (canonical_json(a) == canonical_json(b)) == json_equal(a, b)


def _encodable(data: object) -> bool:
    try:
        _oracle(data)
    except UnicodeEncodeError:
        return False
    return True


@given(
    st.integers(0, 10**15),
    st.integers(0, 6),
    st.integers(-22, 22),
)
def test_f64_parse_is_correctly_rounded_when_exact_inputs(
    digits: int, point: int, exponent: int
) -> None:
    # With <= 15 significant digits and |total exponent| <= 22 both the significand and the
    # power of ten are exact doubles, so upstream's single IEEE operation equals float().
    text = str(digits)
    if point and point < len(text):
        text = text[:-point] + "." + text[-point:]
    lexeme = f"{text}e{exponent}"
    total = exponent - (point if point and point < len(str(digits)) else 0)
    assume(-22 <= total <= 22)
    assert f64_value(lexeme) == float(lexeme)


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_zmij_layout_round_trips_and_uses_the_right_notation(value: float) -> None:
    text = zmij_text(value)
    assert float(text) == value and str(float(text))[0] == str(value)[0]
    exponent = int(f"{abs(value):e}".split("e")[1]) if value else 0
    if value and not -5 <= exponent <= 15:
        assert "e+" in text or "e-" in text
    else:
        assert "e" not in text and "." in text


def test_f64_double_rounding_differs_from_python() -> None:
    assert f64_value("9007199254740993.0") == 9007199254740994.0
    assert float("9007199254740993.0") == 9007199254740992.0


@given(st.text(alphabet="0123456789.eE+-", min_size=1, max_size=12))
def test_number_grammar_matches_json_loads(candidate: str) -> None:
    try:
        expected_ok = isinstance(json.loads(f"[{candidate}]")[0], int | float)
    except ValueError:
        expected_ok = False
    try:
        parse_json(f"[{candidate}]", NumberMode.AP)
        ok = True
    except RescindError:
        ok = False
    assert ok == expected_ok
