"""Requests and statuses shared by the journal and authorizer trace vectors (exact texts)."""

from __future__ import annotations

from rescind.conformance.vectorsets._worker_fixtures import (
    GRANT_ECHO_FP,
    GRANT_MATH_OUT_64,
    compensate,
    dispatch,
    reconcile,
    succeeded,
)
from rescind.reference.grants import CapabilityGrant

NEW_GRANT_FP = CapabilityGrant.from_json(GRANT_MATH_OUT_64).compensation_fingerprint()

REQUESTS = {
    "add": dispatch(),
    "add-reordered": dispatch('{"right":22,"left":20}', request_id="dispatch-2"),
    "add-spaced": dispatch('{ "left" : 20 ,\n "right" : 22 }', request_id="dispatch-3"),
    "add-23": dispatch('{"left":20,"right":23}', request_id="dispatch-4"),
    "add-as-sub": dispatch(tool="math.sub", request_id="dispatch-5"),
    "add-5": dispatch(key="release-42-add-5", request_id="dispatch-6"),
    "other-key": dispatch(key="release-43-add", request_id="dispatch-7"),
    "cmp-prefixed-key": dispatch(key="cmp-x", request_id="dispatch-8"),
    "undo": compensate(),
    "undo-spaced": compensate('{ "undo" : "release" }', request_id="compensation-request-2"),
    "undo-changed": compensate('{"undo":"release-2"}', request_id="compensation-request-3"),
    "undo-other-key": compensate(cmp_key="cmp-other", request_id="compensation-request-4"),
    "undo-other-tool": compensate(tool="math.sub", request_id="compensation-request-5"),
    "undo-unknown-op": compensate(key="nope", request_id="compensation-request-6"),
    "undo-wrong-scope": compensate(tenant="tenant-other", request_id="compensation-request-7"),
    "undo-wrong-scope-unknown-op": compensate(
        tenant="tenant-other", key="nope", request_id="compensation-request-8"
    ),
    "undo-new-grant": compensate(grant_fp=NEW_GRANT_FP, request_id="compensation-request-9"),
    "undo-other-key-op": compensate(key="release-43-add", request_id="compensation-request-10"),
    "rec": reconcile(),
    "rec-sub": reconcile(tool="math.sub", request_id="reconcile-2"),
    "rec-unknown": reconcile(key="nope", request_id="reconcile-3"),
    "echo": dispatch("release", tool="text.echo", key="op-1", request_id="d1", fmt="text"),
    "echo-undo": compensate(
        "undo",
        tool="text.echo",
        key="op-1",
        cmp_key="cmp-op-1",
        tenant="tenant",
        grant_fp=GRANT_ECHO_FP,
        request_id="c1",
        fmt="text",
    ),
}

TOTAL_42 = succeeded('{"total":42}')
BODY_64 = succeeded('{"body":"' + "x" * 64 + '"}')
BODY_200 = succeeded('{"body":"' + "x" * 200 + '"}')
DEPTH_33 = succeeded("[" * 32 + "{}" + "]" * 32)
DEPTH_32 = succeeded("[" * 31 + "{}" + "]" * 31)
