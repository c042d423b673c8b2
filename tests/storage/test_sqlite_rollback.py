"""Rolling the SQLite store back under its own feet (issue 22): acknowledged writes live in
the ``-wal`` file until a checkpoint, so deleting or truncating it rolls the file back. The
store detects every rollback that loses an acknowledged write through its anchor
(``<path>.anchor``) and refuses with ``rollback_detected`` instead of reusing revision
numbers; what it cannot detect is held here too (see ``rescind.stores.sqlite``).

Real SQLite files, written by a real process that dies without a checkpoint."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from rescind.reference.errors import RescindError
from rescind.reference.storage.store import StoredRecord
from rescind.stores.sqlite import SqliteBackend

NS, NAME = "ledger", "run-1"
WRITES = 40

_WRITER = """
import os, sys
from rescind.reference.storage.store import StoredRecord
from rescind.stores.sqlite import SqliteBackend
backend = SqliteBackend(sys.argv[1])
for revision in range(1, int(sys.argv[2]) + 1):
    expected = revision - 1 or None
    backend.compare_and_swap("ledger", "run-1", expected, StoredRecord(revision, b"r%d" % revision))
print("acknowledged", flush=True)
os._exit(0)  # dies like a killed worker: no close, no checkpoint; the writes stay in the WAL
"""


def _write(path: Path, writes: int = WRITES) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _WRITER, str(path), str(writes)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert done.stdout.strip() == "acknowledged"


def _wal(path: Path) -> Path:
    return Path(f"{path}-wal")


def _refused(call: Callable[[], object]) -> RescindError:
    with pytest.raises(RescindError) as caught:
        call()
    return caught.value


@pytest.fixture
def written(tmp_path: Path) -> Path:
    path = tmp_path / "store.sqlite3"
    with SqliteBackend(path):
        pass  # created and checkpointed: the 40 writes below exist only in the WAL
    _write(path)
    assert _wal(path).stat().st_size > 0
    return path


def _assert_rollback_refused(path: Path) -> None:
    with SqliteBackend(path) as backend:
        assert _refused(lambda: backend.load(NS, NAME)).code == "rollback_detected"
        assert _refused(lambda: backend.current_fence(NS, NAME)).code == "rollback_detected"
        # The next write must not reuse a revision number: it is refused, nothing is written.
        record = StoredRecord(1, b"reused")
        refused = _refused(lambda: backend.compare_and_swap(NS, NAME, None, record))
        assert refused.code == "rollback_detected"
        assert _refused(lambda: backend.reserve_fence(NS, NAME)).code == "rollback_detected"


def test_acknowledged_writes_survive_a_dead_writer(written: Path) -> None:
    with SqliteBackend(written) as backend:
        snapshot = backend.load(NS, NAME)
        assert snapshot.record is not None and snapshot.record.revision == WRITES


def test_deleted_wal_is_rollback_detected(written: Path) -> None:
    _wal(written).unlink()
    Path(f"{written}-shm").unlink(missing_ok=True)
    _assert_rollback_refused(written)


def test_truncated_wal_is_rollback_detected(written: Path) -> None:
    wal = _wal(written)
    with wal.open("r+b") as handle:
        handle.truncate(wal.stat().st_size // 2)
    Path(f"{written}-shm").unlink(missing_ok=True)
    _assert_rollback_refused(written)


def test_older_copy_of_the_file_is_rollback_detected(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    _write(path, 3)
    with SqliteBackend(path):
        pass  # checkpointed into the main file
    old = tmp_path / "old.sqlite3"
    shutil.copy(path, old)
    with SqliteBackend(path) as backend:
        backend.compare_and_swap(NS, NAME, 3, StoredRecord(4, b"r4"))
    shutil.copy(old, path)
    _assert_rollback_refused(path)


def test_limit_file_and_anchor_restored_together_go_unnoticed(tmp_path: Path) -> None:
    """Documented limit: the anchor is a file next to the store, not a trusted service; a
    copy of both rolls both back and the store answers from the old state."""
    path = tmp_path / "store.sqlite3"
    _write(path, 3)
    with SqliteBackend(path):
        pass
    anchor = Path(f"{path}.anchor")
    saved = {p: p.read_bytes() for p in (path, anchor)}
    with SqliteBackend(path) as backend:
        backend.compare_and_swap(NS, NAME, 3, StoredRecord(4, b"r4"))
    for file, data in saved.items():
        file.write_bytes(data)
    with SqliteBackend(path) as backend:
        snapshot = backend.load(NS, NAME)
        assert snapshot.record is not None and snapshot.record.revision == 3


def test_deleted_anchor_is_store_corrupt(written: Path) -> None:
    Path(f"{written}.anchor").unlink()
    with pytest.raises(RescindError) as caught, SqliteBackend(written) as backend:
        backend.load(NS, NAME)
    assert caught.value.code == "store_corrupt"
    assert caught.value.details == {"column": "rollback_anchor"}


def test_anchor_never_lowered_by_a_slower_writer(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    with SqliteBackend(path) as first, SqliteBackend(path) as second:
        first.reserve_fence(NS, NAME)
        second.reserve_fence(NS, NAME)
        first.reserve_fence(NS, NAME)
    assert Path(f"{path}.anchor").read_text() == "3\n"
