"""Differential tests: the fast path answers exactly as the pure-Python reference path.

The texts are spelled here token by token (random whitespace, escapes, number spellings,
duplicate keys, the reserved key, deep nesting, non-ASCII) and some are then mutated into
invalid JSON or invalid UTF-8. The answer compared is the canonical input bytes, or the error
(type, code and details), or, for the reference's own non-protocol exceptions, their type.
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from rescind.reference import canonical_fast
from rescind.reference.canonical_fast import (
    ENCODERS,
    EncoderName,
    exact_canonical_input,
    fast_canonical_input,
)
from rescind.reference.errors import RescindError
from rescind.reference.payload_format import PayloadFormat

_PROFILE = settings()
_MANY = settings(parent=_PROFILE, max_examples=_PROFILE.max_examples * 4)
ENCODER_NAMES = sorted(ENCODERS)

Outcome = tuple[Any, ...]


def outcome(call: Callable[[], bytes]) -> Outcome:
    try:
        return ("bytes", call())
    except RescindError as error:
        return ("error", type(error), error.code, dict(error.details))
    except (ValueError, UnicodeError) as error:  # the reference's own crashes must match too
        return ("crash", type(error))


def assert_same(data: str | bytes, encoder: EncoderName) -> Outcome:
    exact = outcome(lambda: exact_canonical_input(data))
    fast = outcome(lambda: fast_canonical_input(data, encoder=encoder))
    assert fast == exact, (data, fast, exact)
    return exact


# --- spelling -----------------------------------------------------------------------------

whitespace = st.text(alphabet=" \t\n\r", max_size=2)
SPECIAL_CHARS = '"\\/\x00\x08\x1f\x7f:[]{},é中😀\u2028\ufeff\uffffeE$'
characters = st.characters(codec="utf-8") | st.sampled_from(SPECIAL_CHARS)
SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "/": "\\/", "\b": "\\b", "\f": "\\f", "\n": "\\n"}
SHORT_ESCAPES |= {"\r": "\\r", "\t": "\\t"}
STRING_HAZARDS = ("\\ud800", "\\udc00", "\\ud83d\\ude00", "\\uD83D\\uDE00", "\\u007f", "\\u003a")


def _hex4(draw: st.DrawFn, code: int) -> str:
    digits = f"{code:04x}"
    return "\\u" + "".join(char.upper() if draw(st.booleans()) else char for char in digits)


@st.composite
def spelled_char(draw: st.DrawFn) -> str:
    char = draw(characters)
    code = ord(char)
    style = draw(st.sampled_from(("raw", "raw", "short", "unicode")))
    if style == "unicode":
        if code > 0xFFFF:
            high, low = divmod(code - 0x10000, 0x400)
            return _hex4(draw, 0xD800 + high) + _hex4(draw, 0xDC00 + low)
        return _hex4(draw, code)
    if char in SHORT_ESCAPES and (style == "short" or char in '"\\' or code < 0x20):
        return SHORT_ESCAPES[char]
    if code < 0x20:
        return _hex4(draw, code)
    return char


@st.composite
def spelled_string(draw: st.DrawFn, content: str | None = None) -> str:
    if content is not None:
        pieces = [
            _hex4(draw, ord(char)) if draw(st.integers(0, 9)) == 0 else char for char in content
        ]
    else:
        pieces = [
            draw(st.sampled_from(STRING_HAZARDS)) if roll == 0 else draw(spelled_char())
            for roll in draw(st.lists(st.integers(0, 24), max_size=6))
        ]
    return '"' + "".join(pieces) + '"'


VALID_NUMBERS = (
    "-0",
    "-0.0",
    "0e0",
    "1E400",
    "1e-400",
    "12.50",
    "18446744073709551615",
    "18446744073709551616",
    "-9223372036854775808",
    "-9223372036854775809",
    "100000000000000000000000000000",
)
INVALID_NUMBERS = ("01", "1.", ".5", "+1", "1e", "-", "NaN", "Infinity", "-Infinity")
lexemes = st.from_regex(
    r"-?(0|[1-9][0-9]{0,24})(\.[0-9]{1,5})?([eE][+-]?[0-9]{1,3})?", fullmatch=True
)


@st.composite
def numbers(draw: st.DrawFn) -> str:
    roll = draw(st.integers(0, 9))
    if roll < 7:
        return draw(lexemes)
    return draw(st.sampled_from(VALID_NUMBERS if roll < 9 else INVALID_NUMBERS))


RESERVED = "$serde_json::private::Number"
KEYS = ("a", "b", "", "k:", "a:b", "é", "[x]")


@st.composite
def spelled_key(draw: st.DrawFn) -> str:
    roll = draw(st.integers(0, 39))
    if roll == 0:
        return draw(spelled_string(RESERVED))
    return draw(spelled_string(draw(st.sampled_from(KEYS)) if roll < 25 else None))


@st.composite
def spelled_value(draw: st.DrawFn, budget: int = 3, root: bool = False) -> str:
    """One value; a root is a container but for one draw in ten (to reach the envelope)."""
    roll = draw(st.integers(0, 29))
    pad = draw(whitespace)
    if budget <= 0 or (root and roll >= 27) or (not root and roll < 15):
        kind = roll % 3
        if kind == 0:
            return pad + draw(st.sampled_from(("true", "false", "null")))
        if kind == 1:
            return pad + draw(numbers())
        return pad + draw(spelled_string())
    if roll == 26:
        key = draw(spelled_string(RESERVED))
        inner = draw(st.sampled_from((f'"{draw(numbers())}"', draw(numbers()), '"x"')))
        extra = draw(st.sampled_from(("", "", ',"a":1')))
        return f"{pad}{{{key}:{inner}{extra}}}"
    children = draw(st.lists(spelled_value(budget - 1), max_size=4))
    if roll % 2:
        return pad + "[" + ",".join(children) + draw(whitespace) + "]"
    members = [
        f"{draw(whitespace)}{draw(spelled_key())}{draw(whitespace)}:{child}" for child in children
    ]
    return pad + "{" + ",".join(members) + draw(whitespace) + "}"


@st.composite
def nested(draw: st.DrawFn) -> str:
    """A value inside a run of containers, near the 32 depth and 128 recursion limits."""
    levels = draw(st.sampled_from((1, 2, 29, 30, 31, 32, 33, 126, 127, 128, 129)))
    shape = random.Random(draw(st.integers(0, 2**32)))  # one draw, not one per level
    text = draw(spelled_value(1))
    for _ in range(levels):
        if shape.random() < 0.5:
            text = "[" + text + "]"
        else:
            text = "{" + json.dumps(shape.choice(KEYS)) + ":" + text + "}"
    return text


MUTATIONS = (
    ",",
    "]",
    "}",
    "[",
    "{",
    '"',
    "\\",
    ":",
    "NaN",
    "\\ud800",
    "\x7f",
    "\\u007f",
    "\ufeff",
    "\\u003a",
    "\x01",
    "0",
    "-",
    "e",
    "tru",
)


@st.composite
def mutated(draw: st.DrawFn, text: str) -> str:
    for _ in range(draw(st.integers(0, 2))):
        where = draw(st.integers(0, len(text)))
        action = draw(st.sampled_from(("insert", "delete", "replace", "truncate")))
        snippet = draw(st.sampled_from(MUTATIONS))
        if action == "insert":
            text = text[:where] + snippet + text[where:]
        elif action == "delete":
            text = text[:where] + text[where + 1 :]
        elif action == "replace":
            text = text[:where] + snippet + text[where + 1 :]
        else:
            text = text[:where]
    return text


@st.composite
def json_texts(draw: st.DrawFn) -> str:
    text = draw(nested() if draw(st.integers(0, 3)) == 0 else spelled_value(root=True))
    return draw(mutated(text)) if draw(st.integers(0, 3)) == 0 else text


RAW_DAMAGE = (b"\xff", b"\xc0\xaf", b"\xed\xa0\x80", b"\xef\xbb\xbf", b"\x7f", b"\x80")


@st.composite
def payload_bytes(draw: st.DrawFn) -> bytes:
    data = draw(json_texts()).encode("utf-8")
    if draw(st.integers(0, 4)) == 0:
        where = draw(st.integers(0, len(data)))
        data = data[:where] + draw(st.sampled_from(RAW_DAMAGE)) + data[where:]
    return data


# --- properties -------------------------------------------------------------------------


@_MANY
@given(json_texts())
def test_texts_answer_as_the_exact_path(text: str) -> None:
    for encoder in ENCODER_NAMES:
        assert_same(text, encoder)
        assert_same(text.encode("utf-8"), encoder)


@_MANY
@given(payload_bytes())
def test_damaged_bytes_answer_as_the_exact_path(data: bytes) -> None:
    for encoder in ENCODER_NAMES:
        assert_same(data, encoder)


plain_text = st.text(st.characters(codec="utf-8", exclude_characters="\x7f"), max_size=6)
plain_values: st.SearchStrategy[Any] = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | plain_text,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(plain_text, children, max_size=4)
    ),
    max_leaves=12,
)
decimals = st.from_regex(
    r"-?(0|[1-9][0-9]{0,24})\.[0-9]{1,5}([eE][+-]?[0-9]{1,3})?", fullmatch=True
)


def _nesting(value: Any) -> int:
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        return 1 + max(map(_nesting, value), default=0)
    return 0


def _no_fallback(*_: object) -> bytes:
    raise AssertionError("the fast path fell back to the exact path")


@_MANY
@given(st.lists(plain_values, max_size=3), st.lists(decimals, max_size=4))
def test_ordinary_payloads_never_need_the_exact_path(
    items: list[Any], numbers_as_text: list[str]
) -> None:
    """Without hazards the fast path proves its own answer: no fallback happens."""
    assume(_nesting(items) <= 20)
    elements = [
        json.dumps(item, ensure_ascii=ascii_escapes)
        for item, ascii_escapes in zip(items, itertools.cycle((False, True)))
    ]
    text = "[" + ",".join(elements + numbers_as_text) + "]"
    expected = exact_canonical_input(text)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(canonical_fast, "exact_canonical_input", _no_fallback)
        for encoder in ENCODER_NAMES:
            assert fast_canonical_input(text, encoder=encoder) == expected
            assert fast_canonical_input(text.encode("utf-8"), encoder=encoder) == expected


# --- the differences between the stdlib scanner and upstream, one by one ------------------

HAZARDS = {
    "duplicate hides a lone surrogate": '{"a":"\\ud800","a":1}',
    "duplicate hides an invalid reserved number": '{"a":{"$serde_json::private::Number":12},"a":1}',
    "duplicate hides a valid reserved number": '{"a":{"$serde_json::private::Number":"1"},"a":1}',
    "duplicate hides deep nesting": '{"a":' + "[" * 130 + "]" * 130 + ',"a":1}',
    "duplicate hides NaN": '{"a":[NaN],"a":1}',
    "duplicate with escaped colons": '{"\\u003a":1,"\\u003A":2}',
    "escaped colon without duplicate": '{"\\u003a":1,"b:":2}',
    "duplicate of a key holding a colon": '{"a:b":1,"a:b":2}',
    "raw DEL in a string": '{"s":"\x7f","n":1.5}',
    "escaped DEL around a number": '{"s":"\\u007f1.5\\u007f","n":2.50}',
    "escaped reserved key": '[{"\\u0024serde_json::private::Number":"7"}]',
    "reserved key as a later member": '{"x":{"a":1,"$serde_json::private::Number":"12.50"}}',
    "reserved key as a string value": '["$serde_json::private::Number"]',
    "number spellings": "[1E5,1e+5,1E-5,-0,-0.0,0e0,12.50,1e400]",
    "integers beyond 64 bits": "[18446744073709551616,-9223372036854775809,1" + "0" * 40 + "]",
    "NaN": "[NaN]",
    "Infinity": '{"a":Infinity}',
    "minus Infinity": "[-Infinity]",
    "lone low surrogate": '["\\udc00"]',
    "surrogate pair": '["\\ud83d\\ude00",{"\\uD83D\\uDE00":1}]',
    "string root": '"x"',
    "number root": "1.50",
    "null root": " null ",
    "depth 32 with an empty innermost array": "[" * 32 + "]" * 32,
    "depth 33": "[" * 32 + "1" + "]" * 32,
    "nesting 127": "[" * 127 + "]" * 127,
    "nesting 128": "[" * 128 + "]" * 128,
    "nesting 2000": "[" * 2000 + "]" * 2000,
    "brackets in strings": '{"a":"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[","b":"]]]]"}',
    "quotes and backslashes": '["\\"[","\\\\","\\\\\\"]"]',
    "empty key and empty string": '{"":"","a":[""]}',
    "BOM": "\ufeff{}",
    "trailing comma": "[1,]",
    "leading zero": "[01]",
    "whitespace around": " \t\n\r[1.50] \r\n",
    "vertical tab is not whitespace": "\x0b[]",
    "non-breaking space is not whitespace": "[]\u00a0",
    "raw control character": '["\x01"]',
    "long integer near the stdlib digit limit": "[" + "9" * 4300 + "]",
}


@pytest.mark.parametrize("encoder", ENCODER_NAMES)
@pytest.mark.parametrize("text", list(HAZARDS.values()), ids=list(HAZARDS))
def test_known_difference_is_handled(text: str, encoder: EncoderName) -> None:
    assert_same(text, encoder)
    assert_same(text.encode("utf-8"), encoder)


@pytest.mark.parametrize("encoder", ENCODER_NAMES)
@pytest.mark.parametrize(
    "data",
    [b"\xef\xbb\xbf{}", b"\xff\xfe[\x00]\x00", b'["\xed\xa0\x80"]', b'["\xc0\xaf"]', b"[1]\x00"],
)
def test_invalid_bytes_are_handled(data: bytes, encoder: EncoderName) -> None:
    assert assert_same(data, encoder)[0] == "error"


@pytest.mark.parametrize("encoder", ENCODER_NAMES)
def test_former_crashes_are_typed_errors(encoder: EncoderName) -> None:
    """A ``str`` holding a raw lone surrogate and an integer past Python's 4300-digit
    conversion limit: the reference answers (a typed error, or the kept digits) and the
    fast path agrees."""
    surrogate = assert_same('["\ud800"]', encoder)
    assert surrogate[0] == "error" and surrogate[2] == "serialization"
    assert assert_same("[" + "9" * 4301 + "]", encoder)[0] == "bytes"


def test_text_payloads_use_the_exact_path() -> None:
    for data in ("release", "", "h\u00e9llo\n", b"a\xffb", b"ok"):
        exact = outcome(lambda data=data: exact_canonical_input(data, PayloadFormat.TEXT))
        fast = outcome(lambda data=data: fast_canonical_input(data, PayloadFormat.TEXT))
        assert fast == exact
