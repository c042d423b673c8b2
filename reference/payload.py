"""``ToolPayload`` and the canonical operation input bytes.

Layout of the canonical input bytes: the 4-byte format tag (``text`` or ``json``), the
big-endian u64 length of the body, then the body: the UTF-8 text, or the canonical JSON
(``jsonencode``). The JSON body must be an object or array no deeper than 32 (the root is
depth 1, scalars count). A payload's *size* is the body length.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Mapping

import attrs

from rescind.reference.errors import RescindError
from rescind.reference.jsonencode import canonical_json, encode_string
from rescind.reference.jsonparse import parse_json
from rescind.reference.jsonvalue import JsonValue, from_python, json_equal, max_depth
from rescind.reference.numbers import NumberMode
from rescind.reference.payload_format import PayloadFormat
from rescind.reference.protocol_errors import (
    InvalidJsonEnvelope,
    JsonPayloadTooDeep,
    PayloadFormatMismatch,
    Serialization,
)

MAX_JSON_DEPTH = 32


def u64_be(value: int) -> bytes:
    return struct.pack(">Q", value)


@attrs.frozen(eq=False)
class ToolPayload:
    """A tool payload: text, or a JSON value. Equality and hashing use the canonical body."""

    format: PayloadFormat
    body: str | JsonValue = attrs.field(repr=False)
    canonical_body: bytes = attrs.field(repr=False)
    mode: NumberMode = NumberMode.AP

    @classmethod
    def text(cls, text: str) -> ToolPayload:
        try:
            encoded = text.encode("utf-8")
        except UnicodeEncodeError:
            raise Serialization(reason="lone_surrogate") from None
        return cls(PayloadFormat.TEXT, text, encoded)

    @classmethod
    def json(cls, value: JsonValue, mode: NumberMode = NumberMode.AP) -> ToolPayload:
        return cls(PayloadFormat.JSON, value, canonical_json(value), mode)

    @classmethod
    def json_text(cls, text: str | bytes, mode: NumberMode = NumberMode.AP) -> ToolPayload:
        """Parse JSON text with upstream's rules into a JSON payload (not yet validated)."""
        return cls.json(parse_json(text, mode), mode)

    @classmethod
    def python(cls, value: object, mode: NumberMode = NumberMode.AP) -> ToolPayload:
        return cls.json(from_python(value, mode), mode)

    @property
    def size(self) -> int:
        return len(self.canonical_body)

    def validate(self) -> None:
        """Self-validation: a JSON payload must be a container no deeper than 32."""
        if self.format is PayloadFormat.JSON:
            if not isinstance(self.body, tuple | Mapping):
                raise InvalidJsonEnvelope()
            if max_depth(self.body) > MAX_JSON_DEPTH:
                raise JsonPayloadTooDeep(maximum=MAX_JSON_DEPTH)

    def validate_for(
        self,
        expected: PayloadFormat,
        maximum: int | None = None,
        too_large: Callable[..., RescindError] | None = None,
    ) -> None:
        """Upstream's order: format, envelope, depth, then size (inclusive bound)."""
        if self.format is not expected:
            raise PayloadFormatMismatch(expected=expected.value, actual=self.format.value)
        self.validate()
        if maximum is not None and self.size > maximum:
            assert too_large is not None, "a size bound needs the error to raise"
            raise too_large(actual=self.size, maximum=maximum)

    def canonical_input_bytes(self) -> bytes:
        self.validate()
        return self.format.value.encode("ascii") + u64_be(self.size) + self.canonical_body

    def wire_json(self) -> str:
        """The adjacently tagged wire form ``{"format":..,"value":..}`` (compact)."""
        if self.format is PayloadFormat.TEXT:
            assert isinstance(self.body, str)
            value = encode_string(self.body)
        else:
            value = self.canonical_body.decode("utf-8")
        return f'{{"format":"{self.format.value}","value":{value}}}'

    def same_as(self, other: ToolPayload) -> bool:
        """Upstream's terminal equality: structural, so key order never matters; in the
        F64 mode ``0.0`` equals ``-0.0``; in AP number spellings must match."""
        if self.format is not other.format:
            return False
        if self.format is PayloadFormat.TEXT:
            return self.body == other.body
        return json_equal(self.body, other.body)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ToolPayload):
            return NotImplemented
        return (self.format, self.canonical_body) == (other.format, other.canonical_body)

    def __hash__(self) -> int:
        return hash((self.format, self.canonical_body))
