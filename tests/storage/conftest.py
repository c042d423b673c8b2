"""Fixtures shared by the storage tests: both backends, a keyring and record keys."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from rescind.reference.storage.authenticated import AuthenticatedStore
from rescind.reference.storage.keyring import Keyring
from rescind.reference.storage.memory import MemoryBackend
from rescind.reference.storage.tag import RecordKey, StorageKey
from rescind.stores.sqlite import SqliteBackend

KEY_07 = StorageKey(bytes([0x07]) * 32)
KEY_09 = StorageKey(bytes([0x09]) * 32)
LEDGER = RecordKey("workflow-ledger", "release-42")
OTHER = RecordKey("workflow-ledger", "release-43")


@pytest.fixture(params=["memory", "sqlite"])
def backend(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[MemoryBackend | SqliteBackend]:
    if request.param == "memory":
        yield MemoryBackend()
        return
    sqlite = SqliteBackend(tmp_path / "storage.sqlite3")
    yield sqlite
    sqlite.close()


@pytest.fixture
def keyring() -> Keyring:
    return Keyring.single("storage-v1", KEY_07)


@pytest.fixture
def store(backend: MemoryBackend | SqliteBackend, keyring: Keyring) -> AuthenticatedStore:
    return AuthenticatedStore(backend, keyring)
