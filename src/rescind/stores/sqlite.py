"""A SQLite backend: the pure rules of ``store`` applied inside ``BEGIN IMMEDIATE`` transactions.

It lives outside the sans-IO reference, which it wraps. Every state change reads the key's
row, applies a pure rule and writes the result inside one ``BEGIN IMMEDIATE`` transaction, so
any number of connections and processes on the same file see a single, monotonic fence and
floor per key: SQLite lets only one such transaction run at a time and the others wait up to
the busy timeout.

Rollback of the file (what it detects, and what it cannot): every committed write also
advances a generation counter in the file (table ``rescind_storage_generation``), and after
COMMIT, before the write is acknowledged, the backend raises a *rollback anchor* kept outside
SQLite's files, ``<path>.anchor`` (the highest committed generation, fsynced, updated under an
exclusive ``flock`` and never lowered). Every read and every write transaction compares the
two: a file whose generation is below the anchor lost acknowledged writes, and the operation
fails with ``rollback_detected`` instead of answering from the old state (and before reusing
a revision number or a fencing token). So the store detects, with its anchor intact:

- the ``-wal`` file deleted after acknowledged writes that were not checkpointed yet;
- the ``-wal`` file truncated (SQLite keeps the frames before the cut, drops the commits after
  it);
- an older copy of the database file (with or without its ``-wal``) put back.

It cannot detect (documented limits, each held by a test in tests/storage/test_sqlite.py):

- the database file and its anchor restored or deleted together (a copy of the whole
  directory): the anchor is a file on the same disk, not a trusted monotonic service; upstream
  closes this gap with a host-owned ``RollbackAnchor`` that commits each revision and content
  hash (``splash-storage/src/sqlite.rs``, ``AnchoredSqliteStore``), which this backend has not;
- a rollback of the one commit that a crash interrupted between COMMIT and the anchor update:
  that write was never acknowledged, so no caller relies on it;
- a damaged key in the file that makes a record read as absent, floor included:
  `benchmarks/bitflip_campaign.py` finds 268 of the 65,536 single-bit flips of a file holding
  one journal that do so (all in the table's leaf page), and none that forge a record.

A missing anchor next to a file whose generation is above 0 is ``store_corrupt``
(``column="rollback_anchor"``): it was created with the file, so someone removed it.

Failure mapping: a SQLite error before COMMIT rolls the transaction back, so it is the definite
``store_unavailable``; an error raised by COMMIT itself leaves the outcome unknown and is the
indefinite ``store_outcome_unknown``. u64 counters are stored as decimal text because SQLite
integers are signed 64-bit.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from rescind.reference.storage.errors import (
    RollbackDetected,
    StoreCorrupt,
    StoreOutcomeUnknown,
    StoreUnavailable,
)
from rescind.reference.storage.store import (
    EMPTY_STATE,
    CasOutcome,
    KeyState,
    Snapshot,
    StoredRecord,
    plan_compare_and_swap,
    plan_establish,
    plan_reserve,
)
from rescind.reference.storage.tag import MAX_U64, require_name, require_namespace

SCHEMA_VERSION = 1
DEFAULT_BUSY_TIMEOUT_MS = 5_000
_SYNCHRONOUS_MODES = ("FULL", "EXTRA", "NORMAL")
_DECIMAL = re.compile(r"(?:0|[1-9][0-9]{0,19})\Z")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS rescind_storage_record (
    namespace TEXT NOT NULL,
    name TEXT NOT NULL,
    revision TEXT,
    envelope BLOB,
    revision_floor TEXT NOT NULL,
    fence TEXT NOT NULL,
    PRIMARY KEY (namespace, name),
    CHECK ((revision IS NULL) = (envelope IS NULL))
) WITHOUT ROWID
"""

_GENERATION_SCHEMA = """
CREATE TABLE IF NOT EXISTS rescind_storage_generation (
    id INTEGER PRIMARY KEY CHECK (id = 0),
    generation TEXT NOT NULL
)
"""
_GENERATION = "SELECT generation FROM rescind_storage_generation WHERE id = 0"
_SET_GENERATION = (
    "INSERT INTO rescind_storage_generation (id, generation) VALUES (0, ?) "
    "ON CONFLICT (id) DO UPDATE SET generation = excluded.generation"
)
ANCHOR_SUFFIX = ".anchor"
"""The rollback anchor's file name is the database's plus this (no SQLite suffix)."""

_SELECT = (
    "SELECT revision, envelope, revision_floor, fence FROM rescind_storage_record "
    "WHERE namespace = ? AND name = ?"
)
_UPSERT = (
    "INSERT INTO rescind_storage_record "
    "(namespace, name, revision, envelope, revision_floor, fence) VALUES (?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (namespace, name) DO UPDATE SET revision = excluded.revision, "
    "envelope = excluded.envelope, revision_floor = excluded.revision_floor, "
    "fence = excluded.fence"
)

_T = TypeVar("_T")

_SQLITE_FAILURES = (sqlite3.Error, UnicodeDecodeError)
"""What a SQLite call raises on failure. A damaged file can make SQLite report an error whose
message quotes the file's own non-UTF-8 bytes; the module then raises UnicodeDecodeError while
building the exception, and the SQLite error itself is lost."""


def _reason(exc: sqlite3.Error | UnicodeDecodeError) -> str:
    if isinstance(exc, UnicodeDecodeError):
        return "undecodable_sqlite_error"
    name = getattr(exc, "sqlite_errorname", None)
    return name.lower() if isinstance(name, str) else type(exc).__name__.lower()


def _decode_u64(value: object, column: str) -> int:
    if not isinstance(value, str) or not _DECIMAL.match(value) or int(value) > MAX_U64:
        raise StoreCorrupt(column=column)
    return int(value)


def _decode_row(row: tuple[object, ...] | None) -> KeyState:
    if row is None:
        return EMPTY_STATE
    revision, envelope, floor, fence = row
    record = None
    if revision is not None:
        if not isinstance(envelope, bytes):
            raise StoreCorrupt(column="envelope")
        record = StoredRecord(revision=_decode_u64(revision, "revision"), data=envelope)
    return KeyState(
        record=record,
        floor=_decode_u64(floor, "revision_floor"),
        fence=_decode_u64(fence, "fence"),
    )


def _encode_row(namespace: str, name: str, state: KeyState) -> tuple[object, ...]:
    record = state.record
    return (
        namespace,
        name,
        None if record is None else str(record.revision),
        None if record is None else record.data,
        str(state.floor),
        str(state.fence),
    )


class SqliteBackend:
    """Implements ``Store`` and ``FaultInjectable`` on one SQLite file (WAL journal)."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS,
        synchronous: str = "FULL",
    ) -> None:
        text = os.fspath(path)
        if text in ("", ":memory:") or text.startswith("file:"):
            raise ValueError("SqliteBackend needs a real file path (shared by every process)")
        if synchronous not in _SYNCHRONOUS_MODES:
            raise ValueError(f"synchronous must be one of {_SYNCHRONOUS_MODES}")
        if busy_timeout_ms < 0:
            raise ValueError("busy_timeout_ms must not be negative")
        self.path = Path(text)
        self.anchor_path = Path(text + ANCHOR_SUFFIX)
        self._wrote = False
        try:
            # isolation_level=None: the module never opens transactions behind our back.
            self._connection = sqlite3.connect(
                text, timeout=busy_timeout_ms / 1000, isolation_level=None
            )
        except _SQLITE_FAILURES as exc:
            raise StoreUnavailable(operation="open", reason=_reason(exc)) from exc
        try:
            self._connection.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            mode = self._connection.execute("PRAGMA journal_mode = WAL").fetchone()
            self._connection.execute(f"PRAGMA synchronous = {synchronous}")
        except _SQLITE_FAILURES as exc:
            self._connection.close()
            raise StoreUnavailable(operation="open", reason=_reason(exc)) from exc
        if mode is None or str(mode[0]).lower() != "wal":
            self._connection.close()
            raise StoreUnavailable(operation="open", reason="wal_unavailable")
        try:
            self._transaction("open", self._create_schema)
        except BaseException:
            self._connection.close()
            raise

    def close(self) -> None:
        self._connection.close()

    def __enter__(self) -> SqliteBackend:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # --- transactions -------------------------------------------------------------------------

    def _create_schema(self) -> None:
        version = self._connection.execute("PRAGMA user_version").fetchone()[0]
        if version == 0:
            self._connection.execute(_SCHEMA)
            self._connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        elif version != SCHEMA_VERSION:
            raise StoreCorrupt(column="user_version")
        # Files written before the anchor existed gain the counter (generation 0) and an anchor.
        self._connection.execute(_GENERATION_SCHEMA)
        if not self.anchor_path.exists() and self._generation() == 0:
            self._raise_anchor("open", 0)

    # --- rollback anchor ----------------------------------------------------------------------

    def _generation(self) -> int:
        row = self._connection.execute(_GENERATION).fetchone()
        return 0 if row is None else _decode_u64(row[0], "generation")

    def _read_anchor(self, operation: str) -> int:
        try:
            with open(self.anchor_path, "rb") as anchor:
                fcntl.flock(anchor, fcntl.LOCK_SH)
                text = anchor.read(64)
        except FileNotFoundError:
            raise StoreCorrupt(column="rollback_anchor") from None
        except OSError as exc:
            raise StoreUnavailable(
                operation=operation, reason="rollback_anchor_unreadable"
            ) from exc
        try:
            return _decode_u64(text.decode("ascii").strip(), "rollback_anchor")
        except UnicodeDecodeError:
            raise StoreCorrupt(column="rollback_anchor") from None

    def _check_anchor(self, operation: str) -> None:
        """Inside a transaction: the file must hold every generation the anchor vouches for."""
        anchored = self._read_anchor(operation)
        if self._generation() < anchored:
            raise RollbackDetected(operation=operation, reason="store_behind_rollback_anchor")

    def _raise_anchor(self, operation: str, generation: int) -> None:
        """Raise the anchor to ``generation`` (never lower it), durably."""
        try:
            fd = os.open(self.anchor_path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                current = os.pread(fd, 64, 0).decode("ascii", "replace").strip()
                if _DECIMAL.match(current) and int(current) >= generation:
                    return
                data = f"{generation}\n".encode("ascii")
                os.pwrite(fd, data, 0)
                os.ftruncate(fd, len(data))
                os.fsync(fd)
            finally:
                os.close(fd)  # releases the lock
        except OSError as exc:
            # The write is committed but not anchored: the caller cannot know it is safe.
            raise StoreOutcomeUnknown(operation=operation, reason="rollback_anchor_write") from exc

    def _transaction(self, operation: str, body: Callable[[], _T]) -> _T:
        """Run ``body`` in one write transaction; a raised error rolls everything back."""
        connection = self._connection
        try:
            connection.execute("BEGIN IMMEDIATE")
        except _SQLITE_FAILURES as exc:
            raise StoreUnavailable(operation=operation, reason=_reason(exc)) from exc
        self._wrote = False
        generation = None
        try:
            if operation != "open":
                self._check_anchor(operation)
            result = body()
            if self._wrote:
                generation = self._generation() + 1
                connection.execute(_SET_GENERATION, (str(generation),))
        except _SQLITE_FAILURES as exc:
            self._rollback()
            raise StoreUnavailable(operation=operation, reason=_reason(exc)) from exc
        except BaseException:
            self._rollback()
            raise
        try:
            connection.execute("COMMIT")
        except _SQLITE_FAILURES as exc:
            self._rollback()
            raise StoreOutcomeUnknown(operation=operation, reason=_reason(exc)) from exc
        if generation is not None:
            self._raise_anchor(operation, generation)
        return result

    def _rollback(self) -> None:
        if self._connection.in_transaction:
            # SQLite may already have rolled back by itself after some errors.
            with contextlib.suppress(*_SQLITE_FAILURES):
                self._connection.execute("ROLLBACK")

    def _read(self, namespace: str, name: str) -> KeyState:
        row = self._connection.execute(_SELECT, (namespace, name)).fetchone()
        return _decode_row(row)

    def _write(self, namespace: str, name: str, state: KeyState) -> None:
        self._connection.execute(_UPSERT, _encode_row(namespace, name, state))
        self._wrote = True

    def _read_outside_transaction(self, operation: str, namespace: str, name: str) -> KeyState:
        # One read transaction: the row and the generation come from the same commit.
        connection = self._connection
        try:
            connection.execute("BEGIN")
            try:
                self._check_anchor(operation)
                return self._read(namespace, name)
            finally:
                self._rollback()
        except _SQLITE_FAILURES as exc:
            raise StoreUnavailable(operation=operation, reason=_reason(exc)) from exc

    # --- Store ----------------------------------------------------------------------------------

    def load(self, namespace: str, name: str) -> Snapshot:
        namespace, name = require_namespace(namespace), require_name(name)
        return self._read_outside_transaction("load", namespace, name).snapshot

    def compare_and_swap(
        self,
        namespace: str,
        name: str,
        expected: int | None,
        replacement: StoredRecord,
        fence: int | None = None,
    ) -> CasOutcome:
        namespace, name = require_namespace(namespace), require_name(name)

        def body() -> CasOutcome:
            state = self._read(namespace, name)
            new_state, outcome = plan_compare_and_swap(state, expected, replacement, fence)
            if new_state is not None:
                self._write(namespace, name, new_state)
            return outcome

        return self._transaction("compare_and_swap", body)

    def reserve_fence(self, namespace: str, name: str) -> int:
        namespace, name = require_namespace(namespace), require_name(name)

        def body() -> int:
            new_state, token = plan_reserve(self._read(namespace, name))
            self._write(namespace, name, new_state)
            return token

        return self._transaction("reserve_fence", body)

    def establish_fence(self, namespace: str, name: str, token: int) -> None:
        namespace, name = require_namespace(namespace), require_name(name)

        def body() -> None:
            new_state = plan_establish(self._read(namespace, name), token)
            if new_state is not None:
                self._write(namespace, name, new_state)

        self._transaction("establish_fence", body)

    def current_fence(self, namespace: str, name: str) -> int:
        namespace, name = require_namespace(namespace), require_name(name)
        return self._read_outside_transaction("current_fence", namespace, name).fence

    # --- FaultInjectable --------------------------------------------------------------------------

    def raw_state(self, namespace: str, name: str) -> KeyState:
        namespace, name = require_namespace(namespace), require_name(name)
        return self._read_outside_transaction("raw_state", namespace, name)

    def inject_state(self, namespace: str, name: str, state: KeyState) -> None:
        namespace, name = require_namespace(namespace), require_name(name)
        self._transaction("inject_state", lambda: self._write(namespace, name, state))
