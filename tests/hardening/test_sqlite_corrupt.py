"""A damaged SQLite file is a typed storage error, whatever bytes the damage left behind."""

from __future__ import annotations

from pathlib import Path

import pytest

from rescind.reference.storage.errors import StoreUnavailable
from rescind.stores.sqlite import SqliteBackend


def _damaged_schema(path: Path) -> None:
    """A valid file whose stored CREATE TABLE text has one byte replaced by 0xB8 (not UTF-8
    on its own): SQLite reports a malformed schema and quotes that byte in its message."""
    with SqliteBackend(path):
        pass
    for leftover in (Path(f"{path}-wal"), Path(f"{path}-shm")):
        leftover.unlink(missing_ok=True)
    data = bytearray(path.read_bytes())
    keyword = data.index(b"CHECK ((revision")
    data[keyword + 4] = 0xB8  # CHEC\xb8
    path.write_bytes(bytes(data))


def test_a_schema_with_non_utf8_bytes_is_store_unavailable(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    _damaged_schema(path)
    with pytest.raises(StoreUnavailable) as caught:
        SqliteBackend(path)
    assert caught.value.code == "store_unavailable"
    assert caught.value.details == {"operation": "open", "reason": "undecodable_sqlite_error"}
