"""Hypothesis strategies for JSON texts that probe the canonical fast path: spelled
characters and escapes, numbers, keys, nesting, mutations and raw byte damage. The
differential tests and the canonical_fast mutant sweep draw from the same generators, so
they live here, below both (benchmarks never import the test suite)."""

from __future__ import annotations

import json
import random

from hypothesis import strategies as st

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
