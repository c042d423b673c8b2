"""The sealed record envelope: sealing, and opening in the exact upstream check order.

On the wire an envelope is compact JSON with the fields ``format_version``, ``key_id``,
``revision``, ``payload`` (standard base64 without padding) and ``auth_tag`` (64 lowercase hex),
in that order when written; a reader accepts them in any order but refuses unknown, missing or
repeated fields.
"""

from __future__ import annotations

import base64
import binascii
import hmac
import json
import re
from typing import Any

import attrs

from rescind.reference.storage.errors import (
    InvalidEnvelope,
    InvalidRevision,
    PayloadTooLarge,
    RecordTooLarge,
    RevisionFloorMismatch,
    RevisionMismatch,
    RollbackDetected,
    StorageInvalidAuthenticationTag,
    UnknownKeyId,
    UnsupportedFormat,
)
from rescind.reference.storage.keyring import Keyring
from rescind.reference.storage.store import Snapshot
from rescind.reference.storage.tag import (
    MAX_PAYLOAD_BYTES,
    MAX_RECORD_BYTES,
    RECORD_FORMAT_VERSION,
    RecordKey,
    StorageKey,
    is_u64,
    record_tag,
    require_key_id,
)
from rescind.reference.tokens import is_hex64

ENVELOPE_FIELDS = ("format_version", "key_id", "revision", "payload", "auth_tag")
_BASE64_TEXT = re.compile(r"[A-Za-z0-9+/]*\Z")


@attrs.frozen
class AuthenticatedRecord:
    """A record whose tag verified: its revision, the key id that sealed it and the payload."""

    revision: int
    key_id: str
    payload: bytes = attrs.field(repr=False)


@attrs.frozen
class Envelope:
    format_version: int
    key_id: str
    revision: int
    payload: bytes = attrs.field(repr=False)
    auth_tag: bytes

    def encode(self) -> bytes:
        """Compact JSON, fields in declaration order (the order upstream serializes)."""
        text = (
            f'{{"format_version":{self.format_version},"key_id":{json.dumps(self.key_id)},'
            f'"revision":{self.revision},"payload":"{encode_payload(self.payload)}",'
            f'"auth_tag":"{self.auth_tag.hex()}"}}'
        )
        return text.encode("ascii")


def encode_payload(payload: bytes) -> str:
    """Standard-alphabet base64 with the ``=`` padding removed."""
    return base64.b64encode(payload).decode("ascii").rstrip("=")


def decode_payload(text: str) -> bytes:
    """Strict unpadded standard base64, as the upstream decoder is configured.

    Refuses padding, any other alphabet (URL-safe included), whitespace, an impossible length
    and a last symbol whose unused low bits are not zero: each of those would let two texts
    carry the same bytes.
    """
    if not _BASE64_TEXT.match(text) or len(text) % 4 == 1:
        raise InvalidEnvelope(reason="base64")
    try:
        decoded = base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
    except binascii.Error as exc:
        raise InvalidEnvelope(reason="base64") from exc
    if encode_payload(decoded) != text:
        raise InvalidEnvelope(reason="base64")
    return decoded


def seal(
    key: StorageKey, key_id: str, record_key: RecordKey, revision: int, payload: bytes
) -> Envelope:
    """Seal ``payload`` for ``record_key`` at ``revision`` under one key."""
    require_key_id(key_id)
    if not is_u64(revision) or revision == 0:
        raise InvalidRevision()
    payload = bytes(payload)
    if len(payload) > MAX_PAYLOAD_BYTES:
        raise PayloadTooLarge(actual=len(payload), maximum=MAX_PAYLOAD_BYTES)
    tag = record_tag(key, record_key, key_id, revision, payload)
    envelope = Envelope(
        format_version=RECORD_FORMAT_VERSION,
        key_id=key_id,
        revision=revision,
        payload=payload,
        auth_tag=tag,
    )
    size = len(envelope.encode())
    if size > MAX_RECORD_BYTES:
        raise RecordTooLarge(actual=size, maximum=MAX_RECORD_BYTES)
    return envelope


def seal_active(keyring: Keyring, record_key: RecordKey, revision: int, payload: bytes) -> Envelope:
    """Seal under the keyring's active (write) key."""
    return seal(keyring.active_key, keyring.active_key_id, record_key, revision, payload)


def check_revision_pair(revision: int | None, floor: int) -> None:
    """A record must sit exactly at its floor; no record is allowed only at floor 0."""
    if revision is None:
        if floor != 0:
            raise RollbackDetected(record_revision=None, revision_floor=floor)
        return
    if revision == 0:
        raise InvalidRevision()
    if revision < floor:
        raise RollbackDetected(record_revision=revision, revision_floor=floor)
    if revision > floor:
        raise RevisionFloorMismatch(record_revision=revision, revision_floor=floor)


# --- parsing (step 3 of opening) --------------------------------------------------------------


class _NotU64:
    """Stands for a JSON number that cannot be an unsigned integer (float form or negative)."""


_NOT_U64 = _NotU64()


def _reject_constant(_: str) -> Any:
    raise ValueError("NaN and Infinity are not JSON")


def _integer(text: str) -> object:
    # "-0" is a float to serde_json and any other negative cannot fill a u64 either.
    return _NOT_U64 if text.startswith("-") else int(text)


def _float(_: str) -> object:
    return _NOT_U64


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for name, value in pairs:
        if name in result:
            raise ValueError("duplicate field")
        result[name] = value
    return result


def _text_field(fields: dict[str, Any], name: str) -> str:
    value = fields[name]
    if not isinstance(value, str):
        raise InvalidEnvelope(reason="field_type", field=name)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:  # a lone surrogate escape: serde_json refuses it
        raise InvalidEnvelope(reason="lone_surrogate", field=name) from exc
    return value


def _integer_field(fields: dict[str, Any], name: str, maximum: int) -> int:
    value = fields[name]
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= maximum:
        raise InvalidEnvelope(reason="field_type", field=name)
    return value


@attrs.frozen
class _Fields:
    format_version: int
    key_id: str
    revision: int
    payload: str
    auth_tag: str


def parse_envelope(data: bytes) -> _Fields:
    """JSON parse with unknown, missing and repeated fields refused (all ``invalid_envelope``)."""
    try:
        text = data.decode("utf-8")
        document = json.loads(
            text,
            object_pairs_hook=_unique_pairs,
            parse_int=_integer,
            parse_float=_float,
            parse_constant=_reject_constant,
        )
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise InvalidEnvelope(reason="json") from exc
    if not isinstance(document, dict) or set(document) != set(ENVELOPE_FIELDS):
        raise InvalidEnvelope(reason="fields")
    return _Fields(
        format_version=_integer_field(document, "format_version", 255),
        key_id=_text_field(document, "key_id"),
        revision=_integer_field(document, "revision", 2**64 - 1),
        payload=_text_field(document, "payload"),
        auth_tag=_text_field(document, "auth_tag"),
    )


# --- opening ----------------------------------------------------------------------------------


def open_snapshot(
    keyring: Keyring, record_key: RecordKey, snapshot: Snapshot
) -> AuthenticatedRecord | None:
    """Open what the backend returned; the first failing check decides the error.

    1 revision/floor pair, 2 record size, 3 JSON shape, 4 format, 5 envelope revision non-zero,
    6 envelope revision equals the backend's, 7 key id grammar, 8 base64, 9 payload size,
    10 canonical base64, 11 tag text, 12 key id known, 13 tag equal (constant time).
    """
    check_revision_pair(snapshot.revision, snapshot.floor)
    record = snapshot.record
    if record is None:
        return None
    if len(record.data) > MAX_RECORD_BYTES:
        raise RecordTooLarge(actual=len(record.data), maximum=MAX_RECORD_BYTES)
    fields = parse_envelope(record.data)
    if fields.format_version != RECORD_FORMAT_VERSION:
        raise UnsupportedFormat(actual=fields.format_version)
    if fields.revision == 0:
        raise InvalidRevision()
    if fields.revision != record.revision:
        raise RevisionMismatch(backend=record.revision, envelope=fields.revision)
    key_id = require_key_id(fields.key_id)
    payload = decode_payload(fields.payload)
    if len(payload) > MAX_PAYLOAD_BYTES:
        raise PayloadTooLarge(actual=len(payload), maximum=MAX_PAYLOAD_BYTES)
    # Step 10 repeats the canonical-form test after the size check, as upstream does; the
    # strict decoder above already refuses every non-canonical text, so this never fires
    # unless the decoder is loosened.
    if encode_payload(payload) != fields.payload:
        raise InvalidEnvelope(reason="base64")
    if not is_hex64(fields.auth_tag):
        raise StorageInvalidAuthenticationTag()
    claimed = bytes.fromhex(fields.auth_tag)
    key = keyring.verification_key(key_id)
    if key is None:
        raise UnknownKeyId(key_id=key_id)
    expected = record_tag(key, record_key, key_id, fields.revision, payload)
    if not hmac.compare_digest(expected, claimed):
        raise StorageInvalidAuthenticationTag()
    return AuthenticatedRecord(revision=fields.revision, key_id=key_id, payload=payload)
