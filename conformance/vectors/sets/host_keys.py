# ruff: noqa: E501  (the flag notes keep one per line)
"""Vectors for the host-side derivations: plan fingerprint, canonical and host input
fingerprints, ``op-`` and ``cmp-`` keys (docs/spec/host-keys.md, rules HK-n).

Byte strings are written as a JSON string (its UTF-8 bytes), ``{"hex": ...}`` or
``{"repeat": <text>, "count": N}``. An ``input`` is a tool payload in wire form (its canonical
input bytes are meant) or raw bytes in one of those forms. Expected values are computed by the
reference; each row of ``conformance/cases/host-keys.toml`` states the result it must have and
building fails on disagreement. Every answer, the doc scenario's known answers included, is
computed from the recipes: upstream prints or asserts none of them (docs/spec/host-keys.md),
so the table's provenance is derived throughout.
"""

from __future__ import annotations

from rescind.conformance import cases
from rescind.conformance.cases import CaseRow, CaseTable, Family
from rescind.conformance.interpreters.host_key_ops import refusal, run
from rescind.conformance.provenance import derived
from rescind.conformance.vectors.format import Flag, VectorFile
from rescind.conformance.vectors.sets._tabled import Computation, tabled_groups

TOPIC = "host-keys"
GROUP_NAMES = ("plan-fingerprint", "input-fingerprint", "operation-key", "compensation-key")


def step_count_bounds() -> list[CaseRow]:
    """HK-3's bound on steps: 1,024 (the most a plan may have) and one more."""

    def plan(count: int) -> dict[str, object]:
        return {"operation": "plan_fingerprint", "steps": [[f"s{i}", ""] for i in range(count)]}

    return [
        CaseRow(
            "hostkeys.plan.exactly-1024-steps",
            "HK-3",
            "1,024 steps, the most a plan may have, are allowed and all hashed.",
            plan(1024),
            derived("HK-3"),
            result="valid",
        ),
        CaseRow(
            "hostkeys.plan.too-many-steps",
            "HK-3",
            "1,025 steps are one too many.",
            plan(1025),
            derived("HK-3"),
            result="invalid",
        ),
    ]


FAMILIES: dict[str, Family] = {"step-count-bounds": step_count_bounds}

# fmt: off
NOTES = (
    Flag("KnownAnswer", "wrong recipe (domain tag, field order, length prefixes)", "keys and fingerprints that disagree with upstream's hosts and journals, so deduplication fails across implementations"),
    Flag("LengthPrefix", "fields concatenated without their 8-byte big-endian lengths", "different field splits collide on one digest, so two different steps or inputs share a key"),
    Flag("OrderSensitive", "plan steps hashed as a set or sorted", "reordering a plan keeps its fingerprint, so a ledger validates against a plan it was not written for"),
    Flag("CheckOrder", "checks run in another order", "a different error code for the same call than upstream reports"),
)
# fmt: on

_BYTES = {"oneOf": [{"type": "string"}, {"type": "object"}]}
TEST_SCHEMA = {
    "input": {
        "type": "object",
        "required": ["operation"],
        "properties": {
            "operation": {
                "enum": [
                    "plan_fingerprint",
                    "canonical_input",
                    "host_input_fingerprint",
                    "operation_key",
                    "compensation_key",
                ]
            },
            "steps": {
                "type": "array",
                "items": {
                    "type": "array",
                    "prefixItems": [{"type": "string"}, _BYTES],
                    "minItems": 2,
                    "maxItems": 2,
                },
            },
            "step_id": {"type": "string"},
            "tool": {"type": "string"},
            "input": {"type": "object"},
            "nonce": _BYTES,
            "plan_fingerprint": {"type": "string"},
            "operation_key": {"type": "string"},
            "tenant_scope": {"type": "string"},
            "grant_fingerprint": {"type": "string"},
        },
        "additionalProperties": False,
    },
    "expected": {
        "type": "object",
        "properties": {
            "fingerprint": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
            "canonical_input_hex": {"type": "string", "pattern": "^([0-9a-f]{2})*$"},
            "key": {"type": "string"},
            "error": {"type": "string"},
            "actual": {"type": "integer"},
            "maximum": {"type": "integer"},
        },
        "additionalProperties": False,
    },
}


def build(source: CaseTable | None = None) -> VectorFile:
    return VectorFile(
        topic=TOPIC,
        header=(
            "Host-side derivations: plan fingerprint, canonical input and host input",
            "fingerprints, op- and cmp- keys. Rules: docs/spec/host-keys.md (HK-n).",
            'Byte strings: a JSON string (UTF-8), {"hex": ...} or {"repeat": text, "count": N}.',
            "An input is a tool payload (use its canonical input bytes) or raw bytes.",
            "Compare error codes; actual and maximum are informative.",
        ),
        notes=NOTES,
        groups=tabled_groups(
            source or cases.load(TOPIC, FAMILIES),
            dict.fromkeys(GROUP_NAMES, Computation(run, refusal)),
        ),
        test_schema=TEST_SCHEMA,
    )
