"""The one-shot frame operations a vector asks: a message line re-encoded, a frame's tag and
the text it covers, and the pipe bootstrap encoded or decoded."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rescind.conformance.harness.limits import expand_text
from rescind.reference.digests import frame_auth_payload
from rescind.reference.frames import PipeBootstrap, SessionRole, compute_tag
from rescind.reference.numbers import NumberMode
from rescind.reference.wirejson import read_document
from rescind.reference.worker_message import (
    decode_message_line,
    encode_message_line,
    message_from_node,
    message_json,
)


def _mode(case: Mapping[str, Any]) -> NumberMode:
    return NumberMode(case.get("profile", NumberMode.AP.profile))


def run_message(case: Mapping[str, Any]) -> dict[str, Any]:
    """``line`` is the text, or ``{prefix, repeat, count, suffix}`` for a long one."""
    line = case["line"]
    text = (
        line
        if isinstance(line, str)
        else line["prefix"] + expand_text(line["repeat"], line["count"], "line") + line["suffix"]
    )
    return {"encoded": encode_message_line(decode_message_line(text, _mode(case)))}


def run_tag(case: Mapping[str, Any]) -> dict[str, Any]:
    mode = _mode(case)
    parsed = message_from_node(read_document(case["message"], mode), mode)
    payload = frame_auth_payload(
        case["sender"], case["sequence"], case["session_id"], message_json(parsed)
    )
    tag = compute_tag(
        bytes.fromhex(case["key"]),
        SessionRole(case["sender"]),
        case["sequence"],
        case["session_id"],
        parsed,
    )
    return {"auth_payload": payload.decode("utf-8"), "tag": tag}


def run_bootstrap(case: Mapping[str, Any]) -> dict[str, Any]:
    if case["operation"] == "encode":
        encoded = PipeBootstrap(case["session_id"], bytes.fromhex(case["key"])).encode()
        return {"bytes": encoded.hex()}
    bootstrap, rest = PipeBootstrap.decode(bytes.fromhex(case["bytes"]))
    return {"session_id": bootstrap.session_id, "key": bootstrap.key.hex(), "rest": rest.hex()}
