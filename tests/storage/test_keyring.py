"""Keyring rules (ST-17) and storage key hygiene."""

from __future__ import annotations

import pytest

from rescind.reference.errors import RescindError
from rescind.reference.storage.keyring import Keyring
from rescind.reference.storage.tag import StorageKey

from .conftest import KEY_07, KEY_09


def code(call) -> str:
    with pytest.raises(RescindError) as caught:
        call()
    return caught.value.code


def test_single_key_is_active() -> None:
    ring = Keyring.single("storage-v1", KEY_07)
    assert ring.active_key_id == "storage-v1"
    assert ring.active_key == KEY_07
    assert ring.verification_key("storage-v2") is None


def test_rotate_keeps_the_old_key_readable() -> None:
    ring = Keyring.single("storage-v1", KEY_07).rotate_to("storage-v2", KEY_09)
    assert ring.active_key_id == "storage-v2"
    assert ring.key_ids == ("storage-v1", "storage-v2")
    assert ring.verification_key("storage-v1") == KEY_07
    retired = ring.retire("storage-v1")
    assert retired.key_ids == ("storage-v2",)


def test_keyring_errors() -> None:
    ring = Keyring.single("storage-v1", KEY_07)
    assert code(lambda: ring.rotate_to("storage-v1", KEY_09)) == "duplicate_key_id"
    assert code(lambda: ring.add_read_key("storage-v1", KEY_09)) == "duplicate_key_id"
    assert code(lambda: ring.retire("storage-v1")) == "active_key_cannot_be_retired"
    assert code(lambda: ring.retire("storage-v9")) == "unknown_key_id"
    assert code(lambda: ring.rotate_to("Storage-v2", KEY_09)) == "invalid_key_id"
    assert code(lambda: ring.retire("k" * 65)) == "invalid_key_id"


def test_refused_changes_leave_the_keyring_alone() -> None:
    ring = Keyring.single("storage-v1", KEY_07)
    with pytest.raises(RescindError):
        ring.rotate_to("storage-v1", KEY_09)
    assert ring == Keyring.single("storage-v1", KEY_07)


def test_constructor_checks() -> None:
    assert code(lambda: Keyring("storage-v2", (("storage-v1", KEY_07),))) == "unknown_key_id"
    entries = (("storage-v1", KEY_07), ("storage-v1", KEY_09))
    assert code(lambda: Keyring("storage-v1", entries)) == "duplicate_key_id"


def test_key_material_is_checked_and_hidden() -> None:
    # An all-zero key is accepted, as upstream's StorageKey::from_bytes accepts it (ST-4, F14).
    assert StorageKey(bytes(32)).material == bytes(32)
    assert code(lambda: StorageKey(b"\x07" * 16)) == "invalid_storage_key_length"
    assert "07" not in repr(KEY_07) and "\\x07" not in repr(KEY_07)
    ring = Keyring.single("storage-v1", KEY_07)
    assert "\\x07" not in repr(ring)
