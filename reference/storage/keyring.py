"""The storage keyring: one active write key plus keys kept only for reading old records.

A keyring is an immutable value; every change returns a new keyring. Rotation keeps the old
key readable, so records sealed before the rotation still open; rewriting such a record seals
it under the new active key, after which the old key can be retired.
"""

from __future__ import annotations

import attrs

from rescind.reference.storage.errors import (
    ActiveKeyCannotBeRetired,
    DuplicateKeyId,
    UnknownKeyId,
)
from rescind.reference.storage.tag import StorageKey, require_key_id

KeyEntry = tuple[str, StorageKey]


def _check_entries(instance: Keyring, _: object, entries: tuple[KeyEntry, ...]) -> None:
    ids = [key_id for key_id, _key in entries]
    for key_id in ids:
        require_key_id(key_id)
    if len(set(ids)) != len(ids):
        raise DuplicateKeyId(key_id=next(i for i in ids if ids.count(i) > 1))
    require_key_id(instance.active_key_id)
    if instance.active_key_id not in ids:
        raise UnknownKeyId(key_id=instance.active_key_id)


def _sorted_entries(entries: tuple[KeyEntry, ...]) -> tuple[KeyEntry, ...]:
    # Sorted so that two keyrings holding the same keys compare equal.
    return tuple(sorted(entries, key=lambda entry: entry[0]))


@attrs.frozen
class Keyring:
    active_key_id: str
    entries: tuple[KeyEntry, ...] = attrs.field(converter=_sorted_entries, validator=_check_entries)

    @classmethod
    def single(cls, key_id: str, key: StorageKey) -> Keyring:
        """A keyring whose only key is the active one."""
        return cls(active_key_id=key_id, entries=((key_id, key),))

    @property
    def key_ids(self) -> tuple[str, ...]:
        return tuple(key_id for key_id, _key in self.entries)

    @property
    def active_key(self) -> StorageKey:
        found = self.verification_key(self.active_key_id)
        if found is None:  # the validator makes this impossible
            raise UnknownKeyId(key_id=self.active_key_id)
        return found

    def verification_key(self, key_id: str) -> StorageKey | None:
        for entry_id, key in self.entries:
            if entry_id == key_id:
                return key
        return None

    def add_read_key(self, key_id: str, key: StorageKey) -> Keyring:
        """A keyring that can also open records sealed under ``key_id``."""
        require_key_id(key_id)
        if key_id in self.key_ids:
            raise DuplicateKeyId(key_id=key_id)
        return attrs.evolve(self, entries=(*self.entries, (key_id, key)))

    def rotate_to(self, key_id: str, key: StorageKey) -> Keyring:
        """Add ``key`` and make it the write key; the previous key stays readable."""
        added = self.add_read_key(key_id, key)
        return attrs.evolve(added, active_key_id=key_id)

    def retire(self, key_id: str) -> Keyring:
        """Drop a read-only key. The active key cannot go; it is checked before existence."""
        require_key_id(key_id)
        if key_id == self.active_key_id:
            raise ActiveKeyCannotBeRetired(key_id=key_id)
        if key_id not in self.key_ids:
            raise UnknownKeyId(key_id=key_id)
        remaining = tuple(entry for entry in self.entries if entry[0] != key_id)
        return attrs.evolve(self, entries=remaining)
