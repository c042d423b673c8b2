"""Grant encodings and fingerprints against values observed from compiled upstream code.

Two sources, both independent of the reference: the hex transcribed from upstream probe
output (out_ap.txt rows `grant json` and `fp`), and the raw probe lines read from
tests/upstream/out_ap.txt.
"""

from __future__ import annotations

import itertools
import re
import struct
from pathlib import Path

import pytest
from blake3 import blake3

from rescind.reference.grants import CapabilityGrant, Resource, ResourceKind
from rescind.reference.manifest import SessionManifest
from rescind.reference.payload_format import PayloadFormat

PROBE = Path(__file__).resolve().parents[1] / "upstream" / "out_ap.txt"

UPSTREAM_TEST_GRANT = CapabilityGrant(
    "math.add",
    PayloadFormat.JSON,
    2,
    128,
    128,
    1,
    [Resource(ResourceKind.NETWORK_ORIGIN, "math-api")],
)
MULTI = (
    CapabilityGrant.json("multi")
    .with_compensation_limit(1)
    .with_resources(
        [
            Resource(ResourceKind.SECRET, "a"),
            Resource(ResourceKind.NETWORK_ORIGIN, "z"),
            Resource(ResourceKind.NETWORK_ORIGIN, "b"),
            Resource(ResourceKind.EXECUTABLE, "x"),
            Resource(ResourceKind.FILE_ROOT, "y"),
        ]
    )
)

# (grant, fingerprint) transcribed from upstream probe output (out_ap.txt `grant json`, `fp`).
SPEC_FINGERPRINTS = [
    (UPSTREAM_TEST_GRANT, "a312a58bbb8e2dc99c371b7d80b2fe7ddb877fc94dca018f2782f982223ab6f2"),
    (
        UPSTREAM_TEST_GRANT.with_compensation_limit(0),
        "24867a5828034ba6bc90e352306b61f65a32266c8cba8820d486612d96a72cbb",
    ),
    (
        CapabilityGrant("text.echo", PayloadFormat.TEXT, 4, 16384, 65536, 1),
        "08243739d58d5f31a6cb2385f5dd74400e97ac2382a8d21096280768d1e46648",
    ),
    (
        CapabilityGrant.json("release.publish").with_compensation_limit(1),
        "f868e4d5cb807c8d016259c0201e3a02526188043f9a64188bc86364d9b142a6",
    ),
    (
        CapabilityGrant("text.echo", PayloadFormat.TEXT, 3, 16384, 16, 1),
        "d593a0897245261a0b67a45bdcda6d1ca8dedcb0d67a6c434500b11547226ae9",
    ),
    (MULTI, "60889dcb49f8d4c75e7db4c3b4548c8a6f6462438248422dc281ff780d316b6d"),
]

SPEC_ENCODINGS = [
    (
        UPSTREAM_TEST_GRANT,
        '{"tool":"math.add","format":"json","max_calls":2,"max_input_bytes":128,'
        '"max_output_bytes":128,"max_compensations":1,'
        '"resources":[{"kind":"network_origin","id":"math-api"}]}',
    ),
    (
        CapabilityGrant("text.echo", PayloadFormat.TEXT, 4, 16384, 65536, 1),
        '{"tool":"text.echo","format":"text","max_calls":4,"max_input_bytes":16384,'
        '"max_output_bytes":65536,"max_compensations":1,"resources":[]}',
    ),
]

# Probe label -> the grant the probe built (upstream's test grants `compensation_grant` and
# `json_grant` in splash-protocol, and the probe's own).
PROBE_GRANTS = {
    "grant json": UPSTREAM_TEST_GRANT,
    "grant(no comp) json": UPSTREAM_TEST_GRANT.with_compensation_limit(0),
    "worker test grant json": CapabilityGrant("text.echo", PayloadFormat.TEXT, 4, 16384, 65536, 1),
    "release.publish json": CapabilityGrant.json("release.publish").with_compensation_limit(1),
    "multi-resource json": MULTI,
}


def probe_pairs() -> dict[str, tuple[str, str]]:
    """label -> (G, fingerprint) from the '<label>: <G>' line followed by 'fp: <hex>'."""
    lines = PROBE.read_text(encoding="utf-8").splitlines()
    pairs: dict[str, tuple[str, str]] = {}
    for line, following in itertools.pairwise(lines):
        label, _, rest = line.partition(": ")
        if label in PROBE_GRANTS and following.startswith("fp: "):
            pairs[label] = (rest, following.removeprefix("fp: "))
    return pairs


def independent_fingerprint(encoded: bytes) -> str:
    digest = blake3(b"splash-compensation-grant-v1")
    digest.update(struct.pack(">Q", len(encoded)))
    digest.update(encoded)
    return digest.hexdigest()


@pytest.mark.parametrize(("grant", "expected"), SPEC_FINGERPRINTS)
def test_spec_fingerprints(grant: CapabilityGrant, expected: str) -> None:
    assert grant.compensation_fingerprint() == expected


@pytest.mark.parametrize(("grant", "expected"), SPEC_ENCODINGS)
def test_spec_encodings(grant: CapabilityGrant, expected: str) -> None:
    assert grant.encoded() == expected.encode("ascii")
    assert grant.to_json() == expected


def test_every_probe_grant_is_found() -> None:
    assert set(probe_pairs()) == set(PROBE_GRANTS)


@pytest.mark.parametrize("label", sorted(PROBE_GRANTS))
def test_probe_encoding_and_fingerprint(label: str) -> None:
    encoded, fingerprint = probe_pairs()[label]
    grant = PROBE_GRANTS[label]
    assert grant.to_json() == encoded
    assert grant.compensation_fingerprint() == fingerprint


@pytest.mark.parametrize("label", sorted(PROBE_GRANTS))
def test_recipe_recomputed_from_probe_text(label: str) -> None:
    # The recipe itself, applied to upstream's own G, must give upstream's digest.
    encoded, fingerprint = probe_pairs()[label]
    assert independent_fingerprint(encoded.encode("ascii")) == fingerprint


@pytest.mark.parametrize("label", sorted(PROBE_GRANTS))
def test_probe_text_parses_back_to_the_same_grant(label: str) -> None:
    encoded, _ = probe_pairs()[label]
    assert CapabilityGrant.from_json(encoded) == PROBE_GRANTS[label]


def test_multi_resource_order_follows_kind_declaration() -> None:
    ids = re.findall(r'"kind":"([a-z_]+)","id":"([a-z]+)"', MULTI.to_json())
    assert ids == [
        ("file_root", "y"),
        ("executable", "x"),
        ("network_origin", "b"),
        ("network_origin", "z"),
        ("secret", "a"),
    ]


def test_fingerprint_is_the_same_in_every_session() -> None:
    # Taken from two manifests with different session ids: still the published digest.
    for session_id in ("session-1", "worker-2"):
        manifest = SessionManifest.new(session_id, [UPSTREAM_TEST_GRANT])
        fingerprint = manifest.grant_for("math.add").compensation_fingerprint()
        assert fingerprint == SPEC_FINGERPRINTS[0][1]


def test_edge_case_37_changing_output_limit_changes_fingerprint() -> None:
    narrower = CapabilityGrant(
        "math.add", PayloadFormat.JSON, 2, 128, 64, 1, UPSTREAM_TEST_GRANT.resources
    )
    assert narrower.compensation_fingerprint() != SPEC_FINGERPRINTS[0][1]
    assert narrower.compensation_fingerprint() == independent_fingerprint(narrower.encoded())
