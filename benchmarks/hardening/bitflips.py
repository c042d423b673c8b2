"""Single-bit flips of authenticated objects, shared by benchmarks/bitflip_campaign.py and
tests/hardening/test_bitflip_objects.py.

Two objects carry a MAC in the reference: the authenticated frame (BLAKE3 keyed with the
session key over role, sequence, session id and message) and the storage envelope (BLAKE3
keyed with the storage key over record key, key id, revision and payload). Grants travel
inside frames (the manifest of ``open_session``); journals and ledgers, with their records,
grant fingerprints and compensation records, are stored as envelope payloads. So every flip
of a frame or an envelope that carries them is a flip of an authenticated grant, journal or
ledger record.

A flipped object must be refused with a typed error, or accepted with exactly the meaning
of the original (for example a flipped byte the decoder ignores). Accepted with another
meaning is a forgery.
"""

from __future__ import annotations

import functools
import sqlite3
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import attrs

from benchmarks.hardening.fuzzing import _inputs, journal_seeds, message_seeds
from rescind.reference.errors import RescindError
from rescind.reference.frames import AuthenticatedFrame, SessionAuthenticator, SessionRole
from rescind.reference.host.ledger import WorkflowOperationLedger
from rescind.reference.storage.authenticated import AuthenticatedStore
from rescind.reference.storage.envelope import open_snapshot, seal_active
from rescind.reference.storage.keyring import Keyring
from rescind.reference.storage.store import Snapshot, StoredRecord
from rescind.reference.storage.tag import RecordKey, StorageKey
from rescind.reference.worker.journal import WorkerOperationJournal
from rescind.reference.worker.journal_store import AuthenticatedWorkerJournalStore
from rescind.reference.worker_message import decode_message_line, message_json

SESSION_KEY = bytes(range(1, 33))
KEYRING = Keyring.single("storage-v1", StorageKey(bytes([0x1D]) * 32)).add_read_key(
    "storage-v0", StorageKey(bytes([0x2E]) * 32)
)
JOURNAL_KEY = RecordKey("worker-journal", "tenant-release")
LEDGER_KEY = RecordKey("workflow-ledger", "release-42")


@attrs.frozen
class Tally:
    flips: int = 0
    refused: int = 0
    same_meaning: int = 0
    forged: int = 0
    untyped: int = 0
    absent: int = 0
    examples: tuple[str, ...] = ()

    def add(self, outcome: str, example: str) -> Tally:
        counts = {
            name: getattr(self, name)
            for name in ("refused", "same_meaning", "forged", "untyped", "absent")
        }
        counts[outcome] += 1
        keep = self.examples
        if outcome in ("forged", "untyped") and len(keep) < 10:
            keep = (*keep, example)
        return Tally(self.flips + 1, examples=keep, **counts)

    def merge(self, other: Tally) -> Tally:
        return Tally(
            self.flips + other.flips,
            self.refused + other.refused,
            self.same_meaning + other.same_meaning,
            self.forged + other.forged,
            self.untyped + other.untyped,
            self.absent + other.absent,
            (*self.examples, *other.examples)[:10],
        )


def flips(data: bytes, bits: Iterator[int] | None = None) -> Iterator[tuple[int, bytes]]:
    """Every single-bit flip of ``data`` (or the listed bit positions), with its position."""
    for bit in bits if bits is not None else range(len(data) * 8):
        index, shift = divmod(bit, 8)
        yield bit, data[:index] + bytes([data[index] ^ (1 << shift)]) + data[index + 1 :]


def _classify(open_flipped: Callable[[], object], meaning: object) -> str:
    try:
        opened = open_flipped()
    except RescindError as error:
        return "refused" if error.code else "untyped"
    except Exception:
        return "untyped"
    return "same_meaning" if opened == meaning else "forged"


# -- frames ---------------------------------------------------------------------------------


def frame_objects() -> list[tuple[str, bytes, SessionRole]]:
    """One sealed frame per decodable message-line vector, sent by the host (requests) or the
    worker (results), at a sequence past 1 so that a flip of the sequence is seen."""
    objects: dict[str, tuple[str, bytes, SessionRole]] = {}
    for line in message_seeds():
        try:
            message = decode_message_line(line)
        except RescindError:
            continue
        role = (
            SessionRole.WORKER
            if message.kind.endswith(("result", "reconciled_operation"))
            else SessionRole.HOST
        )
        sender = SessionAuthenticator(message.session_id, SESSION_KEY, role, next_outgoing=7)
        try:
            frame = sender.seal(message).to_json_line().encode("utf-8")
        except RescindError:
            continue
        name = f"frame:{message.kind}"
        if name not in objects or len(frame) < len(objects[name][1]):
            objects[name] = (name, frame, role)
    return sorted(objects.values())


def frame_meaning(frame: bytes) -> tuple[int, str, str]:
    opened = AuthenticatedFrame.from_json_line(frame)
    return opened.sequence, opened.message.session_id, message_json(opened.message)


def open_frame(frame: bytes, role: SessionRole, session_id: str) -> tuple[int, str, str]:
    receiver = SessionAuthenticator(session_id, SESSION_KEY, role.peer, next_incoming=7)
    message = receiver.open_line(frame)
    return 7, message.session_id, message_json(message)


def frame_flips(
    name: str, frame: bytes, role: SessionRole, bits: Iterator[int] | None = None
) -> Tally:
    meaning = frame_meaning(frame)
    tally = Tally()
    for bit, flipped in flips(frame, bits):
        outcome = _classify(functools.partial(open_frame, flipped, role, meaning[1]), meaning)
        tally = tally.add(outcome, f"{name} bit {bit}")
    return tally


# -- storage envelopes ----------------------------------------------------------------------


def envelope_objects() -> list[tuple[str, RecordKey, int, bytes]]:
    """Envelopes holding a journal with records (grant fingerprints, compensation records),
    a ledger, a manifest with grants, and bytes that are not text, under the active key and
    under a read-only older key."""
    journals = [text for text in journal_seeds() if b'"records":[{' in text]
    ledgers = [text for text in _inputs("ledger-codec", "text") if b'"operations":[{' in text]
    manifests = _inputs("grants", "manifest")
    payloads = [
        ("journal", JOURNAL_KEY, _valid(tuple(journals), WorkerOperationJournal.from_json)),
        ("ledger", LEDGER_KEY, _valid(tuple(ledgers), WorkflowOperationLedger.from_json)),
        ("manifest", LEDGER_KEY, min(manifests, key=len)),
        ("binary", LEDGER_KEY, bytes(range(48))),
    ]
    objects = []
    for name, key, payload in payloads:
        envelope = seal_active(KEYRING, key, 3, payload).encode()
        objects.append((f"envelope:{name}", key, 3, envelope))
    old = Keyring.single("storage-v0", StorageKey(bytes([0x2E]) * 32))
    objects.append(
        (
            "envelope:journal-old-key",
            JOURNAL_KEY,
            1,
            seal_active(old, JOURNAL_KEY, 1, payloads[0][2]).encode(),
        )
    )
    return objects


def _valid(texts: tuple[bytes, ...], decode: Callable[[bytes], object]) -> bytes:
    """The shortest text that decodes: short keeps the flip count down."""
    for text in sorted(texts, key=len):
        try:
            decode(text)
        except RescindError:
            continue
        return text
    raise LookupError("no valid seed")


def open_envelope(key: RecordKey, revision: int, data: bytes) -> tuple[int, str, bytes] | None:
    record = open_snapshot(KEYRING, key, Snapshot(StoredRecord(revision, data), revision))
    return None if record is None else (record.revision, record.key_id, record.payload)


def envelope_flips(
    name: str, key: RecordKey, revision: int, envelope: bytes, bits: Iterator[int] | None = None
) -> Tally:
    meaning = open_envelope(key, revision, envelope)
    tally = Tally()
    for bit, flipped in flips(envelope, bits):
        outcome = _classify(functools.partial(open_envelope, key, revision, flipped), meaning)
        tally = tally.add(outcome, f"{name} bit {bit}")
    return tally


# -- a journal in a SQLite file -------------------------------------------------------------


def sqlite_journal(directory: Path) -> tuple[Path, str]:
    """A SQLite file holding one stored journal (checkpointed: the WAL is empty and gone),
    and the journal's text."""
    from rescind.stores.sqlite import SqliteBackend

    path = directory / "journal.sqlite"
    text = _valid(
        tuple(t for t in journal_seeds() if b'"records":[{' in t), WorkerOperationJournal.from_json
    )
    journal = WorkerOperationJournal.from_json(text)
    backend = SqliteBackend(path)
    store = AuthenticatedStore(backend, KEYRING)
    bridge = AuthenticatedWorkerJournalStore(store, JOURNAL_KEY.namespace, journal.scope)
    token = store.reserve_fence(bridge.record_key)
    store.compare_and_swap_fenced(bridge.record_key, None, journal.to_json().encode(), token)
    backend.close()
    with sqlite3.connect(path) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    connection.close()
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    return path, journal.scope


def load_sqlite_journal(path: Path, scope: str) -> tuple[str, int]:
    from rescind.stores.sqlite import SqliteBackend

    backend = SqliteBackend(path)
    try:
        bridge = AuthenticatedWorkerJournalStore(
            AuthenticatedStore(backend, KEYRING), JOURNAL_KEY.namespace, scope
        )
        journal, revision = bridge.load()
        return journal.to_json(), revision
    finally:
        backend.close()


def sqlite_flips(
    original: Path, scope: str, bits: Iterator[int] | None = None
) -> tuple[Tally, list[int]]:
    """Flip bits of the stored file; each flipped copy is opened by a fresh backend. A load
    that answers an empty journal at revision 0 is the journal silently read as absent."""
    meaning = load_sqlite_journal(original, scope)
    data = original.read_bytes()
    anchor_path = Path(f"{original}.anchor")
    anchor = anchor_path.read_bytes() if anchor_path.exists() else None
    tally = Tally()
    absent_bits: list[int] = []
    with tempfile.TemporaryDirectory(prefix="rescind-flip-") as scratch:
        target = Path(scratch) / "flipped.sqlite"
        for bit, flipped in flips(data, bits):
            for suffix in ("", "-wal", "-shm", ".anchor"):
                Path(f"{target}{suffix}").unlink(missing_ok=True)
            target.write_bytes(flipped)
            if anchor is not None:
                # The store's rollback anchor lives beside the file; without it every copy
                # would be refused as store_corrupt before a flipped byte is read.
                Path(f"{target}.anchor").write_bytes(anchor)
            outcome = _classify(lambda: load_sqlite_journal(target, scope), meaning)
            if outcome == "forged":
                try:
                    loaded = load_sqlite_journal(target, scope)
                except RescindError:
                    loaded = None
                if (
                    loaded is not None
                    and loaded[1] == 0
                    and loaded[0] == WorkerOperationJournal.new(scope).to_json()
                ):
                    outcome = "absent"
                    absent_bits.append(bit)
            tally = tally.add(outcome, f"sqlite bit {bit}")
    return tally, absent_bits


def sqlite_page_size(path: Path) -> int:
    header = path.read_bytes()[16:18]
    size = int.from_bytes(header, "big")
    return 65536 if size == 1 else size


def sqlite_regions(path: Path, bits: list[int]) -> dict[int, int]:
    """How many of ``bits`` fall in each page (1-based)."""
    size = sqlite_page_size(path)
    pages: dict[int, int] = {}
    for bit in bits:
        page = bit // 8 // size + 1
        pages[page] = pages.get(page, 0) + 1
    return pages


def describe_pages(path: Path) -> dict[int, str]:
    """What SQLite keeps on each page of the file (schema, table or index), from dbstat if
    the build has it, else by the page's b-tree type byte."""
    size = sqlite_page_size(path)
    data = path.read_bytes()
    kinds = {0x02: "interior index", 0x05: "interior table", 0x0A: "leaf index", 0x0D: "leaf table"}
    pages = {}
    for number in range(1, len(data) // size + 1):
        offset = (number - 1) * size + (100 if number == 1 else 0)
        pages[number] = ("header+schema " if number == 1 else "") + kinds.get(data[offset], "other")
    return pages
