"""Random interleavings of reserve, establish, writes, tampering and repair, run on the memory
and SQLite backends side by side.

Checked after every step: both backends give the same result and hold the same bytes; a write
that succeeds moves the revision up by exactly one and is made with the newest token; a refused
call leaves record and floor alone (and the fence too, except the token a fenced write
establishes first).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

import attrs
from hypothesis import event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from rescind.reference.errors import RescindError
from rescind.reference.storage.authenticated import AuthenticatedStore
from rescind.reference.storage.keyring import Keyring
from rescind.reference.storage.memory import MemoryBackend
from rescind.reference.storage.store import KeyState, StoredRecord
from rescind.reference.storage.tag import RecordKey
from rescind.stores.sqlite import SqliteBackend

from .conftest import KEY_07

NAMES = ("release-42", "release-43")
KEYS = {name: RecordKey("workflow-ledger", name) for name in NAMES}
names = st.sampled_from(NAMES)


def _outcome(call) -> tuple[str, Any]:
    try:
        return "ok", call()
    except RescindError as error:
        return error.code, (dict(error.details), error.definite)


class StorageMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.directory = Path(tempfile.mkdtemp(prefix="rescind-storage-"))
        # NORMAL only drops the per-commit fsync; atomicity and locking are unchanged.
        self.sqlite = SqliteBackend(self.directory / "m.sqlite3", synchronous="NORMAL")
        ring = Keyring.single("storage-v1", KEY_07)
        self.stores = (
            AuthenticatedStore(MemoryBackend(), ring),
            AuthenticatedStore(self.sqlite, ring),
        )
        self.highest = dict.fromkeys(NAMES, 0)  # newest token ever admitted, per key
        self.good: dict[str, KeyState] = dict.fromkeys(NAMES, KeyState())
        self.payload: dict[str, bytes | None] = dict.fromkeys(NAMES, None)
        self.old_records: list[StoredRecord] = []

    def teardown(self) -> None:
        self.sqlite.close()
        shutil.rmtree(self.directory, ignore_errors=True)

    # --- helpers --------------------------------------------------------------------------------

    def raw(self, name: str) -> KeyState:
        key = KEYS[name]
        return self.stores[0].backend.raw_state(key.namespace, key.name)  # type: ignore[attr-defined]

    def inject(self, name: str, state: KeyState) -> None:
        key = KEYS[name]
        for store in self.stores:
            store.backend.inject_state(key.namespace, key.name, state)  # type: ignore[attr-defined]

    def run(self, name: str, label: str, call) -> tuple[KeyState, tuple[str, Any], KeyState]:
        before = self.raw(name)
        outcomes = [_outcome(lambda store=store: call(store)) for store in self.stores]
        assert outcomes[0] == outcomes[1], outcomes
        event(f"{label}: {outcomes[0][0]}")
        return before, outcomes[0], self.raw(name)

    # --- rules ----------------------------------------------------------------------------------

    @rule(name=names)
    def reserve(self, name: str) -> None:
        before, (status, token), after = self.run(
            name, "reserve", lambda s: s.reserve_fence(KEYS[name])
        )
        if status == "ok":
            assert token == before.fence + 1 == after.fence
            assert (after.record, after.floor) == (before.record, before.floor)
            self.highest[name] = token
        else:
            assert after == before

    @rule(name=names, token=st.integers(min_value=0, max_value=12))
    def establish(self, name: str, token: int) -> None:
        key = KEYS[name]
        before, (status, _), after = self.run(
            name, "establish", lambda s: s.backend.establish_fence(key.namespace, key.name, token)
        )
        if status == "ok":
            assert after == attrs.evolve(before, fence=max(before.fence, token))
            self.highest[name] = max(self.highest[name], token)
        else:
            assert status in ("invalid_fencing_token", "fencing_token_rejected")
            assert after == before

    @rule(
        name=names,
        shift=st.sampled_from([None, -1, 0, 1]),
        payload=st.binary(max_size=12),
        fenced=st.booleans(),
        token_shift=st.integers(min_value=-2, max_value=2),
    )
    def write(self, name: str, shift, payload: bytes, fenced: bool, token_shift: int) -> None:
        current = self.raw(name)
        revision = None if current.record is None else current.record.revision
        expected = None if shift is None else max(0, (revision or 0) + shift)
        token = max(0, current.fence + token_shift) if fenced else None
        self.check_write(name, expected, payload, token)

    @rule(name=names, payload=st.binary(max_size=12))
    def write_as_holder(self, name: str, payload: bytes) -> None:
        """The current holder writes on top of what it reads: succeeds unless tampered with."""
        current = self.raw(name)
        expected = None if current.record is None else current.record.revision
        self.check_write(name, expected, payload, current.fence or None)

    def check_write(self, name: str, expected, payload: bytes, token: int | None) -> None:
        key = KEYS[name]

        def call(store: AuthenticatedStore):
            if token is not None:
                return store.compare_and_swap_fenced(key, expected, payload, token)
            return store.compare_and_swap(key, expected, payload)

        label = "unfenced write" if token is None else "fenced write"
        before, (status, result), after = self.run(name, label, call)
        if status == "ok":
            assert result.revision == (expected or 0) + 1 == after.floor
            assert before.record is None or result.revision == before.record.revision + 1
            assert after.record is not None and after.record.revision == result.revision
            if token is not None:
                assert token == after.fence >= self.highest[name]  # never a superseded token
            else:
                assert before.fence == 0
            self.highest[name] = after.fence
            self.good[name] = attrs.evolve(after, fence=0)
            self.payload[name] = payload
            return
        assert (after.record, after.floor) == (before.record, before.floor), status
        established = token is not None and token != 0 and token >= before.fence
        assert after.fence == (max(before.fence, token or 0) if established else before.fence)
        self.highest[name] = max(self.highest[name], after.fence)

    @rule(name=names)
    def load(self, name: str) -> None:
        before, (status, record), after = self.run(name, "load", lambda s: s.load(KEYS[name]))
        assert after == before
        untouched = (before.record, before.floor) == (self.good[name].record, self.good[name].floor)
        if untouched:
            assert status == "ok"
            assert (None if record is None else record.payload) == self.payload[name]

    @rule(name=names)
    def remember(self, name: str) -> None:
        record = self.raw(name).record
        if record is not None:
            self.old_records.append(record)

    @rule(name=names, kind=st.sampled_from(["rollback", "flip", "floor", "delete", "transplant"]))
    def tamper(self, name: str, kind: str) -> None:
        state = self.raw(name)
        if kind == "rollback" and self.old_records:
            state = attrs.evolve(state, record=self.old_records[0])
        elif kind == "flip" and state.record is not None:
            data = bytearray(state.record.data)
            data[len(data) // 2] ^= 0x01
            state = attrs.evolve(state, record=StoredRecord(state.record.revision, bytes(data)))
        elif kind == "floor":
            state = attrs.evolve(state, floor=0 if state.floor else 1)
        elif kind == "delete":
            state = attrs.evolve(state, record=None)
        elif kind == "transplant":
            other = self.raw(NAMES[1 - NAMES.index(name)])
            state = attrs.evolve(state, record=other.record, floor=other.floor)
        self.inject(name, state)

    @rule(name=names)
    def repair(self, name: str) -> None:
        fence = self.raw(name).fence
        self.inject(name, attrs.evolve(self.good[name], fence=fence))

    # --- invariants -------------------------------------------------------------------------------

    @invariant()
    def backends_hold_the_same_bytes(self) -> None:
        for name in NAMES:
            key = KEYS[name]
            assert self.sqlite.raw_state(key.namespace, key.name) == self.raw(name)

    @invariant()
    def fence_never_goes_back(self) -> None:
        for name in NAMES:
            assert self.raw(name).fence == self.highest[name]


StorageMachine.TestCase.settings = settings(settings.default, stateful_step_count=30)
TestStorageMachine = StorageMachine.TestCase
