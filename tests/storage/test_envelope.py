"""Sealing and opening envelopes: the exact layout and every step of the open order."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rescind.reference.errors import RescindError
from rescind.reference.storage.envelope import decode_payload, open_snapshot, seal
from rescind.reference.storage.keyring import Keyring
from rescind.reference.storage.store import Snapshot, StoredRecord
from rescind.reference.storage.tag import RecordKey, StorageKey

from .conftest import KEY_07, KEY_09, LEDGER

UPSTREAM = Path(__file__).resolve().parents[1] / "upstream" / "out_other.txt"
TAG = "981f75935e226abc73d195bed73eb6e373b268fdc23871aeff1a986464a882d9"
GOOD = (
    '{"format_version":1,"key_id":"storage-v1","revision":1,'
    f'"payload":"Zmlyc3QgcGF5bG9hZA","auth_tag":"{TAG}"}}'
)
RING = Keyring.single("storage-v1", KEY_07)


def opened(text: str | bytes, revision: int | None = 1, floor: int = 1, ring: Keyring = RING):
    data = text.encode() if isinstance(text, str) else text
    record = None if revision is None else StoredRecord(revision=revision, data=data)
    return open_snapshot(ring, LEDGER, Snapshot(record, floor))


def code_of(text: str | bytes, **kwargs) -> str:
    with pytest.raises(RescindError) as caught:
        opened(text, **kwargs)
    return caught.value.code


def test_seal_writes_the_upstream_layout() -> None:
    envelope = seal(KEY_07, "storage-v1", LEDGER, 1, b"first payload")
    assert envelope.encode().decode() == GOOD


def test_seal_reproduces_the_probe_envelope() -> None:
    line = re.search(r"^envelope: (\{.*\})$", UPSTREAM.read_text(encoding="utf-8"), re.M)
    assert line is not None
    key = StorageKey(bytes([0x1D]) * 32)
    record_key = RecordKey("worker-journal", "tenant-release")
    payload = b'{"format_version":2,"scope":"tenant-release","records":[]}'
    assert seal(key, "storage-v1", record_key, 1, payload).encode().decode() == line.group(1)


def test_open_returns_the_record() -> None:
    record = opened(GOOD)
    assert (record.revision, record.key_id, record.payload) == (1, "storage-v1", b"first payload")
    assert "first payload" not in repr(record)


def test_open_accepts_any_field_order_and_whitespace() -> None:
    reordered = (
        f'{{ "auth_tag" : "{TAG}",\n "format_version":1, "key_id":"storage-v1",'
        '"payload":"Zmlyc3QgcGF5bG9hZA", "revision":1 }\n'
    )
    assert opened(reordered).payload == b"first payload"


@pytest.mark.parametrize(
    ("revision", "floor", "code"),
    [(None, 2, "rollback_detected"), (0, 0, "invalid_revision"), (1, 2, "rollback_detected"),
     (1, 0, "revision_floor_mismatch")],
)  # fmt: skip
def test_step1_revision_pair(revision, floor, code) -> None:
    assert code_of(GOOD, revision=revision, floor=floor) == code


def test_absent_record_at_floor_zero_is_none() -> None:
    assert opened(GOOD, revision=None, floor=0) is None


def test_step2_size_before_parse() -> None:
    assert code_of(" " * 393_217) == "record_too_large"
    assert opened(GOOD + " " * (393_216 - len(GOOD))).revision == 1
    assert code_of(GOOD + " " * (393_217 - len(GOOD))) == "record_too_large"


def _with(field: str, raw: str) -> str:
    return re.sub(rf'"{field}":("[^"]*"|[^,}}]*)', lambda _: f'"{field}":{raw}', GOOD, count=1)


@pytest.mark.parametrize(
    "text",
    [
        "not json",
        "[]",
        GOOD[:-1] + ',"extra":0}',
        GOOD.replace(f',"auth_tag":"{TAG}"', ""),
        GOOD.replace('"revision":1,', '"revision":1,"revision":1,'),
        GOOD + "{}",
        _with("format_version", "256"),
        _with("format_version", '"1"'),
        _with("format_version", "1.0"),
        _with("key_id", "null"),
        _with("revision", "1.0"),
        _with("revision", "1e0"),
        _with("revision", "-0"),
        _with("revision", "-1"),
        _with("revision", str(2**64)),
        _with("revision", "true"),
        _with("revision", "NaN"),
        _with("payload", '"\\ud800"'),
        _with("payload", "[]"),
    ],
)
def test_step3_parse_refusals(text: str) -> None:
    assert code_of(text) == "invalid_envelope"


def test_step3_bytes_that_are_not_utf8() -> None:
    assert code_of(GOOD.encode().replace(b"Zmly", b"\xffmly")) == "invalid_envelope"
    assert code_of(b"\xef\xbb\xbf" + GOOD.encode()) == "invalid_envelope"


def test_step3_lone_surrogate_beats_the_format_check() -> None:
    text = _with("payload", '"\\udc00"').replace('"format_version":1', '"format_version":2')
    assert code_of(text) == "invalid_envelope"


def test_escaped_key_id_is_read_as_its_value() -> None:
    assert opened(_with("key_id", '"storage\\u002dv1"')).key_id == "storage-v1"


def test_steps_4_to_7() -> None:
    assert code_of(_with("format_version", "2")) == "unsupported_format"
    assert code_of(_with("format_version", "0")) == "unsupported_format"
    both = _with("format_version", "2").replace('"revision":1', '"revision":0')
    assert code_of(both) == "unsupported_format"
    assert code_of(_with("revision", "0")) == "invalid_revision"
    assert code_of(_with("revision", "2")) == "revision_mismatch"
    assert code_of(_with("revision", "2").replace("storage-v1", "Storage")) == "revision_mismatch"
    assert code_of(_with("key_id", '"Storage-v1"')) == "invalid_key_id"
    assert code_of(_with("key_id", '"' + "k" * 65 + '"')) == "invalid_key_id"


@pytest.mark.parametrize(
    "payload",
    ['"Zmlyc3QgcGF5bG9hZA=="', '"Zmlyc3QgcGF5bG9hZB"', '"Zmly c3QgcGF5bG9hZA"', '"Zmlyc"',
     '"Zmlyc3QgcGF5bG9hZA\\n"', '"-_8"'],
)  # fmt: skip
def test_steps_8_and_10_base64(payload: str) -> None:
    assert code_of(_with("payload", payload)) == "invalid_envelope"


def test_step7_before_step8() -> None:
    text = _with("payload", '"Zmlyc3QgcGF5bG9hZA=="').replace('"storage-v1"', '"Storage"')
    assert code_of(text) == "invalid_key_id"


def test_decode_payload_is_strict() -> None:
    assert decode_payload("+/8") == bytes.fromhex("fbff")
    for text in ("-_8", "+/8=", "+/9", "A", "AB==", "A B"):
        with pytest.raises(RescindError):
            decode_payload(text)


def test_step9_payload_size() -> None:
    def envelope_with(payload_text: str) -> str:
        return GOOD.replace("Zmlyc3QgcGF5bG9hZA", payload_text)

    assert code_of(envelope_with("YWFh" * 87_381 + "YWE")) == "payload_too_large"
    # A non-canonical last symbol is refused while decoding, before the size check.
    assert code_of(envelope_with("YWFh" * 87_381 + "YWF")) == "invalid_envelope"
    at_bound = seal(KEY_07, "storage-v1", LEDGER, 1, b"a" * 262_144).encode()
    assert len(opened(at_bound).payload) == 262_144


def test_steps_11_to_13() -> None:
    assert code_of(GOOD.replace(TAG, TAG.upper())) == "storage_invalid_authentication_tag"
    assert code_of(GOOD.replace(TAG, TAG[:-1])) == "storage_invalid_authentication_tag"
    assert code_of(GOOD.replace(TAG, TAG + "0")) == "storage_invalid_authentication_tag"
    unknown = GOOD.replace("storage-v1", "storage-v9")
    assert code_of(unknown) == "unknown_key_id"
    assert code_of(unknown.replace(TAG, TAG.upper())) == "storage_invalid_authentication_tag"
    flipped = TAG[:-1] + ("0" if TAG[-1] != "0" else "1")
    assert code_of(GOOD.replace(TAG, flipped)) == "storage_invalid_authentication_tag"
    tampered = GOOD.replace("Zmlyc3QgcGF5bG9hZA", "dGFtcGVyZWQ")
    assert code_of(tampered) == "storage_invalid_authentication_tag"


def test_tag_binds_location_key_and_revision() -> None:
    other = seal(KEY_07, "storage-v1", RecordKey("workflow-ledger", "release-43"), 1, b"p")
    assert code_of(other.encode()) == "storage_invalid_authentication_tag"
    wrong_key = Keyring.single("storage-v1", KEY_09)
    assert code_of(GOOD, ring=wrong_key) == "storage_invalid_authentication_tag"
    both = RING.add_read_key("storage-v2", KEY_09)
    relabelled = GOOD.replace("storage-v1", "storage-v2")
    assert code_of(relabelled, ring=both) == "storage_invalid_authentication_tag"
    moved = GOOD.replace('"revision":1', '"revision":2')
    assert code_of(moved, revision=2, floor=2) == "storage_invalid_authentication_tag"


def test_read_only_key_opens_old_records() -> None:
    rotated = RING.rotate_to("storage-v2", KEY_09)
    assert opened(GOOD, ring=rotated).key_id == "storage-v1"
    assert code_of(GOOD, ring=rotated.retire("storage-v1")) == "unknown_key_id"


def test_seal_bounds() -> None:
    with pytest.raises(RescindError) as caught:
        seal(KEY_07, "storage-v1", LEDGER, 1, b"a" * 262_145)
    assert caught.value.code == "payload_too_large"
    with pytest.raises(RescindError) as caught:
        seal(KEY_07, "storage-v1", LEDGER, 0, b"a")
    assert caught.value.code == "invalid_revision"
