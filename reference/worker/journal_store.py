"""Where a worker session keeps its journal: leases, the store contract and the bridge onto an
``AuthenticatedStore`` (upstream ``WorkerJournalLease``, ``WorkerJournalStore``,
``AuthenticatedWorkerJournalStore``). Rules: docs/spec/session.md WS-2, WS-17 .. WS-19.

* A ``JournalLease`` is the writer authority of one session: a non-zero fencing token. Caller
  code cannot build one; ``WorkerSession.open`` makes it from the token an admission
  returned, and ``FenceAdmission`` gets that token from ``reserve_fence`` (never from
  ``current_fence() + 1``), so two sessions never share a token and the newer one wins.
* ``JournalStore`` is the contract a session persists through; tests and the scenario
  interpreter substitute stores that fail on purpose.
* ``AuthenticatedWorkerJournalStore`` keeps one journal per (namespace, scope) record: an
  absent record is the empty journal at revision 0, expected revision 0 means "create", and
  every write is a fenced compare-and-swap under the lease, so a superseded lease is refused
  before anything is read or written.
"""

from __future__ import annotations

from typing import Any, NoReturn, Protocol

from rescind.reference.manifest import SessionManifest
from rescind.reference.numbers import NumberMode
from rescind.reference.storage.authenticated import AuthenticatedStore
from rescind.reference.storage.tag import RecordKey, is_u64
from rescind.reference.tokens import require_token
from rescind.reference.worker.journal import SCOPE_FIELD, WorkerOperationJournal
from rescind.reference.worker.session_errors import (
    InvalidJournalEncoding,
    SessionAlreadyAdmitted,
)

DEFAULT_JOURNAL_NAMESPACE = "worker-journal"

_ISSUER = object()


class JournalLease:
    """A session's fencing token. Printed redacted; not picklable or copyable, so it cannot
    leak into logs or outlive the session object that holds it."""

    __slots__ = ("_token",)

    def __init__(self, token: int, *, issuer: object = None) -> None:
        if issuer is not _ISSUER:
            raise TypeError("a journal lease comes from a session's admission, never directly")
        if not is_u64(token) or token == 0:
            raise ValueError("a journal lease is a non-zero u64 fencing token")
        self._token = token

    @property
    def token(self) -> int:
        return self._token

    def __repr__(self) -> str:
        return "JournalLease(<redacted>)"

    def __reduce__(self) -> NoReturn:
        raise TypeError("a journal lease cannot be serialized")

    def __copy__(self) -> NoReturn:
        raise TypeError("a journal lease cannot be copied")

    def __deepcopy__(self, memo: Any) -> NoReturn:
        raise TypeError("a journal lease cannot be copied")


def issue_lease(token: int) -> JournalLease:
    """For ``WorkerSession.open`` only: the lease for a non-zero admission token."""
    return JournalLease(token, issuer=_ISSUER)


class JournalStore(Protocol):
    def load(self) -> tuple[WorkerOperationJournal, int]:
        """The stored journal and its revision (an absent record: empty journal, 0)."""
        ...

    def persist(
        self, journal: WorkerOperationJournal, expected_revision: int, lease: JournalLease
    ) -> int:
        """Atomically: compare the revision, accept only the current lease, commit durably,
        and return a revision greater than ``expected_revision``."""
        ...


class WorkerAdmission(Protocol):
    def admit(self, manifest: SessionManifest, scope: str) -> int:
        """Admit one session for the journal ``scope``; the answer is its fencing token."""
        ...


class AuthenticatedWorkerJournalStore:
    """The journal of one scope as an authenticated, fenced storage record."""

    def __init__(
        self,
        store: AuthenticatedStore,
        namespace: str,
        scope: str,
        mode: NumberMode = NumberMode.AP,
    ) -> None:
        """The scope must be a token (``invalid_token``), then the record key must be valid
        (``invalid_record_namespace`` / ``invalid_record_name``)."""
        require_token(SCOPE_FIELD, scope)
        self._key = RecordKey(namespace, scope)
        self._store = store
        self._scope = scope
        self._mode = mode

    @property
    def scope(self) -> str:
        return self._scope

    @property
    def record_key(self) -> RecordKey:
        return self._key

    @property
    def store(self) -> AuthenticatedStore:
        return self._store

    def admission(self) -> FenceAdmission:
        return FenceAdmission(self._store, self._key)

    def load(self) -> tuple[WorkerOperationJournal, int]:
        record = self._store.load(self._key)
        if record is None:
            return WorkerOperationJournal.new(self._scope), 0
        try:
            text = record.payload.decode("utf-8")
        except UnicodeDecodeError:
            raise InvalidJournalEncoding() from None
        journal = WorkerOperationJournal.from_json_for_scope(text, self._scope, self._mode)
        return journal, record.revision

    def persist(
        self, journal: WorkerOperationJournal, expected_revision: int, lease: JournalLease
    ) -> int:
        """Scope, encoding, then the fenced compare-and-swap (expected 0 = create)."""
        journal.validate_scope(self._scope)
        payload = journal.to_json().encode("utf-8")
        expected = None if expected_revision == 0 else expected_revision
        record = self._store.compare_and_swap_fenced(self._key, expected, payload, lease.token)
        return record.revision


class FenceAdmission:
    """Admission backed by the journal record's fence: each admitted session gets the next
    ``reserve_fence`` token, which supersedes every earlier session's lease.

    It refuses a session id it already admitted, so a replayed ``open_session`` cannot mint
    a second lease for the same session. That memory is this object's only; a host that
    restarts must use fresh session ids."""

    def __init__(self, store: AuthenticatedStore, record_key: RecordKey) -> None:
        self._store = store
        self._key = record_key
        self._admitted: set[str] = set()

    def admit(self, manifest: SessionManifest, scope: str) -> int:
        if manifest.session_id in self._admitted:
            raise SessionAlreadyAdmitted(session_id=manifest.session_id)
        token = self._store.reserve_fence(self._key)
        self._admitted.add(manifest.session_id)
        return token
