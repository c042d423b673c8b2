# ruff: noqa: E501  (trace tables keep one step per line)
"""Vectors for the session authorizer as traces (docs/spec/authorizer.md, rules AU-n).

Authorizers are created from manifest texts in the setup; ``as`` names an authorized value
so later steps can validate results against it or hand it to the journal. Traces cover
worker edge cases 37-41 and the probe's authorizer rows ("calls after op" to "comp other
scope"); counters are reported by ``counters`` steps and in every checkpoint.

Each trace's ``provenance`` says where its outcomes come from (``EVIDENCE``): the four result
check-order traces rest on upstream's result validation code; the probe traces extend probe
sequences with steps upstream did not run, so they are derived, and their citation names the
probe rows that back some steps.
"""

from __future__ import annotations

from typing import Any

from rescind.conformance.provenance import Provenance, derived, edge_case_note, splash_code
from rescind.conformance.vectorformat import Flag, VectorFile, VectorGroup, VectorTest
from rescind.conformance.vectorsets._journal_requests import NEW_GRANT_FP, REQUESTS, TOTAL_42
from rescind.conformance.vectorsets._trace_cases import (
    TRACE_EXPECTED_SCHEMA,
    TRACE_INPUT_SCHEMA,
    Case,
    Step,
    s,
    vector,
)
from rescind.conformance.vectorsets._worker_fixtures import (
    GRANT_MATH,
    GRANT_MATH_NO_COMP,
    GRANT_MATH_OUT_64,
    RUNNING,
    compensate,
    compensation_result,
    dispatch,
    failed,
    manifest,
    operation_result,
    reconcile,
    succeeded,
)

TOPIC = "authorizer-traces"

UPSTREAM_PROTOCOL = "crates/splash-protocol/src/lib.rs"


def upstream_code(symbol: str) -> Provenance:
    """A case read off one function of upstream's protocol source: every step's outcome
    follows from the order of its checks."""
    return splash_code(UPSTREAM_PROTOCOL, symbol)


NO_COMP_FP = "24867a5828034ba6bc90e352306b61f65a32266c8cba8820d486612d96a72cbb"


def _pad(size: int) -> str:
    """A JSON input whose canonical size is ``size`` bytes: {"pad":"x..."}."""
    return '{"pad":"' + "x" * (size - 10) + '"}'


AUTH_REQUESTS = {
    **REQUESTS,
    "add-2": dispatch(request_id="dispatch-2"),
    "add-3": dispatch(request_id="dispatch-3"),
    "add-text": dispatch("twenty-two", request_id="dispatch-text", fmt="text"),
    "add-scalar": dispatch("42", request_id="dispatch-scalar"),
    "add-208": dispatch(_pad(208), request_id="dispatch-208"),
    "add-128": dispatch(_pad(128), request_id="dispatch-128"),
    "add-129": dispatch(_pad(129), request_id="dispatch-129"),
    "add-wrong-session": dispatch(session="session-2", request_id="dispatch-s2"),
    "add-unknown-tool": dispatch(tool="nope", request_id="dispatch-nope"),
    "add-bad-request-id": dispatch(request_id="Dispatch-1"),
    "add-bad-session-token": dispatch(session="Session-1", request_id="dispatch-bad"),
    "add-unknown-tool-bad-payload": dispatch("42", tool="nope", request_id="dispatch-nope-2"),
    "undo-c2": compensate(request_id="c2"),
    "undo-c3-spaced": compensate('{ "undo" :\n"release" }', request_id="c3"),
    "undo-c4-changed": compensate('{"undo":"release-2"}', request_id="c4"),
    "undo-c5-other-scope": compensate(tenant="tenant-other", request_id="c5"),
    "undo-c6-other-key": compensate(cmp_key="cmp-other", request_id="c6"),
    "undo-c1": compensate(request_id="c1"),
    "undo-stale-fp": compensate(grant_fp=NEW_GRANT_FP, request_id="c-stale"),
    "undo-text": compensate("undo", request_id="c-text", fmt="text"),
    "undo-no-comp-fp": compensate(grant_fp=NO_COMP_FP, request_id="c-nocomp"),
    "undo-reuses-dispatch-id": compensate(request_id="dispatch-1"),
    "undo-no-prefix": compensate(cmp_key="undo-1", request_id="c-bad-key"),
    "undo-bad-tenant": compensate(tenant="Tenant", request_id="c-bad-tenant"),
    "undo-bad-fp": compensate(grant_fp=NEW_GRANT_FP.upper(), request_id="c-bad-fp"),
    "undo-wrong-session": compensate(session="session-2", request_id="c-s2"),
    "undo-unknown-tool": compensate(tool="nope", request_id="c-nope"),
    "undo-too-large": compensate(_pad(129), request_id="c-large"),
    "rec-zz": reconcile(tool="zz", request_id="reconcile-zz"),
    "rec-wrong-session": reconcile(session="session-2", request_id="reconcile-s2"),
    "rec-reuses-dispatch-id": reconcile(request_id="dispatch-1"),
}

RESULT_OK = operation_result(succeeded('{"total":42}'))
RESULT_OTHER_KEY = operation_result(succeeded('{"total":42}'), key="release-43-add")
RESULT_TOO_LARGE = operation_result(succeeded('{"body":"' + "x" * 200 + '"}'))
RESULT_EMPTY_FAILURE = operation_result(failed(""))
RESULT_OTHER_SESSION = operation_result(RUNNING, session="session-2")
RESULT_OTHER_SESSION_AND_KEY = operation_result(RUNNING, session="session-2", key="release-43-add")
RESULT_OTHER_SESSION_EMPTY_FAILURE = operation_result(failed(""), session="session-2")
REC_RESULT_OK = operation_result(RUNNING, request_id="reconcile-1")
REC_RESULT_OTHER_TOOL = operation_result(RUNNING, request_id="reconcile-1", tool="math.sub")
REC_RESULT_OTHER_SESSION = operation_result(RUNNING, request_id="reconcile-1", session="session-2")
REC_RESULT_OTHER_SESSION_AND_TOOL = operation_result(
    RUNNING, request_id="reconcile-1", session="session-2", tool="math.sub"
)
REC_RESULT_OTHER_SESSION_EMPTY_FAILURE = operation_result(
    failed(""), request_id="reconcile-1", session="session-2"
)
CMP_RESULT_OK = compensation_result(succeeded('{"undone":true}'))
CMP_RESULT_OTHER_TENANT = compensation_result(succeeded('{"undone":true}'), tenant="tenant-other")
CMP_RESULT_OTHER_GRANT = compensation_result(succeeded('{"undone":true}'), grant_fp=NEW_GRANT_FP)
CMP_RESULT_OTHER_SESSION = compensation_result(succeeded('{"undone":true}'), session="session-2")
CMP_RESULT_OTHER_SESSION_AND_TENANT = compensation_result(
    succeeded('{"undone":true}'), session="session-2", tenant="tenant-other"
)
CMP_RESULT_OTHER_SESSION_EMPTY_FAILURE = compensation_result(failed(""), session="session-2")

MAIN = {"a": manifest(GRANT_MATH)}
TWO = {"a": manifest(GRANT_MATH), "b": manifest(GRANT_MATH)}
NO_COMP = {"a": manifest(GRANT_MATH_NO_COMP)}
CHANGED = {"a": manifest(GRANT_MATH_OUT_64)}

PROBE = ("UpstreamProbe",)
ORDER = ("CheckOrder",)
BUDGET = ("BudgetBypass",)


# One step per trace line where it fits: these are data tables, easier to review unwrapped.
# fmt: off
def _case(id: str, rule: str, comment: str, steps: list[Step], authorizers: dict[str, str], flags: tuple[str, ...] = (), journal: dict[str, Any] | None = None) -> Case:
    return Case(id, rule, comment, steps, AUTH_REQUESTS, flags, journal, authorizers)


DISPATCH = [
    _case(
        "authorizer.probe.call-budget",
        "AU-2",
        "probe rows calls after op, third op and dup request id after exhausted: a duplicate id is reported before the exhausted budget",
        [
            s("authorize_operation", request="add", as_="d1"),
            s("counters", checkpoint="after-one"),
            s("authorize_operation", "duplicate_request", request="add"),
            s("authorize_operation", request="add-2"),
            s("authorize_operation", "call_budget_exhausted", request="add-3"),
            s("authorize_operation", "duplicate_request", request="add"),
        ],
        MAIN,
        (*PROBE, *BUDGET),
    ),
    _case(
        "authorizer.probe.input-checks",
        "AU-2",
        "probe rows format mismatch, input too large, exactly 128, 129 and calls after too-large; rejected requests spend nothing",
        [
            s("authorize_operation", "payload_format_mismatch", request="add-text"),
            s("authorize_operation", "input_too_large", request="add-208"),
            s("authorize_operation", request="add-128"),
            s("authorize_operation", "input_too_large", request="add-129"),
            s("counters"),
            s("authorize_operation", "invalid_json_envelope", request="add-scalar"),
        ],
        MAIN,
        (*PROBE, "SizeBound"),
    ),
    _case("authorizer.probe.session-and-tool", "AU-2", "probe rows wrong session and unknown tool", [s("authorize_operation", "unknown_session", request="add-wrong-session"), s("authorize_operation", "unknown_tool", request="add-unknown-tool"), s("counters")], MAIN, PROBE),
    _case(
        "authorizer.dispatch-check-order",
        "AU-2",
        "header before session, session before tool, tool before payload",
        [
            s("authorize_operation", "invalid_token", request="add-bad-session-token"),
            s("authorize_operation", "invalid_token", request="add-bad-request-id"),
            s("authorize_operation", "unknown_tool", request="add-unknown-tool-bad-payload"),
            s("authorize_operation", "payload_format_mismatch", request="add-text"),
        ],
        MAIN,
        ORDER,
    ),
    _case(
        "authorizer.resend-costs-budget",
        "AU-3",
        "every dispatch resend under a new id costs a call even though the journal answers existing",
        [s("authorize_operation", request="add", as_="d1"), s("admit", authorized="d1"), s("authorize_operation", request="add-2", as_="d2"), s("admit", authorized="d2"), s("authorize_operation", "call_budget_exhausted", request="add-3"), s("counters")],
        MAIN,
        BUDGET,
        {"scope": "tenant-release"},
    ),
]

RECONCILIATION = [
    _case(
        "authorizer.probe.reconciliation-spends-no-budget",
        "AU-5",
        "probe rows reconcile unknown tool and reconcile calls_for: a reconciliation reserves an id only",
        [s("authorize_reconciliation", request="rec", as_="r1"), s("authorize_reconciliation", "unknown_tool", request="rec-zz"), s("authorize_reconciliation", "unknown_session", request="rec-wrong-session"), s("authorize_reconciliation", "duplicate_request", request="rec"), s("counters")],
        MAIN,
        PROBE,
    )
]

COMPENSATION = [
    _case(
        "authorizer.probe.compensation-budget",
        "AU-7",
        "probe rows comp stale fp to comp other scope (edge cases 38, 39)",
        [
            s("authorize_compensation", "compensation_grant_mismatch", request="undo-stale-fp"),
            s("authorize_compensation", "payload_format_mismatch", request="undo-text"),
            s("authorize_compensation", request="undo-c1"),
            s("counters", checkpoint="after-first"),
            s("authorize_compensation", "duplicate_request", request="undo-c1"),
            s("authorize_compensation", request="undo-c2"),
            s("authorize_compensation", request="undo-c3-spaced"),
            s("authorize_compensation", "compensation_budget_exhausted", request="undo-c4-changed"),
            s("counters"),
            s("authorize_compensation", "compensation_budget_exhausted", request="undo-c5-other-scope"),
            s("authorize_compensation", "compensation_budget_exhausted", request="undo-c6-other-key"),
            s("counters"),
        ],
        MAIN,
        (*PROBE, *BUDGET),
    ),
    _case(
        "authorizer.edge-37.compensation-not-granted",
        "AU-6",
        "edge case 37: max_compensations 0 refuses compensation, before the fingerprint is compared",
        [s("authorize_compensation", "compensation_not_granted", request="undo-no-comp-fp"), s("authorize_compensation", "compensation_not_granted", request="undo")],
        NO_COMP,
        ORDER,
    ),
    _case(
        "authorizer.edge-37.grant-changed",
        "AU-6",
        "edge case 37: a changed grant (max_output_bytes 128 to 64) refuses the old fingerprint; the fingerprint is compared before the payload",
        [s("authorize_compensation", "compensation_grant_mismatch", request="undo"), s("authorize_compensation", "compensation_grant_mismatch", request="undo-text"), s("authorize_compensation", request="undo-stale-fp"), s("counters")],
        CHANGED,
        ORDER,
    ),
    _case(
        "authorizer.compensation-check-order",
        "AU-6",
        "header (cmp- key, tenant token, fingerprint form), session, tool, then size before the request id",
        [
            s("authorize_compensation", "invalid_compensation_key", request="undo-no-prefix"),
            s("authorize_compensation", "invalid_token", request="undo-bad-tenant"),
            s("authorize_compensation", "invalid_compensation_grant_fingerprint", request="undo-bad-fp"),
            s("authorize_compensation", "unknown_session", request="undo-wrong-session"),
            s("authorize_compensation", "unknown_tool", request="undo-unknown-tool"),
            s("authorize_compensation", "input_too_large", request="undo-too-large"),
            s("authorize_operation", request="add", as_="d1"),
            s("authorize_compensation", "duplicate_request", request="undo-reuses-dispatch-id"),
            s("counters"),
        ],
        MAIN,
        ORDER,
    ),
    _case(
        "authorizer.compensation-identity-survives-journal-refusal",
        "AU-8",
        "identity and budget are spent at authorization even when the journal refuses (original still running); an exact resend is then free and admitted",
        [
            s("authorize_operation", request="add", as_="d1"),
            s("admit", authorized="d1"),
            s("observe", authorized="d1", status=RUNNING),
            s("authorize_compensation", request="undo-c1", as_="c1"),
            s("admit_compensation", "compensation_requires_succeeded_operation", authorized="c1"),
            s("observe", authorized="d1", status=TOTAL_42),
            s("authorize_compensation", request="undo-c2", as_="c2"),
            s("admit_compensation", authorized="c2"),
            s("counters"),
        ],
        MAIN,
        (*PROBE, *BUDGET),
        {"scope": "tenant-release"},
    ),
]

CAPACITY = [
    _case(
        "authorizer.edge-40.request-id-capacity",
        "AU-9",
        "edge case 40: at 1024 ids dispatch and compensation fail without changing counters, a reused id is still a duplicate, and result checks still work",
        [
            s("authorize_operation", request="add", as_="d1"),
            s("authorize_reconciliation_many", request="rec", count=1023),
            s("counters", checkpoint="full"),
            s("authorize_compensation", "session_request_limit_exceeded", request="undo-c1"),
            s("authorize_operation", "session_request_limit_exceeded", request="add-2"),
            s("authorize_reconciliation", "session_request_limit_exceeded", request="rec"),
            s("authorize_compensation", "duplicate_request", request="undo-reuses-dispatch-id"),
            s("authorize_reconciliation", "duplicate_request", request="rec-reuses-dispatch-id"),
            s("validate_operation_result", authorized="d1", result=RESULT_OK),
            s("counters"),
        ],
        MAIN,
        ("RequestIdCapacity",),
    )
]

RESULTS = [
    _case(
        "authorizer.edge-41.dispatch-results",
        "AU-10",
        "edge case 41: another key, an oversized success, then one accepted result and a duplicate; reconciliation spends no call",
        [
            s("authorize_operation", request="add", as_="d1"),
            s("validate_operation_result", "operation_result_mismatch", authorized="d1", result=RESULT_OTHER_KEY),
            s("validate_operation_result", "output_too_large", authorized="d1", result=RESULT_TOO_LARGE),
            s("validate_operation_result", authorized="d1", result=RESULT_OK),
            s("validate_operation_result", "duplicate_result", authorized="d1", result=RESULT_OK),
            s("authorize_reconciliation", request="rec", as_="r1"),
            s("counters"),
        ],
        MAIN,
        ("DuplicateResult",),
    ),
    # Replaces the retired authorizer.result-check-order, which expected operation_result_mismatch
    # for the result naming another session (rescind.conformance.vectorretired).
    _case(
        "authorizer.operation-result-check-order",
        "AU-10",
        "the result's own validation, then its session against the manifest, then correlation, then duplicate, then the status against the grant",
        [
            s("authorize_operation", request="add", as_="d1"),
            s("validate_operation_result", "invalid_operation_failure", authorized="d1", result=RESULT_EMPTY_FAILURE),
            s("validate_operation_result", "unknown_session", authorized="d1", result=RESULT_OTHER_SESSION),
            s("validate_operation_result", authorized="d1", result=RESULT_OK),
            s("validate_operation_result", "duplicate_result", authorized="d1", result=RESULT_TOO_LARGE),
        ],
        MAIN,
        ORDER,
    ),
    _case(
        "authorizer.operation-result-foreign-session",
        "AU-10",
        "an operation result naming another session: provenance and the result's own validation first, then unknown_session before correlation and before duplicate; nothing is marked completed",
        [
            s("authorize_operation", request="add", as_="d1"),
            s("validate_operation_result", "authorization_provenance_mismatch", authorized="d1", result=RESULT_OTHER_SESSION, authorizer="b"),
            s("validate_operation_result", "invalid_operation_failure", authorized="d1", result=RESULT_OTHER_SESSION_EMPTY_FAILURE),
            s("validate_operation_result", "unknown_session", authorized="d1", result=RESULT_OTHER_SESSION_AND_KEY),
            s("validate_operation_result", "unknown_session", authorized="d1", result=RESULT_OTHER_SESSION),
            s("counters", checkpoint="nothing-completed"),
            s("validate_operation_result", authorized="d1", result=RESULT_OK),
            s("validate_operation_result", "unknown_session", authorized="d1", result=RESULT_OTHER_SESSION),
            s("validate_operation_result", "duplicate_result", authorized="d1", result=RESULT_OK),
        ],
        TWO,
        ORDER,
    ),
    _case(
        "authorizer.reconciliation-result-foreign-session",
        "AU-10",
        "a reconciliation result naming another session: provenance and the result's own validation first, then unknown_session before correlation and before duplicate; nothing is marked completed",
        [
            s("authorize_reconciliation", request="rec", as_="r1"),
            s("validate_reconciliation_result", "authorization_provenance_mismatch", authorized="r1", result=REC_RESULT_OTHER_SESSION, authorizer="b"),
            s("validate_reconciliation_result", "invalid_operation_failure", authorized="r1", result=REC_RESULT_OTHER_SESSION_EMPTY_FAILURE),
            s("validate_reconciliation_result", "unknown_session", authorized="r1", result=REC_RESULT_OTHER_SESSION_AND_TOOL),
            s("validate_reconciliation_result", "unknown_session", authorized="r1", result=REC_RESULT_OTHER_SESSION),
            s("counters", checkpoint="nothing-completed"),
            s("validate_reconciliation_result", authorized="r1", result=REC_RESULT_OK),
            s("validate_reconciliation_result", "unknown_session", authorized="r1", result=REC_RESULT_OTHER_SESSION),
            s("validate_reconciliation_result", "duplicate_result", authorized="r1", result=REC_RESULT_OK),
        ],
        TWO,
        ORDER,
    ),
    _case(
        "authorizer.compensation-result-foreign-session",
        "AU-10",
        "a compensation result naming another session: provenance and the result's own validation first, then unknown_session before the eight-field match and before duplicate; nothing is marked completed",
        [
            s("authorize_compensation", request="undo", as_="c1"),
            s("validate_compensation_result", "authorization_provenance_mismatch", authorized="c1", result=CMP_RESULT_OTHER_SESSION, authorizer="b"),
            s("validate_compensation_result", "invalid_operation_failure", authorized="c1", result=CMP_RESULT_OTHER_SESSION_EMPTY_FAILURE),
            s("validate_compensation_result", "unknown_session", authorized="c1", result=CMP_RESULT_OTHER_SESSION_AND_TENANT),
            s("validate_compensation_result", "unknown_session", authorized="c1", result=CMP_RESULT_OTHER_SESSION),
            s("counters", checkpoint="nothing-completed"),
            s("validate_compensation_result", authorized="c1", result=CMP_RESULT_OK),
            s("validate_compensation_result", "unknown_session", authorized="c1", result=CMP_RESULT_OTHER_SESSION),
            s("validate_compensation_result", "duplicate_result", authorized="c1", result=CMP_RESULT_OK),
        ],
        TWO,
        ORDER,
    ),
    _case(
        "authorizer.reconciliation-results",
        "AU-10",
        "a reconciliation result must match its request's five fields",
        [
            s("authorize_reconciliation", request="rec", as_="r1"),
            s("validate_reconciliation_result", "operation_result_mismatch", authorized="r1", result=REC_RESULT_OTHER_TOOL),
            s("validate_reconciliation_result", authorized="r1", result=REC_RESULT_OK),
            s("validate_reconciliation_result", "duplicate_result", authorized="r1", result=REC_RESULT_OK),
        ],
        MAIN,
    ),
    _case(
        "authorizer.compensation-results",
        "AU-10",
        "a compensation result must match all eight binding fields",
        [
            s("authorize_compensation", request="undo", as_="c1"),
            s("validate_compensation_result", "compensation_result_mismatch", authorized="c1", result=CMP_RESULT_OTHER_TENANT),
            s("validate_compensation_result", "compensation_result_mismatch", authorized="c1", result=CMP_RESULT_OTHER_GRANT),
            s("validate_compensation_result", authorized="c1", result=CMP_RESULT_OK),
            s("validate_compensation_result", "duplicate_result", authorized="c1", result=CMP_RESULT_OK),
        ],
        MAIN,
    ),
    _case(
        "authorizer.provenance",
        "AU-10",
        "result checks refuse an authorization from another authorizer; the journal accepts it (probe row journal accepts token from another authorizer)",
        [
            s("authorize_operation", request="add", as_="d1", authorizer="a"),
            s("authorize_operation", request="add-2", as_="d2", authorizer="b"),
            s("validate_operation_result", "authorization_provenance_mismatch", authorized="d1", result=RESULT_OK, authorizer="b"),
            s("admit", authorized="d1"),
            s("observe", authorized="d2", status=RUNNING),
            s("admit", authorized="d2"),
            s("validate_operation_result", authorized="d1", result=RESULT_OK, authorizer="a"),
        ],
        TWO,
        ("ProvenanceCheck", *PROBE),
        {"scope": "tenant-release"},
    ),
]
# fmt: on


NOTES = [
    Flag(
        "UpstreamProbe",
        "divergence from observed upstream behaviour",
        "a host and worker disagree on which requests a session may still send",
    ),
    Flag(
        "CheckOrder",
        "checks run in another order",
        "a different error is reported, or budget is judged on a request that should have been refused earlier",
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
]


def _partly(rule: str, rows: str, missing: str) -> Provenance:
    return derived(rule, note=f"{rows}; upstream did not run {missing}")


EVIDENCE: dict[str, Provenance] = {
    "authorizer.operation-result-check-order": upstream_code(
        "SessionAuthorizer::validate_operation_result"
    ),
    "authorizer.operation-result-foreign-session": upstream_code(
        "SessionAuthorizer::validate_operation_result"
    ),
    "authorizer.reconciliation-result-foreign-session": upstream_code(
        "SessionAuthorizer::validate_reconciliation_result"
    ),
    "authorizer.compensation-result-foreign-session": upstream_code(
        "SessionAuthorizer::validate_compensation_result"
    ),
    "authorizer.probe.call-budget": _partly(
        "AU-2",
        "steps 1, 4 and 5 are out_ap.txt rows `calls after op`, `third op (max_calls 2)` and "
        "`dup request id after exhausted`",
        "the duplicate before exhaustion (step 2)",
    ),
    "authorizer.probe.input-checks": _partly(
        "AU-2",
        "steps 0 to 4 are out_ap.txt rows `format mismatch`, `input too large`, `input exactly "
        "128`, `input 129` and `calls after too-large`",
        "the scalar payload (step 5)",
    ),
    "authorizer.probe.session-and-tool": _partly(
        "AU-2",
        "steps 0 and 1 are out_ap.txt rows `wrong session` and `unknown tool`",
        "the counters after them (step 2)",
    ),
    "authorizer.probe.reconciliation-spends-no-budget": _partly(
        "AU-5",
        "steps 1 and 4 are out_other.txt rows `reconcile unknown tool` and `reconcile calls_for u`",
        "steps 2 and 3",
    ),
    "authorizer.probe.compensation-budget": _partly(
        "AU-7",
        "steps 0 to 9 are out_ap.txt rows `comp stale fp` to `comp other scope (budget 1)`",
        "the other compensation key and the last counters (steps 10 and 11)",
    ),
    "authorizer.compensation-identity-survives-journal-refusal": derived(
        "AU-8",
        note="steps 4, 6 and 7 mirror out_other.txt block 3 rows `compensate while running` and "
        "`compensate same identity new id after success (budget 1 already reserved by c1)`, "
        "which upstream ran through a WorkerSession rather than these calls",
    ),
    "authorizer.provenance": _partly(
        "AU-10",
        "step 5 is out_other.txt row `journal accepts token from another authorizer`",
        "the result checks around it",
    ),
}
"""Traces with evidence beyond their rule; the others are derived from it."""


def provenance_of(case: Case) -> Provenance:
    return EVIDENCE.get(case.id) or derived(case.rule, note=edge_case_note(case.id))


def _vectors(cases: list[Case]) -> list[VectorTest]:
    return [vector(case, provenance_of(case)) for case in cases]


def build() -> VectorFile:
    groups = [
        VectorGroup("authorizer-dispatch", _vectors(DISPATCH)),
        VectorGroup("authorizer-reconciliation", _vectors(RECONCILIATION)),
        VectorGroup("authorizer-compensation", _vectors(COMPENSATION)),
        VectorGroup("authorizer-capacity", _vectors(CAPACITY)),
        VectorGroup("authorizer-results", _vectors(RESULTS)),
    ]
    return VectorFile(
        topic=TOPIC,
        header=(
            "Session authorizer traces (docs/spec/authorizer.md, rules AU-n); step vocabulary in docs/spec/journal.md.",
            "Compare `error` codes (details are informative) and the counters at checkpoints.",
        ),
        notes=NOTES,
        groups=groups,
        test_schema={"input": TRACE_INPUT_SCHEMA, "expected": TRACE_EXPECTED_SCHEMA},
    )
