"""Wire texts shared by the worker vector topics (journal, authorizer, frames).

Every builder writes exact JSON text in upstream's field order, so number spellings such as
``1.00`` reach the implementation under test untouched. Defaults are upstream's test values:
session ``session-1``, tool ``math.add``, key ``release-42-add``, tenant ``tenant-release``.
"""

from __future__ import annotations

from typing import Any

from rescind.conformance.vectors.sets.grants import grant_text, manifest_text

SESSION = "session-1"
TENANT = "tenant-release"
KEY = "release-42-add"
CMP_KEY = "cmp-release-42-add-undo"
ADD_INPUT = '{"left":20,"right":22}'
UNDO_INPUT = '{"undo":"release"}'

# Upstream's test compensation grant (`compensation_grant` in the splash-protocol tests) and
# its fingerprint (upstream probe output, out_ap.txt rows `grant json` and `fp`).
GRANT_MATH = grant_text()
GRANT_MATH_FP = "a312a58bbb8e2dc99c371b7d80b2fe7ddb877fc94dca018f2782f982223ab6f2"
GRANT_MATH_NO_COMP = grant_text(comp=0)
GRANT_MATH_OUT_16 = grant_text(out=16)
GRANT_MATH_OUT_64 = grant_text(out=64)
GRANT_MATH_SUB = grant_text(tool="math.sub")
GRANT_MATH_TEXT = grant_text(fmt="text")
# The probe's text grant (max_output_bytes 16) and a wide one for the size-bound traces.
GRANT_ECHO = grant_text("text.echo", "text", 3, 16384, 16, 1, ())
GRANT_ECHO_FP = "d593a0897245261a0b67a45bdcda6d1ca8dedcb0d67a6c434500b11547226ae9"
GRANT_ECHO_WIDE = grant_text("text.echo", "text", 3, 16384, 300000, 1, ())
GRANT_ECHO_OUT_8 = grant_text("text.echo", "text", 3, 16384, 8, 1, ())

STANDARD_GRANTS = {
    "math": GRANT_MATH,
    "math-no-comp": GRANT_MATH_NO_COMP,
    "math-out-16": GRANT_MATH_OUT_16,
    "math-sub": GRANT_MATH_SUB,
    "math-text": GRANT_MATH_TEXT,
    "echo": GRANT_ECHO,
    "echo-wide": GRANT_ECHO_WIDE,
    "echo-out-8": GRANT_ECHO_OUT_8,
}


def payload(value: str, fmt: str = "json") -> str:
    """A ToolPayload; ``value`` is JSON text for json, raw text for text payloads."""
    if fmt == "text":
        escaped = value.replace("\\", "\\\\").replace('"', '\\"')
        return f'{{"format":"text","value":"{escaped}"}}'
    return f'{{"format":"json","value":{value}}}'


def _header(session: str, request_id: str, tool: str, key: str) -> str:
    return (
        f'"protocol_version":5,"session_id":"{session}","request_id":"{request_id}",'
        f'"tool":"{tool}","operation_key":"{key}"'
    )


def dispatch(
    value: str = ADD_INPUT,
    *,
    key: str = KEY,
    tool: str = "math.add",
    request_id: str = "dispatch-1",
    session: str = SESSION,
    fmt: str = "json",
) -> str:
    return f'{{{_header(session, request_id, tool, key)},"payload":{payload(value, fmt)}}}'


def reconcile(
    *,
    key: str = KEY,
    tool: str = "math.add",
    request_id: str = "reconcile-1",
    session: str = SESSION,
) -> str:
    return f"{{{_header(session, request_id, tool, key)}}}"


def _binding(
    session: str, request_id: str, tool: str, key: str, cmp_key: str, tenant: str, grant_fp: str
) -> str:
    return (
        f'{_header(session, request_id, tool, key)},"compensation_key":"{cmp_key}",'
        f'"tenant_scope":"{tenant}","grant_fingerprint":"{grant_fp}"'
    )


def compensate(
    value: str = UNDO_INPUT,
    *,
    key: str = KEY,
    cmp_key: str = CMP_KEY,
    tool: str = "math.add",
    tenant: str = TENANT,
    grant_fp: str = GRANT_MATH_FP,
    request_id: str = "compensation-request-1",
    session: str = SESSION,
    fmt: str = "json",
) -> str:
    binding = _binding(session, request_id, tool, key, cmp_key, tenant, grant_fp)
    return f'{{{binding},"payload":{payload(value, fmt)}}}'


def operation_result(
    status: str,
    *,
    key: str = KEY,
    tool: str = "math.add",
    request_id: str = "dispatch-1",
    session: str = SESSION,
) -> str:
    return f'{{{_header(session, request_id, tool, key)},"status":{status}}}'


def compensation_result(
    status: str,
    *,
    key: str = KEY,
    cmp_key: str = CMP_KEY,
    tool: str = "math.add",
    tenant: str = TENANT,
    grant_fp: str = GRANT_MATH_FP,
    request_id: str = "compensation-request-1",
    session: str = SESSION,
) -> str:
    binding = _binding(session, request_id, tool, key, cmp_key, tenant, grant_fp)
    return f'{{{binding},"status":{status}}}'


RUNNING = '{"state":"running"}'
CANCELLED = '{"state":"cancelled"}'


def succeeded(value: str, fmt: str = "json") -> str:
    return f'{{"state":"succeeded","payload":{payload(value, fmt)}}}'


def failed(message: str) -> str:
    return f'{{"state":"failed","message":"{message}"}}'


def repeat_text(prefix: str, fill: str, count: int, suffix: str) -> dict[str, Any]:
    return {"prefix": prefix, "repeat": fill, "count": count, "suffix": suffix}


def big_text_success(length: int) -> dict[str, Any]:
    """A succeeded status whose text payload is ``length`` x characters."""
    return repeat_text(
        '{"state":"succeeded","payload":{"format":"text","value":"', "x", length, '"}}'
    )


def manifest(*grants: str, session: str = SESSION) -> str:
    return manifest_text(*grants, session=session)
