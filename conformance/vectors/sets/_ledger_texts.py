"""Ledger JSON texts for vectors, written with the standard library's ``json`` only, so the
inputs do not depend on the reference's own encoder."""

from __future__ import annotations

import json
from typing import Any

PLAN_FP = "0b261b22f61c0dbd5c290a54cf1ee60f4a5bb598f480f32c5d637d5de0b68d20"
OP_KEY = "op-a6d9d328a46ad9d5a8ed39963fda367dd8cca56b67999b055cd2466a760e1584"
INPUT_FP = "f17665c665a8f47f05875a69b373118616db461c2df93da5eaeb8aaf656e55ef"
CMP_KEY = "cmp-fe15b026a51b331726600fba71d8f6079e3d7333367498864171e94a26c42649"
UNDO_FP = "8c7a61f637d8155a4b17f2bc63135583cc98ecd8379bf92ccaf283d68be3b487"
GRANT_FP = "f868e4d5cb807c8d016259c0201e3a02526188043f9a64188bc86364d9b142a6"
MAX_REVISION = 2**64 - 1

OMIT = object()
"""Marker: leave the ``compensation`` member out entirely."""


def compensation(
    key: str = CMP_KEY,
    fp: str = UNDO_FP,
    tenant: str = "tenant-release",
    grant: str = GRANT_FP,
    state: str = "pending",
) -> dict[str, Any]:
    return {
        "compensation_key": key,
        "input_fingerprint": fp,
        "tenant_scope": tenant,
        "grant_fingerprint": grant,
        "state": state,
    }


def operation(
    step: str = "publish",
    tool: str = "release.publish",
    key: str = OP_KEY,
    fp: str = INPUT_FP,
    state: str = "pending",
    comp: Any = None,
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "step_id": step,
        "tool": tool,
        "operation_key": key,
        "input_fingerprint": fp,
        "state": state,
    }
    if comp is not OMIT:
        body["compensation"] = comp
    return body


def ledger(
    operations: list[dict[str, Any]] | None = None,
    revision: Any = 1,
    version: Any = 2,
    plan: str = PLAN_FP,
) -> dict[str, Any]:
    return {
        "format_version": version,
        "revision": revision,
        "plan_fingerprint": plan,
        "operations": [operation()] if operations is None else operations,
    }


def text(document: Any) -> str:
    """Compact JSON in the document's own member order (non-ASCII kept raw)."""
    return json.dumps(document, separators=(",", ":"), ensure_ascii=False)


def numbered_operations(count: int, **fields: Any) -> list[dict[str, Any]]:
    """``count`` distinct operations (unique keys ``op-<n>``) on step ``publish``."""
    return [operation(key=f"op-{index}", **fields) for index in range(count)]


def max_field_operations(count: int, with_compensation: bool = True) -> list[dict[str, Any]]:
    """Operations whose variable fields all have their maximum length (128-byte ids and
    tokens, 64-character fingerprints), each succeeded and, optionally, compensated."""
    operations = []
    for index in range(count):
        comp = None
        if with_compensation:
            comp = compensation(
                key=f"cmp-{index:03d}".ljust(128, "z"),
                tenant="t" * 128,
                state="pending",
            )
        operations.append(
            operation(
                step=f"s{index:03d}".ljust(128, "x"),
                tool="w" * 128,
                key=f"k{index:03d}".ljust(128, "y"),
                state="succeeded",
                comp=comp,
            )
        )
    return operations


def estimate_of(operations: list[dict[str, Any]]) -> int:
    """Upstream's encoder estimate, recomputed independently of the reference."""
    total = 224
    for op in operations:
        total += 256 + sum(
            len(op[name].encode())
            for name in ("step_id", "tool", "operation_key", "input_fingerprint")
        )
        comp = op.get("compensation")
        if comp:
            total += 320 + sum(
                len(comp[name].encode())
                for name in (
                    "compensation_key",
                    "input_fingerprint",
                    "tenant_scope",
                    "grant_fingerprint",
                )
            )
    return total
