"""An in-process backend: the pure rules over a dictionary. For tests and vectors only.

It loses everything when the process ends, so it protects against nothing in production; it
exists to show the contract with no I/O in the way.
"""

from __future__ import annotations

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
from rescind.reference.storage.tag import require_name, require_namespace

_Key = tuple[str, str]


def _key(namespace: str, name: str) -> _Key:
    return require_namespace(namespace), require_name(name)


class MemoryBackend:
    """Implements ``Store`` and ``FaultInjectable``."""

    def __init__(self) -> None:
        self._states: dict[_Key, KeyState] = {}

    def _get(self, key: _Key) -> KeyState:
        return self._states.get(key, EMPTY_STATE)

    def load(self, namespace: str, name: str) -> Snapshot:
        return self._get(_key(namespace, name)).snapshot

    def compare_and_swap(
        self,
        namespace: str,
        name: str,
        expected: int | None,
        replacement: StoredRecord,
        fence: int | None = None,
    ) -> CasOutcome:
        key = _key(namespace, name)
        new_state, outcome = plan_compare_and_swap(self._get(key), expected, replacement, fence)
        if new_state is not None:
            self._states[key] = new_state
        return outcome

    def reserve_fence(self, namespace: str, name: str) -> int:
        key = _key(namespace, name)
        new_state, token = plan_reserve(self._get(key))
        self._states[key] = new_state
        return token

    def establish_fence(self, namespace: str, name: str, token: int) -> None:
        key = _key(namespace, name)
        new_state = plan_establish(self._get(key), token)
        if new_state is not None:
            self._states[key] = new_state

    def current_fence(self, namespace: str, name: str) -> int:
        return self._get(_key(namespace, name)).fence

    def raw_state(self, namespace: str, name: str) -> KeyState:
        return self._get(_key(namespace, name))

    def inject_state(self, namespace: str, name: str, state: KeyState) -> None:
        self._states[_key(namespace, name)] = state
