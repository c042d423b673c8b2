"""Published vector IDs that are no longer exported, each with its reason and its replacement.

The registry keeps every published ID with its meaning digest forever, so a vector whose
expectation was wrong cannot be edited in place: the corrected case gets a new ID and the old
one is retired here. ``rescind vectors export`` copies this list into the registry's
``retired`` section; ``rescind vectors check`` accepts a published ID that no longer exports
only when it is retired, and refuses a retired ID that is exported again. Retirements are
permanent too: once the registry records one, it may not be withdrawn or reworded.
"""

from __future__ import annotations

import attrs


@attrs.frozen
class Retirement:
    test_id: str
    replaced_by: str
    reason: str

    def to_json(self) -> dict[str, str]:
        return {"replacedBy": self.replaced_by, "reason": self.reason}


_FAULT = "allows fault from every open status"
_CLAIM = "claims from PENDING only"
_ESCALATE = "escalates on SLA breach from every open status"
_EXPIRE = "expires on SLA breach from every open status"


def _work_item_row(row: str, upstream: str) -> Retirement:
    test_id = f"transition.casehub-work-item.{row}"
    return Retirement(
        test_id,
        f"{test_id}.r2",
        f"CaseHub work-item row assumed before WorkItemService was read; upstream {upstream}"
        " (SG-88)",
    )


def _agentctl_syntax(test_id: str) -> Retirement:
    return Retirement(
        test_id,
        f"{test_id}.agentctl-syntax",
        "written in a stand-in {{ path }} grammar that agentctl reads as literal text; the case"
        " is restated in agentctl's ${{ expr }} syntax (SG-81)",
    )


def _uses_as_written(test_id: str) -> Retirement:
    return Retirement(
        test_id,
        f"{test_id}.uses-as-written",
        "the plan's action was the action name without its prefix; agentctl's"
        " plan_compensation reports the compensation's uses as written (action:NAME) (SG-91)",
    )


USES_AS_WRITTEN: tuple[str, ...] = (
    "agentctl.runtime.cancelled-compensation-dispatches-no-effect-and-remains-retryable",
    "agentctl.runtime.compensation-continues-after-failure-and-retries-only-remaining-effects",
    "agentctl.runtime.compensation-runs-in-reverse-order-reconciles-and-replays",
    "plan.ag-s1.reverse-order",
    "plan.ag-s12.in-progress-blocks",
    "plan.ag-s17.declaration-tiebreak",
    "plan.ag-s3.retry-plans-remainder",
    "plan.ag-s4.uncertain-source-reconciled-applied",
    "plan.ag-s7.uncertain-inverse-reconciled-not-applied",
    "plan.ag-s8.after-cancelled-run",
    "plan.automatic-flag",
    "plan.cancelled-source",
    "plan.input-rendered.agentctl-syntax",
    "plan.input-unavailable.agentctl-syntax",
    "plan.memory-write-relevant",
    "plan.one-entry-covers-all-effects",
    "plan.partial-executable-incomplete",
    "plan.selection-limits-tasks",
    "run.ag-s11-s12.approval-always",
    "run.ag-s3.continue-retry-remainder",
    "run.ag-s7.uncertain-inverse-not-applied",
    "run.ag-s8.cancelled-dispatches-nothing",
    "run.approval-rejected",
    "run.approval-rejected-stops-the-run",
)
"""Vectors whose plan entries (or generated compensation tasks) name the inverse: their
expectation changed with SG-91."""


def _any_order(test_id: str) -> Retirement:
    return Retirement(
        test_id,
        f"{test_id}.any-order",
        "the order output fixed one code order and listed the design's parallel batches;"
        " CaseHub dispatches one step at a time in hash order, so the output now states the"
        " pairs every order keeps and accepts any order that keeps them (SG-100)",
    )


ANY_ORDER: tuple[str, ...] = (
    "validate.ch-s13.no-compensation-fields",
    "order.ch-s4.chain-reverse",
    "order.ch-s5.independent",
    "order.diamond",
    "order.exact-channel-match",
    "order.uncompensable-link-ignored",
    "order.data-cycle",
    "casehub.bindings.valid-compensation-pair-no-error",
    "casehub.bindings.no-compensation-no-errors",
)
"""saga-bindings vectors with an ``order`` output (SG-100)."""


def _step_started_first(test_id: str) -> Retirement:
    return Retirement(
        test_id,
        f"{test_id}.step-started-first",
        "faulted before creating the compensation item; CaseHub creates the item and logs"
        " COMPENSATION_STEP_STARTED before it dispatches and finds the target unusable (SG-101)",
    )


STEP_STARTED_FIRST: tuple[str, ...] = (
    "case.ch-s9.unsupported-target",
    "case.ch-s10.no-judgment-scheduler",
    "case.worker-missing",
    "casehub.engine.dispatch-unsupported-target-faults",
)
"""Dispatch failures whose transcript now starts the step first (SG-101)."""


RETIRED: tuple[Retirement, ...] = (
    *(
        Retirement(
            test_id,
            f"{test_id}.planned-events",
            "its expected event list started at operation_ledger_created; upstream's"
            " WorkflowEngine::plan records planned {plan_id, step_count} and every plan approve*"
            " records approved {plan_id} (record_event), and the reference now does too (HL-25,"
            " issue 35)",
        )
        for test_id in (
            "ledger.trace.compensation-happy-path",
            "ledger.trace.compensation-transitions",
            "ledger.trace.events",
            "recovery.cr-10.reply-of-another-kind",
            "recovery.edge-48.fenced-ledger-recovery",
            "recovery.row-02.intent-persisted-before-approval",
            "recovery.row-03.pending-intent-after-crash",
            "recovery.row-04.compensation-succeeded",
            "recovery.row-12.lost-worker-response",
            "recovery.row-15.terminal-is-not-resume",
            "splash.workflow.compensation-is-host-approved-bound-and-applied-once",
            "splash.workflow.operation-ledger-persists-metadata-without-raw-input-or-source",
            "splash.workflow.operation-ledger-reconciles-bound-observations-without-retaining-output",
        )
    ),
    *(
        Retirement(
            test_id,
            f"{test_id}.r2",
            "sent a cancel body without tool (and with cancellation_id equal to request_id) to"
            " show that cancel is no session request; upstream's typed WorkerCancellationRequest"
            " refuses that body before the session sees it (WM-9, F13): the case sends a"
            " complete cancel request",
        )
        for test_id in (
            "session.probe-1.adapter-failed-then-reconcile",
            "session.edge-53.unexpected-messages",
        )
    ),
    Retirement(
        "message.cancel-opaque",
        "message.cancel-typed",
        "carried a cancel body without tool opaquely; upstream decodes WorkerCancellationRequest"
        " (cancellation_id and tool required, unknown members refused) and Rescind follows it"
        " (WM-9, F13); the incomplete body is message.cancel-missing-tool",
    ),
    Retirement(
        "message.result-kind",
        "message.result-typed",
        "carried a result body without payload opaquely; upstream decodes ToolResult (payload"
        " required) and Rescind follows it (WM-9, F13); the incomplete body is"
        " message.result-missing-payload",
    ),
    Retirement(
        "trace.wrong-kind-consumes-sequence",
        "trace.wrong-kind-consumes-sequence.typed",
        "its first frame carried an incomplete cancel body that upstream refuses to decode"
        " (WM-9, F13); the same sequence rule over a complete cancel request",
    ),
    Retirement(
        "trace.open-opaque-bad-session-token",
        "trace.open-typed-bad-session-token",
        "its frame carried an incomplete cancel body that upstream refuses to decode before the"
        " session check (WM-9, F13); the same token check over a complete cancel request",
    ),
    Retirement(
        "tag.key.all-zero",
        "tag.key.all-zero-accepted",
        "expected weak_storage_key; upstream's StorageKey::from_bytes accepts an all-zero key and"
        " seals with it: the vector now shows upstream's answer and is acceptable (ST-4, F14)",
    ),
    Retirement(
        "trace.keyring-errors",
        "trace.keyring-errors.r2",
        "its last step expected weak_storage_key for an all-zero read key, which upstream's"
        " StorageKeyring::add_read_key adds; that step is its own acceptable vector"
        " trace.keyring-all-zero-read-key (ST-4, F14)",
    ),
    Retirement(
        "authorizer.result-check-order",
        "authorizer.operation-result-check-order",
        "expected operation_result_mismatch for an operation result naming another session;"
        " upstream compares the session first and answers unknown_session (issue 14)",
    ),
    _work_item_row("assigned.fault", _FAULT),
    _work_item_row("delegated.fault", _FAULT),
    _work_item_row("pending.fault", _FAULT),
    _work_item_row("suspended.fault", _FAULT),
    _work_item_row("delegated.claim", _CLAIM),
    _work_item_row("delegated.escalate", _ESCALATE),
    _work_item_row("suspended.escalate", _ESCALATE),
    _work_item_row("delegated.expire", _EXPIRE),
    _work_item_row("suspended.expire", _EXPIRE),
    _agentctl_syntax("declare.ag-s15.template-unknown-task"),
    _agentctl_syntax("declare.invalid-template"),
    _agentctl_syntax("plan.input-unavailable"),
    _agentctl_syntax("run.generated-workflow"),
    _agentctl_syntax("plan.input-rendered"),
    _agentctl_syntax("plan.input-not-object"),
    Retirement(
        "run.ag-s6.uncertain-inverse",
        "run.ag-s6.uncertain-inverse.upstream-effect-id",
        "the blocked effect id used Rescind's own layout; effect ids are now the SHA-256 of the"
        " NUL-joined identity, as agentctl's EffectRequest::new computes them (SG-80)",
    ),
    Retirement(
        "validate.ch-s13.orphan-warning",
        "validate.ch-s13.orphan-refused",
        "expected a warning and a loaded set, as CaseHub's design says; CaseHub's validator"
        " lists the orphan with the errors and its loader refuses the set (SG-87)",
    ),
    Retirement(
        "declare.ag-s16.foreach-expansion",
        "declare.ag-s16.foreach-expansion.upstream-child-id",
        "child ids used the item text (ID--NNNN-ITEM); agentctl names a child by the first 12"
        " hex digits of the SHA-256 of its bindings' compact JSON (SG-90)",
    ),
    Retirement(
        "validate.all-findings",
        "validate.all-findings.orphan-error",
        "listed the orphan as a warning; upstream lists it as an error (SG-87)",
    ),
    *(_uses_as_written(test_id) for test_id in USES_AS_WRITTEN),
    *(_any_order(test_id) for test_id in ANY_ORDER),
    Retirement(
        "case.ch-s5.independent-sequential",
        "case.ch-s5.independent-any-order",
        "expected undo-b then undo-a; CaseHub walks its plan items in hash order, so independent"
        " steps come in any order and only the dependency order is fixed (SG-100)",
    ),
    Retirement(
        "case.ch-s5.independent-batched",
        "case.ch-s5.independent-any-order",
        "expected both undos dispatched together, as CaseHub's design says; its coordinator"
        " dispatches one step at a time (SG-100)",
    ),
    Retirement(
        "case.retry-while-an-old-item-is-in-flight.batched",
        "case.retry-while-an-old-item-is-in-flight",
        "modelled the design's parallel batches, which CaseHub's coordinator does not have"
        " (SG-100)",
    ),
    Retirement(
        "case.batched-fault-and-retry",
        "case.retry-redispatches-only-the-faulted-step",
        "modelled the design's parallel batches, which CaseHub's coordinator does not have"
        " (SG-100)",
    ),
    *(_step_started_first(test_id) for test_id in STEP_STARTED_FIRST),
)


def live_id(test_id: str, retirements: tuple[Retirement, ...] = RETIRED) -> str:
    """The exported ID for a case whose generator derives its ID from the data (e.g. one row of a
    lifecycle table): the natural ID, or, once that was retired, the ID that replaced it."""
    by_id = retired_by_id(retirements)
    seen = {test_id}
    while test_id in by_id:
        test_id = by_id[test_id].replaced_by
        if test_id in seen:
            raise ValueError(f"retirements of {test_id} form a cycle")
        seen.add(test_id)
    return test_id


def retired_by_id(retirements: tuple[Retirement, ...] = RETIRED) -> dict[str, Retirement]:
    found: dict[str, Retirement] = {}
    for retirement in retirements:
        if retirement.test_id in found:
            raise ValueError(f"test id {retirement.test_id} is retired twice")
        found[retirement.test_id] = retirement
    return found
