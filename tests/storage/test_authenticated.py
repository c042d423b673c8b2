"""The authenticated store over both backends: ST-7..ST-29 and the storage side of RC-13, RC-14."""

from __future__ import annotations

import pytest

from rescind.reference.errors import RescindError
from rescind.reference.storage.authenticated import AuthenticatedStore
from rescind.reference.storage.envelope import seal
from rescind.reference.storage.memory import MemoryBackend
from rescind.reference.storage.store import Conflict, KeyState, Stored, StoredRecord

from .conftest import KEY_07, KEY_09, LEDGER, OTHER

MAX = 2**64 - 1


def refused(call) -> RescindError:
    with pytest.raises(RescindError) as caught:
        call()
    return caught.value


def shape(error: RescindError) -> tuple[str, dict]:
    return error.code, dict(error.details)


def raw(store: AuthenticatedStore, key=LEDGER) -> KeyState:
    return store.backend.raw_state(key.namespace, key.name)


def test_item_43_create_replace_conflict(store) -> None:
    created = store.create(LEDGER, b"first payload")
    assert (created.revision, created.key_id, created.payload) == (
        1,
        "storage-v1",
        b"first payload",
    )
    assert store.load(LEDGER) == created
    assert shape(refused(lambda: store.replace(LEDGER, 0, b"stale payload"))) == (
        "write_conflict",
        {"expected": 0, "actual": 1, "revision_floor": 1},
    )
    replaced = store.replace(LEDGER, 1, b"second payload")
    assert replaced.revision == 2
    assert store.load(LEDGER) == replaced


def test_conflict_details(store) -> None:
    assert shape(refused(lambda: store.replace(LEDGER, 1, b"p"))) == (
        "write_conflict",
        {"expected": 1, "actual": None, "revision_floor": 0},
    )
    store.create(LEDGER, b"p")
    assert shape(refused(lambda: store.create(LEDGER, b"p"))) == (
        "write_conflict",
        {"expected": None, "actual": 1, "revision_floor": 1},
    )


def test_fenced_five_steps(store) -> None:
    # Upstream test fenced_compare_and_swap_rejects_a_superseded_writer_after_a_conflict.
    assert store.compare_and_swap_fenced(LEDGER, None, b"first payload", 5).revision == 1
    assert shape(refused(lambda: store.compare_and_swap_fenced(LEDGER, 0, b"stale", 6))) == (
        "write_conflict",
        {"expected": 0, "actual": 1, "revision_floor": 1},
    )
    assert store.current_fence(LEDGER) == 6
    assert shape(refused(lambda: store.compare_and_swap(LEDGER, 1, b"unfenced writer"))) == (
        "fencing_required",
        {"current": 6},
    )
    assert shape(refused(lambda: store.compare_and_swap_fenced(LEDGER, 1, b"old", 5))) == (
        "fencing_token_rejected",
        {"current": 6, "supplied": 5},
    )
    current = store.compare_and_swap_fenced(LEDGER, 1, b"current writer", 6)
    assert (current.revision, current.payload) == (2, b"current writer")


def test_item_44_reserve_and_zero_token(store) -> None:
    assert store.reserve_fence(LEDGER) == 1
    assert store.reserve_fence(LEDGER) == 2
    assert store.current_fence(LEDGER) == 2
    error = refused(lambda: store.compare_and_swap_fenced(OTHER, None, b"first payload", 0))
    assert error.code == "invalid_fencing_token"
    assert store.current_fence(OTHER) == 0
    assert store.load(OTHER) is None
    assert raw(store, OTHER) == KeyState()


def test_item_45_transplant_tamper_rollback_floor_and_size(store) -> None:
    store.create(LEDGER, b"first payload")
    store.create(OTHER, b"second payload")
    backend = store.backend
    backend.inject_state(LEDGER.namespace, LEDGER.name, raw(store, OTHER))
    assert refused(lambda: store.load(LEDGER)).code == "storage_invalid_authentication_tag"

    sealed = seal(KEY_07, "storage-v1", LEDGER, 1, b"first payload").encode()
    tampered = sealed.replace(b"Zmlyc3QgcGF5bG9hZA", b"dGFtcGVyZWQ")
    backend.inject_state(LEDGER.namespace, LEDGER.name, KeyState(StoredRecord(1, tampered), 1))
    assert refused(lambda: store.load(LEDGER)).code == "storage_invalid_authentication_tag"

    backend.inject_state(LEDGER.namespace, LEDGER.name, KeyState(StoredRecord(1, sealed), 1))
    store.replace(LEDGER, 1, b"second")
    backend.inject_state(LEDGER.namespace, LEDGER.name, KeyState(StoredRecord(1, sealed), 2))
    assert shape(refused(lambda: store.load(LEDGER))) == (
        "rollback_detected",
        {"record_revision": 1, "revision_floor": 2},
    )
    assert refused(lambda: store.replace(LEDGER, 1, b"x")).code == "rollback_detected"

    backend.inject_state(LEDGER.namespace, LEDGER.name, KeyState(StoredRecord(1, sealed), 0))
    assert shape(refused(lambda: store.load(LEDGER))) == (
        "revision_floor_mismatch",
        {"record_revision": 1, "revision_floor": 0},
    )
    error = refused(lambda: store.create(OTHER, b"a" * 262_145))
    assert shape(error) == ("payload_too_large", {"actual": 262_145, "maximum": 262_144})


def test_item_46_rotation(store) -> None:
    original = store.create(LEDGER, b"payload")
    store.keyring = store.keyring.rotate_to("storage-v2", KEY_09)
    assert store.load(LEDGER) == original
    rewritten = store.replace(LEDGER, original.revision, original.payload)
    assert (rewritten.revision, rewritten.key_id) == (2, "storage-v2")
    assert store.load(LEDGER) == rewritten
    store.keyring = store.keyring.retire("storage-v1")
    assert store.load(LEDGER) == rewritten


def test_item_48_two_recovering_writers(store) -> None:
    first = store.reserve_fence(LEDGER)
    store.compare_and_swap_fenced(LEDGER, None, b"ledger 1", first)
    second = store.reserve_fence(LEDGER)
    assert shape(refused(lambda: store.compare_and_swap_fenced(LEDGER, 1, b"x", first))) == (
        "fencing_token_rejected",
        {"current": 2, "supplied": 1},
    )
    assert store.compare_and_swap_fenced(LEDGER, 1, b"ledger 2", second).revision == 2
    third = store.reserve_fence(LEDGER)
    assert store.compare_and_swap_fenced(LEDGER, 2, b"ledger 2 again", third).revision == 3
    assert store.load(LEDGER).payload == b"ledger 2 again"


def test_establish_comes_before_everything(store) -> None:
    store.create(OTHER, b"x")  # unrelated key keeps the backend non-empty
    store.compare_and_swap_fenced(LEDGER, None, b"first", 1)
    error = refused(lambda: store.compare_and_swap_fenced(LEDGER, 1, b"a" * 262_145, 3))
    assert error.code == "payload_too_large"
    assert store.current_fence(LEDGER) == 3
    garbage = KeyState(StoredRecord(1, b"not json"), 1, 3)
    store.backend.inject_state(LEDGER.namespace, LEDGER.name, garbage)
    stale = refused(lambda: store.compare_and_swap_fenced(LEDGER, 1, b"stale", 2))
    assert stale.code == "fencing_token_rejected"
    assert refused(lambda: store.compare_and_swap_fenced(LEDGER, 1, b"x", 3)).code == (
        "invalid_envelope"
    )
    assert raw(store) == garbage


def test_revision_exhausted(store) -> None:
    sealed = seal(KEY_07, "storage-v1", LEDGER, MAX, b"payload").encode()
    state = KeyState(StoredRecord(MAX, sealed), MAX)
    store.backend.inject_state(LEDGER.namespace, LEDGER.name, state)
    assert store.load(LEDGER).revision == MAX
    assert refused(lambda: store.replace(LEDGER, MAX, b"next")).code == (
        "storage_revision_exhausted"
    )
    assert raw(store) == state


def test_arguments_are_checked_first(store) -> None:
    assert refused(lambda: store.replace(LEDGER, -1, b"x")).code == "invalid_revision"
    with pytest.raises(TypeError):
        store.create(LEDGER, "text")  # type: ignore[arg-type]
    assert raw(store) == KeyState()


class RacingBackend(MemoryBackend):
    """Lets another writer in between the wrapper's pre-check and its atomic write."""

    def __init__(self, interloper) -> None:
        super().__init__()
        self.interloper = interloper

    def compare_and_swap(self, namespace, name, expected, replacement, fence=None):
        if self.interloper is not None:
            interloper, self.interloper = self.interloper, None
            interloper(self)
        return super().compare_and_swap(namespace, name, expected, replacement, fence)


def test_backend_conflict_after_precheck(keyring) -> None:
    def other_writer(backend: MemoryBackend) -> None:
        sealed = seal(KEY_07, "storage-v1", LEDGER, 1, b"winner").encode()
        backend.inject_state(LEDGER.namespace, LEDGER.name, KeyState(StoredRecord(1, sealed), 1))

    store = AuthenticatedStore(RacingBackend(other_writer), keyring)
    assert shape(refused(lambda: store.create(LEDGER, b"loser"))) == (
        "write_conflict",
        {"expected": None, "actual": 1, "revision_floor": 1},
    )
    assert store.load(LEDGER).payload == b"winner"


def test_backend_conflict_with_a_rolled_back_pair(keyring) -> None:
    def rollback(backend: MemoryBackend) -> None:
        backend.inject_state(LEDGER.namespace, LEDGER.name, KeyState(None, 3))

    store = AuthenticatedStore(RacingBackend(rollback), keyring)
    assert shape(refused(lambda: store.create(LEDGER, b"x"))) == (
        "rollback_detected",
        {"record_revision": None, "revision_floor": 3},
    )


class LyingBackend(MemoryBackend):
    def compare_and_swap(self, namespace, name, expected, replacement, fence=None):
        outcome = super().compare_and_swap(namespace, name, expected, replacement, fence)
        return Stored(floor=outcome.floor + 1) if isinstance(outcome, Stored) else outcome


def test_stored_floor_mismatch_is_indefinite(keyring) -> None:
    store = AuthenticatedStore(LyingBackend(), keyring)
    error = refused(lambda: store.create(LEDGER, b"x"))
    assert shape(error) == ("revision_floor_mismatch", {"record_revision": 1, "revision_floor": 2})
    assert error.definite is False
    assert error.to_wire()["definite"] is False
    # The same code raised while opening is definite: nothing was written.
    plain = AuthenticatedStore(MemoryBackend(), keyring)
    plain.create(LEDGER, b"x")
    plain.backend.inject_state(LEDGER.namespace, LEDGER.name, KeyState(raw(plain).record, 0))
    opened_error = refused(lambda: plain.load(LEDGER))
    assert (opened_error.code, opened_error.definite) == ("revision_floor_mismatch", True)


def test_every_other_refusal_is_definite(store) -> None:
    store.create(LEDGER, b"x")
    for call in (
        lambda: store.create(LEDGER, b"x"),
        lambda: store.create(OTHER, b"a" * 262_145),
        lambda: store.compare_and_swap_fenced(OTHER, None, b"x", 0),
    ):
        assert refused(call).definite is True


def test_conflict_outcome_is_not_an_error_at_the_backend(store) -> None:
    store.create(LEDGER, b"x")
    replacement = StoredRecord(2, b"raw")
    assert store.backend.compare_and_swap("workflow-ledger", "release-42", 5, replacement) == (
        Conflict(1, 1)
    )
