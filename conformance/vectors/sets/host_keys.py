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

from collections.abc import Callable
from typing import Any

from rescind.conformance import cases
from rescind.conformance.cases import CaseRow, CaseTable, Family
from rescind.conformance.interpreters.host_key_ops import refusal, run
from rescind.conformance.provenance import derived, splash_code
from rescind.conformance.vectors.format import Flag, VectorFile
from rescind.conformance.vectors.sets._ledger_texts import GRANT_FP, OP_KEY, PLAN_FP
from rescind.conformance.vectors.sets._precedence import FLAG, NOTE, Faults, pair_rows
from rescind.conformance.vectors.sets._tabled import Computation, tabled_groups

TOPIC = "host-keys"
GROUP_NAMES = (
    "plan-fingerprint",
    "input-fingerprint",
    "operation-key",
    "compensation-key",
    "precedence",
)


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


PLAN_ORDER = splash_code(
    "crates/splash-workflow/src/lib.rs",
    "validate_steps",
    "WorkflowEngine::plan",
    note="the order of the checks in the function; read, not run (EP-1)",
)
_INPUT = {"format": "json", "value": {"version": "1.2.3"}}
_OVERSIZED = {"repeat": "x", "count": 262_145}


def _upper_id(steps: list[list[Any]], at: int) -> None:
    steps[at][0] = steps[at][0].upper()


def _repeat_id(steps: list[list[Any]], at: int) -> None:
    steps[at - 1][0] = steps[at][0]


def _too_many(steps: list[list[Any]], _: int) -> None:
    steps.extend([f"p{i}", ""] for i in range(1025 - len(steps)))


def _huge_source(steps: list[list[Any]], _: int) -> None:
    steps[0][1] = {"repeat": "x", "count": 1_048_577}


def plan_precedence() -> list[CaseRow]:
    """EP-1's pairs: each adjacent pair of plan checks broken together."""
    return pair_rows(
        Faults(
            "host.plan",
            "hostkeys.plan",
            lambda: [["a", "x"], ["b", "y"], ["c", "z"]],
            {
                "non_empty": lambda steps, _: steps.clear(),
                "step_count": _too_many,
                "source_size": _huge_source,
                "step_id": _upper_id,
                "step_unique": _repeat_id,
            },
            lambda steps: {"operation": "plan_fingerprint", "steps": steps},
            run,
            PLAN_ORDER,
        )
    )


def plan_precedence_distant() -> list[CaseRow]:
    """The issue's plan of 1,025 steps whose last id is invalid: the step count is checked
    before any id (two checks apart in EP-1, so no pair row states it)."""
    steps: list[list[Any]] = [[f"s{i}", ""] for i in range(1024)] + [["S1024", ""]]
    return [
        CaseRow(
            "hostkeys.plan.precedence.count-before-last-id",
            "EP-1",
            "1,025 steps, the last with an uppercase id: too many steps, before any id is read.",
            {"operation": "plan_fingerprint", "steps": steps},
            PLAN_ORDER,
            result="invalid",
            flags=(FLAG,),
        )
    ]


def _set(name: str, value: object) -> Callable[[dict[str, Any], int], None]:
    def fault(document: dict[str, Any], _: int) -> None:
        document[name] = value

    return fault


def operation_key_precedence() -> list[CaseRow]:
    """EP-2's pairs, through the engine's derivation."""
    return pair_rows(
        Faults(
            "host.operation_key",
            "hostkeys.op",
            lambda: {
                "steps": [["publish", "let release = true"]],
                "step_id": "publish",
                "tool": "release.publish",
                "input": _INPUT,
                "nonce": "release-42:publish:1",
            },
            {
                "step_known": _set("step_id", "deploy"),
                "tool": _set("tool", "Release.Publish"),
                "input_size": _set("input", _OVERSIZED),
                "nonce_empty": _set("nonce", ""),
            },
            lambda document: {"operation": "operation_key", **document},
            run,
            splash_code(
                "crates/splash-workflow/src/lib.rs",
                "WorkflowEngine::derive_operation_key",
                note="the order of the checks in the function; read, not run (EP-2)",
            ),
        )
    )


def compensation_key_precedence() -> list[CaseRow]:
    """EP-3's pairs, through the key recipe."""
    return pair_rows(
        Faults(
            "host.compensation_key",
            "hostkeys.cmp",
            lambda: {
                "plan_fingerprint": PLAN_FP,
                "operation_key": OP_KEY,
                "tool": "release.publish",
                "tenant_scope": "tenant-release",
                "grant_fingerprint": GRANT_FP,
                "input": {"format": "json", "value": {"undo": "release"}},
                "nonce": "release-42:publish:undo:1",
            },
            {"input_size": _set("input", _OVERSIZED), "nonce_empty": _set("nonce", "")},
            lambda document: {"operation": "compensation_key", **document},
            run,
            splash_code(
                "crates/splash-workflow/src/lib.rs",
                "WorkflowEngine::derive_compensation_key",
                note="the order of its last three checks; read, not run (EP-3)",
            ),
        )
    )


# Multi-byte UTF-8 at the byte bounds (HK-3, HK-8). Every ASCII boundary vector above has the
# same count in bytes and in characters, so an implementation that counts characters (a Python
# ``len(str)``, a JavaScript ``length``, a Rust ``chars().count()``) passes them all. Upstream
# counts bytes everywhere (``str::len`` on step ids and sources, ``[u8]::len`` on nonces and
# inputs). Each width below is written once at the limit and once a byte past it, where the
# character count is still under the limit.
BYTE_LENGTH = "ByteLength"
_WIDTHS = (("2byte", "\u00e9"), ("3byte", "\u4e2d"), ("4byte", "\U0001f600"))


def _at_limit(char: str, limit: int, pad: str) -> str:
    """``limit`` UTF-8 bytes: as many ``char`` as fit, then ASCII ``pad`` for the rest."""
    width = len(char.encode("utf-8"))
    return char * (limit // width) + pad * (limit % width)


def _over_limit(char: str, limit: int, pad: str) -> str:
    """``limit + 1`` bytes: ASCII ``pad`` then one ``char``, so at most ``limit`` characters."""
    return pad * (limit + 1 - len(char.encode("utf-8"))) + char


STEP_ID_BYTES = splash_code(
    "crates/splash-workflow/src/lib.rs",
    "is_valid_step_id",
    "MAX_WORKFLOW_STEP_ID_BYTES",
    note="id.len() (bytes) <= 128 and every byte in a-z 0-9 . _ - in one predicate: any non-ASCII byte fails it",
)
SOURCE_BYTES = splash_code(
    "crates/splash-workflow/src/lib.rs",
    "validate_steps",
    "MAX_WORKFLOW_PLAN_SOURCE_BYTES",
    note="the sum of step.source.len(), String byte lengths",
)
NONCE_BYTES = splash_code(
    "crates/splash-workflow/src/lib.rs",
    "WorkflowEngine::derive_operation_key",
    "MAX_WORKFLOW_OPERATION_NONCE_BYTES",
    note="operation_nonce: &[u8], its len() in bytes",
)
INPUT_BYTES = splash_code(
    "crates/splash-workflow/src/lib.rs",
    "WorkflowEngine::derive_operation_key",
    "MAX_WORKFLOW_OPERATION_INPUT_BYTES",
    note="input: &[u8], its len() in bytes",
)
TOOL_TOKEN = splash_code(
    "crates/splash-workflow/src/lib.rs",
    "WorkflowEngine::derive_operation_key",
    "is_valid_operation_token",
    note="the byte grammar refuses any non-ASCII byte, whatever the length",
)
CMP_NONCE_BYTES = splash_code(
    "crates/splash-workflow/src/lib.rs",
    "derived_workflow_compensation_key",
    "MAX_WORKFLOW_OPERATION_NONCE_BYTES",
    note="compensation_nonce: &[u8], its len() in bytes",
)


def _plan(*steps: tuple[str, object]) -> dict[str, object]:
    return {"operation": "plan_fingerprint", "steps": [list(step) for step in steps]}


def multibyte_plan_bounds() -> list[CaseRow]:
    """HK-3 with 2-, 3- and 4-byte characters: total source bytes and step id bytes."""
    rows: list[CaseRow] = []
    limit = 1_048_576
    for name, char in _WIDTHS:
        width = len(char.encode("utf-8"))
        count, rest = divmod(limit, width)
        at = _plan(("a", {"repeat": char, "count": count}), *([("b", "x" * rest)] if rest else []))
        rows.append(
            CaseRow(
                f"hostkeys.plan.source-1mib-{name}",
                "HK-3",
                f"{count:,} {width}-byte characters (plus {rest} ASCII) are exactly 1,048,576 source bytes: allowed.",
                at,
                SOURCE_BYTES,
                result="valid",
                flags=(BYTE_LENGTH,),
            )
        )
        over = _plan(("a", {"repeat": char, "count": count}), ("b", "x" * (rest + 1)))
        rows.append(
            CaseRow(
                f"hostkeys.plan.source-over-1mib-{name}",
                "HK-3",
                f"1,048,577 source bytes in {count + rest + 1:,} characters ({width}-byte): refused by bytes.",
                over,
                SOURCE_BYTES,
                result="invalid",
                flags=(BYTE_LENGTH,),
            )
        )
    for name, char in _WIDTHS:
        width = len(char.encode("utf-8"))
        at_id = _at_limit(char, 128, "s")
        over_id = _over_limit(char, 128, "s")
        rows.append(
            CaseRow(
                f"hostkeys.plan.step-id-128-bytes-{name}",
                "HK-3",
                f"A step id of 128 bytes in {len(at_id)} characters ({width}-byte): within the length, refused by the byte grammar.",
                _plan((at_id, "x")),
                STEP_ID_BYTES,
                result="invalid",
                flags=(BYTE_LENGTH, "NonAsciiId"),
            )
        )
        rows.append(
            CaseRow(
                f"hostkeys.plan.step-id-129-bytes-{name}",
                "HK-3",
                f"A step id of 129 bytes in {len(over_id)} characters (ASCII then one {width}-byte): over the length and outside the grammar, one code.",
                _plan((over_id, "x")),
                STEP_ID_BYTES,
                result="invalid",
                flags=(BYTE_LENGTH, "NonAsciiId"),
            )
        )
    return rows


_OP_BASE: dict[str, Any] = {
    "operation": "operation_key",
    "steps": [["publish", "let release = true"]],
    "step_id": "publish",
    "tool": "release.publish",
    "input": _INPUT,
    "nonce": "release-42:publish:1",
}


def _nonce_rows(prefix: str, base: dict[str, Any], provenance: Any, what: str) -> list[CaseRow]:
    rows: list[CaseRow] = []
    for name, char in _WIDTHS:
        width = len(char.encode("utf-8"))
        at = _at_limit(char, 128, "n")
        rows.append(
            CaseRow(
                f"{prefix}.nonce-128-bytes-{name}",
                "HK-8",
                f"A {what} of 128 bytes in {len(at)} characters ({width}-byte): allowed.",
                {**base, "nonce": at},
                provenance,
                result="valid",
                flags=(BYTE_LENGTH,),
            )
        )
        over = at + "n"
        rows.append(
            CaseRow(
                f"{prefix}.nonce-129-bytes-{name}",
                "HK-8",
                f"A {what} of 129 bytes in {len(over)} characters ({width}-byte): refused (actual 129).",
                {**base, "nonce": over},
                provenance,
                result="invalid",
                flags=(BYTE_LENGTH,),
            )
        )
    return rows


def multibyte_operation_bounds() -> list[CaseRow]:
    """HK-7 and HK-8 with multi-byte characters: the nonce and raw input bounds, and a tool
    whose byte grammar refuses it whatever its length."""
    rows = _nonce_rows("hostkeys.op", _OP_BASE, NONCE_BYTES, "nonce")
    limit = 262_144
    # raw input bytes as a repeated unit: the unit's byte width divides the size exactly
    units = {
        "2byte": (("\u00e9", 131_072), ("\u00e9\u00e9x", 52_429)),
        "3byte": (("\u4e2dx", 65_536), ("\u4e2dxx", 52_429)),
        "4byte": (("\U0001f600", 65_536), ("\U0001f600x", 52_429)),
    }
    for name, ((at_unit, at_count), (over_unit, over_count)) in units.items():
        assert len(at_unit.encode("utf-8")) * at_count == limit
        assert len(over_unit.encode("utf-8")) * over_count == limit + 1
        rows.append(
            CaseRow(
                f"hostkeys.op.input-256kib-{name}",
                "HK-7",
                f"Raw input of exactly 262,144 bytes in {len(at_unit) * at_count:,} characters ({name[0]}-byte): allowed.",
                {**_OP_BASE, "input": {"repeat": at_unit, "count": at_count}},
                INPUT_BYTES,
                result="valid",
                flags=(BYTE_LENGTH,),
            )
        )
        rows.append(
            CaseRow(
                f"hostkeys.op.input-over-256kib-{name}",
                "HK-7",
                f"Raw input of 262,145 bytes in {len(over_unit) * over_count:,} characters ({name[0]}-byte): refused by bytes.",
                {**_OP_BASE, "input": {"repeat": over_unit, "count": over_count}},
                INPUT_BYTES,
                result="invalid",
                flags=(BYTE_LENGTH,),
            )
        )
    for suffix, tool, comment in (
        (
            "tool-128-bytes-2byte",
            "\u00e9" * 64,
            "128 bytes in 64 characters: within the length, outside the byte grammar",
        ),
        (
            "tool-129-bytes-2byte",
            "t" * 127 + "\u00e9",
            "129 bytes in 128 characters: over the length and outside the grammar, one code",
        ),
    ):
        rows.append(
            CaseRow(
                f"hostkeys.op.{suffix}",
                "HK-7",
                f"A tool of {comment}.",
                {**_OP_BASE, "tool": tool},
                TOOL_TOKEN,
                result="invalid",
                flags=(BYTE_LENGTH, "NonAsciiId"),
            )
        )
    return rows


_CMP_BASE: dict[str, Any] = {
    "operation": "compensation_key",
    "plan_fingerprint": PLAN_FP,
    "operation_key": OP_KEY,
    "tool": "release.publish",
    "tenant_scope": "tenant-release",
    "grant_fingerprint": GRANT_FP,
    "input": {"format": "json", "value": {"undo": "release"}},
    "nonce": "release-42:publish:undo:1",
}


def multibyte_compensation_bounds() -> list[CaseRow]:
    """HK-8 for compensation nonces with multi-byte characters."""
    return _nonce_rows("hostkeys.cmp", _CMP_BASE, CMP_NONCE_BYTES, "compensation nonce")


FAMILIES: dict[str, Family] = {
    "step-count-bounds": step_count_bounds,
    "plan-precedence": plan_precedence,
    "plan-precedence-distant": plan_precedence_distant,
    "operation-key-precedence": operation_key_precedence,
    "compensation-key-precedence": compensation_key_precedence,
    "multibyte-plan-bounds": multibyte_plan_bounds,
    "multibyte-operation-bounds": multibyte_operation_bounds,
    "multibyte-compensation-bounds": multibyte_compensation_bounds,
}

# fmt: off
NOTES = (
    Flag("KnownAnswer", "wrong recipe (domain tag, field order, length prefixes)", "keys and fingerprints that disagree with upstream's hosts and journals, so deduplication fails across implementations"),
    Flag("LengthPrefix", "fields concatenated without their 8-byte big-endian lengths", "different field splits collide on one digest, so two different steps or inputs share a key"),
    Flag("OrderSensitive", "plan steps hashed as a set or sorted", "reordering a plan keeps its fingerprint, so a ledger validates against a plan it was not written for"),
    Flag("CheckOrder", "checks run in another order", "a different error code for the same call than upstream reports"),
    Flag(FLAG, *NOTE),
    Flag(BYTE_LENGTH, "a length bound counted in characters (code points, UTF-16 units) instead of UTF-8 bytes", "multi-byte text past a byte bound is accepted (a source, nonce or input upstream refuses), so keys are derived for calls upstream's host never makes"),
    Flag("NonAsciiId", "a Unicode-aware letter class in step ids or tools", "ids that look alike but differ are accepted, and ids are hashed as ASCII"),
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
            "ErrorPrecedence vectors break two checks at once (docs/spec/precedence.md):",
            "the earlier check's code is expected.",
        ),
        notes=NOTES,
        groups=tabled_groups(
            source or cases.load(TOPIC, FAMILIES),
            dict.fromkeys(GROUP_NAMES, Computation(run, refusal)),
        ),
        test_schema=TEST_SCHEMA,
    )
