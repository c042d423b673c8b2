"""Authenticated records over any ``Store`` backend (upstream ``AuthenticatedStore``).

The wrapper seals every write under the keyring's active key and opens every read (and every
write's pre-check) with the full check order of ``envelope.open_snapshot``, so a corrupt,
transplanted or rolled-back current record blocks writes as well as reads. A refused call
leaves the backend exactly as it was, except that a fenced write establishes its token first
(on purpose: a newer writer fences older ones even when its own write then fails).
"""

from __future__ import annotations

from rescind.reference.storage.envelope import (
    AuthenticatedRecord,
    check_revision_pair,
    open_snapshot,
    seal_active,
)
from rescind.reference.storage.errors import (
    InvalidRevision,
    PayloadTooLarge,
    StorageRevisionExhausted,
    StoredFloorMismatch,
    WriteConflict,
)
from rescind.reference.storage.keyring import Keyring
from rescind.reference.storage.store import CasOutcome, Snapshot, Store, Stored, StoredRecord
from rescind.reference.storage.tag import MAX_PAYLOAD_BYTES, MAX_U64, RecordKey, is_u64


class AuthenticatedStore:
    def __init__(self, backend: Store, keyring: Keyring) -> None:
        self._backend = backend
        self._keyring = keyring

    @property
    def backend(self) -> Store:
        return self._backend

    @property
    def keyring(self) -> Keyring:
        return self._keyring

    @keyring.setter
    def keyring(self, keyring: Keyring) -> None:
        """Swap in a rotated or trimmed keyring (keyrings are immutable values)."""
        self._keyring = keyring

    # --- reads --------------------------------------------------------------------------------

    def open(self, key: RecordKey, snapshot: Snapshot) -> AuthenticatedRecord | None:
        return open_snapshot(self._keyring, key, snapshot)

    def load(self, key: RecordKey) -> AuthenticatedRecord | None:
        return self.open(key, self._backend.load(key.namespace, key.name))

    # --- fences -------------------------------------------------------------------------------

    def reserve_fence(self, key: RecordKey) -> int:
        return self._backend.reserve_fence(key.namespace, key.name)

    def current_fence(self, key: RecordKey) -> int:
        """For inspection only: a new token must come from ``reserve_fence``, never from this."""
        return self._backend.current_fence(key.namespace, key.name)

    # --- writes -------------------------------------------------------------------------------

    def create(self, key: RecordKey, payload: bytes) -> AuthenticatedRecord:
        return self.compare_and_swap(key, None, payload)

    def replace(self, key: RecordKey, expected: int, payload: bytes) -> AuthenticatedRecord:
        return self.compare_and_swap(key, expected, payload)

    def compare_and_swap(
        self, key: RecordKey, expected: int | None, payload: bytes
    ) -> AuthenticatedRecord:
        payload = _checked_arguments(expected, payload)
        revision, replacement = self._prepare(key, expected, payload)
        outcome = self._backend.compare_and_swap(
            key.namespace, key.name, expected, replacement, None
        )
        return self._finish(expected, revision, payload, outcome)

    def compare_and_swap_fenced(
        self, key: RecordKey, expected: int | None, payload: bytes, token: int
    ) -> AuthenticatedRecord:
        """Establish ``token`` first, then the same checks and write as ``compare_and_swap``.

        The backend re-checks that ``token`` is still exactly the current fence inside its
        atomic write, so a newer writer admitted between these steps still wins.
        """
        payload = _checked_arguments(expected, payload)
        self._backend.establish_fence(key.namespace, key.name, token)
        revision, replacement = self._prepare(key, expected, payload)
        outcome = self._backend.compare_and_swap(
            key.namespace, key.name, expected, replacement, token
        )
        return self._finish(expected, revision, payload, outcome)

    def _prepare(
        self, key: RecordKey, expected: int | None, payload: bytes
    ) -> tuple[int, StoredRecord]:
        if len(payload) > MAX_PAYLOAD_BYTES:
            raise PayloadTooLarge(actual=len(payload), maximum=MAX_PAYLOAD_BYTES)
        current = self.load(key)
        actual = None if current is None else current.revision
        if actual != expected:
            raise WriteConflict(expected=expected, actual=actual, revision_floor=actual or 0)
        previous = expected or 0
        if previous == MAX_U64:
            raise StorageRevisionExhausted()
        revision = previous + 1
        envelope = seal_active(self._keyring, key, revision, payload)
        return revision, StoredRecord(revision=revision, data=envelope.encode())

    def _finish(
        self, expected: int | None, revision: int, payload: bytes, outcome: CasOutcome
    ) -> AuthenticatedRecord:
        if isinstance(outcome, Stored):
            if outcome.floor != revision:
                raise StoredFloorMismatch(record_revision=revision, revision_floor=outcome.floor)
            return AuthenticatedRecord(
                revision=revision, key_id=self._keyring.active_key_id, payload=payload
            )
        # Someone wrote between our pre-check and the backend's atomic step. The pair is
        # checked first so that a rollback seen here is reported as a rollback.
        check_revision_pair(outcome.actual, outcome.floor)
        raise WriteConflict(expected=expected, actual=outcome.actual, revision_floor=outcome.floor)


def _checked_arguments(expected: int | None, payload: bytes) -> bytes:
    if expected is not None and not is_u64(expected):
        raise InvalidRevision()
    if not isinstance(payload, bytes | bytearray | memoryview):
        raise TypeError("payload must be bytes")
    return bytes(payload)
