"""The parts behind sessions: leases, limits, error wrapping and definiteness, the journal
store bridge, the fault-injecting store and the host driver's own refusals."""

from __future__ import annotations

import copy
import pickle

import pytest

from rescind.conformance.interpreters.doubles import FaultyJournalStore
from rescind.conformance.interpreters.host_scenario import LEDGER_RECORD
from rescind.reference.errors import error_registry
from rescind.reference.host.engine import WorkflowEngine
from rescind.reference.host.ledger_driver import HostLedgerDriver, LedgerRecordMissing
from rescind.reference.host.plan import IdCounter
from rescind.reference.payload import ToolPayload
from rescind.reference.protocol_errors import InvalidToken, OutputTooLarge
from rescind.reference.storage.authenticated import AuthenticatedStore
from rescind.reference.storage.errors import (
    FencingTokenRejected,
    InvalidRecordNamespace,
    StoreUnavailable,
)
from rescind.reference.storage.keyring import Keyring
from rescind.reference.storage.memory import MemoryBackend
from rescind.reference.storage.tag import RecordKey, StorageKey
from rescind.reference.worker import session_errors
from rescind.reference.worker.journal import WorkerOperationJournal
from rescind.reference.worker.journal_store import (
    AuthenticatedWorkerJournalStore,
    JournalLease,
    issue_lease,
)
from rescind.reference.worker.session import WorkerSessionLimits

KEYRING = Keyring.single("storage-v1", StorageKey(bytes([0x1D]) * 32))


def new_store() -> AuthenticatedStore:
    return AuthenticatedStore(MemoryBackend(), KEYRING)


def test_a_lease_is_issued_never_built_and_never_shown() -> None:
    with pytest.raises(TypeError):
        JournalLease(1)
    lease = issue_lease(7)
    assert lease.token == 7
    assert "7" not in repr(lease)
    for leak in (copy.copy, copy.deepcopy, pickle.dumps):
        with pytest.raises(TypeError):
            leak(lease)
    with pytest.raises(ValueError):
        issue_lease(0)


def test_reconciliation_limits_must_be_positive() -> None:
    assert WorkerSessionLimits() == WorkerSessionLimits(16, 64)
    with pytest.raises(session_errors.ZeroPerToolReconciliationLimit):
        WorkerSessionLimits(0, 64)
    with pytest.raises(session_errors.ZeroSessionReconciliationLimit):
        WorkerSessionLimits(16, 0)


def test_wrapping_keeps_the_protocol_code_and_details() -> None:
    inner = InvalidToken(field="request id", value="Not A Token!")
    wrapped = session_errors.wrap_protocol(inner)
    assert type(wrapped) is InvalidToken and wrapped.code == "invalid_token"
    # The redacted value keeps the length it reported (12 bytes), not the marker's length.
    assert dict(wrapped.details) == {
        "field": "request id",
        "value": "<redacted 12 bytes>",
        "layer": "protocol",
    }
    assert session_errors.wrap_protocol(wrapped) is wrapped
    assert OutputTooLarge(actual=17, maximum=16).details.get("layer") is None


def test_only_indeterminate_outcomes_are_indefinite() -> None:
    session_codes = {
        code: cls
        for code, cls in error_registry().items()
        if issubclass(cls, session_errors.WorkerSessionFailure)
    }
    indefinite = {code for code, cls in session_codes.items() if not cls.definite}
    assert indefinite == {"indeterminate_operation", "indeterminate_compensation"}
    assert {
        "session_poisoned",
        "missing_adapter",
        "adapter_failed",
        "pending_operation",
        "pending_compensation",
        "journal_persistence_failed",
        "invalid_journal_revision",
        "reconciliation_budget_exhausted",
        "reconciliation_session_budget_exhausted",
        "unexpected_message",
        "admission_failed",
        "invalid_journal_lease",
        "unexpected_opening_message",
        "requires_worker_authenticator",
    } <= set(session_codes)
    assert sorted(session_errors.ADAPTER_ERRORS) == [
        "failed",
        "indeterminate",
        "invalid_json_input",
        "invalid_json_output",
        "unsupported",
    ]
    assert session_errors.AdapterIndeterminate.definite is False


def test_bridge_construction_and_loading() -> None:
    store = new_store()
    with pytest.raises(InvalidToken):
        AuthenticatedWorkerJournalStore(store, "worker-journal", "Tenant")
    with pytest.raises(InvalidRecordNamespace):
        AuthenticatedWorkerJournalStore(store, "x" * 65, "tenant")
    bridge = AuthenticatedWorkerJournalStore(store, "worker-journal", "tenant")
    assert bridge.load() == (WorkerOperationJournal.new("tenant"), 0)
    store.create(RecordKey("worker-journal", "tenant"), b"\xff")
    with pytest.raises(session_errors.InvalidJournalEncoding):
        bridge.load()


def test_bridge_writes_under_the_lease_only() -> None:
    bridge = AuthenticatedWorkerJournalStore(new_store(), "worker-journal", "tenant")
    journal = WorkerOperationJournal.new("tenant")
    first = issue_lease(bridge.store.reserve_fence(bridge.record_key))
    assert bridge.persist(journal, 0, first) == 1
    second = issue_lease(bridge.store.reserve_fence(bridge.record_key))
    with pytest.raises(FencingTokenRejected):
        bridge.persist(journal, 1, first)
    assert bridge.persist(journal, 1, second) == 2


def test_faulty_store_fails_exactly_where_armed() -> None:
    bridge = AuthenticatedWorkerJournalStore(new_store(), "worker-journal", "tenant")
    faulty = FaultyJournalStore(bridge)
    lease = issue_lease(bridge.store.reserve_fence(bridge.record_key))
    journal = WorkerOperationJournal.new("tenant")
    faulty.arm(2, "unavailable")
    assert faulty.persist(journal, 0, lease) == 1
    with pytest.raises(StoreUnavailable):
        faulty.persist(journal, 1, lease)
    assert faulty.persist(journal, 1, lease) == 2
    assert (faulty.attempts, faulty.snapshots, faulty.fired) == (3, 2, ["unavailable"])
    with pytest.raises(ValueError):
        faulty.arm(1, "gremlins")


def test_host_driver_writes_nothing_until_a_change_and_needs_a_record_to_recover() -> None:
    store = new_store()
    steps = [("publish", "release.publish(version)")]
    with pytest.raises(LedgerRecordMissing):
        HostLedgerDriver.recover(WorkflowEngine(IdCounter()), steps, store, LEDGER_RECORD)
    driver = HostLedgerDriver.start(WorkflowEngine(IdCounter()), steps, store, LEDGER_RECORD)
    assert store.load(LEDGER_RECORD) is None
    key = driver.record_operation("publish", "release.publish", ToolPayload.text("1.2.3"), b"n1")
    assert driver.storage_revision == 1
    record = store.load(LEDGER_RECORD)
    assert record is not None and key.encode() in record.payload
    assert [event.to_json()["type"] for event in driver.events] == [
        "planned",
        "operation_ledger_created",
        "operation_recorded",
    ]
