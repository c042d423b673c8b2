"""Vectors for the worker operation journal as traces of calls (docs/spec/journal.md).

The traces are rows of ``conformance/cases/journal-traces.toml``: a setup, and steps each with
the outcome its author intends. ``rescind.conformance.interpreters.worker_trace`` computes the
expected outcome of every step and the journal text at checkpoints, and
``_trace_cases.trace_vector`` refuses a row the reference contradicts. Traces cover worker edge
cases 12, 13 and 15-36 and reproduce upstream's probe sequences; the probe's journal texts are
checked byte for byte by tests/worker.
"""

from __future__ import annotations

from rescind.conformance import cases
from rescind.conformance.cases import CaseTable
from rescind.conformance.vectors.format import Flag, VectorFile, VectorGroup
from rescind.conformance.vectors.sets._journal_precedence import precedence_tests
from rescind.conformance.vectors.sets._precedence import FLAG, NOTE
from rescind.conformance.vectors.sets._tabled import tabled_groups
from rescind.conformance.vectors.sets._trace_cases import (
    TRACE_EXPECTED_SCHEMA,
    TRACE_INPUT_SCHEMA,
    trace_vector,
)

TOPIC = "journal-traces"

NOTES = [
    Flag(FLAG, *NOTE),
    Flag(
        "UpstreamProbe",
        "divergence from observed upstream behaviour",
        "journals written by one implementation are rejected or read differently by the other",
    ),
    Flag(
        "CheckOrder",
        "checks run in another order",
        "a different error is reported, and an error can reveal which keys a journal holds",
    ),
    Flag(
        "TerminalImmutable",
        "a terminal state is overwritten by a later observation",
        "a duplicate request receives a result other than the first one, or a failed effect is"
        " later reported as succeeded",
    ),
    Flag(
        "StructuralEquality",
        "terminal results compared by bytes, by text or with a loose numeric equality",
        "a faithful resend is refused, or a contradicting result is accepted as a duplicate",
    ),
    Flag(
        "F64Profile",
        "informative splash-v5-f64 profile (numbers held as u64/i64/f64)",
        "only implementations of that profile must match; splash-v5 implementations skip these",
    ),
    Flag(
        "GrantRecheck",
        "a stored result is replayed without re-checking it against the current grant",
        "an attenuated session receives output larger or of another format than its grant allows",
    ),
    Flag(
        "RecordLimit",
        "the 64-record limit checked before the duplicate lookup",
        "a full journal refuses duplicates, pushing hosts towards redispatching an effect",
    ),
    Flag(
        "BoundAfterMutation",
        "the size bound checked after the state was replaced",
        "a journal that can no longer be stored, or a success recorded that was never persisted",
    ),
    Flag(
        "SingleCompensation",
        "a second compensation identity attached to one original",
        "the same effect is undone twice",
    ),
    Flag(
        "ScopeIsolation",
        "the tenant scope compared after the key lookup, or not at all",
        "one tenant compensates another tenant's operation, or learns which keys exist",
    ),
    Flag(
        "PrefixPolicy",
        "the host ledger's cmp- key rule applied at the worker layer",
        "operation keys that upstream workers accept are refused",
    ),
]


def build(source: CaseTable | None = None) -> VectorFile:
    return VectorFile(
        topic=TOPIC,
        header=(
            "Worker operation journal traces (docs/spec/journal.md, rules WJ-n).",
            "Replay each step in order; compare `error` codes (details are informative) and"
            " journal texts byte for byte.",
            "Tests flagged F64Profile apply to the splash-v5-f64 profile only.",
            "ErrorPrecedence vectors: the last step breaks two checks at once"
            " (docs/spec/precedence.md); the earlier check's code is expected.",
        ),
        notes=NOTES,
        groups=(
            *tabled_groups(
                source or cases.load(TOPIC),
                dict.fromkeys(
                    [
                        "journal-admission",
                        "journal-observation",
                        "journal-terminal-equality",
                        "journal-reconciliation",
                        "journal-compensation",
                    ],
                    trace_vector,
                ),
            ),
            VectorGroup("precedence", precedence_tests()),
        ),
        test_schema={"input": TRACE_INPUT_SCHEMA, "expected": TRACE_EXPECTED_SCHEMA},
    )
