"""Splitting one run across machines: ``--shard I/N`` owns the checks whose id hashes to
``I`` (stable across processes, selections and check order), and a slice of every
exploration budget, explored from a seed of its own; and the run's seed.

A sharded exploration check is named ``<id>#shard-I/N``: every check of a sharded run belongs to
exactly one shard, and ``report merge`` joins the slices back into ``<id>``.
"""

from __future__ import annotations

import hashlib
import os
import random
import re

import attrs

FIXED_SEED = 0
"""The seed of a derandomized run (the ``ci`` Hypothesis profile), so CI sees the same
traces every time."""

_SHARD = re.compile(r"^([1-9][0-9]*)/([1-9][0-9]*)$")
SLICE_MARK = "#shard-"
"""Not found in any other check id (model checks already use ``@`` for their profile)."""


@attrs.frozen
class Shard:
    index: int
    """1-based."""
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        match = _SHARD.match(text.strip())
        if match is None or not 1 <= int(match[1]) <= int(match[2]):
            raise ValueError(f"a shard is I/N with 1 <= I <= N; got {text!r}")
        return cls(int(match[1]), int(match[2]))

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def owns(self, check_id: str) -> bool:
        digest = hashlib.sha256(check_id.encode("utf-8")).digest()
        return int.from_bytes(digest[:8], "big") % self.count == self.index - 1

    def budget(self, total: int) -> int:
        """This shard's part of ``total``: the parts of all shards sum to ``total``."""
        return total * self.index // self.count - total * (self.index - 1) // self.count

    def slice_id(self, check_id: str) -> str:
        return f"{check_id}{SLICE_MARK}{self}"


def unsliced(check_id: str) -> str:
    return check_id.split(SLICE_MARK, 1)[0]


def area_seed(seed: int, area: str, shard: Shard | None) -> int:
    """The seed one exploration area (or one shard's slice of it) draws from."""
    label = f"{seed}:{area}:{shard or 'all'}"
    return int.from_bytes(hashlib.sha256(label.encode("utf-8")).digest()[:8], "big")


def derandomized() -> bool:
    """True under the ``ci`` Hypothesis profile (selected by ``HYPOTHESIS_PROFILE``, loaded
    by Hypothesis itself when ``CI`` is set, or already loaded, as the test suite does): such
    runs keep ``FIXED_SEED``."""
    if os.environ.get("HYPOTHESIS_PROFILE") == "ci":
        return True
    from hypothesis import settings

    current = settings.default
    return current is not None and bool(current.derandomize)


def choose_seed(explicit: int | None) -> int:
    """``--seed`` when given; else the fixed seed of a derandomized run; else a fresh one."""
    if explicit is not None:
        return explicit
    if derandomized():
        return FIXED_SEED
    return random.SystemRandom().randrange(1, 2**32)
