"""HK-12: every known-answer value, transcribed from docs/spec/host-keys.md, checked
against the reference and against the generated vectors."""

from __future__ import annotations

import json

import pytest

from rescind.conformance.vectors.sets import host_keys, ledger_traces
from rescind.reference.digests import (
    PlanStep,
    derive_compensation_key,
    host_input_fingerprint_of_bytes,
    plan_fingerprint,
)
from rescind.reference.frames import SessionAuthenticator, SessionRole
from rescind.reference.grants import CapabilityGrant
from rescind.reference.host.compensation import WorkflowCompensationPolicy
from rescind.reference.host.engine import WorkflowEngine
from rescind.reference.host.plan import IdCounter
from rescind.reference.payload import ToolPayload

PLAN_FP = "0b261b22f61c0dbd5c290a54cf1ee60f4a5bb598f480f32c5d637d5de0b68d20"
CANONICAL_VERSION = "6a736f6e00000000000000137b2276657273696f6e223a22312e322e33227d"
CANONICAL_TEXT = "74657874000000000000000d72656c656173652d312e322e33"
INPUT_FP = "f17665c665a8f47f05875a69b373118616db461c2df93da5eaeb8aaf656e55ef"
EMPTY_FP = "242e72d10daba27195e21b54caef494d969e272505e72d43923d286021783773"
OP_KEY = "op-a6d9d328a46ad9d5a8ed39963fda367dd8cca56b67999b055cd2466a760e1584"
GRANT_JSON = (
    '{"tool":"release.publish","format":"json","max_calls":1,"max_input_bytes":16384,'
    '"max_output_bytes":65536,"max_compensations":1,"resources":[]}'
)
GRANT_FP = "f868e4d5cb807c8d016259c0201e3a02526188043f9a64188bc86364d9b142a6"
UNDO_FP = "8c7a61f637d8155a4b17f2bc63135583cc98ecd8379bf92ccaf283d68be3b487"
CMP_KEY = "cmp-fe15b026a51b331726600fba71d8f6079e3d7333367498864171e94a26c42649"
FRAME_TAG = "75fbe2d8828b9ee237139b673cbf5685bdb56e3140199500c1770011364b4a9d"

VERSION = ToolPayload.json_text('{"version":"1.2.3"}')
UNDO = ToolPayload.json_text('{"undo":"release"}')


def test_plan_fingerprint() -> None:
    assert plan_fingerprint([PlanStep("publish", "let release = true")]) == PLAN_FP


def test_canonical_inputs() -> None:
    assert VERSION.canonical_input_bytes().hex() == CANONICAL_VERSION
    assert ToolPayload.text("release-1.2.3").canonical_input_bytes().hex() == CANONICAL_TEXT
    two = ToolPayload.json_text('{"version":"1.2.3","channel":"stable"}')
    body = b'{"channel":"stable","version":"1.2.3"}'
    assert two.canonical_input_bytes() == b"json" + (38).to_bytes(8, "big") + body


def test_host_input_fingerprints() -> None:
    assert host_input_fingerprint_of_bytes(VERSION.canonical_input_bytes()) == INPUT_FP
    assert host_input_fingerprint_of_bytes(b"") == EMPTY_FP
    assert host_input_fingerprint_of_bytes(UNDO.canonical_input_bytes()) == UNDO_FP


def test_operation_key_through_the_engine() -> None:
    engine = WorkflowEngine(IdCounter())
    plan = engine.plan([("publish", "let release = true")])
    key = engine.derive_operation_key(
        plan, "publish", "release.publish", VERSION.canonical_input_bytes(), b"release-42:publish:1"
    )
    assert key == OP_KEY
    assert len(key) == 67


def test_grant_and_policy() -> None:
    grant = CapabilityGrant.json("release.publish").with_compensation_limit(1)
    assert grant.to_json() == GRANT_JSON
    policy = WorkflowCompensationPolicy.create("tenant-release", grant)
    assert (policy.tool, policy.tenant_scope, policy.grant_fingerprint) == (
        "release.publish",
        "tenant-release",
        GRANT_FP,
    )


def test_compensation_key() -> None:
    key = derive_compensation_key(
        PLAN_FP,
        OP_KEY,
        "release.publish",
        "tenant-release",
        GRANT_FP,
        UNDO.canonical_input_bytes(),
        b"release-42:publish:undo:1",
    )
    assert key == CMP_KEY
    assert len(key) == 68


def test_frame_auth_tag_of_a_host_reconcile_frame() -> None:
    engine = WorkflowEngine(IdCounter())
    plan = engine.plan([("publish", "let release = true")])
    ledger = engine.operation_ledger(plan)
    canonical = VERSION.canonical_input_bytes()
    engine.record_operation(plan, ledger, "publish", "release.publish", "release-2026-1", canonical)
    host = SessionAuthenticator("worker-1", bytes([0x0D]) * 32, SessionRole.HOST)
    prepared = engine.operations.prepare_authenticated_operation_reconciliation(
        plan, ledger, "release-2026-1", canonical, "reconcile-1", host
    )
    assert prepared.frame.sequence == 1
    assert prepared.frame.auth_tag == FRAME_TAG


def _vector(topic_tests: dict[str, dict[str, object]], test_id: str) -> dict[str, object]:
    return topic_tests[test_id]


@pytest.fixture(scope="module")
def key_vectors() -> dict[str, dict[str, object]]:
    return {test.id: dict(test.expected) for test in host_keys.build().tests}


@pytest.mark.parametrize(
    ("test_id", "field", "value"),
    [
        ("hostkeys.plan.upstream-doc", "fingerprint", PLAN_FP),
        ("hostkeys.canonical.json-version", "canonical_input_hex", CANONICAL_VERSION),
        ("hostkeys.canonical.text-release", "canonical_input_hex", CANONICAL_TEXT),
        ("hostkeys.input-fp.json-version", "fingerprint", INPUT_FP),
        ("hostkeys.input-fp.empty", "fingerprint", EMPTY_FP),
        ("hostkeys.input-fp.undo", "fingerprint", UNDO_FP),
        ("hostkeys.op.upstream-doc", "key", OP_KEY),
        ("hostkeys.cmp.upstream-doc", "key", CMP_KEY),
    ],
)
def test_generated_key_vectors_carry_the_known_answers(
    key_vectors: dict[str, dict[str, object]], test_id: str, field: str, value: str
) -> None:
    assert _vector(key_vectors, test_id)[field] == value


def test_generated_traces_carry_the_known_answers() -> None:
    traces = {test.id: test for test in ledger_traces.build().tests}
    frame = json.loads(
        traces["ledger.trace.frame-auth-known-answer"].expected["steps"][1]["result"]
    )
    assert frame["auth_tag"] == FRAME_TAG
    happy = traces["ledger.trace.compensation-happy-path.planned-events"].expected
    texts = json.dumps(happy)
    for value in (OP_KEY, CMP_KEY, GRANT_FP, INPUT_FP, UNDO_FP, PLAN_FP):
        assert value in texts
