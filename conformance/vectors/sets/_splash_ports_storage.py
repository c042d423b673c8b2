"""Splash storage tests (``crates/splash-storage/src/lib.rs``) replayed as storage CAS traces.

Upstream's ``store()`` is an authenticated store over the volatile memory backend with one
active key, ``storage-v1`` of 32 bytes 7; ``record_key(name)`` is (``workflow-ledger``, name).
The trace format and its fault-injection steps are the storage topic's (docs/spec/storage.md
ST-32); the direct backend edits upstream makes (restoring old bytes, copying a record, setting
a floor or a fence) are those steps.
"""

from __future__ import annotations

from typing import Any

import attrs

from rescind.conformance.interpreters.storage_harness import run_trace
from rescind.conformance.vectors.format import VectorTest
from rescind.conformance.vectors.sets._splash_port_support import (
    OK,
    STORAGE,
    STORAGE_SQLITE,
    PortDisagrees,
    cite,
    words,
)
from rescind.conformance.vectors.sets._storage_cases import K09, KEYRING_V1, V1, V2
from rescind.conformance.vectors.sets.storage import (
    FENCE,
    LOAD,
    RESERVE,
    _op,
    create,
    fenced,
    replace,
    save,
    unfenced,
)

U64_MAX = 2**64 - 1
TAG = "storage_invalid_authentication_tag"
"""Upstream's InvalidAuthenticationTag of the store, prefixed as ST-30 names it."""


@attrs.frozen
class StoragePort:
    test: str
    rule: str
    comment: str
    steps: list[dict[str, Any]]
    intended: list[str]
    """Per step: ``ok`` or the error code upstream asserts (its variant name in snake_case)."""
    answers: dict[int, dict[str, Any]] = attrs.field(factory=dict)
    """By step index, what upstream asserts of the answer: the step's ``ok`` value or its
    error ``details`` (compared as a subset)."""
    path: str = STORAGE


PORTS = [
    StoragePort(
        "writes_authenticated_records_with_compare_and_swap",
        "ST-19",
        "upstream asserts: create gives revision 1 under storage-v1 and loads back; replace "
        "expecting 0 is write_conflict (expected 0, actual 1, floor 1); replace expecting 1 "
        "gives revision 2 and loads back",
        [create(b"first payload"), LOAD, replace(0, b"stale payload"),
         replace(1, b"second payload"), LOAD],
        [OK, OK, "write_conflict", OK, OK],
    ),
    StoragePort(
        "fenced_compare_and_swap_rejects_a_superseded_writer_after_a_conflict",
        "ST-28",
        "upstream asserts: a fenced create with fence 5 gives revision 1; a fenced write with "
        "fence 6 and a stale expected 0 is write_conflict yet leaves the fence at 6; an "
        "unfenced write is fencing_required (current 6); fence 5 is fencing_token_rejected; "
        "fence 6 writes revision 2",
        [fenced(None, b"first payload", 5), fenced(0, b"stale snapshot", 6), FENCE,
         unfenced(1, b"unfenced writer"), fenced(1, b"old writer", 5),
         fenced(1, b"current writer", 6), LOAD],
        [OK, "write_conflict", OK, "fencing_required", "fencing_token_rejected", OK, OK],
    ),
    StoragePort(
        "reserves_distinct_monotonic_fences_without_read_then_increment",
        "ST-24",
        "upstream asserts: reserving gives 1 then 2, the current fence is 2; with the fence "
        "set to 2^64-1 reserving is fencing_token_exhausted",
        [RESERVE, RESERVE, FENCE, _op("set_fence", fence=U64_MAX), RESERVE],
        [OK, OK, OK, OK, "fencing_token_exhausted"],
    ),
    StoragePort(
        "rejects_zero_fencing_tokens",
        "ST-25",
        "upstream asserts: a fenced create with fence 0 is invalid_fencing_token; the fence "
        "stays 0 and no record exists",
        [fenced(None, b"first payload", 0), FENCE, LOAD],
        [ "invalid_fencing_token", OK, OK],
    ),
    StoragePort(
        "rejects_tampering_and_record_transplants",
        "ST-16",
        "upstream asserts: release-43's record copied over release-42 is "
        "InvalidAuthenticationTag on load; so is release-42's own record with its payload "
        "field replaced by dGFtcGVyZWQ (code storage_invalid_authentication_tag, ST-30)",
        [create(b"first payload"), create(b"second payload", name="release-43"),
         save("first"), _op("copy_record", from_name="release-43"), LOAD,
         _op("restore", label="first"),
         _op("edit_field", field="payload", value_json='"dGFtcGVyZWQ"'), LOAD],
        [OK, OK, OK, OK, TAG, OK, OK, TAG],
    ),
    StoragePort(
        "rejects_a_record_rolled_back_below_its_trusted_floor",
        "ST-7",
        "upstream asserts: revision 1's bytes restored after a replace to revision 2 is "
        "rollback_detected (record revision 1, floor 2) on load",
        [create(b"first payload"), save("old"), replace(1, b"second payload"),
         _op("restore", label="old"), LOAD],
        [OK, OK, OK, OK, "rollback_detected"],
    ),
    StoragePort(
        "rotation_reads_old_records_and_rewrites_with_the_active_key",
        "ST-21",
        "upstream asserts: after rotating to storage-v2 (32 bytes 9) the storage-v1 record "
        "still loads; rewriting it gives revision 2 under storage-v2, which loads; then "
        "storage-v1 can be retired",
        [create(b"payload"), _op("rotate_to", key_id=V2, key_hex=K09), LOAD,
         replace(1, b"payload"), LOAD, _op("retire", key_id=V1)],
        [OK, OK, OK, OK, OK, OK],
    ),
    StoragePort(
        "enforces_payload_and_revision_floor_bounds",
        "ST-18",
        "upstream asserts: a 262,145-byte payload is payload_too_large; after a create, a floor "
        "forced to 0 makes load revision_floor_mismatch (record revision 1, floor 0)",
        [_op("create", payload_fill={"byte_hex": "00", "count": 262_145}), create(b"payload"),
         _op("set_floor", floor=0), LOAD],
        [ "payload_too_large", OK, OK, "revision_floor_mismatch"],
    ),
    StoragePort(
        "rejects_invalid_storage_identifiers",
        "ST-2",
        "upstream asserts: record name 'release 42' (namespace workflow-ledger) is "
        "invalid_record_name and key id 'Storage v1' is invalid_key_id; here the name reaches "
        "the rule through a load and the key id through a key rotation",
        [_op("load", name="release 42"),
         _op("rotate_to", key_id="Storage v1", key_hex=K09), LOAD],
        [ "invalid_record_name", "invalid_key_id", OK],
    ),
    StoragePort(
        "requires_none_to_create_an_absent_record",
        "ST-19",
        "upstream asserts (the anchored SQLite backend): a compare-and-swap expecting "
        "revision 0 of an absent record is a conflict (actual none, floor 0); here through "
        "the authenticated store over memory, where the conflict is write_conflict. Not "
        "pinned: the SQLite backend itself",
        [unfenced(0, b"invalid create expectation"), LOAD],
        [ "write_conflict", OK],
        {0: {"expected": 0, "actual": None, "revision_floor": 0}, 1: {"record": None}},
        STORAGE_SQLITE,
    ),
    StoragePort(
        "preserves_compare_and_swap_and_fencing_semantics",
        "ST-28",
        "upstream asserts (the anchored SQLite backend): the first fence is 1; an unfenced "
        "write is fencing_required (current 1); fence 1 creates (floor 1); a second create "
        "under fence 1 conflicts (actual 1, floor 1); the next fence is 2; fence 1 is then "
        "fencing_token_rejected (current 2, supplied 1); fence 2 writes revision 2. Here "
        "through the authenticated store over memory, which numbers the revisions itself. "
        "Not pinned: the SQLite backend itself",
        [RESERVE, unfenced(None, b"unfenced writer"), fenced(None, b"first payload", 1),
         fenced(None, b"stale payload", 1), RESERVE, fenced(1, b"stale writer", 1),
         fenced(1, b"current writer", 2)],
        [OK, "fencing_required", OK, "write_conflict", OK, "fencing_token_rejected", OK],
        {0: {"token": 1}, 1: {"current": 1}, 2: {"revision": 1},
         3: {"actual": 1, "revision_floor": 1}, 4: {"token": 2},
         5: {"current": 2, "supplied": 1}, 6: {"revision": 2}},
        STORAGE_SQLITE,
    ),
]  # fmt: skip


def _outcome(step: dict[str, Any]) -> str:
    return OK if "ok" in step else str(step["error"])


def _holds(port: StoragePort, expected: dict[str, Any]) -> None:
    outcomes = [_outcome(step) for step in expected["steps"]]
    if outcomes != port.intended:
        raise PortDisagrees(f"{port.test}: upstream asserts {port.intended}, reference {outcomes}")
    for index, asserted in port.answers.items():
        step = expected["steps"][index]
        actual = step.get("ok", step.get("details", {}))
        if any(key not in actual or actual[key] != value for key, value in asserted.items()):
            raise PortDisagrees(
                f"{port.test} step {index}: upstream {asserted}, reference {actual}"
            )


def vectors(prefix: str) -> list[VectorTest]:
    return vectors_of(prefix, PORTS)


def vectors_of(prefix: str, ports: list[StoragePort]) -> list[VectorTest]:
    built = []
    for port in ports:
        inp = {
            "keyring": KEYRING_V1,
            "active_key_id": V1,
            "namespace": "workflow-ledger",
            "name": "release-42",
            "steps": port.steps,
        }
        expected = run_trace(inp)
        _holds(port, expected)
        built.append(
            VectorTest(
                f"{prefix}.{words(port.test)}",
                port.rule,
                port.comment,
                inp,
                expected,
                "valid",
                provenance=cite(port.path, port.test),
            )
        )
    return built
