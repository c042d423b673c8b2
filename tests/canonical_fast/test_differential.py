"""Differential tests: the fast path answers exactly as the pure-Python reference path.

The texts are spelled here token by token (random whitespace, escapes, number spellings,
duplicate keys, the reserved key, deep nesting, non-ASCII) and some are then mutated into
invalid JSON or invalid UTF-8. The answer compared is the canonical input bytes, or the error
(type, code and details), or, for the reference's own non-protocol exceptions, their type.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from benchmarks.hardening.canonical_texts import json_texts, payload_bytes
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
