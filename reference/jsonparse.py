"""A strict JSON parser with upstream's (serde_json 1.0.150) rules.

Rejected, each as ``serialization`` with a ``reason``: anything but RFC 8259 JSON (trailing
commas, leading zeros, ``NaN``/``Infinity``, single quotes, a BOM), raw control characters
in strings, lone surrogate escapes, invalid escapes, trailing non-whitespace, and nesting of
128 or more arrays/objects (upstream's recursion limit; 127 parse). Accepted quirks, kept on
purpose because they are upstream's observable behaviour:

* duplicate object keys: the last one wins silently, replacing the whole earlier value;
* AP mode only: an object whose *first* key is ``$serde_json::private::Number`` with a
  string value is read as that number (``{"x":{"$serde_json::private::Number":"12.50"}}``
  is ``{"x":12.50}``); as a later key it is an ordinary key.

``observe`` receives each duplicate key and each reserved-key use, so tooling can report
interoperability hazards without a second parser.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from types import MappingProxyType
from typing import Any, NoReturn, cast

import attrs

from rescind.reference.jsonvalue import JsonNumber, JsonValue
from rescind.reference.numbers import NumberMode
from rescind.reference.protocol_errors import Serialization

RECURSION_LIMIT = 128
RESERVED_NUMBER_KEY = "$serde_json::private::Number"

_WHITESPACE = re.compile(r"[ \t\n\r]*")
_NUMBER_LOOSE = re.compile(r"-?[0-9]*(?:\.[0-9]*)?(?:[eE][+-]?[0-9]*)?")
_NUMBER_STRICT = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?\Z")
_PLAIN = re.compile(r'[^"\\\x00-\x1f]*')
_HEX4 = re.compile(r"[0-9a-fA-F]{4}")
_SIMPLE_ESCAPES = {
    '"': '"',
    "\\": "\\",
    "/": "/",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
}

Observer = Callable[[str, str], None]
"""Called as ``observe(kind, key)`` with kind ``duplicate_key`` or ``reserved_key``."""


def _ignore(_: str, __: str) -> None:
    return None


@attrs.frozen
class JsonPairs:
    """An object exactly as written: every member in order, duplicates kept.

    Typed (struct) decoding needs this, because upstream rejects a repeated struct field
    while a payload value silently keeps the last duplicate."""

    pairs: tuple[tuple[str, Node], ...]


Node = JsonPairs | tuple["Node", ...] | str | bool | JsonNumber | None

# The parser builds either a JsonValue (objects as read-only dicts) or, in pairs mode, a Node.
_Built = Any


def parse_json(
    text: str | bytes, mode: NumberMode = NumberMode.AP, observe: Observer = _ignore
) -> JsonValue:
    """Parse one JSON document (surrounding whitespace allowed)."""
    return cast(JsonValue, _Parser(_decode(text), mode, observe, pairs=False).document())


_MEMO_MAX_CHARS = 4096


def parse_document(text: str | bytes, mode: NumberMode = NumberMode.AP) -> Node:
    """Parse one JSON document keeping every object as ``JsonPairs`` (for typed decoding).

    Nodes are immutable, so short documents are memoized: traces and sessions decode the
    same request and grant texts over and over (long ones, e.g. journals, are not kept)."""
    if len(text) <= _MEMO_MAX_CHARS:
        return _parse_document_memo(text, mode)
    return _parse_document(text, mode)


def _parse_document(text: str | bytes, mode: NumberMode) -> Node:
    return cast(Node, _Parser(_decode(text), mode, _ignore, pairs=True).document())


_parse_document_memo = functools.lru_cache(maxsize=4096)(_parse_document)


def _decode(text: str | bytes) -> str:
    if isinstance(text, bytes | bytearray):
        try:
            return bytes(text).decode("utf-8")
        except UnicodeDecodeError:
            raise Serialization(reason="invalid_utf8") from None
    try:
        # A Python str may hold a lone surrogate; UTF-8 text (upstream's input) cannot.
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise Serialization(reason="invalid_utf8") from None
    return text


def to_value(node: Node, mode: NumberMode) -> JsonValue:
    """Collapse a typed-decoding node into a payload value: last duplicate wins, and in AP
    mode the reserved-number object becomes a number (as when parsed directly)."""
    if isinstance(node, tuple):
        return tuple(to_value(item, mode) for item in node)
    if not isinstance(node, JsonPairs):
        return node
    pairs = node.pairs
    if mode is NumberMode.AP and pairs and pairs[0][0] == RESERVED_NUMBER_KEY:
        lexeme = pairs[0][1]
        if not isinstance(lexeme, str):
            raise Serialization(reason="reserved_number_not_a_string")
        if len(pairs) > 1:
            raise Serialization(reason="trailing_comma")
        if not _NUMBER_STRICT.match(lexeme):
            raise Serialization(reason="invalid_number")
        return JsonNumber.from_lexeme(lexeme, mode)
    members: dict[str, JsonValue] = {}
    for key, item in pairs:
        members.pop(key, None)
        members[key] = to_value(item, mode)
    return MappingProxyType(members)


class _Parser:
    def __init__(self, text: str, mode: NumberMode, observe: Observer, pairs: bool) -> None:
        self.text = text
        self.mode = mode
        self.observe = observe
        self.pairs = pairs
        self.position = 0

    def document(self) -> _Built:
        value = self.value(RECURSION_LIMIT)
        self.skip_whitespace()
        if self.position != len(self.text):
            self.fail("trailing_characters")
        return value

    def fail(self, reason: str) -> NoReturn:
        raise Serialization(reason=reason, offset=self.position)

    def skip_whitespace(self) -> None:
        match = _WHITESPACE.match(self.text, self.position)
        assert match is not None  # the pattern matches the empty string
        self.position = match.end()

    def peek(self) -> str:
        return self.text[self.position] if self.position < len(self.text) else ""

    def value(self, remaining_depth: int) -> _Built:
        self.skip_whitespace()
        char = self.peek()
        if char == "{":
            return self.object(remaining_depth)
        if char == "[":
            return self.array(remaining_depth)
        if char == '"':
            return self.string()
        if char == "-" or (char.isdigit() and char.isascii()):
            return self.number()
        for literal, result in (("true", True), ("false", False), ("null", None)):
            if self.text.startswith(literal, self.position):
                self.position += len(literal)
                return result
        self.fail("eof_while_parsing_value" if not char else "expected_value")

    def number(self) -> JsonNumber:
        match = _NUMBER_LOOSE.match(self.text, self.position)
        assert match is not None
        lexeme = match.group()
        if not _NUMBER_STRICT.match(lexeme):
            self.fail("invalid_number")
        number = JsonNumber.from_lexeme(lexeme, self.mode)
        self.position = match.end()
        return number

    def string(self) -> str:
        self.position += 1  # opening quote
        parts: list[str] = []
        text = self.text
        while True:
            match = _PLAIN.match(text, self.position)
            assert match is not None
            parts.append(match.group())
            self.position = match.end()
            char = self.peek()
            if char == '"':
                self.position += 1
                return "".join(parts)
            if char == "\\":
                parts.append(self.escape())
            elif not char:
                self.fail("eof_while_parsing_string")
            else:
                self.fail("control_character_in_string")

    def escape(self) -> str:
        self.position += 1  # backslash
        char = self.peek()
        if char and char in _SIMPLE_ESCAPES:
            self.position += 1
            return _SIMPLE_ESCAPES[char]
        if char != "u":
            self.fail("invalid_escape")
        self.position += 1
        first = self.hex4()
        if 0xDC00 <= first <= 0xDFFF:
            self.fail("lone_surrogate")
        if 0xD800 <= first <= 0xDBFF:
            if not self.text.startswith("\\u", self.position):
                self.fail("lone_surrogate")
            self.position += 2
            second = self.hex4()
            if not 0xDC00 <= second <= 0xDFFF:
                self.fail("lone_surrogate")
            return chr(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))
        return chr(first)

    def hex4(self) -> int:
        match = _HEX4.match(self.text, self.position)
        if match is None:
            self.fail("invalid_escape")
        self.position = match.end()
        return int(match.group(), 16)

    def array(self, remaining_depth: int) -> _Built:
        if remaining_depth <= 1:
            self.fail("recursion_limit_exceeded")
        self.position += 1
        items: list[_Built] = []
        self.skip_whitespace()
        if self.peek() == "]":
            self.position += 1
            return ()
        while True:
            items.append(self.value(remaining_depth - 1))
            self.skip_whitespace()
            char = self.peek()
            if char == "]":
                self.position += 1
                return tuple(items)
            if char != ",":
                self.fail("expected_comma_or_bracket" if char else "eof_while_parsing_list")
            self.position += 1
            self.skip_whitespace()
            if self.peek() == "]":
                self.fail("trailing_comma")

    def object(self, remaining_depth: int) -> _Built:
        if remaining_depth <= 1:
            self.fail("recursion_limit_exceeded")
        self.position += 1
        members: dict[str, _Built] = {}
        ordered: list[tuple[str, _Built]] = []
        self.skip_whitespace()
        if self.peek() == "}":
            self.position += 1
            return JsonPairs(()) if self.pairs else MappingProxyType(members)
        first = True
        while True:
            key = self.key()
            if key == RESERVED_NUMBER_KEY:
                self.observe("reserved_key", key)
                if first and self.mode is NumberMode.AP and not self.pairs:
                    return self.reserved_number()
            self.skip_whitespace()
            if self.peek() != ":":
                self.fail("expected_colon" if self.peek() else "eof_while_parsing_object")
            self.position += 1
            value = self.value(remaining_depth - 1)
            ordered.append((key, value))
            if key in members:
                self.observe("duplicate_key", key)
                del members[key]  # last wins; position is irrelevant once keys are sorted
            members[key] = value
            first = False
            self.skip_whitespace()
            char = self.peek()
            if char == "}":
                self.position += 1
                return JsonPairs(tuple(ordered)) if self.pairs else MappingProxyType(members)
            if char != ",":
                self.fail("expected_comma_or_brace" if char else "eof_while_parsing_object")
            self.position += 1
            self.skip_whitespace()
            if self.peek() == "}":
                self.fail("trailing_comma")

    def key(self) -> str:
        self.skip_whitespace()
        char = self.peek()
        if char != '"':
            self.fail("key_must_be_a_string" if char else "eof_while_parsing_object")
        return self.string()

    def reserved_number(self) -> JsonNumber:
        """AP quirk: ``{"$serde_json::private::Number": "<lexeme>"}`` is a number.

        Only the probed form (a valid lexeme, nothing after it) is observed upstream; the
        failure modes below follow serde_json's source (value must be a string holding
        exactly one number; the object must end right after it)."""
        self.skip_whitespace()
        if self.peek() != ":":
            self.fail("expected_colon")
        self.position += 1
        self.skip_whitespace()
        if self.peek() != '"':
            self.fail("reserved_number_not_a_string")
        lexeme = self.string()
        if not _NUMBER_STRICT.match(lexeme):
            self.fail("invalid_number")
        number = JsonNumber.from_lexeme(lexeme, self.mode)
        self.skip_whitespace()
        char = self.peek()
        if char == "}":
            self.position += 1
            return number
        self.fail("trailing_comma" if char == "," else "trailing_characters")
