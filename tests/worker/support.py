"""Builders for worker tests: upstream's test values as reference objects."""

from __future__ import annotations

from rescind.reference.grants import CapabilityGrant, Resource, ResourceKind
from rescind.reference.manifest import SessionManifest
from rescind.reference.messages import (
    OperationCompensationRequest,
    OperationDispatchRequest,
    OperationReconcileRequest,
    OperationStatus,
)
from rescind.reference.numbers import NumberMode
from rescind.reference.payload import ToolPayload
from rescind.reference.payload_format import PayloadFormat

MATH_GRANT = CapabilityGrant(
    "math.add",
    PayloadFormat.JSON,
    2,
    128,
    128,
    1,
    frozenset({Resource(ResourceKind.NETWORK_ORIGIN, "math-api")}),
)
# Upstream test compensation grant (`compensation_grant` in splash-protocol); fingerprint from
# upstream probe output, out_ap.txt rows `grant json` and `fp`.
MATH_GRANT_FP = "a312a58bbb8e2dc99c371b7d80b2fe7ddb877fc94dca018f2782f982223ab6f2"
ECHO_GRANT = CapabilityGrant("text.echo", PayloadFormat.TEXT, 3, 16384, 16, 1)
ECHO_GRANT_FP = "d593a0897245261a0b67a45bdcda6d1ca8dedcb0d67a6c434500b11547226ae9"


def json_payload(text: str, mode: NumberMode = NumberMode.AP) -> ToolPayload:
    return ToolPayload.json_text(text, mode)


def dispatch(
    value: str = '{"left":20,"right":22}',
    *,
    key: str = "release-42-add",
    tool: str = "math.add",
    request_id: str = "dispatch-1",
    session: str = "session-1",
    mode: NumberMode = NumberMode.AP,
    text: bool = False,
) -> OperationDispatchRequest:
    payload = ToolPayload.text(value) if text else json_payload(value, mode)
    return OperationDispatchRequest(
        session_id=session, request_id=request_id, tool=tool, operation_key=key, payload=payload
    )


def compensate(
    value: str = '{"undo":"release"}',
    *,
    key: str = "release-42-add",
    cmp_key: str = "cmp-release-42-add-undo",
    tool: str = "math.add",
    tenant: str = "tenant-release",
    grant_fp: str = MATH_GRANT_FP,
    request_id: str = "compensation-request-1",
    session: str = "session-1",
    text: bool = False,
) -> OperationCompensationRequest:
    payload = ToolPayload.text(value) if text else json_payload(value)
    return OperationCompensationRequest(
        session_id=session,
        request_id=request_id,
        tool=tool,
        operation_key=key,
        compensation_key=cmp_key,
        tenant_scope=tenant,
        grant_fingerprint=grant_fp,
        payload=payload,
    )


def reconcile(
    *, key: str = "release-42-add", tool: str = "math.add", request_id: str = "reconcile-1"
) -> OperationReconcileRequest:
    return OperationReconcileRequest(
        session_id="session-1", request_id=request_id, tool=tool, operation_key=key
    )


def success(text: str, mode: NumberMode = NumberMode.AP) -> OperationStatus:
    return OperationStatus.succeeded(json_payload(text, mode))


def text_success(text: str) -> OperationStatus:
    return OperationStatus.succeeded(ToolPayload.text(text))


def manifest(*grants: CapabilityGrant, session: str = "session-1") -> SessionManifest:
    return SessionManifest.new(session, grants)
