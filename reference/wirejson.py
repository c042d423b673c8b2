"""Typed decoding of JSON documents the way upstream's serde derives read them.

Structs either deny or ignore unknown fields (each upstream struct says which); a repeated
known field is always an error; a missing optional field is ``None``; integers must be
written as integers and fit the field's width. Failures are ``serialization`` with a
``reason`` (``unknown_field``, ``duplicate_field``, ``missing_field``, ``invalid_type``,
``invalid_value``, ``unknown_variant``); codes, not texts, are what conformance compares.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rescind.reference.jsonparse import JsonPairs, Node, parse_document, to_value
from rescind.reference.jsonvalue import JsonNumber, JsonValue
from rescind.reference.numbers import NumberMode
from rescind.reference.payload import ToolPayload
from rescind.reference.payload_format import PayloadFormat
from rescind.reference.protocol_errors import Serialization

_INTEGER = re.compile(r"-?[0-9]+\Z")
# No field is wider than u64, whose maximum has 20 digits. Longer integers are out of range
# by their length alone; deciding that before ``int()`` keeps the answer independent of
# Python's integer-string conversion limit (4,300 digits by default).
_MAX_FIELD_DIGITS = 20


class Struct:
    """One JSON object read as a serde struct with the given field names."""

    def __init__(self, node: Node, fields: Sequence[str], *, deny_unknown: bool, what: str) -> None:
        if not isinstance(node, JsonPairs):
            raise Serialization(reason="invalid_type", expected=what)
        self.what = what
        self.members: dict[str, Node] = {}
        for key, value in node.pairs:
            if key in fields:
                if key in self.members:
                    raise Serialization(reason="duplicate_field", field=key)
                self.members[key] = value
            elif deny_unknown:
                raise Serialization(reason="unknown_field", field=key)

    def optional(self, field: str) -> Node:
        """The field's node, or ``None`` when it is absent (serde's ``Option`` default)."""
        return self.members.get(field)

    def has(self, field: str) -> bool:
        return field in self.members

    def required(self, field: str) -> Node:
        if field not in self.members:
            raise Serialization(reason="missing_field", field=field)
        return self.members[field]


def read_document(text: str | bytes, mode: NumberMode = NumberMode.AP) -> Node:
    return parse_document(text, mode)


def as_str(node: Node) -> str:
    if not isinstance(node, str):
        raise Serialization(reason="invalid_type", expected="string")
    return node


def as_uint(node: Node, bits: int) -> int:
    """An unsigned integer field (u8/u16/u32/u64): written as an integer and in range.

    Typed integer fields are read by serde's integer path in both number modes, so ``2.0``,
    ``1e2`` and ``-0`` (a float there) are type errors and ``-1`` or ``256`` (for u8) are
    out-of-range values, however many digits they have."""
    if not isinstance(node, JsonNumber):
        raise Serialization(reason="invalid_type", expected=f"u{bits}")
    written = node.lexeme or node.text
    if not _INTEGER.match(written) or written == "-0":
        raise Serialization(reason="invalid_type", expected=f"u{bits}")
    if len(written.lstrip("-").lstrip("0")) > _MAX_FIELD_DIGITS:
        raise Serialization(reason="invalid_value", expected=f"u{bits}")
    value = int(written)
    if not 0 <= value < 2**bits:
        raise Serialization(reason="invalid_value", expected=f"u{bits}")
    return value


def as_list(node: Node) -> tuple[Node, ...]:
    if not isinstance(node, tuple):
        raise Serialization(reason="invalid_type", expected="sequence")
    return node


def as_value(node: Node, mode: NumberMode) -> JsonValue:
    return to_value(node, mode)


def tag_of(node: Node, tag: str, variants: Sequence[str]) -> str:
    """The variant named by an internally tagged object's ``tag`` field (any position)."""
    if not isinstance(node, JsonPairs):
        raise Serialization(reason="invalid_type", expected="internally tagged enum")
    found = [value for key, value in node.pairs if key == tag]
    if not found:
        raise Serialization(reason="missing_field", field=tag)
    if len(found) > 1:
        raise Serialization(reason="duplicate_field", field=tag)
    name = as_str(found[0])
    if name not in variants:
        raise Serialization(reason="unknown_variant")
    return name


def read_payload(node: Node, mode: NumberMode) -> ToolPayload:
    """``ToolPayload``: adjacently tagged (``format`` + ``value``), key order free, extra
    keys ignored, a repeated ``format`` or ``value`` rejected, format names case-sensitive."""
    struct = Struct(node, ("format", "value"), deny_unknown=False, what="tool payload")
    format_name = as_str(struct.required("format"))
    if format_name not in ("text", "json"):
        raise Serialization(reason="unknown_variant")
    value = struct.required("value")
    if PayloadFormat(format_name) is PayloadFormat.TEXT:
        return ToolPayload.text(as_str(value))
    return ToolPayload.json(as_value(value, mode), mode)
