"""Pairwise error-precedence vectors for opening a stored record (docs/spec/precedence.md
EP-14): the genuine ledger envelope of ``_storage_cases`` with two of its checks broken; and
traces whose last write breaks two checks of EP-23 or EP-24, or names a record key with both
parts invalid (EP-25)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from rescind.conformance.cases import CaseRow
from rescind.conformance.interpreters.storage_harness import run_open, run_trace
from rescind.conformance.precedence import BY_NAME
from rescind.conformance.provenance import splash_code
from rescind.conformance.vectors.sets._precedence import Faults, last_step, pair_rows
from rescind.conformance.vectors.sets._storage_cases import (
    FIRST,
    K09,
    KEYRING_V1,
    LEDGER_NAME,
    LEDGER_NS,
    V1,
    V2,
    pairs,
)
from rescind.reference.errors import error_registry
from rescind.reference.storage.tag import MAX_PAYLOAD_BYTES, MAX_RECORD_BYTES, MAX_U64

_SPLASH_STORAGE = "crates/splash-storage/src/lib.rs"
_FIRST_HEX = FIRST.hex()
_BIG_PAYLOAD = ({"repeat": "YWFh", "count": 87_381}, "YWFh")  # 262,146 bytes of `a`


def _base() -> dict[str, Any]:
    return {"fields": dict(pairs()), "floor": 1, "pad": False, "big": False, "padding": False}


def _record(document: Mapping[str, Any]) -> list[Any]:
    """The envelope text as record segments: the payload replaced by a long one, a `=` added,
    spaces appended past the record bound, as the faults asked."""
    fields = dict(document["fields"])
    payload = fields.pop("payload")
    parts: list[Any] = []
    head = "{" + "".join(f'"{name}":{value},' for name, value in list(fields.items())[:3])
    tail_fields = list(fields.items())[3:]
    if document["big"]:
        parts += [head + '"payload":"', _BIG_PAYLOAD[0], _BIG_PAYLOAD[1]]
    else:
        parts += [head + '"payload":' + payload[:-1]]
    parts[-1] += ("=" if document["padding"] else "") + '"'
    parts[-1] += "".join(f',"{name}":{value}' for name, value in tail_fields) + "}"
    if document["pad"]:
        size = sum(
            part["count"] * len(part["repeat"]) if isinstance(part, Mapping) else len(part)
            for part in parts
        )
        parts.append({"repeat": " ", "count": MAX_RECORD_BYTES + 1 - size})
    return parts


def _input(document: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "keyring": KEYRING_V1,
        "active_key_id": V1,
        "namespace": LEDGER_NS,
        "name": LEDGER_NAME,
        "backend_revision": 1,
        "floor": document["floor"],
        "record": _record(document),
    }


def _opened(case: Mapping[str, Any]) -> Any:
    result = run_open(case)
    if "error" in result:
        raise error_registry()[result["error"]](**result.get("details", {}))
    return result


def _field(name: str, value: str) -> Any:
    def fault(document: dict[str, Any], _: int) -> None:
        document["fields"][name] = value

    return fault


def _other_revision(document: dict[str, Any], _: int) -> None:
    if document["fields"]["revision"] != "0":  # a zero revision already differs from 1
        document["fields"]["revision"] = "2"


def _flag(name: str) -> Any:
    def fault(document: dict[str, Any], _: int) -> None:
        document[name] = True

    return fault


def _flipped_tag(document: dict[str, Any], _: int) -> None:
    tag = document["fields"]["auth_tag"]
    last = "0" if tag[-2] != "0" else "1"
    document["fields"]["auth_tag"] = tag[:-2] + last + '"'


def precedence_rows() -> list[CaseRow]:
    return pair_rows(
        Faults(
            "storage.open",
            "open",
            _base,
            {
                "floor": lambda document, _: document.update(floor=2),
                "record_size": _flag("pad"),
                "envelope": lambda document, _: document["fields"].update(extra="0"),
                "format": _field("format_version", "2"),
                "revision_zero": _field("revision", "0"),
                "revision_match": _other_revision,
                "key_id": _field("key_id", '"Storage-V1"'),
                "payload_base64": _flag("padding"),
                "payload_size": _flag("big"),
                "tag_format": lambda document, _: document["fields"].update(
                    auth_tag=document["fields"]["auth_tag"].upper()
                ),
                "key_known": _field("key_id", '"storage-v9"'),
                "tag": _flipped_tag,
            },
            _input,
            _opened,
            splash_code(
                "crates/splash-storage/src/lib.rs",
                "validate_revision_pair",
                "AuthenticatedStore::open_snapshot",
                note="the order of the checks in these functions; read, not run (EP-14)",
            ),
        )
    )


# -- writes (EP-23, EP-24) and record keys (EP-25): traces on a fresh backend ---------------


def _write_base(fenced: bool) -> Callable[[], dict[str, Any]]:
    def base() -> dict[str, Any]:
        return {
            "fenced": fenced,
            "planted_max": False,
            "retired": False,
            "conflict": False,
            "big": False,
            "reserves": 1 if fenced else 0,
            "token": 1,
        }

    return base


def _write_steps(document: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A record at revision 1 (or planted at 2^64-1), maybe its key retired, maybe fences
    reserved, then the write under test, expecting the current revision unless it conflicts."""
    revision = MAX_U64 if document["planted_max"] else 1
    steps: list[dict[str, Any]] = [{"op": "create", "payload_hex": _FIRST_HEX}]
    if document["planted_max"]:
        steps.append({"op": "plant", "revision": MAX_U64, "payload_hex": _FIRST_HEX})
    if document["retired"]:
        steps += [
            {"op": "rotate_to", "key_id": V2, "key_hex": K09},
            {"op": "retire", "key_id": V1},
        ]
    steps += [{"op": "reserve_fence"}] * document["reserves"]
    payload: dict[str, Any] = (
        {"payload_fill": {"byte_hex": "61", "count": MAX_PAYLOAD_BYTES + 1}}
        if document["big"]
        else {"payload_hex": b"second payload".hex()}
    )
    write: dict[str, Any] = {
        "op": "cas",
        "expected": None if document["conflict"] else revision,
        **payload,
    }
    if document["fenced"]:
        write["fence"] = document["token"]
    return [*steps, write]


def _trace_input(steps: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "keyring": KEYRING_V1,
        "active_key_id": V1,
        "namespace": LEDGER_NS,
        "name": LEDGER_NAME,
        "steps": steps,
    }


_WRITE_FAULTS: dict[str, Any] = {
    "payload_size": lambda document, _: document.update(big=True),
    "current": lambda document, _: document.update(retired=True),
    "conflict": lambda document, _: document.update(conflict=True),
    "exhausted": lambda document, _: document.update(planted_max=True),
    "fencing_required": lambda document, _: document.update(reserves=1),
    "fence_zero": lambda document, _: document.update(token=0),
    "fence_stale": lambda document, _: document.update(reserves=2),
}


def _write_input(document: Mapping[str, Any]) -> dict[str, Any]:
    return _trace_input(_write_steps(document))


WRITE_TOPICS: tuple[tuple[str, Callable[[], dict[str, Any]], dict[str, Any], Any], ...] = (
    ("storage.write", _write_base(False), _WRITE_FAULTS, _write_input),
    ("storage.write_fenced", _write_base(True), _WRITE_FAULTS, _write_input),
)
"""Each write operation's name, base document, faults and trace (the exploration area
``storage-write-faults`` draws from these too)."""


def write_rows() -> list[CaseRow]:
    """EP-23 and EP-24 (the trace's last step breaks two checks) and EP-25."""
    rows: list[CaseRow] = []
    for operation, prefix, fenced, symbols in (
        (
            "storage.write",
            "write",
            False,
            ("AuthenticatedStore::compare_and_swap", "prepare_compare_and_swap"),
        ),
        (
            "storage.write_fenced",
            "write-fenced",
            True,
            ("AuthenticatedStore::compare_and_swap_fenced", "prepare_compare_and_swap"),
        ),
    ):
        rule = BY_NAME[operation].rule
        rows += pair_rows(
            Faults(
                operation,
                prefix,
                _write_base(fenced),
                _WRITE_FAULTS,
                _write_input,
                last_step(run_trace),
                splash_code(
                    _SPLASH_STORAGE,
                    *symbols,
                    "VolatileMemoryStore::establish_fence",
                    "VolatileMemoryStore::compare_and_swap",
                    note=f"the order of the checks in these functions; read, not run ({rule})",
                ),
            )
        )
    rows += pair_rows(
        Faults(
            "storage.record_key",
            "record-key",
            lambda: {"namespace": LEDGER_NS, "name": LEDGER_NAME},
            {
                "namespace": lambda document, _: document.update(namespace="Ledger NS"),
                "name": lambda document, _: document.update(name="Release 42"),
            },
            lambda document: _trace_input(
                [{"op": "create", "payload_hex": _FIRST_HEX, **document}]
            ),
            last_step(run_trace),
            splash_code(
                _SPLASH_STORAGE,
                "StorageRecordKey::new",
                note="the order of the checks in this function; read, not run (EP-25)",
            ),
        )
    )
    return rows
