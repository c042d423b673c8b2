"""The backend contract (ST-23..ST-29), run on the memory and SQLite backends."""

from __future__ import annotations

import pytest

from rescind.reference.errors import RescindError
from rescind.reference.storage.store import Conflict, KeyState, Snapshot, Stored, StoredRecord

NS, NAME = "workflow-ledger", "release-42"
MAX = 2**64 - 1


def record(revision: int, data: bytes = b"envelope") -> StoredRecord:
    return StoredRecord(revision=revision, data=data)


def refused(call) -> RescindError:
    with pytest.raises(RescindError) as caught:
        call()
    return caught.value


def test_empty_key(backend) -> None:
    assert backend.load(NS, NAME) == Snapshot(None, 0)
    assert backend.current_fence(NS, NAME) == 0
    assert backend.raw_state(NS, NAME) == KeyState()


def test_create_then_replace(backend) -> None:
    assert backend.compare_and_swap(NS, NAME, None, record(1, b"one")) == Stored(floor=1)
    assert backend.load(NS, NAME) == Snapshot(record(1, b"one"), 1)
    assert backend.compare_and_swap(NS, NAME, 1, record(2, b"two")) == Stored(floor=2)
    assert backend.load(NS, NAME) == Snapshot(record(2, b"two"), 2)


def test_conflicts_write_nothing(backend) -> None:
    backend.compare_and_swap(NS, NAME, None, record(1))
    before = backend.raw_state(NS, NAME)
    assert backend.compare_and_swap(NS, NAME, None, record(1, b"x")) == Conflict(1, 1)
    assert backend.compare_and_swap(NS, NAME, 2, record(3, b"x")) == Conflict(1, 1)
    assert backend.compare_and_swap(NS, NAME, 0, record(1, b"x")) == Conflict(1, 1)
    assert backend.raw_state(NS, NAME) == before


def test_record_off_its_floor_is_a_conflict(backend) -> None:
    backend.inject_state(NS, NAME, KeyState(record=record(1), floor=2))
    assert backend.compare_and_swap(NS, NAME, 1, record(2)) == Conflict(1, 2)
    backend.inject_state(NS, NAME, KeyState(record=None, floor=2))
    assert backend.compare_and_swap(NS, NAME, None, record(1)) == Conflict(None, 2)


def test_replacement_revision_is_expected_plus_one(backend) -> None:
    error = refused(lambda: backend.compare_and_swap(NS, NAME, None, record(2)))
    assert error.code == "invalid_replacement_revision"
    assert dict(error.details) == {"expected": 1, "actual": 2}
    # The conflict test comes first.
    backend.compare_and_swap(NS, NAME, None, record(1))
    assert backend.compare_and_swap(NS, NAME, None, record(5)) == Conflict(1, 1)
    assert backend.raw_state(NS, NAME).floor == 1


def test_backend_revision_exhausted(backend) -> None:
    state = KeyState(record=record(MAX), floor=MAX)
    backend.inject_state(NS, NAME, state)
    error = refused(lambda: backend.compare_and_swap(NS, NAME, MAX, record(MAX)))
    assert error.code == "storage_revision_exhausted"
    assert backend.raw_state(NS, NAME) == state


def test_reserve_is_monotonic_and_never_wraps(backend) -> None:
    assert [backend.reserve_fence(NS, NAME) for _ in range(3)] == [1, 2, 3]
    assert backend.current_fence(NS, NAME) == 3
    backend.inject_state(NS, NAME, KeyState(fence=MAX))
    assert refused(lambda: backend.reserve_fence(NS, NAME)).code == "fencing_token_exhausted"
    assert backend.current_fence(NS, NAME) == MAX


def test_establish(backend) -> None:
    backend.establish_fence(NS, NAME, 4)
    assert backend.current_fence(NS, NAME) == 4
    backend.establish_fence(NS, NAME, 4)
    error = refused(lambda: backend.establish_fence(NS, NAME, 3))
    assert (error.code, dict(error.details)) == (
        "fencing_token_rejected",
        {"current": 4, "supplied": 3},
    )
    for bad in (0, -1, MAX + 1, True):
        assert refused(lambda bad=bad: backend.establish_fence(NS, NAME, bad)).code == (
            "invalid_fencing_token"
        )
    assert backend.raw_state(NS, NAME) == KeyState(fence=4)


def test_fenced_write_needs_the_exact_fence(backend) -> None:
    backend.establish_fence(NS, NAME, 2)
    for token, code in ((0, "invalid_fencing_token"), (1, "fencing_token_rejected"),
                        (3, "fencing_token_rejected")):  # fmt: skip
        error = refused(lambda t=token: backend.compare_and_swap(NS, NAME, None, record(1), t))
        assert error.code == code
    assert backend.raw_state(NS, NAME) == KeyState(fence=2)
    assert backend.compare_and_swap(NS, NAME, None, record(1), 2) == Stored(floor=1)


def test_unfenced_write_on_fenced_key(backend) -> None:
    backend.reserve_fence(NS, NAME)
    error = refused(lambda: backend.compare_and_swap(NS, NAME, None, record(1)))
    assert (error.code, dict(error.details)) == ("fencing_required", {"current": 1})
    assert backend.load(NS, NAME) == Snapshot(None, 0)


def test_fences_are_per_key(backend) -> None:
    backend.reserve_fence(NS, NAME)
    assert backend.current_fence(NS, "release-43") == 0
    assert backend.current_fence("worker-journal", NAME) == 0
    assert backend.compare_and_swap(NS, "release-43", None, record(1)) == Stored(floor=1)


def test_identifier_and_argument_checks(backend) -> None:
    assert refused(lambda: backend.load("Bad", NAME)).code == "invalid_record_namespace"
    assert refused(lambda: backend.reserve_fence(NS, "r" * 129)).code == "invalid_record_name"
    error = refused(lambda: backend.compare_and_swap(NS, NAME, -1, record(1)))
    assert error.code == "invalid_revision"


def test_injected_state_round_trips(backend) -> None:
    state = KeyState(record=record(MAX, bytes(range(256))), floor=3, fence=MAX)
    backend.inject_state(NS, NAME, state)
    assert backend.raw_state(NS, NAME) == state
    backend.inject_state(NS, NAME, KeyState(record=None, floor=7, fence=0))
    assert backend.raw_state(NS, NAME) == KeyState(floor=7)
