"""Single-bit flips of authenticated objects, a sample of benchmarks/bitflip_campaign.py (which
flips every bit): a flipped frame or storage envelope is refused with a typed error or read
with the original meaning, never accepted with another. A SQLite file holding a journal is
flipped at a few hundred positions: no flip forges a journal, and the flips that make it read
as absent are only those the campaign reports (the record's key cell)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from benchmarks.hardening import bitflips
from rescind.reference.frames import SessionRole
from rescind.reference.storage.tag import RecordKey

FRAMES = bitflips.frame_objects()
ENVELOPES = bitflips.envelope_objects()


def _sample(length: int, count: int, seed: int) -> list[int]:
    bits = length * 8
    return sorted(random.Random(seed).sample(range(bits), min(count, bits)))


def test_every_message_kind_that_can_be_sealed_is_flipped() -> None:
    kinds = {name for name, _, _ in FRAMES}
    assert {
        "frame:open_session",
        "frame:dispatch_operation",
        "frame:compensate_operation",
        "frame:operation_result",
    } <= kinds


@pytest.mark.parametrize(("name", "frame", "role"), FRAMES, ids=[name for name, _, _ in FRAMES])
def test_frame_flips_are_refused(name: str, frame: bytes, role: SessionRole) -> None:
    tally = bitflips.frame_flips(name, frame, role, iter(_sample(len(frame), 300, 1)))
    assert tally.forged == 0 and tally.untyped == 0, tally.examples
    assert tally.refused > 0


@pytest.mark.parametrize(
    ("name", "key", "revision", "envelope"), ENVELOPES, ids=[name for name, *_ in ENVELOPES]
)
def test_envelope_flips_are_refused(
    name: str, key: RecordKey, revision: int, envelope: bytes
) -> None:
    tally = bitflips.envelope_flips(
        name, key, revision, envelope, iter(_sample(len(envelope), 300, 2))
    )
    assert tally.forged == 0 and tally.untyped == 0, tally.examples
    assert tally.refused > 0


def test_the_classifier_sees_a_forgery() -> None:
    """An opener that ignores the flip and returns another meaning is counted as forged."""
    assert bitflips._classify(lambda: "other", "original") == "forged"
    assert bitflips._classify(lambda: "original", "original") == "same_meaning"


def test_sqlite_file_flips_never_forge_a_journal(tmp_path: Path) -> None:
    path, scope = bitflips.sqlite_journal(tmp_path)
    data = path.read_bytes()
    size = len(data)
    # The cell holding the record's key (namespace and name): found by its bytes, since the
    # page it lands on depends on the store's other tables.
    cell = data.find(bitflips.JOURNAL_KEY.namespace.encode())
    assert cell > 0, "the record key's cell was not found in the file"
    tail = [bit for bit in range((cell - 64) * 8, (cell + 96) * 8, 3)]
    bits = sorted({*_sample(size, 200, 3), *tail})
    tally, absent = bitflips.sqlite_flips(path, scope, iter(bits))
    assert tally.forged == 0 and tally.untyped == 0, tally.examples
    assert tally.flips == len(bits)
    # The silent-absence finding: a flip in the stored key makes the row unreachable.
    assert absent, "expected some flips in the key cell to read as absent"
    pages = bitflips.sqlite_regions(path, absent)
    assert set(pages) == {2}
