"""Entry points for the multi-process SQLite tests (run in spawned child processes)."""

from __future__ import annotations

from typing import Any

from rescind.reference.errors import RescindError
from rescind.reference.storage.authenticated import AuthenticatedStore
from rescind.reference.storage.keyring import Keyring
from rescind.reference.storage.tag import RecordKey, StorageKey
from rescind.stores.sqlite import SqliteBackend

LEDGER = RecordKey("workflow-ledger", "release-42")
WAIT_SECONDS = 60  # only a guard against a hung test; no test result depends on timing


def open_store(path: str) -> AuthenticatedStore:
    keyring = Keyring.single("storage-v1", StorageKey(bytes([0x07]) * 32))
    return AuthenticatedStore(SqliteBackend(path), keyring)


def _attempt(call) -> tuple[Any, ...]:
    try:
        record = call()
    except RescindError as error:
        return ("refused", error.code, dict(error.details))
    return ("wrote", record.revision)


def first_writer(path: str, a_wrote, b_reserved, a_done, results) -> None:
    store = open_store(path)
    token = store.reserve_fence(LEDGER)
    outcome = _attempt(lambda: store.compare_and_swap_fenced(LEDGER, None, b"a-1", token))
    a_wrote.set()
    if not b_reserved.wait(WAIT_SECONDS):
        results.put(("a", "timeout"))
        return
    late = _attempt(lambda: store.compare_and_swap_fenced(LEDGER, 1, b"a-2", token))
    a_done.set()
    results.put(("a", token, outcome, late))


def second_writer(path: str, a_wrote, b_reserved, a_done, results) -> None:
    store = open_store(path)
    if not a_wrote.wait(WAIT_SECONDS):
        results.put(("b", "timeout"))
        return
    token = store.reserve_fence(LEDGER)
    b_reserved.set()
    if not a_done.wait(WAIT_SECONDS):
        results.put(("b", "timeout"))
        return
    outcome = _attempt(lambda: store.compare_and_swap_fenced(LEDGER, 1, b"b-1", token))
    results.put(("b", token, outcome))


def racer(path: str, writer: str, rounds: int, barrier, results) -> None:
    store = open_store(path)
    barrier.wait(WAIT_SECONDS)
    log: list[tuple[Any, ...]] = []
    for round_number in range(rounds):
        token = store.reserve_fence(LEDGER)
        log.append(("reserved", token))
        for attempt in range(3):
            payload = f"{writer}:{round_number}:{attempt}".encode()
            try:
                current = store.load(LEDGER)
                expected = None if current is None else current.revision
                written = store.compare_and_swap_fenced(LEDGER, expected, payload, token)
            except RescindError as error:
                log.append(("refused", token, error.code))
            else:
                log.append(("wrote", token, written.revision, payload.decode()))
    results.put((writer, log))
