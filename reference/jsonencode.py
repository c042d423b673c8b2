"""Canonical JSON text: upstream's compact serde_json output of a ``Value``.

No whitespace; array order kept; object keys sorted by code point (equal to UTF-8 byte
order, and *not* JCS's UTF-16 order); strings escape only ``"``, ``\\`` and C0 controls
(short forms where JSON has them, otherwise lowercase ``\\u00xx``), leaving ``/``, DEL,
U+2028/2029 and all other non-ASCII as raw UTF-8; numbers as their mode's canonical text.
"""

from __future__ import annotations

from collections.abc import Mapping
from json.encoder import encode_basestring

from rescind.reference.jsonvalue import JsonNumber, JsonValue


def canonical_json_text(value: JsonValue) -> str:
    parts: list[str] = []
    _write(value, parts)
    return "".join(parts)


def canonical_json(value: JsonValue) -> bytes:
    return canonical_json_text(value).encode("utf-8")


def encode_string(text: str) -> str:
    """One JSON string literal with upstream's escaping (the stdlib C encoder agrees)."""
    encoded: str = encode_basestring(text)
    return encoded


def _write(value: JsonValue, parts: list[str]) -> None:
    if isinstance(value, str):
        parts.append(encode_basestring(value))
    elif isinstance(value, JsonNumber):
        parts.append(value.text)
    elif value is True:
        parts.append("true")
    elif value is False:
        parts.append("false")
    elif value is None:
        parts.append("null")
    elif isinstance(value, tuple):
        parts.append("[")
        for index, item in enumerate(value):
            if index:
                parts.append(",")
            _write(item, parts)
        parts.append("]")
    elif isinstance(value, Mapping):
        parts.append("{")
        for index, key in enumerate(sorted(value)):
            if index:
                parts.append(",")
            parts.append(encode_basestring(key))
            parts.append(":")
            _write(value[key], parts)
        parts.append("}")
    else:
        raise TypeError(f"not a JSON value: {type(value).__name__}")
