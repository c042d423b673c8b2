"""Splash worker tests (``crates/splash-worker/src/lib.rs``) replayed as worker session scenarios.

Upstream's helpers: ``grant()`` is ``text.echo`` as text with 4 calls, 16,384 bytes in, 65,536
out and 1 compensation; ``open_worker`` opens session ``worker-1`` over an empty journal of
scope ``tenant-release`` with a one-time admission; ``dispatch_request(id)`` dispatches key
``op-release-42`` with text ``release``; its ``TestAdapter`` answers a dispatch with
``Succeeded(text "done")`` unless told otherwise, a compensation with ``"undone"`` and a
reconciliation with ``Running``; its ``MemoryJournalStore`` fails on the n-th persist,
reports a chosen revision, starts at a chosen revision or accepts only a chosen lease.

The scenario vocabulary is session-scenarios' (docs/spec/session.md, "Scenarios"): the store
is the authenticated journal store over memory (namespace ``worker-journal``), the adapter is
scripted per step, and the store's failures are either real (another writer's write or fence)
or injected faults. Each port lists, per step, the outcome upstream asserts, and the values
of the state after a step (or of the final store) that upstream asserts; the build refuses a
port whose reference run differs (``PortDisagrees``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from rescind.conformance.fixtures.grant_texts import grant_text
from rescind.conformance.fixtures.session_cases import Step, act, adapter_error, fault, send
from rescind.conformance.fixtures.worker import (
    RUNNING,
    compensate,
    dispatch,
    reconcile,
)
from rescind.conformance.fixtures.worker import succeeded as succeeded_status
from rescind.conformance.interpreters.worker_scenario import run_scenario
from rescind.conformance.vectors.format import VectorTest
from rescind.conformance.vectors.sets._splash_port_support import (
    OK,
    WORKER,
    PortDisagrees,
    cite,
    words,
)
from rescind.reference.grants import CapabilityGrant

SESSION = "worker-1"
SCOPE = "tenant-release"
KEY = "op-release-42"
GRANT = grant_text("text.echo", "text", 4, 16384, 65536, 1, ())
# Upstream's test binds the compensation to ``grant.compensation_fingerprint()``; the same
# derivation of the same grant is used here.
GRANT_FP = CapabilityGrant.from_json(GRANT).compensation_fingerprint()
DONE = {"status": succeeded_status("done", "text")}
UNDONE = {"status": succeeded_status("undone", "text")}
STILL_RUNNING = {"status": RUNNING}
FOREIGN_JOURNAL = '{"format_version":2,"scope":"tenant-other","records":[]}'
FINAL = -1
"""The index under which a port's assertions on the final store state are kept."""


def _message(kind: str, body: str) -> str:
    return f'{{"type":"{kind}","request":{body}}}'


def d(request_id: str) -> str:
    body = dispatch(
        "release", tool="text.echo", key=KEY, request_id=request_id, session=SESSION, fmt="text"
    )
    return _message("dispatch_operation", body)


def r(request_id: str) -> str:
    body = reconcile(tool="text.echo", key=KEY, request_id=request_id, session=SESSION)
    return _message("reconcile_operation", body)


def c(request_id: str) -> str:
    body = compensate(
        "undo",
        tool="text.echo",
        key=KEY,
        cmp_key="cmp-release-42-undo",
        tenant=SCOPE,
        grant_fp=GRANT_FP,
        request_id=request_id,
        session=SESSION,
        fmt="text",
    )
    return _message("compensate_operation", body)


INVOKE = (
    '{"type":"invoke","invocation":{"protocol_version":5,"session_id":"worker-1",'
    '"request_id":"invoke-1","tool":"text.echo","payload":{"format":"text","value":"read"}}}'
)


def _steps(items: Iterable[Step]) -> tuple[Step, ...]:
    return tuple(items)


def _asserts(items: Mapping[int, Mapping[str, Any]]) -> dict[int, dict[str, Any]]:
    return {index: dict(values) for index, values in items.items()}


@attrs.frozen
class WorkerPort:
    test: str
    rule: str
    comment: str
    steps: tuple[Step, ...] = attrs.field(converter=_steps)
    asserts: dict[int, dict[str, Any]] = attrs.field(factory=dict, converter=_asserts)
    """By step index (``FINAL``: the final store): the values upstream asserts. Keys are
    fields of the step's ``after`` state (or of ``final``), ``details`` (a subset of the
    error details), ``status`` (the state of the reply's status), ``record`` (the state of
    ``op-release-42`` in the session's journal, ``absent`` when there is none), ``result``
    (a subset of a non-frame step's result) and ``stored_record`` (as ``record``, in the
    journal a ``stored`` step read)."""
    setup: dict[str, Any] = attrs.field(factory=dict)
    open_error: str | None = None
    open_details: dict[str, Any] = attrs.field(factory=dict)
    """A subset of the open error's details that upstream asserts."""

    def spec(self) -> dict[str, Any]:
        setup = {
            "session_id": SESSION,
            "scope": SCOPE,
            "namespace": "worker-journal",
            "grants": [GRANT],
            **self.setup,
        }
        return {"setup": setup, "steps": [step.body for step in self.steps]}


def _record_state(journal_text: str | None) -> str:
    if journal_text is None:
        return "absent"
    records = [rec for rec in json.loads(journal_text)["records"] if rec["operation_key"] == KEY]
    return str(records[0]["state"]["state"]) if records else "absent"


def _status_state(reply_text: str) -> str:
    message = json.loads(reply_text)
    return str(message["result"]["status"]["state"])


def _observed(outcome: Mapping[str, Any], name: str) -> Any:
    if name == "details":
        return outcome.get("details", {})
    if name == "status":
        return _status_state(str(outcome["result"]))
    if name == "record":
        return _record_state(outcome["after"]["journal"])
    if name == "stored_record":
        return _record_state(outcome["result"]["journal"])
    if name == "result":
        return outcome["result"]
    return outcome["after"][name]


def _subset(actual: Any, asserted: Any) -> bool:
    if isinstance(asserted, dict):
        return isinstance(actual, Mapping) and all(
            key in actual and actual[key] == value for key, value in asserted.items()
        )
    return bool(actual == asserted)


def _outcome(step: Mapping[str, Any]) -> str:
    return OK if "result" in step else str(step["error"])


def _check(port: WorkerPort, run: Mapping[str, Any]) -> None:
    opened = run.get("open", {}).get("error")
    if opened != port.open_error:
        raise PortDisagrees(f"{port.test}: upstream open {port.open_error}, reference {opened}")
    if not _subset(run.get("open", {}).get("details", {}), port.open_details):
        raise PortDisagrees(f"{port.test}: upstream open details {port.open_details}")
    outcomes = [_outcome(step) for step in run["steps"]]
    intended = [step.expect for step in port.steps]
    if outcomes != intended:
        raise PortDisagrees(f"{port.test}: upstream asserts {intended}, reference {outcomes}")
    for index, values in port.asserts.items():
        for name, asserted in values.items():
            where = run["final"] if index == FINAL else None
            actual = where[name] if where is not None else _observed(run["steps"][index], name)
            if not _subset(actual, asserted):
                raise PortDisagrees(
                    f"{port.test} step {index}: upstream {name} {asserted!r}, reference {actual!r}"
                )


PORTS = [
    WorkerPort(
        "durable_dispatch_persists_before_execution_and_deduplicates_terminal_replays",
        "WS-7",
        "upstream asserts: the dispatch succeeds after one adapter call and two journal writes "
        "(the record succeeded); a resend under dispatch-2 answers succeeded with no call and "
        "no write. Not pinned: that the first write holds the record pending (the scenario "
        "counts writes, it does not keep each written journal)",
        [send(OK, d("dispatch-1"), adapter=[DONE]), send(OK, d("dispatch-2"))],
        {
            0: {"status": "succeeded", "dispatch_calls": 1, "snapshots": 2, "record": "succeeded"},
            1: {"status": "succeeded", "dispatch_calls": 1, "snapshots": 2},
        },
    ),
    WorkerPort(
        "failed_admission_persistence_restores_memory_before_an_adapter_runs",
        "WS-7",
        "upstream asserts: the store failing the first write is a journal error (store "
        "unavailable); the session's journal has no record, the adapter was not called and "
        "the session is poisoned",
        [send("journal_persistence_failed", d("dispatch-1"), faults=[fault("unavailable")])],
        {
            0: {
                "details": {"cause": "store_unavailable"},
                "record": "absent",
                "dispatch_calls": 0,
                "poisoned": True,
            }
        },
    ),
    WorkerPort(
        "nonincrementing_journal_revisions_poison_before_an_adapter_runs",
        "WS-7",
        "upstream asserts: a store answering revision 0 for a write expected at 0 is "
        "invalid_journal_revision (expected 0, actual 0); no record, no adapter call, poisoned",
        [send("invalid_journal_revision", d("dispatch-1"), faults=[fault("non_increasing")])],
        {
            0: {
                "details": {"expected": 0, "actual": 0},
                "record": "absent",
                "dispatch_calls": 0,
                "poisoned": True,
            }
        },
    ),
    WorkerPort(
        "stale_journal_revisions_poison_before_an_adapter_runs",
        "WS-7",
        "upstream asserts: a store already at revision 1 refuses the session's write expected "
        "at 0 (a revision conflict); no record, no adapter call, poisoned. Here the store "
        "gets ahead by a write of the stored journal under the session's own lease",
        [
            act(OK, "store_persist", lease=1),
            send("journal_persistence_failed", d("dispatch-1")),
        ],
        {
            0: {"result": {"revision": 1}},
            1: {
                "details": {"cause": "write_conflict"},
                "record": "absent",
                "dispatch_calls": 0,
                "poisoned": True,
            },
        },
    ),
    WorkerPort(
        "expired_journal_lease_poison_before_an_adapter_runs",
        "WS-7",
        "upstream asserts: a store whose active lease is 2 refuses the session's lease 1; no "
        "record, no adapter call, poisoned. Here lease 2 is another writer's admission "
        "(takeover), so the refusal is the store's fence",
        [act(OK, "takeover"), send("journal_persistence_failed", d("dispatch-1"))],
        {
            0: {"result": {"fence": 2}},
            1: {
                "details": {"cause": "fencing_token_rejected"},
                "record": "absent",
                "dispatch_calls": 0,
                "poisoned": True,
            },
        },
    ),
    WorkerPort(
        "failed_post_effect_persistence_keeps_the_operation_pending_for_reconciliation",
        "WS-11",
        "upstream asserts: the second write failing after the effect is indeterminate_operation "
        "for op-release-42 with a journal cause; one adapter call, the record pending, one "
        "write, poisoned; a reconciliation then is session_poisoned without an adapter call",
        [
            send(
                "indeterminate_operation",
                d("dispatch-1"),
                adapter=[DONE],
                faults=[fault("unavailable", 2)],
            ),
            send("session_poisoned", r("reconcile-1")),
        ],
        {
            0: {
                "details": {"operation_key": KEY, "cause_kind": "journal"},
                "dispatch_calls": 1,
                "record": "pending",
                "snapshots": 1,
                "poisoned": True,
            },
            1: {"reconcile_calls": 0},
        },
    ),
    WorkerPort(
        "indeterminate_adapter_result_leaves_the_persisted_operation_pending",
        "WS-8",
        "upstream asserts: an Indeterminate adapter error is indeterminate_operation for "
        "op-release-42 with the adapter's cause; one adapter call, the record pending, one "
        "write",
        [
            send(
                "indeterminate_operation", d("dispatch-1"), adapter=[adapter_error("indeterminate")]
            )
        ],
        {
            0: {
                "details": {"operation_key": KEY, "cause_kind": "adapter"},
                "dispatch_calls": 1,
                "record": "pending",
                "snapshots": 1,
            }
        },
    ),
    WorkerPort(
        "exact_compensation_retransmission_uses_one_effect_budget_and_one_adapter_call",
        "WS-12",
        "upstream asserts: after a successful dispatch, compensation-1 succeeds and its exact "
        "retransmission compensation-2 (same binding and input) succeeds too, with one "
        "compensation call to the adapter in all (the grant allows 1 compensation)",
        [
            send(OK, d("dispatch-1"), adapter=[DONE]),
            send(OK, c("compensation-1"), adapter=[UNDONE]),
            send(OK, c("compensation-2")),
        ],
        {
            1: {"status": "succeeded"},
            2: {"status": "succeeded", "compensate_calls": 1},
        },
    ),
    WorkerPort(
        "reconciliation_is_rate_limited_and_authenticated",
        "WS-14",
        "upstream asserts: with 1 reconciliation per tool (64 per session) the first "
        "reconciliation of a running dispatch answers running and the second is "
        "reconciliation_budget_exhausted (text.echo, maximum 1); the adapter reconciled once",
        [
            send(OK, d("dispatch-1"), adapter=[STILL_RUNNING]),
            send(OK, r("reconcile-1"), adapter=[STILL_RUNNING]),
            send("reconciliation_budget_exhausted", r("reconcile-2")),
        ],
        {
            1: {"status": "running"},
            2: {"details": {"tool": "text.echo", "maximum": 1}, "reconcile_calls": 1},
        },
        setup={"limits": {"per_tool": 1, "per_session": 64}},
    ),
    WorkerPort(
        "reconciliation_has_a_separate_session_wide_budget",
        "WS-14",
        "upstream asserts: with 2 reconciliations per tool and 1 per session the second "
        "reconciliation is reconciliation_session_budget_exhausted (maximum 1); the adapter "
        "reconciled once",
        [
            send(OK, d("dispatch-1"), adapter=[STILL_RUNNING]),
            send(OK, r("reconcile-1"), adapter=[STILL_RUNNING]),
            send("reconciliation_session_budget_exhausted", r("reconcile-2")),
        ],
        {2: {"details": {"maximum": 1}, "reconcile_calls": 1}},
        setup={"limits": {"per_tool": 2, "per_session": 1}},
    ),
    WorkerPort(
        "session_admission_rejects_a_replayed_opening_frame",
        "WS-2",
        "upstream asserts: the opening frame opens once; the same frame opened again through "
        "the same admission is refused by the admission. Upstream's admission is a one-time "
        "test double; here it is the reference's fence admission",
        [act(OK, "open"), act("admission_failed", "open", replay=True)],
        setup={"open": False},
    ),
    WorkerPort(
        "session_open_rejects_a_grant_without_a_registered_adapter",
        "WS-1",
        "upstream asserts: opening with the text.echo grant and no adapters is missing_adapter "
        "(text.echo)",
        [],
        setup={"missing_adapters": ["text.echo"]},
        open_error="missing_adapter",
        open_details={"tool": "text.echo"},
    ),
    WorkerPort(
        "adapters_must_declare_invocation_and_durable_recovery_contracts",
        "WS-21",
        "upstream asserts: with an adapter declaring nothing, an invoke is "
        "invocation_safety_not_declared (text.echo) and a dispatch is "
        "durable_operation_contract_not_declared (text.echo), leaving no record",
        [
            send("invocation_safety_not_declared", INVOKE),
            send("durable_operation_contract_not_declared", d("dispatch-1")),
        ],
        {
            0: {"details": {"tool": "text.echo"}},
            1: {"details": {"tool": "text.echo"}, "record": "absent"},
        },
        setup={"declarations": {"durable": False, "safety": False}},
    ),
    WorkerPort(
        "authenticated_journal_store_round_trips_worker_dispatch_and_fences_stale_leases",
        "WS-19",
        "upstream asserts: the fresh store loads revision 0 of scope tenant-release; after one "
        "dispatch (one adapter call) it loads revision 2 with the record succeeded; a write "
        "under lease 2 gives revision 3 and the fence is 2; lease 1 is then "
        "fencing_token_rejected (current 2, supplied 1). Upstream's lease 2 raises the fence "
        "by writing; here it is reserved first (takeover). Not pinned: the record key's "
        "namespace and name",
        [
            act(OK, "stored"),
            send(OK, d("dispatch-1"), adapter=[DONE]),
            act(OK, "stored"),
            act(OK, "takeover"),
            act(OK, "store_persist", lease=2),
            act("fencing_token_rejected", "store_persist", lease=1),
        ],
        {
            0: {"result": {"revision": 0}, "stored_record": "absent"},
            1: {"dispatch_calls": 1},
            2: {"result": {"revision": 2}, "stored_record": "succeeded"},
            4: {"result": {"revision": 3}},
            5: {"details": {"current": 2, "supplied": 1}},
            FINAL: {"fence": 2},
        },
    ),
    WorkerPort(
        "authenticated_journal_store_rejects_a_foreign_journal_scope",
        "WS-19",
        "upstream asserts: writing a journal of scope tenant-other to the tenant-release store "
        "is operation_journal_scope_mismatch (expected tenant-release, actual tenant-other)",
        [
            act(
                "operation_journal_scope_mismatch",
                "store_persist",
                lease=1,
                journal=FOREIGN_JOURNAL,
            )
        ],
        {0: {"details": {"expected": SCOPE, "actual": "tenant-other"}}},
    ),
    WorkerPort(
        "authenticated_journal_store_reserves_distinct_fences",
        "WS-18",
        "upstream asserts: reserving gives fence 1, then 2; the current fence is 2",
        [act(OK, "takeover"), act(OK, "takeover")],
        {0: {"result": {"fence": 1}}, 1: {"result": {"fence": 2}}, FINAL: {"fence": 2}},
        setup={"open": False},
    ),
    WorkerPort(
        "anchored_sqlite_journal_store_persists_and_fences_a_worker_scope",
        "WS-19",
        "upstream asserts (over the anchored SQLite store): a write under reserved lease 1 "
        "gives revision 1, which loads; the next reserved lease is 2; lease 1 is then "
        "fencing_token_rejected (current 2, supplied 1). The store here is the memory one: the "
        "SQLite file and its rollback anchor are not pinned",
        [
            act(OK, "takeover"),
            act(OK, "store_persist", lease=1),
            act(OK, "stored"),
            act(OK, "takeover"),
            act("fencing_token_rejected", "store_persist", lease=1),
        ],
        {
            0: {"result": {"fence": 1}},
            1: {"result": {"revision": 1}},
            2: {"result": {"revision": 1}},
            3: {"result": {"fence": 2}},
            4: {"details": {"current": 2, "supplied": 1}},
        },
        setup={"open": False},
    ),
    WorkerPort(
        "session_open_rejects_a_zero_fencing_token",
        "WS-2",
        "upstream asserts: an admission answering fencing token 0 makes open invalid_journal_lease",
        [act("invalid_journal_lease", "open", admission="zero")],
        setup={"open": False},
    ),
]


def vectors(prefix: str) -> list[VectorTest]:
    built = []
    for port in PORTS:
        spec = port.spec()
        expected = run_scenario(spec)
        _check(port, expected)
        built.append(
            VectorTest(
                f"{prefix}.{words(port.test)}",
                port.rule,
                port.comment,
                {"kind": "worker", "scenario": spec},
                expected,
                "valid",
                provenance=cite(WORKER, port.test),
            )
        )
    return built
