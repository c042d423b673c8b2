"""Storage constants, record identities, storage keys and the record tag recipe.

The tag binds every field a reader relies on: the format version, where the record lives
(namespace and name), which key sealed it, its revision and its payload. Each variable-length
field is length-prefixed, so no two different field tuples feed BLAKE3 the same bytes.
"""

from __future__ import annotations

import attrs
from blake3 import blake3

from rescind.reference.digests import STORAGE_RECORD_DOMAIN, lp
from rescind.reference.storage.errors import (
    InvalidKeyId,
    InvalidRecordName,
    InvalidRecordNamespace,
    InvalidRevision,
    InvalidStorageKeyLength,
)
from rescind.reference.tokens import is_token

STORAGE_KEY_BYTES = 32
MAX_KEY_ID_BYTES = 64
MAX_NAMESPACE_BYTES = 64
MAX_NAME_BYTES = 128
MAX_PAYLOAD_BYTES = 262_144
MAX_RECORD_BYTES = 393_216
RECORD_FORMAT_VERSION = 1
TAG_BYTES = 32
MAX_U64 = 2**64 - 1


def is_u64(value: object) -> bool:
    """An int (not a bool) that fits an unsigned 64-bit counter."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_U64


def require_key_id(value: str) -> str:
    """A storage key id is a token of at most 64 bytes."""
    if not isinstance(value, str) or not is_token(value, MAX_KEY_ID_BYTES):
        raise InvalidKeyId()
    return value


def require_namespace(value: str) -> str:
    if not isinstance(value, str) or not is_token(value, MAX_NAMESPACE_BYTES):
        raise InvalidRecordNamespace()
    return value


def require_name(value: str) -> str:
    if not isinstance(value, str) or not is_token(value, MAX_NAME_BYTES):
        raise InvalidRecordName()
    return value


def _check_namespace(_: object, __: object, value: str) -> None:
    require_namespace(value)


def _check_name(_: object, __: object, value: str) -> None:
    require_name(value)


@attrs.frozen
class RecordKey:
    """Where one durable record lives. Namespace is checked before name, as upstream does."""

    namespace: str = attrs.field(validator=_check_namespace)
    name: str = attrs.field(validator=_check_name)


def _check_key_bytes(_: object, __: object, value: bytes) -> None:
    if not isinstance(value, bytes) or len(value) != STORAGE_KEY_BYTES:
        actual = len(value) if isinstance(value, bytes | bytearray) else -1
        raise InvalidStorageKeyLength(actual=actual, expected=STORAGE_KEY_BYTES)
    # An all-zero key is accepted, as upstream's StorageKey::from_bytes accepts it (ST-4,
    # docs/findings.md F14): refusing it (`weak_storage_key`) is a hardening an implementation
    # may add, so the vectors that use one are `acceptable`.


@attrs.frozen
class StorageKey:
    """A 32-byte secret. Its bytes never appear in repr, so logs cannot leak it."""

    material: bytes = attrs.field(repr=False, validator=_check_key_bytes)


def record_tag(
    key: StorageKey,
    record_key: RecordKey,
    key_id: str,
    revision: int,
    payload: bytes,
    format_version: int = RECORD_FORMAT_VERSION,
) -> bytes:
    """The 32-byte keyed BLAKE3 tag over an already validated record identity."""
    require_key_id(key_id)
    if not is_u64(revision):
        raise InvalidRevision()
    message = b"".join(
        (
            STORAGE_RECORD_DOMAIN,
            bytes((format_version,)),
            lp(record_key.namespace.encode("ascii")),
            lp(record_key.name.encode("ascii")),
            lp(key_id.encode("ascii")),
            revision.to_bytes(8, "big"),
            lp(bytes(payload)),
        )
    )
    tag: bytes = blake3(message, key=key.material).digest()
    return tag


def storage_record_tag(
    key: bytes, namespace: str, name: str, key_id: str, revision: int, payload: bytes
) -> bytes:
    """The storage record tag from raw inputs, checking each identifier's grammar and bound.

    Checks run in the order namespace, name, key id, then revision; the key is checked first
    because a tag cannot exist without one.
    """
    storage_key = StorageKey(key)
    record_key = RecordKey(namespace, name)
    return record_tag(storage_key, record_key, key_id, revision, payload)
