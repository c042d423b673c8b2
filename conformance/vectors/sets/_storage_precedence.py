"""Pairwise error-precedence vectors for opening a stored record (docs/spec/precedence.md
EP-14): the genuine ledger envelope of ``_storage_cases`` with two of its checks broken."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rescind.conformance.cases import CaseRow
from rescind.conformance.interpreters.storage_harness import run_open
from rescind.conformance.provenance import splash_code
from rescind.conformance.vectors.sets._precedence import Faults, pair_rows
from rescind.conformance.vectors.sets._storage_cases import (
    KEYRING_V1,
    LEDGER_NAME,
    LEDGER_NS,
    V1,
    pairs,
)
from rescind.reference.errors import error_registry
from rescind.reference.storage.tag import MAX_RECORD_BYTES

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
