"""Runs one ``storage`` vector input against the reference: tag, open and trace cases.

The vector module uses it to compute expected values; the tests reuse it to replay every trace
against the SQLite backend. Inputs are plain JSON (hex, text segments, step lists) so that an
implementation in any language can read the same files.

Byte inputs: a payload is ``payload_hex`` or ``payload_fill`` (``{"byte_hex", "count"}``). A
stored record is a list of segments, each a string (its UTF-8 bytes), ``{"hex": ...}`` or
``{"repeat": text, "count": n}``, so that size-bound records stay small in the file.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

import attrs

from rescind.conformance.harness.limits import expand_bytes
from rescind.reference.errors import RescindError
from rescind.reference.storage.authenticated import AuthenticatedStore
from rescind.reference.storage.envelope import (
    AuthenticatedRecord,
    encode_payload,
    open_snapshot,
    seal_active,
)
from rescind.reference.storage.keyring import Keyring
from rescind.reference.storage.memory import MemoryBackend
from rescind.reference.storage.store import (
    FaultInjectable,
    KeyState,
    Snapshot,
    Store,
    StoredRecord,
)
from rescind.reference.storage.tag import RecordKey, StorageKey, storage_record_tag

# Error details that mirror fields of the upstream variants; anything else is internal.
_PUBLIC_DETAILS = (
    "actual",
    "maximum",
    "record_revision",
    "revision_floor",
    "backend",
    "envelope",
    "expected",
    "current",
    "supplied",
)
_SHORT_PAYLOAD = 1024
_SHORT_RECORD = 4096


class Backend(Store, FaultInjectable, Protocol):
    """A backend the traces can drive and tamper with (memory and SQLite both are)."""


def payload_of(spec: Mapping[str, Any]) -> bytes:
    if "payload_fill" in spec:
        fill = spec["payload_fill"]
        return expand_bytes(bytes.fromhex(fill["byte_hex"]), fill["count"], "payload_fill")
    return bytes.fromhex(spec["payload_hex"])


def record_of(segments: Sequence[Any] | None) -> bytes | None:
    if segments is None:
        return None
    parts = []
    for segment in segments:
        if isinstance(segment, str):
            parts.append(segment.encode("utf-8"))
        elif "hex" in segment:
            parts.append(bytes.fromhex(segment["hex"]))
        else:
            parts.append(expand_bytes(segment["repeat"].encode("utf-8"), segment["count"]))
    return b"".join(parts)


def keyring_of(spec: Mapping[str, Any]) -> Keyring:
    entries = tuple(
        (entry["key_id"], StorageKey(bytes.fromhex(entry["key_hex"]))) for entry in spec["keyring"]
    )
    return Keyring(active_key_id=spec["active_key_id"], entries=entries)


def error_result(error: RescindError) -> dict[str, Any]:
    details = {k: v for k, v in error.details.items() if k in _PUBLIC_DETAILS}
    result: dict[str, Any] = {"error": error.code}
    if details:
        result["details"] = details
    return result


def record_result(record: AuthenticatedRecord | None) -> dict[str, Any]:
    if record is None:
        return {"record": None}
    body: dict[str, Any] = {
        "revision": record.revision,
        "key_id": record.key_id,
        "payload_length": len(record.payload),
        "payload_sha256": hashlib.sha256(record.payload).hexdigest(),
    }
    if len(record.payload) <= _SHORT_PAYLOAD:
        body["payload_hex"] = record.payload.hex()
    return {"record": body}


# --- tag and open cases -----------------------------------------------------------------------


def run_tag(spec: Mapping[str, Any]) -> dict[str, Any]:
    payload = payload_of(spec)
    try:
        tag = storage_record_tag(
            bytes.fromhex(spec["key_hex"]),
            spec["namespace"],
            spec["name"],
            spec["key_id"],
            spec["revision"],
            payload,
        )
    except RescindError as error:
        return error_result(error)
    result: dict[str, Any] = {"auth_tag": tag.hex()}
    if len(payload) <= _SHORT_PAYLOAD:
        result["payload_field"] = encode_payload(payload)
        result["envelope"] = (
            f'{{"format_version":1,"key_id":"{spec["key_id"]}","revision":{spec["revision"]},'
            f'"payload":"{result["payload_field"]}","auth_tag":"{result["auth_tag"]}"}}'
        )
    return result


def run_open(spec: Mapping[str, Any]) -> dict[str, Any]:
    data = record_of(spec["record"])
    record = None if data is None else StoredRecord(revision=spec["backend_revision"], data=data)
    try:
        key = RecordKey(spec["namespace"], spec["name"])
        opened = open_snapshot(keyring_of(spec), key, Snapshot(record, spec["floor"]))
    except RescindError as error:
        return error_result(error)
    return record_result(opened)


# --- traces -----------------------------------------------------------------------------------


@attrs.define
class _Trace:
    store: AuthenticatedStore
    backend: Backend
    default: RecordKey
    saved: dict[str, StoredRecord | None] = attrs.field(factory=dict)

    def key(self, step: Mapping[str, Any]) -> RecordKey:
        return RecordKey(
            step.get("namespace", self.default.namespace), step.get("name", self.default.name)
        )

    def state(self, key: RecordKey) -> KeyState:
        state: KeyState = self.backend.raw_state(key.namespace, key.name)
        return state

    def put(self, key: RecordKey, **changes: Any) -> dict[str, Any]:
        self.backend.inject_state(key.namespace, key.name, attrs.evolve(self.state(key), **changes))
        return {}


def _inspect(trace: _Trace, key: RecordKey) -> dict[str, Any]:
    state = trace.state(key)
    body: dict[str, Any] = {
        "record_revision": None if state.record is None else state.record.revision,
        "floor": state.floor,
        "fence": state.fence,
    }
    if state.record is not None:
        data = state.record.data
        if len(data) <= _SHORT_RECORD and data.isascii():
            body["record_text"] = data.decode("ascii")
        else:
            body["record_length"] = len(data)
            body["record_sha256"] = hashlib.sha256(data).hexdigest()
    return body


def _edit_field(trace: _Trace, key: RecordKey, step: Mapping[str, Any]) -> dict[str, Any]:
    record = trace.state(key).record
    assert record is not None, "edit_field needs a stored record"
    document = json.loads(record.data)
    document[step["field"]] = json.loads(step["value_json"])
    data = json.dumps(document, separators=(",", ":")).encode("utf-8")
    return trace.put(key, record=StoredRecord(revision=record.revision, data=data))


def _plant(trace: _Trace, key: RecordKey, step: Mapping[str, Any]) -> dict[str, Any]:
    revision = step["revision"]
    envelope = seal_active(trace.store.keyring, key, revision, payload_of(step))
    record = StoredRecord(revision=revision, data=envelope.encode())
    return trace.put(key, record=record, floor=revision)


def _keyring_result(keyring: Keyring) -> dict[str, Any]:
    return {"active_key_id": keyring.active_key_id, "key_ids": list(keyring.key_ids)}


def _set_keyring(trace: _Trace, keyring: Keyring) -> dict[str, Any]:
    trace.store.keyring = keyring
    return _keyring_result(keyring)


def _written(record: AuthenticatedRecord) -> dict[str, Any]:
    return {"revision": record.revision, "key_id": record.key_id}


def _cas(trace: _Trace, key: RecordKey, step: Mapping[str, Any]) -> dict[str, Any]:
    if "fence" in step:
        record = trace.store.compare_and_swap_fenced(
            key, step["expected"], payload_of(step), step["fence"]
        )
    else:
        record = trace.store.compare_and_swap(key, step["expected"], payload_of(step))
    return _written(record)


def _copy_from(trace: _Trace, key: RecordKey, step: Mapping[str, Any]) -> dict[str, Any]:
    source = RecordKey(key.namespace, step["from_name"])
    return trace.put(key, record=trace.state(source).record)


def _save(trace: _Trace, key: RecordKey, step: Mapping[str, Any]) -> dict[str, Any]:
    trace.saved[step["label"]] = trace.state(key).record
    return {}


def _new_key(step: Mapping[str, Any]) -> StorageKey:
    return StorageKey(bytes.fromhex(step["key_hex"]))


def _set_record(trace: _Trace, key: RecordKey, step: Mapping[str, Any]) -> dict[str, Any]:
    """Put raw bytes at a backend revision; ``from_label`` reuses a saved record's bytes."""
    if "from_label" in step:
        saved = trace.saved[step["from_label"]]
        assert saved is not None, "set_record from an empty saved record"
        data = saved.data
    else:
        data = record_of(step["record"]) or b""
    return trace.put(key, record=StoredRecord(revision=step["revision"], data=data))


def _establish(trace: _Trace, key: RecordKey, step: Mapping[str, Any]) -> dict[str, Any]:
    trace.backend.establish_fence(key.namespace, key.name, step["token"])
    return {}


_Op = Callable[[_Trace, RecordKey, Mapping[str, Any]], dict[str, Any]]

_OPS: dict[str, _Op] = {
    "create": lambda t, k, s: _written(t.store.create(k, payload_of(s))),
    "replace": lambda t, k, s: _written(t.store.replace(k, s["expected"], payload_of(s))),
    "cas": _cas,
    "load": lambda t, k, s: record_result(t.store.load(k)),
    "reserve_fence": lambda t, k, s: {"token": t.store.reserve_fence(k)},
    "current_fence": lambda t, k, s: {"token": t.store.current_fence(k)},
    "establish_fence": _establish,
    "inspect": lambda t, k, s: _inspect(t, k),
    "save": _save,
    "restore": lambda t, k, s: t.put(k, record=t.saved[s["label"]]),
    "copy_record": _copy_from,
    "delete_record": lambda t, k, s: t.put(k, record=None),
    "set_record": _set_record,
    "set_floor": lambda t, k, s: t.put(k, floor=s["floor"]),
    "set_fence": lambda t, k, s: t.put(k, fence=s["fence"]),
    "edit_field": _edit_field,
    "plant": _plant,
    "rotate_to": lambda t, k, s: _set_keyring(
        t, t.store.keyring.rotate_to(s["key_id"], _new_key(s))
    ),
    "add_read_key": lambda t, k, s: _set_keyring(
        t, t.store.keyring.add_read_key(s["key_id"], _new_key(s))
    ),
    "retire": lambda t, k, s: _set_keyring(t, t.store.keyring.retire(s["key_id"])),
}

TRACE_OPS = tuple(sorted(_OPS))


def run_trace(spec: Mapping[str, Any], backend: Backend | None = None) -> dict[str, Any]:
    """Run every step in order; each step yields ``{"ok": ...}`` or an error result."""
    chosen = MemoryBackend() if backend is None else backend
    trace = _Trace(
        store=AuthenticatedStore(chosen, keyring_of(spec)),
        backend=chosen,
        default=RecordKey(spec["namespace"], spec["name"]),
    )
    results = []
    for step in spec["steps"]:
        try:
            results.append({"ok": _OPS[step["op"]](trace, trace.key(step), step)})
        except RescindError as error:
            results.append(error_result(error))
    return {"steps": results}
