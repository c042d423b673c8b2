"""Vectors for the worker operation journal as traces of calls (docs/spec/journal.md).

The traces are rows of ``conformance/cases/journal-traces.toml``: a setup, and steps each with
the outcome its author intends. ``rescind.conformance.interpreters.worker_trace`` computes the
expected outcome of every step and the journal text at checkpoints, and
``_trace_cases.trace_vector`` refuses a row the reference contradicts. Traces cover worker edge
cases 12, 13 and 15-36 and reproduce upstream's probe sequences; the probe's journal texts are
checked byte for byte by tests/worker.

Most traces hand the journal a raw request and grant pair. The group ``journal-authorized``
reaches the same rules through values made by ``authorize_*`` steps only, so that a driver
declaring the restriction ``authorized-by-authorizer`` still answers a check of every rule
(tests/conformance/test_restriction_reach.py). Its 64-record trace is a generated family.
"""

from __future__ import annotations

from typing import Any

from rescind.conformance import cases
from rescind.conformance.cases import CaseRow, CaseTable, Family
from rescind.conformance.fixtures.grant_texts import grant_text
from rescind.conformance.fixtures.worker import KEY, dispatch, manifest
from rescind.conformance.provenance import derived
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

RECORD_LIMIT = 64
"""WJ-3's bound on records; the authorized family fills a journal to it."""


def _step(call: str, expect: str = "ok", **args: Any) -> dict[str, Any]:
    return {"call": call, "expect": expect, "args": args}


def authorized_record_limit() -> list[CaseRow]:
    """WJ-9 through the session authorizer: 64 dispatches authorized and admitted one by one
    (``admit_many`` takes a raw request and grant pair, which a driver declaring
    ``authorized-by-authorizer`` cannot run), then a new key and a duplicate."""
    requests = {
        f"add-{index}": dispatch(key=f"{KEY}-{index}", request_id=f"dispatch-{index}")
        for index in range(RECORD_LIMIT)
    }
    requests["other-key"] = dispatch(key="release-43-add", request_id="dispatch-other")
    requests["add-5-again"] = dispatch(key=f"{KEY}-5", request_id="dispatch-5-again")
    steps: list[dict[str, Any]] = []
    for index in range(RECORD_LIMIT):
        steps.append(_step("authorize_operation", request=f"add-{index}", **{"as": f"d{index}"}))
        steps.append(_step("admit", authorized=f"d{index}"))
    steps += [
        _step("authorize_operation", request="other-key", **{"as": "other"}),
        _step("admit", "too_many_worker_operations", authorized="other"),
        _step("authorize_operation", request="add-5-again", **{"as": "again"}),
        _step("admit", authorized="again"),
        _step("record", operation_key="release-43-add"),
    ]
    # A budget for every dispatch of the trace; the limit under test is the journal's.
    authorizer = manifest(grant_text(calls=RECORD_LIMIT + 2))
    setup: dict[str, Any] = {
        "journal": {"scope": "tenant-release"},
        "requests": requests,
        "authorizers": {"a": authorizer},
    }
    return [
        CaseRow(
            "journal.authorized.record-limit-after-lookup",
            "WJ-9",
            "on authorized values: a journal holding 64 records refuses a new key but still"
            " answers a duplicate of a key it holds",
            {"setup": setup, "steps": steps},
            derived("WJ-9"),
            flags=("RecordLimit",),
        )
    ]


FAMILIES: dict[str, Family] = {"authorized-record-limit": authorized_record_limit}

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
                source or cases.load(TOPIC, FAMILIES),
                dict.fromkeys(
                    [
                        "journal-admission",
                        "journal-observation",
                        "journal-terminal-equality",
                        "journal-reconciliation",
                        "journal-compensation",
                        "journal-authorized",
                    ],
                    trace_vector,
                ),
            ),
            VectorGroup("precedence", precedence_tests()),
        ),
        test_schema={"input": TRACE_INPUT_SCHEMA, "expected": TRACE_EXPECTED_SCHEMA},
    )
