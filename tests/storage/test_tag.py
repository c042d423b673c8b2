"""The storage record tag: known answers from the spec and an independent transcription."""

from __future__ import annotations

import base64
import re
import struct
from pathlib import Path

import pytest
from blake3 import blake3

from rescind.reference.errors import RescindError
from rescind.reference.storage.envelope import encode_payload
from rescind.reference.storage.tag import storage_record_tag

UPSTREAM = Path(__file__).resolve().parents[1] / "upstream" / "out_other.txt"

JOURNAL_PAYLOAD = b'{"format_version":2,"scope":"tenant-release","records":[]}'


def transcribed_tag(key, namespace, name, key_id, revision, payload):
    """The recipe of ST-5 (upstream `authenticated_record_tag`) written out again, field by field."""

    def lp(data: bytes) -> bytes:
        return struct.pack(">Q", len(data)) + data

    message = (
        b"splash-storage-record-v1"
        + b"\x01"
        + lp(namespace.encode())
        + lp(name.encode())
        + lp(key_id.encode())
        + struct.pack(">Q", revision)
        + lp(payload)
    )
    return blake3(message, key=key).digest()


def test_worker_journal_known_answer() -> None:
    # Upstream probe output, out_other.txt rows `envelope` and `manual storage tag`.
    tag = storage_record_tag(
        bytes([0x1D]) * 32, "worker-journal", "tenant-release", "storage-v1", 1, JOURNAL_PAYLOAD
    )
    assert tag.hex() == "ac29801f8d4eea9d2bfaec4a1e914084fe6e178dad5aeeb459a95ad79f198ef4"
    assert encode_payload(JOURNAL_PAYLOAD) == (
        "eyJmb3JtYXRfdmVyc2lvbiI6Miwic2NvcGUiOiJ0ZW5hbnQtcmVsZWFzZSIsInJlY29yZHMiOltdfQ"
    )


def test_workflow_ledger_known_answer() -> None:
    # Computed from the ST-5 recipe independently of the reference (upstream publishes none).
    tag = storage_record_tag(
        bytes([0x07]) * 32, "workflow-ledger", "release-42", "storage-v1", 1, b"first payload"
    )
    assert tag.hex() == "981f75935e226abc73d195bed73eb6e373b268fdc23871aeff1a986464a882d9"
    assert encode_payload(b"first payload") == "Zmlyc3QgcGF5bG9hZA"


def test_probe_output_agrees() -> None:
    text = UPSTREAM.read_text(encoding="utf-8")
    manual = re.search(r"^manual storage tag: ([0-9a-f]{64})$", text, re.M)
    assert manual is not None
    tag = storage_record_tag(
        bytes([0x1D]) * 32, "worker-journal", "tenant-release", "storage-v1", 1, JOURNAL_PAYLOAD
    )
    assert tag.hex() == manual.group(1)


CASES = [
    ("workflow-ledger", "release-42", "storage-v1", 1, b"first payload"),
    ("workflow-ledgerr", "elease-42", "storage-v1", 1, b"first payload"),
    ("n" * 64, "r" * 128, "k" * 64, 2**64 - 1, b""),
    ("a", "b", "c", 0, bytes(range(256))),
    ("worker-journal", "tenant-release", "storage-v2", 7, b"a" * 262_144),
]


@pytest.mark.parametrize(("namespace", "name", "key_id", "revision", "payload"), CASES)
def test_matches_transcription(namespace, name, key_id, revision, payload) -> None:
    key = bytes(range(1, 33))
    expected = transcribed_tag(key, namespace, name, key_id, revision, payload)
    assert storage_record_tag(key, namespace, name, key_id, revision, payload) == expected


def test_every_field_is_bound() -> None:
    key = bytes([0x07]) * 32
    base = ("workflow-ledger", "release-42", "storage-v1", 1, b"first payload")
    variants = [
        base,
        ("workflow-ledgers", *base[1:]),
        (base[0], "release-43", *base[2:]),
        (*base[:2], "storage-v2", *base[3:]),
        (*base[:3], 2, base[4]),
        (*base[:4], b"first payloae"),
        ("workflow-ledgerr", "elease-42", *base[2:]),  # same bytes when joined without lengths
    ]
    tags = {storage_record_tag(key, *variant) for variant in variants}
    tags.add(storage_record_tag(bytes([0x09]) * 32, *base))
    assert len(tags) == len(variants) + 1


@pytest.mark.parametrize(
    ("key", "namespace", "name", "key_id", "code"),
    [
        (b"\x07" * 32, "n" * 65, "name", "storage-v1", "invalid_record_namespace"),
        (b"\x07" * 32, "", "name", "storage-v1", "invalid_record_namespace"),
        (b"\x07" * 32, "Upper", "name", "storage-v1", "invalid_record_namespace"),
        (b"\x07" * 32, "ns", "r" * 129, "storage-v1", "invalid_record_name"),
        (b"\x07" * 32, "ns", "a/b", "storage-v1", "invalid_record_name"),
        (b"\x07" * 32, "ns", "name", "k" * 65, "invalid_key_id"),
        (b"\x07" * 32, "ns", "name", "", "invalid_key_id"),
        (b"\x07" * 32, "ns", "name", "storage v1", "invalid_key_id"),
        (b"\x07" * 32, "Bad", "Bad", "Bad", "invalid_record_namespace"),
        (b"\x07" * 31, "ns", "name", "storage-v1", "invalid_storage_key_length"),
        (b"\x07" * 33, "ns", "name", "storage-v1", "invalid_storage_key_length"),
    ],
)
def test_identifier_checks(key, namespace, name, key_id, code) -> None:
    """Every identifier check has its own code (an all-zero key is accepted: ST-4, F14)."""
    with pytest.raises(RescindError) as caught:
        storage_record_tag(key, namespace, name, key_id, 1, b"x")
    assert caught.value.code == code


@pytest.mark.parametrize("revision", [-1, 2**64, True])
def test_revision_must_be_u64(revision) -> None:
    with pytest.raises(RescindError) as caught:
        storage_record_tag(b"\x07" * 32, "ns", "name", "storage-v1", revision, b"x")
    assert caught.value.code == "invalid_revision"


def test_payload_field_is_unpadded_standard_base64() -> None:
    for size in range(0, 8):
        payload = bytes([0xFB, 0xFF]) * size
        field = encode_payload(payload)
        assert "=" not in field
        assert base64.b64decode(field + "=" * (-len(field) % 4)) == payload
