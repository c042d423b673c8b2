"""Vectors for the session authorizer as traces (docs/spec/authorizer.md, rules AU-n).

The traces are rows of ``conformance/cases/authorizer-traces.toml`` (steps with the outcome
each author intends; ``_trace_cases.trace_vector`` checks them against the reference).
Authorizers are created from manifest texts in the setup; ``as`` names an authorized value
so later steps can validate results against it or hand it to the journal. Traces cover
worker edge cases 37-41 and the probe's authorizer rows ("calls after op" to "comp other
scope"); counters are reported by ``counters`` steps and in every checkpoint.

Each row states where its outcomes come from: the four result
check-order traces rest on upstream's result validation code; the probe traces extend probe
sequences with steps upstream did not run, so they are derived, and their citation names the
probe rows that back some steps.
"""

from __future__ import annotations

from rescind.conformance import cases
from rescind.conformance.cases import CaseTable
from rescind.conformance.vectors.format import Flag, VectorFile, VectorGroup
from rescind.conformance.vectors.sets._authorizer_precedence import precedence_tests
from rescind.conformance.vectors.sets._precedence import FLAG, NOTE
from rescind.conformance.vectors.sets._tabled import tabled_groups
from rescind.conformance.vectors.sets._trace_cases import (
    TRACE_EXPECTED_SCHEMA,
    TRACE_INPUT_SCHEMA,
    trace_vector,
)

TOPIC = "authorizer-traces"

NOTES = [
    Flag(
        "UpstreamProbe",
        "divergence from observed upstream behaviour",
        "a host and worker disagree on which requests a session may still send",
    ),
    Flag(
        "CheckOrder",
        "checks run in another order",
        "a different error is reported, or budget is judged on a request that should have been"
        " refused earlier",
    ),
    Flag(
        "BudgetBypass",
        "budget charged after the effect, per request id, or not for resends",
        "a caller retries past its grant, or a resend of the same compensation is refused",
    ),
    Flag(
        "SizeBound",
        "an inclusive input bound applied as exclusive, or to non-canonical bytes",
        "valid requests refused or oversized ones admitted",
    ),
    Flag(
        "RequestIdCapacity",
        "the request-id cap checked before the duplicate check or after spending budget",
        "counters move on a refused request, or replays are misreported",
    ),
    Flag(
        "DuplicateResult",
        "a second result for one request accepted",
        "a replayed worker reply is applied twice",
    ),
    Flag(
        "ProvenanceCheck",
        "results accepted against another authorizer's authorization, or the journal refusing them",
        "cross-session result confusion, or no recovery after a restart",
    ),
    Flag(FLAG, *NOTE),
    Flag(
        "ByteLength",
        "a byte limit counted in characters of the payload text instead of UTF-8 bytes",
        "multi-byte payloads past max_input_bytes or max_output_bytes are admitted",
    ),
]


def build(source: CaseTable | None = None) -> VectorFile:
    return VectorFile(
        topic=TOPIC,
        header=(
            "Session authorizer traces (docs/spec/authorizer.md, rules AU-n); step vocabulary in"
            " docs/spec/journal.md.",
            "Compare `error` codes (details are informative) and the counters at checkpoints.",
            "ErrorPrecedence vectors: the last request breaks two checks at once",
            "(docs/spec/precedence.md); the earlier check's code is expected.",
        ),
        notes=NOTES,
        groups=(
            *tabled_groups(
                source or cases.load(TOPIC),
                dict.fromkeys(
                    [
                        "authorizer-dispatch",
                        "authorizer-reconciliation",
                        "authorizer-compensation",
                        "authorizer-capacity",
                        "authorizer-results",
                    ],
                    trace_vector,
                ),
            ),
            VectorGroup("precedence", precedence_tests()),
        ),
        test_schema={"input": TRACE_INPUT_SCHEMA, "expected": TRACE_EXPECTED_SCHEMA},
    )
