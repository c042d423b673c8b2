"""The backend contract: value objects, the ``Store`` protocol and its pure transition rules.

A backend keeps, per record key, three numbers-and-bytes: the stored record (revision and
envelope bytes, or nothing), the revision floor (the highest revision ever committed; the
rollback anchor) and the fence (the highest writer token ever admitted). Every backend applies
the same pure rules below to that state inside one atomic step; only where the state lives and
how the step is made atomic differ between backends.
"""

from __future__ import annotations

from typing import Protocol

import attrs

from rescind.reference.storage.errors import (
    FencingRequired,
    FencingTokenExhausted,
    FencingTokenRejected,
    InvalidFencingToken,
    InvalidReplacementRevision,
    InvalidRevision,
    StorageRevisionExhausted,
)
from rescind.reference.storage.tag import MAX_U64, is_u64


def _u64(_: object, __: object, value: int) -> None:
    if not is_u64(value):
        raise InvalidRevision()


@attrs.frozen
class StoredRecord:
    """What a backend holds for a live record: its revision and the envelope bytes."""

    revision: int = attrs.field(validator=_u64)
    data: bytes = attrs.field(repr=False)


@attrs.frozen
class Snapshot:
    """A record and its floor, read together in one consistent step."""

    record: StoredRecord | None
    floor: int = attrs.field(validator=_u64)

    @property
    def revision(self) -> int | None:
        return None if self.record is None else self.record.revision


@attrs.frozen
class Stored:
    """The replacement is committed and the floor was raised to ``floor`` in the same step."""

    floor: int


@attrs.frozen
class Conflict:
    """Nothing was written: the record is not at the expected revision (or not at its floor)."""

    actual: int | None
    floor: int


CasOutcome = Stored | Conflict


@attrs.frozen
class KeyState:
    """Everything a backend keeps for one record key."""

    record: StoredRecord | None = None
    floor: int = attrs.field(default=0, validator=_u64)
    fence: int = attrs.field(default=0, validator=_u64)

    @property
    def snapshot(self) -> Snapshot:
        return Snapshot(self.record, self.floor)


EMPTY_STATE = KeyState()


class Store(Protocol):
    """A rollback-protected, fenced record backend (upstream ``FencedRollbackProtectedStore``).

    ``fence=None`` in ``compare_and_swap`` is the plain, unfenced write; it is refused once the
    key has a fence. Backends validate ``namespace`` and ``name`` as record-key tokens.
    """

    def load(self, namespace: str, name: str) -> Snapshot: ...

    def compare_and_swap(
        self,
        namespace: str,
        name: str,
        expected: int | None,
        replacement: StoredRecord,
        fence: int | None = None,
    ) -> CasOutcome: ...

    def reserve_fence(self, namespace: str, name: str) -> int: ...

    def establish_fence(self, namespace: str, name: str, token: int) -> None: ...

    def current_fence(self, namespace: str, name: str) -> int: ...


class FaultInjectable(Protocol):
    """Test and fault-injection access to a backend's raw per-key state.

    ``inject_state`` overwrites record, floor and fence with no check at all: it stands for a
    restored backup, a tampering administrator or a broken disk, never for a normal write.
    """

    def raw_state(self, namespace: str, name: str) -> KeyState: ...

    def inject_state(self, namespace: str, name: str, state: KeyState) -> None: ...


# --- the pure rules every backend applies atomically -----------------------------------------


def _require_token(token: object) -> int:
    if not is_u64(token) or token == 0:
        raise InvalidFencingToken()
    assert isinstance(token, int)
    return token


def plan_reserve(state: KeyState) -> tuple[KeyState, int]:
    """The next fence is current + 1, starting at 1; it never wraps."""
    if state.fence == MAX_U64:
        raise FencingTokenExhausted(current=state.fence)
    token = state.fence + 1
    return attrs.evolve(state, fence=token), token


def plan_establish(state: KeyState, token: int) -> KeyState | None:
    """Raise the fence to ``token``; ``None`` means nothing changes (token equals the fence)."""
    supplied = _require_token(token)
    if supplied < state.fence:
        raise FencingTokenRejected(current=state.fence, supplied=supplied)
    if supplied == state.fence:
        return None
    return attrs.evolve(state, fence=supplied)


def plan_compare_and_swap(
    state: KeyState,
    expected: int | None,
    replacement: StoredRecord,
    fence: int | None,
) -> tuple[KeyState | None, CasOutcome]:
    """Decide one compare-and-swap. Returns the new state (``None``: nothing to write).

    Order: the fence (required once set; exact match when supplied), then the revision
    comparison (reported as an outcome, not an error), then the replacement revision.
    """
    if expected is not None and not is_u64(expected):
        raise InvalidRevision()
    if fence is None:
        if state.fence != 0:
            raise FencingRequired(current=state.fence)
    else:
        supplied = _require_token(fence)
        if supplied != state.fence:
            raise FencingTokenRejected(current=state.fence, supplied=supplied)
    actual = None if state.record is None else state.record.revision
    # A live record must sit exactly at its floor; anything else is reported, never repaired.
    if actual != expected or (actual or 0) != state.floor:
        return None, Conflict(actual=actual, floor=state.floor)
    previous = expected or 0
    if previous == MAX_U64:
        raise StorageRevisionExhausted()
    if replacement.revision != previous + 1:
        raise InvalidReplacementRevision(expected=previous + 1, actual=replacement.revision)
    new_state = attrs.evolve(state, record=replacement, floor=previous + 1)
    return new_state, Stored(floor=previous + 1)
