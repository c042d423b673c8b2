"""Inspect a payload for implementers: canonical bytes, both fingerprints, hazards.

A *hazard* is something in a payload on which two conforming-looking implementations are
likely to disagree: a number whose canonical text differs between the two number modes (or
that only one mode accepts), a duplicate object key (upstream keeps the last one silently),
and the reserved key ``$serde_json::private::Number`` (read as a number in AP mode).
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from rescind.reference.digests import host_input_fingerprint, worker_input_fingerprint
from rescind.reference.errors import RescindError
from rescind.reference.jsonparse import parse_json
from rescind.reference.jsonvalue import JsonNumber, JsonValue
from rescind.reference.numbers import NumberMode
from rescind.reference.payload import ToolPayload
from rescind.reference.payload_format import PayloadFormat
from rescind.reference.protocol_errors import Serialization


@attrs.frozen
class Hazard:
    kind: str
    """``number_mode_difference``, ``duplicate_key`` or ``reserved_key``."""
    where: str
    """A JSON-pointer-like path (``/a/0``) or the key concerned."""
    detail: str = ""

    def to_json(self) -> dict[str, str]:
        return {"kind": self.kind, "where": self.where, "detail": self.detail}


@attrs.frozen
class Digests:
    canonical_input: bytes
    worker_input_fingerprint: str
    host_input_fingerprint: str

    @classmethod
    def of(cls, payload: ToolPayload) -> Digests:
        return cls(
            payload.canonical_input_bytes(),
            worker_input_fingerprint(payload),
            host_input_fingerprint(payload),
        )

    def to_json(self) -> dict[str, object]:
        return {
            "canonicalInputHex": self.canonical_input.hex(),
            "workerInputFingerprint": self.worker_input_fingerprint,
            "hostInputFingerprint": self.host_input_fingerprint,
        }


@attrs.frozen
class Inspection:
    format: PayloadFormat
    canonical_body: bytes
    digests: Digests
    hazards: tuple[Hazard, ...]
    informative: Digests | RescindError | None
    """The F64 profile's digests (or its error) when they differ from the AP ones."""


def inspect(data: bytes, payload_format: PayloadFormat) -> Inspection:
    """Digests in the normative profile, hazards, and the informative profile's view."""
    if payload_format is PayloadFormat.TEXT:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise Serialization(reason="invalid_utf8") from None
        payload = ToolPayload.text(text)
        return Inspection(payload.format, payload.canonical_body, Digests.of(payload), (), None)
    hazards: list[Hazard] = []

    def observe(kind: str, key: str) -> None:
        hazards.append(Hazard(kind, key))

    value = parse_json(data, NumberMode.AP, observe)
    payload = ToolPayload.json(value)
    digests = Digests.of(payload)
    informative: Digests | RescindError | None
    try:
        f64_value = parse_json(data, NumberMode.F64)
        f64_payload = ToolPayload.json(f64_value, NumberMode.F64)
        f64_digests = Digests.of(f64_payload)
        informative = None if f64_digests == digests else f64_digests
        hazards.extend(_number_differences(value, f64_value, ""))
    except RescindError as error:
        informative = error
        hazards.append(Hazard("number_mode_difference", "", f"splash-v5-f64 rejects: {error}"))
    return Inspection(payload.format, payload.canonical_body, digests, tuple(hazards), informative)


def _number_differences(ap: JsonValue, f64: JsonValue, path: str) -> list[Hazard]:
    if isinstance(ap, JsonNumber) and isinstance(f64, JsonNumber):
        if ap.text != f64.text:
            return [Hazard("number_mode_difference", path or "/", f"{ap.text} vs {f64.text}")]
        return []
    if isinstance(ap, tuple) and isinstance(f64, tuple):
        found: list[Hazard] = []
        for index, (left, right) in enumerate(zip(ap, f64, strict=True)):
            found.extend(_number_differences(left, right, f"{path}/{index}"))
        return found
    if isinstance(ap, Mapping) and isinstance(f64, Mapping):
        found = []
        for key in sorted(ap):
            found.extend(_number_differences(ap[key], f64[key], f"{path}/{key}"))
        return found
    if type(ap) is not type(f64):
        return [Hazard("number_mode_difference", path or "/", "structure differs by mode")]
    return []
