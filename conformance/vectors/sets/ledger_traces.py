"""Vectors: ledger traces, whole host-engine scenarios as call sequences (docs/spec/ledger.md,
section "Ledger traces").

Each test's input is a trace ``{"setup": ..., "steps": [...]}``; the expected value is what
the reference returns for every step (a result or an error code) plus ledger checkpoints
(the exact encoding; ``final.<ledger>`` for every ledger at the end). A conforming host
engine, driven by the same calls, returns the same results, errors and ledger bytes.
"""

from __future__ import annotations

from typing import Any

from rescind.conformance.interpreters.host_trace import run_trace
from rescind.conformance.provenance import derived
from rescind.conformance.vectors.format import Flag, VectorFile, VectorGroup, VectorTest
from rescind.conformance.vectors.retired import live_id
from rescind.conformance.vectors.sets._ledger_precedence import precedence_tests
from rescind.conformance.vectors.sets._precedence import FLAG, NOTE
from rescind.conformance.vectors.sets._trace_cases_compensation import CASES as COMPENSATION
from rescind.conformance.vectors.sets._trace_cases_events import CASES as EVENTS
from rescind.conformance.vectors.sets._trace_cases_ops import CASES as OPERATIONS
from rescind.conformance.vectors.sets.ledger_codec import ESTIMATE

TOPIC = "ledger-traces"

ACCEPTABLE_FLAGS = {"EncoderEstimateQuirk"}
"""A trace carrying one of these shows upstream's behaviour where another is acceptable."""

NOTES = (
    Flag(FLAG, *NOTE),
    Flag(
        "KnownAnswer",
        "a recipe error in keys, fingerprints or frame tags",
        "frames and ledgers that upstream peers reject or that deduplicate under other keys",
    ),
    Flag(
        "CheckOrder",
        "checks run in another order",
        "a different error than upstream's; where a verifier is involved, a host verifier is "
        "called (or not called) at a different point",
    ),
    Flag(
        "WrongKindConsumesSequence",
        "not consuming the incoming sequence when an authenticated frame has the wrong kind",
        "the host and worker counters diverge, so the next genuine frame is refused",
    ),
    Flag(
        "KindOnlyIdempotence",
        "comparing payloads or messages for repeated terminal observations on the host",
        "a repeated succeeded result with another payload is refused by the host, which "
        "upstream accepts (the worker journal is the layer that compares payloads)",
    ),
    Flag(
        "ApprovalReuse",
        "not consuming an approval on every prepare attempt",
        "one approval authorizes more than one compensation frame",
    ),
    Flag(
        "EncoderEstimateQuirk",
        "measuring only the real encoding instead of upstream's size estimate",
        "the trace shows upstream refusing to encode a ledger whose real text would fit; an "
        "implementation that encodes it is acceptable",
    ),
)

_STEP = {
    "type": "object",
    "required": ["call"],
    "properties": {"call": {"type": "string"}, "args": {"type": "object"}},
    "additionalProperties": False,
}
TEST_SCHEMA = {
    "input": {
        "type": "object",
        "required": ["setup", "steps"],
        "properties": {
            "setup": {
                "type": "object",
                "properties": {
                    name: {"type": "object" if name != "engines" else "array"}
                    for name in ("engines", "plans", "sessions", "grants", "verifiers", "ledgers")
                },
                "additionalProperties": False,
            },
            "steps": {"type": "array", "items": _STEP},
        },
        "additionalProperties": False,
    },
    "expected": {
        "type": "object",
        "required": ["steps", "checkpoints"],
        "properties": {
            "steps": {
                "type": "array",
                "items": {
                    "oneOf": [
                        {
                            "type": "object",
                            "required": ["result"],
                            "additionalProperties": False,
                            "properties": {"result": {}},
                        },
                        {
                            "type": "object",
                            "required": ["error"],
                            "additionalProperties": False,
                            "properties": {"error": {"type": "string"}},
                        },
                    ]
                },
            },
            "checkpoints": {
                "type": "object",
                "additionalProperties": {
                    "oneOf": [
                        {"type": "string"},
                        {
                            "type": "object",
                            "required": ["error"],
                            "properties": {"error": {"type": "string"}},
                        },
                    ]
                },
            },
        },
        "additionalProperties": False,
    },
}


def _test(case: tuple[str, str, tuple[str, ...], str, dict[str, Any]]) -> VectorTest:
    test_id, rule, flags, comment, trace = case
    expected = run_trace(trace)
    result = "acceptable" if ACCEPTABLE_FLAGS & set(flags) else "valid"
    # Whole host scenarios: every step, frame and ledger text comes from the reference engine.
    provenance = ESTIMATE if "EncoderEstimateQuirk" in flags else derived(rule)
    # A case corrected after publication exports under the id that replaced it (retired.py).
    return VectorTest(
        live_id(test_id), rule, comment, trace, expected, result, flags, provenance=provenance
    )


def build() -> VectorFile:
    return VectorFile(
        topic=TOPIC,
        header=(
            "Host engine scenarios as traces: setup, then calls; expected is each call's result",
            "or error code, and the exact ledger encoding at checkpoints. The trace vocabulary",
            "is in docs/spec/ledger.md (section 'Ledger traces'); rules HL-n.",
            "Frames are compared byte for byte (tags included); events and verifier calls are",
            "part of the expected results.",
        ),
        notes=NOTES,
        groups=[
            VectorGroup("operations", tuple(_test(case) for case in OPERATIONS)),
            VectorGroup("compensations", tuple(_test(case) for case in COMPENSATION)),
            VectorGroup("events", tuple(_test(case) for case in EVENTS)),
            VectorGroup("precedence", precedence_tests()),
        ],
        test_schema=TEST_SCHEMA,
    )
