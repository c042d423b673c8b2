"""SQLite-only behaviour: durability across reopen, WAL, error mapping, several connections
and several processes sharing one fence authority."""

from __future__ import annotations

import multiprocessing
import sqlite3
from pathlib import Path

import pytest

from rescind.reference.errors import RescindError
from rescind.reference.storage.authenticated import AuthenticatedStore
from rescind.reference.storage.store import KeyState, StoredRecord
from rescind.stores.sqlite import SqliteBackend

from . import _process_workers as workers
from .conftest import LEDGER

NS, NAME = LEDGER.namespace, LEDGER.name
MAX = 2**64 - 1


def refused(call) -> RescindError:
    with pytest.raises(RescindError) as caught:
        call()
    return caught.value


def test_state_survives_reopen(tmp_path: Path, keyring) -> None:
    path = tmp_path / "s.sqlite3"
    with SqliteBackend(path) as backend:
        store = AuthenticatedStore(backend, keyring)
        token = store.reserve_fence(LEDGER)
        store.compare_and_swap_fenced(LEDGER, None, b"durable", token)
        before = backend.raw_state(NS, NAME)
    with SqliteBackend(path) as backend:
        assert backend.raw_state(NS, NAME) == before
        assert AuthenticatedStore(backend, keyring).load(LEDGER).payload == b"durable"


def test_wal_mode_and_u64_extremes(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    with SqliteBackend(path) as backend:
        state = KeyState(StoredRecord(MAX, b"\x00\xff"), MAX, MAX)
        backend.inject_state(NS, NAME, state)
        assert backend.raw_state(NS, NAME) == state
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert raw.execute("SELECT fence FROM rescind_storage_record").fetchone()[0] == str(MAX)
    raw.close()


def test_two_connections_share_one_fence(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    with SqliteBackend(path) as first, SqliteBackend(path) as second:
        tokens = [(first if i % 2 else second).reserve_fence(NS, NAME) for i in range(6)]
        assert tokens == [1, 2, 3, 4, 5, 6]
        second.establish_fence(NS, NAME, 9)
        assert refused(lambda: first.establish_fence(NS, NAME, 8)).code == "fencing_token_rejected"
        assert first.current_fence(NS, NAME) == 9


def test_busy_database_is_a_definite_failure(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    with SqliteBackend(path, busy_timeout_ms=0) as backend:
        holder = sqlite3.connect(path, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        error = refused(lambda: backend.reserve_fence(NS, NAME))
        assert (error.code, error.definite) == ("store_unavailable", True)
        holder.execute("ROLLBACK")
        holder.close()
        assert backend.current_fence(NS, NAME) == 0
        assert backend.reserve_fence(NS, NAME) == 1


class _FailingCommit:
    """Wraps a connection so that COMMIT fails the way a full disk would."""

    def __init__(self, inner: sqlite3.Connection) -> None:
        self.inner = inner

    def execute(self, sql: str, *args):
        if sql == "COMMIT":
            raise sqlite3.OperationalError("disk I/O error")
        return self.inner.execute(sql, *args)

    @property
    def in_transaction(self) -> bool:
        return self.inner.in_transaction

    def close(self) -> None:
        self.inner.close()


def test_commit_failure_is_indefinite(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    backend = SqliteBackend(path)
    backend._connection = _FailingCommit(backend._connection)  # type: ignore[assignment]
    error = refused(lambda: backend.reserve_fence(NS, NAME))
    assert (error.code, error.definite) == ("store_outcome_unknown", False)
    backend.close()
    with SqliteBackend(path) as reopened:
        assert reopened.current_fence(NS, NAME) == 0  # here it was in fact rolled back


@pytest.mark.parametrize(
    ("column", "value"),
    [("fence", "abc"), ("fence", "01"), ("revision_floor", str(2**64)), ("revision", "-1")],
)
def test_corrupt_bookkeeping(tmp_path: Path, column: str, value: str) -> None:
    path = tmp_path / "s.sqlite3"
    with SqliteBackend(path) as backend:
        backend.inject_state(NS, NAME, KeyState(StoredRecord(1, b"e"), 1, 1))
        raw = sqlite3.connect(path)
        raw.execute(f"UPDATE rescind_storage_record SET {column} = ?", (value,))
        raw.commit()
        raw.close()
        assert refused(lambda: backend.load(NS, NAME)).code == "store_corrupt"
        assert refused(lambda: backend.reserve_fence(NS, NAME)).code == "store_corrupt"


def test_unknown_schema_version(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    raw = sqlite3.connect(path)
    raw.execute("PRAGMA user_version = 7")
    raw.close()
    assert refused(lambda: SqliteBackend(path)).code == "store_corrupt"


@pytest.mark.parametrize("path", [":memory:", "", "file:x?mode=memory"])
def test_needs_a_real_file(path: str) -> None:
    with pytest.raises(ValueError):
        SqliteBackend(path)


# --- separate OS processes -----------------------------------------------------------------

SPAWN = multiprocessing.get_context("spawn")


def _run(processes, results, count):
    for process in processes:
        process.start()
    collected = [results.get(timeout=workers.WAIT_SECONDS) for _ in range(count)]
    for process in processes:
        process.join(workers.WAIT_SECONDS)
        assert process.exitcode == 0
    return collected


def test_superseded_process_cannot_write(tmp_path: Path, keyring) -> None:
    path = str(tmp_path / "shared.sqlite3")
    SqliteBackend(path).close()
    a_wrote, b_reserved, a_done = SPAWN.Event(), SPAWN.Event(), SPAWN.Event()
    results = SPAWN.Queue()
    args = (path, a_wrote, b_reserved, a_done, results)
    processes = [
        SPAWN.Process(target=workers.first_writer, args=args),
        SPAWN.Process(target=workers.second_writer, args=args),
    ]
    by_writer = {result[0]: result for result in _run(processes, results, 2)}
    assert by_writer["a"] == (
        "a",
        1,
        ("wrote", 1),
        ("refused", "fencing_token_rejected", {"current": 2, "supplied": 1}),
    )
    assert by_writer["b"] == ("b", 2, ("wrote", 2))
    with SqliteBackend(path) as backend:
        final = AuthenticatedStore(backend, keyring).load(LEDGER)
        assert (final.revision, final.payload) == (2, b"b-1")


def test_racing_processes_keep_one_fence_order(tmp_path: Path, keyring) -> None:
    path = str(tmp_path / "race.sqlite3")
    SqliteBackend(path).close()
    writers, rounds = ("p", "q", "r"), 6
    barrier, results = SPAWN.Barrier(len(writers)), SPAWN.Queue()
    processes = [
        SPAWN.Process(target=workers.racer, args=(path, writer, rounds, barrier, results))
        for writer in writers
    ]
    logs = dict(_run(processes, results, len(writers)))

    reserved = sorted(entry[1] for log in logs.values() for entry in log if entry[0] == "reserved")
    assert reserved == list(range(1, len(writers) * rounds + 1))  # distinct, gap-free
    writes = sorted(
        (entry[2], entry[1], entry[3]) for log in logs.values() for entry in log
        if entry[0] == "wrote"
    )  # fmt: skip
    revisions = [revision for revision, _token, _payload in writes]
    assert revisions == list(range(1, len(writes) + 1))  # one writer per revision
    tokens = [token for _revision, token, _payload in writes]
    assert tokens == sorted(tokens)  # a superseded token never writes after a newer one
    refusals = {entry[2] for log in logs.values() for entry in log if entry[0] == "refused"}
    assert refusals <= {"fencing_token_rejected", "write_conflict"}
    with SqliteBackend(path) as backend:
        final = AuthenticatedStore(backend, keyring).load(LEDGER)
        assert backend.current_fence(NS, NAME) == reserved[-1]
    if writes:
        assert (final.revision, final.payload.decode()) == (writes[-1][0], writes[-1][2])
