"""Known-answer values (transcribed, not computed here): worker fingerprints and frame tags as
upstream probe output shows them (tests/upstream/), host values as docs/spec/host-keys.md HK-12
lists them."""

from __future__ import annotations

import pytest

from rescind.reference.digests import (
    PlanStep,
    derive_compensation_key,
    derive_operation_key,
    frame_tag,
    host_input_fingerprint,
    host_input_fingerprint_of_bytes,
    plan_fingerprint,
    worker_input_fingerprint,
)
from rescind.reference.numbers import NumberMode
from rescind.reference.payload import ToolPayload

WORKER_FINGERPRINTS = [
    (
        ToolPayload.text("release"),
        "71c51e90a22434f9390af1b8fbbaf8a306fb6c2e9eb0471a141dabca66b95036",
    ),
    (ToolPayload.text(""), "554a5e2842cc41ca063dd93deaab829d3f921ec1c9fcb0c2c04548b54183a258"),
    (ToolPayload.text("undo"), "1db7eae338696ec319df898f5b569dcd661cd73512096746c135aeebd5a9f2b9"),
    (
        ToolPayload.json_text('{"left":20,"right":22}'),
        "97b596370568d8bf144de6def87e9d0d3d52f25e96bed12dc4be35526fceb39a",
    ),
    (
        ToolPayload.json_text('{"undo":"release"}'),
        "5cc121e4a0ce2f79ae6b83397eb4f81a66bf12a9b1fe5836835a8118de24d578",
    ),
    (
        ToolPayload.json_text('{"b":2,"a":1}'),
        "561bf4fd4bd31485a316b9fc96ba3994b010a6734a65fbe5913aaa5b9fa1d239",
    ),
    (
        ToolPayload.json_text("{}"),
        "808eacaced59aa781db84ec2f0f6206203e613ff3b6c657de31e8efce2ffceba",
    ),
    (
        ToolPayload.json_text('{"a":1.0}', NumberMode.F64),
        "228147e7d4bdf629bfbe430f55b0f3fe2fb4d212edf05bd65c08e071610d5c40",
    ),
    (
        ToolPayload.json_text('{"a":1.00}', NumberMode.F64),
        "228147e7d4bdf629bfbe430f55b0f3fe2fb4d212edf05bd65c08e071610d5c40",
    ),
    (
        ToolPayload.json_text('{"a":1.00}'),
        "272fa7a1353a578d4238ffd65ccb2d9f47ddc25be76532f2a34bebbce5a4ddf2",
    ),
]


@pytest.mark.parametrize(("payload", "expected"), WORKER_FINGERPRINTS)
def test_worker_input_fingerprint(payload: ToolPayload, expected: str) -> None:
    assert worker_input_fingerprint(payload) == expected


@pytest.mark.parametrize(
    ("payload", "expected_hex"),
    [
        (ToolPayload.text("release"), "74657874000000000000000772656c65617365"),
        (ToolPayload.text(""), "746578740000000000000000"),
        (
            ToolPayload.json_text('{"right":22,"left":20}'),
            "6a736f6e00000000000000167b226c656674223a32302c227269676874223a32327d",
        ),
        (ToolPayload.json_text("{}"), "6a736f6e00000000000000027b7d"),
        (ToolPayload.json_text("[]"), "6a736f6e00000000000000025b5d"),
        (
            ToolPayload.json_text('{"version":"1.2.3"}'),
            "6a736f6e00000000000000137b2276657273696f6e223a22312e322e33227d",
        ),
        (ToolPayload.text("release-1.2.3"), "74657874000000000000000d72656c656173652d312e322e33"),
        (
            ToolPayload.json_text('{"version":"1.2.3","channel":"stable"}'),
            b"json".hex() + "0000000000000026" + b'{"channel":"stable","version":"1.2.3"}'.hex(),
        ),
    ],
)
def test_canonical_input_bytes(payload: ToolPayload, expected_hex: str) -> None:
    assert payload.canonical_input_bytes().hex() == expected_hex


def test_host_recipes() -> None:
    version = ToolPayload.json_text('{"version":"1.2.3"}')
    assert (
        host_input_fingerprint(version)
        == "f17665c665a8f47f05875a69b373118616db461c2df93da5eaeb8aaf656e55ef"
    )
    assert (
        host_input_fingerprint_of_bytes(b"")
        == "242e72d10daba27195e21b54caef494d969e272505e72d43923d286021783773"
    )
    undo = ToolPayload.json_text('{"undo":"release"}')
    assert (
        host_input_fingerprint(undo)
        == "8c7a61f637d8155a4b17f2bc63135583cc98ecd8379bf92ccaf283d68be3b487"
    )
    plan = plan_fingerprint([PlanStep("publish", "let release = true")])
    assert plan == "0b261b22f61c0dbd5c290a54cf1ee60f4a5bb598f480f32c5d637d5de0b68d20"
    operation_key = derive_operation_key(
        plan, "publish", "release.publish", version.canonical_input_bytes(), b"release-42:publish:1"
    )
    assert operation_key == "op-a6d9d328a46ad9d5a8ed39963fda367dd8cca56b67999b055cd2466a760e1584"
    compensation_key = derive_compensation_key(
        plan,
        operation_key,
        "release.publish",
        "tenant-release",
        "f868e4d5cb807c8d016259c0201e3a02526188043f9a64188bc86364d9b142a6",
        undo.canonical_input_bytes(),
        b"release-42:publish:undo:1",
    )
    assert (
        compensation_key == "cmp-fe15b026a51b331726600fba71d8f6079e3d7333367498864171e94a26c42649"
    )
    assert len(operation_key) == 67 and len(compensation_key) == 68


@pytest.mark.parametrize(
    ("key", "sender", "sequence", "session", "message", "expected"),
    [
        (
            7,
            "host",
            1,
            "session-1",
            '{"type":"close_session","protocol_version":5,"session_id":"session-1"}',
            "c22ef937e66a578371dc94dba959c06b8d44b4acda5dcef8d94c47be88abb4d8",
        ),
        (
            7,
            "worker",
            1,
            "session-1",
            '{"type":"close_session","protocol_version":5,"session_id":"session-1"}',
            "c319a83b1d2d7f9dfe258c532cc8bf4012b4edd1b7aa72010255e13f33c5351b",
        ),
        (
            7,
            "host",
            2,
            "session-1",
            '{"type":"dispatch_operation","request":{"protocol_version":5,"session_id":"session-1","request_id":"dispatch-1","tool":"math.add","operation_key":"release-42-add","payload":{"format":"json","value":{"left":20,"right":22}}}}',
            "05bcb9cec2d0f7a7e01f67f727aa2d0d1d492c33e7716ae1c6f21d2d497d6363",
        ),
        (
            0x0D,
            "host",
            1,
            "worker-1",
            '{"type":"reconcile_operation","request":{"protocol_version":5,"session_id":"worker-1","request_id":"reconcile-1","tool":"release.publish","operation_key":"release-2026-1"}}',
            "75fbe2d8828b9ee237139b673cbf5685bdb56e3140199500c1770011364b4a9d",
        ),
    ],
)
def test_frame_tags(
    key: int, sender: str, sequence: int, session: str, message: str, expected: str
) -> None:
    assert frame_tag(bytes([key]) * 32, sender, sequence, session, message) == expected
