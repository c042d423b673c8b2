"""Immutable JSON values as upstream's ``serde_json::Value`` holds them.

Objects are read-only mappings (duplicate keys already resolved, last wins), arrays are
tuples, and numbers are ``JsonNumber``: the canonical text for one number mode, plus, in the
F64 mode, the int-or-float value that upstream's equality compares.

``from_python`` is the second entry point (the first is ``jsonparse.parse_json``): it accepts
``int``, ``str``, ``bool``, ``None``, lists/tuples, dicts with ``str`` keys and explicit
``Lexeme`` numbers. A Python ``float`` is refused: its text is ambiguous (``0.1`` may have
been written ``0.10`` or ``1e-1``, and AP canonical bytes keep that spelling), so the caller
must say which lexeme they mean.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TypeAlias

import attrs

from rescind.reference.errors import RescindError
from rescind.reference.numbers import (
    NumberMode,
    ap_text,
    f64_text,
    f64_value,
    is_lexeme,
)
from rescind.reference.protocol_errors import Serialization


class AmbiguousFloat(RescindError):
    code = "ambiguous_float"
    upstream = ""


class UnsupportedPythonValue(RescindError):
    code = "unsupported_python_value"
    upstream = ""


@attrs.frozen
class JsonNumber:
    """A JSON number as upstream keeps it in ``mode``: ``text`` is what gets serialized."""

    text: str
    mode: NumberMode
    value: int | float | None = attrs.field(default=None, eq=False)
    lexeme: str = attrs.field(default="", eq=False, repr=False)
    """The text as written (typed integer fields need it: ``-0`` is not a u32 upstream)."""

    @classmethod
    def from_lexeme(cls, lexeme: str, mode: NumberMode) -> JsonNumber:
        if not is_lexeme(lexeme):
            raise Serialization(reason="invalid_number")
        if mode is NumberMode.AP:
            return cls(ap_text(lexeme), mode, lexeme=lexeme)
        value = f64_value(lexeme)
        return cls(f64_text(value), mode, value, lexeme)

    def same_value(self, other: JsonNumber) -> bool:
        """Upstream equality: AP compares the kept text; F64 compares u64/i64/f64 values, so
        ``0.0 == -0.0`` but the integer ``1`` differs from the float ``1.0``."""
        if self.mode is NumberMode.AP:
            return self.text == other.text
        return type(self.value) is type(other.value) and self.value == other.value


JsonObject: TypeAlias = Mapping[str, "JsonValue"]
JsonArray: TypeAlias = tuple["JsonValue", ...]
JsonValue: TypeAlias = JsonObject | JsonArray | str | bool | JsonNumber | None


@attrs.frozen
class Lexeme:
    """An explicit JSON number spelling for ``from_python`` (e.g. ``Lexeme("12.50")``)."""

    text: str = attrs.field()

    @text.validator
    def _check(self, _: object, value: str) -> None:
        if not is_lexeme(value):
            raise Serialization(reason="invalid_number")


def from_python(value: object, mode: NumberMode = NumberMode.AP) -> JsonValue:
    """Build a JSON value from plain Python data (see the module docstring)."""
    if value is None or isinstance(value, bool | str):
        if isinstance(value, str):
            _require_scalar_values(value)
        return value
    if isinstance(value, int):
        return JsonNumber.from_lexeme(str(value), mode)
    if isinstance(value, Lexeme):
        return JsonNumber.from_lexeme(value.text, mode)
    if isinstance(value, float):
        raise AmbiguousFloat(
            reason="a python float has no single JSON spelling; pass Lexeme('...') instead"
        )
    if isinstance(value, list | tuple):
        return tuple(from_python(item, mode) for item in value)
    if isinstance(value, dict):
        members: dict[str, JsonValue] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise UnsupportedPythonValue(reason="object keys must be str")
            _require_scalar_values(key)
            members[key] = from_python(item, mode)
        return MappingProxyType(members)
    raise UnsupportedPythonValue(reason=f"unsupported type {type(value).__name__}")


def _require_scalar_values(text: str) -> None:
    # A Rust String cannot hold a lone surrogate, so no upstream payload can either.
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise Serialization(reason="lone_surrogate") from None


def json_equal(left: JsonValue, right: JsonValue) -> bool:
    """Structural equality as upstream's ``Value == Value`` (key order never matters)."""
    if isinstance(left, JsonNumber) or isinstance(right, JsonNumber):
        return (
            isinstance(left, JsonNumber)
            and isinstance(right, JsonNumber)
            and left.same_value(right)
        )
    if isinstance(left, tuple) or isinstance(right, tuple):
        return (
            isinstance(left, tuple)
            and isinstance(right, tuple)
            and len(left) == len(right)
            and all(json_equal(a, b) for a, b in zip(left, right, strict=True))
        )
    if isinstance(left, Mapping) or isinstance(right, Mapping):
        return (
            isinstance(left, Mapping)
            and isinstance(right, Mapping)
            and left.keys() == right.keys()
            and all(json_equal(left[key], right[key]) for key in left)
        )
    return type(left) is type(right) and left == right


def max_depth(value: JsonValue) -> int:
    """Depth as upstream counts it: the root is 1 and every child, scalars included, adds 1."""
    deepest = 1
    stack: list[tuple[JsonValue, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        if isinstance(node, tuple):
            stack.extend((child, depth + 1) for child in node)
        elif isinstance(node, Mapping):
            stack.extend((child, depth + 1) for child in node.values())
    return deepest
