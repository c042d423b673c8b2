"""Splash protocol tests of the journal and the authorizer, replayed as traces.

Upstream builds its values with helpers of the protocol test module: ``json_grant`` (math.add,
json, 2 calls, 128 bytes in and out, network origin math-api, no compensation), its
``compensation_grant`` (the same with one compensation) and ``manifest`` (session-1 with
``json_grant``). Each request is authorized by an authorizer of its own upstream, so the
journal traces hand the journal requests and grants directly (WJ-16, AU-11). Request ids and
keys are upstream's. Inputs use the journal-traces and authorizer-traces vocabulary.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import attrs

from rescind.conformance.fixtures.grant_texts import grant_text
from rescind.conformance.fixtures.worker import (
    RUNNING,
    compensate,
    compensation_result,
    dispatch,
    failed,
    manifest,
    operation_result,
    reconcile,
    repeat_text,
    succeeded,
)
from rescind.conformance.interpreters.worker_trace import run_trace
from rescind.conformance.vectors.format import VectorTest
from rescind.conformance.vectors.sets._splash_port_support import (
    PROTOCOL,
    PortDisagrees,
    cite,
    words,
)
from rescind.conformance.vectors.sets._trace_cases import Case, Step, s, trace_input, vector

JSON_GRANT = grant_text(comp=0)
COMPENSATION_GRANT = grant_text()
NARROW_16 = grant_text(comp=0, out=16)
GRANTS = {"json": JSON_GRANT, "cmp": COMPENSATION_GRANT, "narrow-16": NARROW_16}

ADD = '{"left":20,"right":22}'
OP = "operation-request-1"
REQUESTS: dict[str, Any] = {
    "op": dispatch(ADD, request_id=OP),
    "op-private": dispatch('{"token":"private input","left":20,"right":22}', request_id=OP),
    "op-23": dispatch('{"left":20,"right":23}', request_id="operation-request-2"),
    "op-replay": dispatch(ADD, request_id="operation-request-2"),
    "op-1-key": dispatch(ADD, request_id=OP, key="operation-1"),
    "op-over-limit": dispatch(ADD, request_id="operation-over-limit", key="operation-over-limit"),
    "rec": reconcile(),
    "rec-request-1": reconcile(request_id="reconcile-request-1"),
    "rec-operation-1": reconcile(request_id="reconcile-request-1", key="operation-1"),
    "rec-target": reconcile(request_id="reconcile-request-target", key="operation-1"),
    "rec-0": reconcile(request_id="reconcile-request-0", key="operation-1"),
    "rec-fill": reconcile(request_id="reconcile-request", key="operation-1"),
    "rec-over-limit": reconcile(request_id="reconcile-over-limit", key="operation-1"),
    "undo": compensate(),
    "undo-2": compensate(request_id="compensation-request-2"),
    "undo-3-other-key": compensate(
        request_id="compensation-request-3", cmp_key="cmp-release-42-add-other"
    ),
    "undo-different": compensate('{"undo":"different"}', request_id="compensation-request-2"),
    "undo-other-scope": compensate(request_id="compensation-request-3", tenant="tenant-other"),
    "undo-target": compensate(request_id="compensation-request-target"),
    "undo-over-limit": compensate(request_id="compensation-over-limit"),
    "undo-5": compensate(request_id="compensation-request-5"),
}
TOTAL_42 = succeeded('{"total":42}')
UNDONE = succeeded('{"undone":true}')
BODY_64 = succeeded('{"body":"' + "x" * 64 + '"}')
BODY_256 = succeeded('{"body":"' + "x" * 256 + '"}')
LATE = failed("late failure")
TENANT = {"scope": "tenant-release"}


def _steps(items: Iterable[Step]) -> tuple[Step, ...]:
    return tuple(items)


@attrs.frozen
class TracePort:
    test: str
    rule: str
    comment: str
    steps: tuple[Step, ...] = attrs.field(converter=_steps)
    authorizers: dict[str, str] | None = None
    journal: dict[str, Any] | None = None
    suffix: str = ""
    counts: tuple[tuple[int, dict[str, Any]], ...] = ()
    """Counter values the upstream test asserts, by step index (``counters`` steps); an
    absent tool in ``calls`` or ``compensations`` counts 0, as upstream's ``calls_for``."""

    def case(self, prefix: str) -> Case:
        return Case(
            f"{prefix}.{words(self.test)}{self.suffix}",
            self.rule,
            self.comment,
            self.steps,
            REQUESTS,
            (),
            self.journal,
            self.authorizers,
            None,
            GRANTS,
        )


def _with_record_state(steps: list[Step], state: str) -> str:
    """The journal text the steps leave, with its first record's state replaced (upstream's
    test edits the persisted JSON the same way)."""
    case = Case("x", "WJ-3", "", steps, REQUESTS, (), TENANT, None, None, GRANTS)
    document = json.loads(run_trace(trace_input(case))["checkpoints"]["final"]["journal"])
    document["records"][0]["state"] = json.loads(state)
    return json.dumps(document, separators=(",", ":"))


_SUCCEEDED_WITH_COMPENSATION = [
    s("admit", request="op", grant="cmp"),
    s("observe", request="op", grant="cmp", status=TOTAL_42),
    s("admit_compensation", request="undo", grant="cmp"),
    s("observe_compensation", request="undo", grant="cmp", status=UNDONE),
]

JOURNAL = [
    TracePort(
        "worker_journal_requires_a_succeeded_original_for_compensation",
        "WJ-13",
        "upstream asserts: compensation of a pending original is compensation_requires_succeeded_operation; after the original succeeds it is admitted (dispatch); a late failure after the compensation succeeded is invalid_worker_compensation_transition",
        [
            s("admit", request="op", grant="cmp"),
            s(
                "admit_compensation",
                "compensation_requires_succeeded_operation",
                request="undo",
                grant="cmp",
            ),
            s("observe", request="op", grant="cmp", status=TOTAL_42),
            s("admit_compensation", request="undo", grant="cmp"),
            s("observe_compensation", request="undo", grant="cmp", status=UNDONE),
            s(
                "observe_compensation",
                "invalid_worker_compensation_transition",
                request="undo",
                grant="cmp",
                status=LATE,
            ),
        ],
        journal=TENANT,
    ),
    TracePort(
        "worker_journal_requires_a_succeeded_original_for_compensation",
        "WJ-3",
        "upstream asserts: the persisted journal of that test with the original's state edited to running does not load (compensation_requires_succeeded_operation)",
        [
            s(
                "load",
                "compensation_requires_succeeded_operation",
                journal=_with_record_state(_SUCCEEDED_WITH_COMPENSATION, RUNNING),
            )
        ],
        suffix=".load-running-original",
    ),
    TracePort(
        "worker_operation_journal_deduplicates_one_compensation_after_success",
        "WJ-15",
        "upstream asserts: after success, the compensation is admitted (dispatch), then existing pending; running then succeeded observations return those states; changed compensation input is compensation_identity_mismatch; another tenant scope is operation_journal_scope_mismatch",
        [
            s("admit", request="op", grant="cmp"),
            s("observe", request="op", grant="cmp", status=TOTAL_42),
            s("admit_compensation", request="undo", grant="cmp"),
            s("admit_compensation", request="undo", grant="cmp"),
            s("observe_compensation", request="undo", grant="cmp", status=RUNNING),
            s("observe_compensation", request="undo", grant="cmp", status=UNDONE),
            s(
                "admit_compensation",
                "compensation_identity_mismatch",
                request="undo-different",
                grant="cmp",
            ),
            s(
                "admit_compensation",
                "operation_journal_scope_mismatch",
                request="undo-other-scope",
                grant="cmp",
            ),
        ],
        journal=TENANT,
    ),
    TracePort(
        "worker_operation_journal_deduplicates_exact_dispatches",
        "WJ-8",
        "upstream asserts: admit is dispatch, the journal text holds no raw input, it reloads for tenant-release and is operation_journal_scope_mismatch for tenant-other; a second admit is existing pending; running, succeeded, admit (existing succeeded) and the same success again are accepted; one record. Not pinned here: the input-fingerprint equality of reordered keys (canonical-input topic)",
        [
            s("admit", request="op-private", grant="json"),
            s("to_json", checkpoint="admitted"),
            s("admit", request="op-private", grant="json"),
            s("observe", request="op-private", grant="json", status=RUNNING),
            s("observe", request="op-private", grant="json", status=TOTAL_42),
            s("admit", request="op-private", grant="json"),
            s("observe", request="op-private", grant="json", status=TOTAL_42),
            s("record", operation_key="release-42-add"),
        ],
        journal=TENANT,
    ),
    TracePort(
        "worker_operation_journal_reconciliation_requires_an_owned_operation_and_persists_state",
        "WJ-12",
        "upstream asserts: reconciling a key never admitted is unknown_operation; after admission it validates; running and succeeded are returned; a late failure is invalid_worker_operation_transition",
        [
            s(
                "validate_reconciliation",
                "unknown_operation",
                request="rec-request-1",
                grant="json",
            ),
            s("admit", request="op", grant="json"),
            s("validate_reconciliation", request="rec-request-1", grant="json"),
            s("observe_reconciliation", request="rec-request-1", grant="json", status=RUNNING),
            s("observe_reconciliation", request="rec-request-1", grant="json", status=TOTAL_42),
            s(
                "observe_reconciliation",
                "invalid_worker_operation_transition",
                request="rec-request-1",
                grant="json",
                status=LATE,
            ),
        ],
        journal=TENANT,
    ),
    TracePort(
        "worker_operation_journal_rejects_identity_drift_and_terminal_rewrites",
        "WJ-8",
        "upstream asserts: the same key with input right 23 is operation_identity_mismatch; after success a late failure is invalid_worker_operation_transition",
        [
            s("admit", request="op", grant="json"),
            s("admit", "operation_identity_mismatch", request="op-23", grant="json"),
            s("observe", request="op", grant="json", status=TOTAL_42),
            s(
                "observe",
                "invalid_worker_operation_transition",
                request="op",
                grant="json",
                status=LATE,
            ),
        ],
        journal=TENANT,
    ),
    TracePort(
        "worker_operation_journal_rejects_identity_drift_and_terminal_rewrites",
        "WJ-4",
        "upstream asserts: a journal text of 262,145 bytes is operation_journal_too_large before parsing",
        [s("load", "operation_journal_too_large", journal=repeat_text("", "x", 262_145, ""))],
        suffix=".oversized-text",
    ),
    TracePort(
        "worker_operation_journal_rechecks_replayed_state_against_current_grants",
        "WJ-17",
        "upstream asserts: a stored 64-x body success replayed (admit) under a grant with max_output_bytes 16 is output_too_large",
        [
            s("admit", request="op", grant="json"),
            s("observe", request="op", grant="json", status=BODY_64),
            s("admit", "output_too_large", request="op-replay", grant="narrow-16"),
        ],
        journal=TENANT,
    ),
    TracePort(
        "worker_operation_journal_restores_from_authenticated_storage",
        "WJ-5",
        "upstream asserts: a journal with one running record, encoded and loaded back for tenant-release, equals the original and reports running. Not pinned: the authenticated store it passes through (storage topic)",
        [
            s("admit", request="op", grant="json"),
            s("observe", request="op", grant="json", status=RUNNING, checkpoint="running"),
            s("record", operation_key="release-42-add"),
        ],
        journal=TENANT,
    ),
]

MAIN = {"a": manifest(JSON_GRANT)}
COMPENSATING = {"a": manifest(COMPENSATION_GRANT)}
ONE_AT_CAPACITY = 1023
FULL = 1024

AUTHORIZER = [
    TracePort(
        "authorizer_enforces_format_size_and_call_budget",
        "AU-2",
        "upstream asserts (through `authorize`, which shares `authorize_payload` with the durable dispatch replayed here): the first call spends one call; a scalar JSON payload is invalid_json_envelope; a second call succeeds; a third is call_budget_exhausted (maximum 2). Not pinned: the ordinary ToolResult checks (not modelled)",
        [
            s("authorize_operation", request="op"),
            s("counters"),
            s("authorize_operation", "invalid_json_envelope", request="op-scalar"),
            s("authorize_operation", request="op-second"),
            s("authorize_operation", "call_budget_exhausted", request="op-third"),
        ],
        MAIN,
        counts=((1, {"calls": {"math.add": 1}}),),
    ),
    TracePort(
        "rejects_duplicate_request_identifiers",
        "AU-4",
        "upstream asserts (ordinary invocation; the durable dispatch shares the request-id check): the same request id twice is duplicate_request",
        [
            s("authorize_operation", request="op"),
            s("authorize_operation", "duplicate_request", request="op"),
        ],
        MAIN,
    ),
    TracePort(
        "authorizer_request_identity_limit_bounds_all_authorization_paths_without_mutation",
        "AU-9",
        "upstream asserts: with 1,024 reconciliation ids recorded a dispatch is session_request_limit_exceeded and spends no call; a reconciliation too; with a compensation grant a compensation too, spending no compensation and recording no identity. Not pinned: the ordinary invocation and cancellation paths (not modelled)",
        [
            s("authorize_reconciliation_many", request="rec-fill", count=FULL),
            s("authorize_operation", "session_request_limit_exceeded", request="op-over-limit"),
            s(
                "authorize_reconciliation",
                "session_request_limit_exceeded",
                request="rec-over-limit",
            ),
            s("counters", checkpoint="unchanged"),
            s("authorize_reconciliation_many", request="rec-fill", count=FULL, authorizer="b"),
            s(
                "authorize_compensation",
                "session_request_limit_exceeded",
                request="undo-over-limit",
                authorizer="b",
            ),
            s("counters", authorizer="b"),
        ],
        {"a": manifest(JSON_GRANT), "b": manifest(COMPENSATION_GRANT)},
        counts=(
            (3, {"calls": {"math.add": 0}, "request_ids": 1024}),
            (
                6,
                {
                    "compensations": {"math.add": 0},
                    "compensation_identities": 0,
                    "request_ids": 1024,
                },
            ),
        ),
    ),
    TracePort(
        "durable_result_validation_remains_available_after_request_identity_capacity_is_reached",
        "AU-9",
        "upstream asserts: after filling the remaining 1,023 ids, the operation, reconciliation and compensation results of requests authorized earlier are still accepted and marked completed",
        [
            s("authorize_operation", request="op-1-key", as_="d1"),
            s("authorize_reconciliation_many", request="rec-fill", count=ONE_AT_CAPACITY),
            s(
                "validate_operation_result",
                authorized="d1",
                result=operation_result(RUNNING, request_id=OP, key="operation-1"),
            ),
            s("counters"),
            s("authorize_reconciliation", request="rec-target", as_="r1", authorizer="b"),
            s(
                "authorize_reconciliation_many",
                request="rec-fill",
                count=ONE_AT_CAPACITY,
                authorizer="b",
            ),
            s(
                "validate_reconciliation_result",
                authorized="r1",
                authorizer="b",
                result=operation_result(
                    RUNNING, request_id="reconcile-request-target", key="operation-1"
                ),
            ),
            s("counters", authorizer="b"),
            s("authorize_compensation", request="undo-target", as_="c1", authorizer="c"),
            s(
                "authorize_reconciliation_many",
                request="rec-fill",
                count=ONE_AT_CAPACITY,
                authorizer="c",
            ),
            s(
                "validate_compensation_result",
                authorized="c1",
                authorizer="c",
                result=compensation_result(UNDONE, request_id="compensation-request-target"),
            ),
            s("counters", authorizer="c"),
        ],
        {"a": manifest(JSON_GRANT), "b": manifest(JSON_GRANT), "c": manifest(COMPENSATION_GRANT)},
        counts=(
            (3, {"request_ids": 1024, "completed_results": 1}),
            (7, {"request_ids": 1024, "completed_results": 1}),
            (11, {"request_ids": 1024, "completed_results": 1}),
        ),
    ),
    TracePort(
        "duplicate_request_precedes_request_identity_capacity_rejection",
        "AU-4",
        "upstream asserts: at 1,024 ids, reusing reconcile-request-0 is duplicate_request, not session_request_limit_exceeded",
        [
            s("authorize_reconciliation_many", request="rec-fill", count=FULL),
            s("authorize_reconciliation", "duplicate_request", request="rec-fill-0"),
        ],
        MAIN,
    ),
    TracePort(
        "compensation_retransmission_at_request_identity_capacity_preserves_its_budget",
        "AU-9",
        "upstream asserts: after one compensation and 1,023 more ids, the exact retransmission under a new id is session_request_limit_exceeded; one compensation and one identity remain counted",
        [
            s("authorize_compensation", request="undo"),
            s("authorize_reconciliation_many", request="rec-fill", count=ONE_AT_CAPACITY),
            s("authorize_compensation", "session_request_limit_exceeded", request="undo-2"),
            s("counters"),
        ],
        COMPENSATING,
        counts=(
            (
                3,
                {
                    "compensations": {"math.add": 1},
                    "compensation_identities": 1,
                    "request_ids": 1024,
                },
            ),
        ),
    ),
    TracePort(
        "json_payload_depth_is_bounded_before_authorization_or_canonicalization",
        "AU-2",
        "upstream asserts: a JSON payload of 32 arrays around {} fails validate_for(Json) with json_payload_too_deep; replayed through dispatch authorization, which validates the payload the same way, spending nothing",
        [s("authorize_operation", "json_payload_too_deep", request="op-deep"), s("counters")],
        MAIN,
    ),
    TracePort(
        "authorization_tokens_are_bound_to_their_originating_authorizer",
        "AU-10",
        "upstream asserts: operation, reconciliation and compensation results validated by an authorizer other than the one that authorized them are authorization_provenance_mismatch, and the recipient's counters stay empty. Not pinned: the ordinary invocation and cancellation halves (not modelled)",
        [
            s("authorize_operation", request="op-1-key", as_="d1"),
            s(
                "validate_operation_result",
                "authorization_provenance_mismatch",
                authorized="d1",
                authorizer="b",
                result=operation_result(RUNNING, request_id=OP, key="operation-1"),
            ),
            s("authorize_reconciliation", request="rec-operation-1", as_="r1"),
            s(
                "validate_reconciliation_result",
                "authorization_provenance_mismatch",
                authorized="r1",
                authorizer="b",
                result=operation_result(
                    RUNNING, request_id="reconcile-request-1", key="operation-1"
                ),
            ),
            s("counters", authorizer="b"),
            s("authorize_compensation", request="undo", as_="c1", authorizer="c"),
            s(
                "validate_compensation_result",
                "authorization_provenance_mismatch",
                authorized="c1",
                authorizer="d",
                result=compensation_result(UNDONE),
            ),
            s("counters", authorizer="d"),
        ],
        {
            "a": manifest(JSON_GRANT),
            "b": manifest(JSON_GRANT),
            "c": manifest(COMPENSATION_GRANT),
            "d": manifest(COMPENSATION_GRANT),
        },
        counts=(
            (4, {"calls": {"math.add": 0}, "request_ids": 0, "completed_results": 0}),
            (7, {"compensations": {"math.add": 0}, "request_ids": 0, "completed_results": 0}),
        ),
    ),
    TracePort(
        "operation_dispatch_is_capability_checked_and_binds_its_status",
        "AU-10",
        "upstream asserts: dispatch spends one call; a result for another operation key is operation_result_mismatch; a 256-x body success is output_too_large; running is accepted once, then duplicate_result. Not pinned: the message round trip (frames group)",
        [
            s("authorize_operation", request="op", as_="d1"),
            s("counters"),
            s(
                "validate_operation_result",
                "operation_result_mismatch",
                authorized="d1",
                result=operation_result(RUNNING, request_id=OP, key="other-operation"),
            ),
            s(
                "validate_operation_result",
                "output_too_large",
                authorized="d1",
                result=operation_result(BODY_256, request_id=OP),
            ),
            s(
                "validate_operation_result",
                authorized="d1",
                result=operation_result(RUNNING, request_id=OP),
            ),
            s(
                "validate_operation_result",
                "duplicate_result",
                authorized="d1",
                result=operation_result(RUNNING, request_id=OP),
            ),
        ],
        MAIN,
        counts=((1, {"calls": {"math.add": 1}}),),
    ),
    TracePort(
        "reconciliation_is_grant_checked_without_spending_an_effect_budget",
        "AU-5",
        "upstream asserts: reconciliation spends no call; a 256-x body success is output_too_large; running is accepted; the same request again is duplicate_request",
        [
            s("authorize_reconciliation", request="rec-request-1", as_="r1"),
            s("counters"),
            s(
                "validate_reconciliation_result",
                "output_too_large",
                authorized="r1",
                result=operation_result(BODY_256, request_id="reconcile-request-1"),
            ),
            s(
                "validate_reconciliation_result",
                authorized="r1",
                result=operation_result(RUNNING, request_id="reconcile-request-1"),
            ),
            s("authorize_reconciliation", "duplicate_request", request="rec-request-1"),
        ],
        MAIN,
        counts=((1, {"calls": {"math.add": 0}}),),
    ),
    TracePort(
        "compensation_requires_an_active_matching_grant_and_uses_its_own_budget",
        "AU-7",
        "upstream asserts: compensation spends no call and one compensation; its result is accepted once, then duplicate_result; the exact retransmission under a new id is accepted without spending; another compensation key is compensation_budget_exhausted (maximum 1); under a grant with max_output_bytes 64 the old fingerprint is compensation_grant_mismatch; under json_grant (no compensation) compensation_not_granted. Not pinned: the message round trip (frames group)",
        [
            s("authorize_compensation", request="undo", as_="c1"),
            s("counters"),
            s("validate_compensation_result", authorized="c1", result=compensation_result(UNDONE)),
            s(
                "validate_compensation_result",
                "duplicate_result",
                authorized="c1",
                result=compensation_result(UNDONE),
            ),
            s("authorize_compensation", request="undo-2"),
            s("counters"),
            s(
                "authorize_compensation",
                "compensation_budget_exhausted",
                request="undo-3-other-key",
            ),
            s(
                "authorize_compensation",
                "compensation_grant_mismatch",
                request="undo",
                authorizer="changed",
            ),
            s(
                "authorize_compensation",
                "compensation_not_granted",
                request="undo-5",
                authorizer="denied",
            ),
        ],
        {
            "a": manifest(COMPENSATION_GRANT),
            "changed": manifest(grant_text(out=64)),
            "denied": manifest(JSON_GRANT),
        },
        counts=(
            (1, {"calls": {"math.add": 0}, "compensations": {"math.add": 1}}),
            (5, {"compensations": {"math.add": 1}}),
        ),
    ),
]

AUTHORIZER.append(
    TracePort(
        "manifest_attenuation_can_drop_tools_or_create_a_zero_capability_session",
        "AU-2",
        "upstream asserts: an authorizer of the zero-capability manifest (empty allowed_tools) refuses math.add with unknown_tool; replayed through dispatch authorization, which shares the tool lookup with `authorize`",
        [s("authorize_operation", "unknown_tool", request="op")],
        {"a": '{"protocol_version":5,"session_id":"session-1","grants":[]}'},
        suffix=".zero-capability-authorizer",
    )
)

REQUESTS.update(
    {
        "op-scalar": dispatch("42", request_id="request-2"),
        "op-second": dispatch('{"left":1,"right":2}', request_id="request-2"),
        "op-third": dispatch('{"left":3,"right":4}', request_id="request-3"),
        "op-deep": dispatch("[" * 32 + "{}" + "]" * 32, request_id=OP),
        "rec-fill-0": reconcile(request_id="reconcile-request-0", key="operation-1"),
    }
)


def _check_counts(port: TracePort, built: VectorTest) -> None:
    for index, asserted in port.counts:
        counters = built.expected["steps"][index]["result"]
        for name, value in asserted.items():
            actual = counters[name]
            if isinstance(value, dict):
                actual = {tool: actual.get(tool, 0) for tool in value}
            if actual != value:
                raise PortDisagrees(
                    f"{port.test} step {index}: upstream {name} {value}, reference {actual}"
                )


def vectors(prefix: str, ports: list[TracePort]) -> list[VectorTest]:
    built = []
    for port in ports:
        try:
            test = vector(port.case(prefix), cite(PROTOCOL, port.test))
        except AssertionError as error:
            raise PortDisagrees(str(error)) from error
        _check_counts(port, test)
        built.append(test)
    return built
