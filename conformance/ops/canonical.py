"""Operations of capability ``canonical``: canonical input bytes and input fingerprints."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rescind.conformance.ops.declaration import BadRequest, Declared, arg
from rescind.reference.digests import host_input_fingerprint, worker_input_fingerprint
from rescind.reference.jsonparse import parse_json
from rescind.reference.numbers import NumberMode
from rescind.reference.payload import ToolPayload
from rescind.reference.payload_format import PayloadFormat
from rescind.reference.protocol_errors import InputTooLarge, Serialization


def payload_from_args(args: Mapping[str, Any]) -> ToolPayload:
    """``{"format", "text" | "hex", "profile"?}`` -> a payload in that profile's number mode."""
    payload_format = arg(args, "format", str)
    if payload_format not in ("json", "text"):
        raise BadRequest(reason="format must be json or text")
    try:
        mode = NumberMode(args.get("profile", NumberMode.AP.value))
    except ValueError:
        raise BadRequest(reason="unknown profile") from None
    if "hex" in args:
        data: str | bytes = bytes.fromhex(arg(args, "hex", str))
    else:
        data = arg(args, "text", str)
    if payload_format == "text":
        if isinstance(data, bytes):
            try:
                data = data.decode("utf-8")
            except UnicodeDecodeError:
                raise Serialization(reason="invalid_utf8") from None
        return ToolPayload.text(data)
    return ToolPayload.json(parse_json(data, mode), mode)


def canonical_input(args: Mapping[str, Any]) -> dict[str, Any]:
    payload = payload_from_args(args)
    maximum = args.get("maxInputBytes")
    payload.validate_for(PayloadFormat(args["format"]), maximum, InputTooLarge)
    result: dict[str, Any] = {}
    if payload.format is PayloadFormat.JSON:
        result["canonicalJson"] = payload.canonical_body.decode("utf-8")
    result["canonicalInputHex"] = payload.canonical_input_bytes().hex()
    result["size"] = payload.size
    result["workerInputFingerprint"] = worker_input_fingerprint(payload)
    result["hostInputFingerprint"] = host_input_fingerprint(payload)
    return result


OPERATIONS = (Declared("canonical.input", "canonical", canonical_input),)
