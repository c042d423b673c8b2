"""Upstream's own compensation tests, transcribed as saga vectors (provenance ``upstream-test``).

One vector per upstream test, its id built from the test's name, its citation naming the
repository, commit, path and test function. The input replays what the test sets up in
Rescind's step vocabulary (docs/saga.md); the expected value is the reference's answer, and the
comment says which of the test's assertions that answer pins and which it cannot (things
Rescind does not model: file contents, audit rows, recorded replay, actor checks, timestamps).
docs/upstream-readings.md lists every upstream test of these areas, ported or not.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import attrs

from rescind.conformance.interpreters.saga_documents import (
    BindingSetRefused,
    case_document,
    reconcile_document,
    run_document,
    work_item_document,
)
from rescind.conformance.provenance import Provenance, upstream
from rescind.conformance.vectors.format import Flag, VectorFile, VectorGroup, VectorTest
from rescind.conformance.vectors.retired import live_id
from rescind.conformance.vectors.sets.saga_bindings import validate_answer
from rescind.reference.errors import RescindError

TOPIC = "saga-upstream-tests"

AGENTCTL_RUNTIME = (
    "opensourceops/agentctl",
    "07b0f0827efb8c368e7563ae621a1a5f99639013",
    "crates/agentctl-runtime/src/lib.rs",
)
CASEHUB_ENGINE_TEST = (
    "mdproctor/engine",
    "7af3c052e832fecfa7a5f3b6ae55ad0d9268233d",
    "planning/src/test/java/io/casehub/engine/planning/compensation/"
    "CaseCompensationServiceImplTest.java",
)
CASEHUB_BINDING_TEST = (
    "mdproctor/engine",
    "ee78965427b6daaad22aef449deae1ec654a4af0",
    "api/src/test/java/io/casehub/api/model/CompensationBindingValidationTest.java",
)
# The search index holds this version of the test (the one with the compensation tests) as
# file 58586579900 without reporting its commit; the citation names that file instead.
CASEHUB_WORK_TEST = (
    "mdproctor/work",
    "58586579900",
    "runtime/src/test/java/io/casehub/work/runtime/service/WorkItemServiceTest.java "
    "(search-index file 58586579900, the version with the compensation tests; its commit was "
    "not reported)",
)

NOTES = (
    Flag(
        "PartialPort",
        "reading every assertion of the upstream test into this vector",
        "some of the test's assertions concern things Rescind does not model (the comment "
        "names them); the vector pins the rest",
    ),
    Flag(
        "UnlinkedCompensationItem",
        "treating a compensation plan item without a compensated-item link as an error",
        "CaseHub completes or faults such an item like any other compensation item",
    ),
)


def _words(name: str) -> str:
    """``compensate_pendingWorkItem_throws`` -> ``compensate-pending-work-item-throws``."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "-", name).replace("_", "-")
    return spaced.lower()


@attrs.frozen
class Port:
    test: str
    """The upstream test function's name."""
    rule: str
    comment: str
    input: dict[str, Any]
    flags: tuple[str, ...] = ()


def _provenance(source: tuple[str, str, str], test: str) -> Provenance:
    repository, commit, path = source
    return upstream("upstream-test", repository, commit, path, f"test {test}")


def _answer(
    compute: Callable[[dict[str, Any]], dict[str, Any]], body: dict[str, Any]
) -> tuple[dict[str, Any], str]:
    try:
        return compute(body), "valid"
    except BindingSetRefused as refused:
        return {"error": refused.error.code, "findings": refused.findings}, "invalid"
    except RescindError as error:
        return {"error": error.code}, "invalid"


def _vectors(
    prefix: str,
    source: tuple[str, str, str],
    compute: Callable[[dict[str, Any]], dict[str, Any]],
    ports: list[Port],
) -> tuple[VectorTest, ...]:
    tests = []
    for port in ports:
        expected, result = _answer(compute, port.input)
        tests.append(
            VectorTest(
                live_id(f"{prefix}.{_words(port.test)}"),
                port.rule,
                port.comment,
                port.input,
                expected,
                result,
                port.flags,
                provenance=_provenance(source, port.test),
            )
        )
    return tuple(tests)


# --- agentctl runtime inline tests -----------------------------------------------------------

NEVER = "never"


def _effect(effect_id: str, status: str = "succeeded", **extra: Any) -> dict[str, Any]:
    return {"id": effect_id, "status": status, **extra}


def _write_task(task_id: str, *effects: dict[str, Any], **extra: Any) -> dict[str, Any]:
    inverse = {"uses": "action:write", "with": {"path": f"{task_id}.txt", "content": "undone"}}
    return {"id": task_id, "compensate": inverse, "effects": list(effects), **extra}


def _lineage(*tasks: dict[str, Any], **run: Any) -> dict[str, Any]:
    source = {"runId": "source", "state": "failed", "policyApproval": NEVER, "tasks": list(tasks)}
    return {"sourceRun": {**source, **run}}


def _failing(needs: str) -> dict[str, Any]:
    return {"id": "fail", "needs": [needs], "state": "failed"}


def _first_second(second_retry: dict[str, Any] | None = None) -> dict[str, Any]:
    second = _write_task("second", _effect("e-second"), needs=["first"])
    if second_retry is not None:
        second["compensate"]["retry"] = second_retry
    return _lineage(_write_task("first", _effect("e-first")), second, _failing("second"))


def _create_fail(compensate: dict[str, Any] | None = None, **run: Any) -> dict[str, Any]:
    create = _write_task("create", _effect("e-create"))
    if compensate is not None:
        create["compensate"] = compensate
    return _lineage(create, _failing("create"), **run)


def _steps(lineage: dict[str, Any], *steps: dict[str, Any]) -> dict[str, Any]:
    return {"lineage": lineage, "steps": list(steps)}


PLAN = {"do": "plan"}
APPLIED = {"status": "applied", "result": {"status": "applied"}}

AGENTCTL_PORTS = [
    Port(
        "compensation_runs_in_reverse_order_reconciles_and_replays",
        "SG-19",
        "first and second write, fail asserts false: the plan is [second, first], executable and "
        "complete; the run succeeds undoing second then first; every source effect ends "
        "compensated; a new plan is complete with both effects already compensated; a "
        "failed-only retry is incompatible, a restart from first reruns first, second, fail. "
        "Not pinned: file contents, audit rows, the repair plan and the recorded replay",
        _steps(
            _first_second(),
            PLAN,
            {"do": "compensate", "runId": "compensation-1"},
            PLAN,
            {"do": "retryCheck"},
            {"do": "retryCheck", "fromTasks": ["first"], "restartSuccessful": True},
        ),
        ("PartialPort",),
    ),
    Port(
        "compensation_continues_after_failure_and_retries_only_remaining_effects",
        "SG-23",
        "second's inverse hits an I/O error on both of its two attempts while first's succeeds: "
        "the run fails with first compensated and second failed after 2 attempts; the next "
        "plan holds only second and running it succeeds; a final plan has both effects "
        "already compensated",
        _steps(
            _first_second({"maxAttempts": 2}),
            {
                "do": "compensate",
                "runId": "compensation-1",
                "script": {"compensate--second": ["io_error", "io_error"]},
            },
            PLAN,
            {"do": "compensate", "runId": "compensation-2"},
            PLAN,
        ),
    ),
    Port(
        "uncertain_compensation_blocks_repeat_until_reconciled",
        "SG-25",
        "the inverse (a shell command past its timeout) ends uncertain and the run fails; the "
        "next plan is blocked by unreconciled_compensation_effect naming that effect; once the "
        "inverse is reconciled applied the plan is complete with the source effect compensated",
        _steps(
            _create_fail({"uses": "action:uncertain"}),
            {
                "do": "compensate",
                "runId": "compensation-1",
                "script": {"compensate--create": ["uncertain"]},
            },
            PLAN,
            {
                "do": "reconcile",
                "latestEffectOf": {"runId": "compensation-1", "taskId": "create"},
                **APPLIED,
            },
            PLAN,
        ),
    ),
    Port(
        "cancelled_compensation_dispatches_no_effect_and_remains_retryable",
        "SG-27",
        "a compensation started with a cancelled token ends cancelled with no effect; the next "
        "plan is executable with no block",
        _steps(
            _create_fail(), {"do": "compensate", "runId": "compensation-1", "cancelled": True}, PLAN
        ),
    ),
    Port(
        "automatic_compensation_is_opt_in_and_uses_a_linked_run",
        "SG-29",
        "onFailure automatic: after the source fails one linked compensation run is created and "
        "succeeds. Not pinned: the file content",
        _steps(
            _create_fail(compensation={"onFailure": "automatic"}),
            {"do": "automatic", "runId": "compensation-1"},
        ),
        ("PartialPort",),
    ),
    Port(
        "compensation_approval_is_durable_and_resume_finalizes_source_effects",
        "SG-28",
        "approval always with a source policy of never: compensate pauses; after approval the "
        "resumed run succeeds and the source effect is compensated",
        _steps(
            _create_fail(compensation={"approval": "always"}),
            {"do": "compensate", "runId": "compensation-1"},
            {"do": "approve", "runId": "compensation-1"},
            {"do": "resume", "runId": "compensation-1"},
            PLAN,
        ),
    ),
    Port(
        "compensation_waits_for_uncertain_source_reconciliation",
        "SG-15",
        "the source task's effect is uncertain: the plan is blocked by "
        "unreconciled_source_effect; reconciled applied, compensation succeeds. Not pinned: the "
        "file content",
        _steps(
            _lineage(_write_task("uncertain", _effect("e-uncertain", "uncertain"))),
            PLAN,
            {"do": "reconcile", "effectId": "e-uncertain", **APPLIED},
            {"do": "compensate", "runId": "compensation-1"},
        ),
        ("PartialPort",),
    ),
]

AGENTCTL_PORTS.append(
    Port(
        "repair_rejects_unresolved_effect_on_otherwise_reusable_task",
        "SG-30",
        "first succeeded but holds an effect still started (never reconciled); second failed: "
        "reusing first is refused (unresolved_reused_effect). The test plans a repair; the "
        "failed-only retry shares its reuse rule. Not pinned: the repair plan's fingerprint "
        "checks and that a refused repair writes nothing",
        _steps(
            _lineage(
                {
                    "id": "first",
                    "effects": [_effect("e-ambiguous", "started", **{"class": "external"})],
                },
                {"id": "second", "needs": ["first"], "state": "failed"},
            ),
            {"do": "retryCheck"},
        ),
        ("PartialPort",),
    )
)

RECONCILIATION_PORTS = [
    Port(
        "applied_reconciliation_supplies_a_validated_result_to_resume",
        "SG-5",
        "an interrupted (uncertain) effect may be reconciled applied. Not pinned: the result "
        "schema check and the resumed source run",
        {"raw": "uncertain", "confirmed": False, "history": [], "status": "applied"},
        ("PartialPort",),
    ),
    Port(
        "not_applied_reconciliation_resumes_with_a_fresh_task_and_effect_attempt",
        "SG-5",
        "an interrupted (uncertain) effect may be reconciled not_applied. Not pinned: the "
        "resumed source run's fresh attempt",
        {"raw": "uncertain", "confirmed": False, "history": [], "status": "not_applied"},
        ("PartialPort",),
    ),
    Port(
        "compensated_reconciliation_resumes_a_completed_effect_with_a_fresh_attempt",
        "SG-8",
        "a confirmed success may be reconciled compensated by a confirmed effect of the same "
        "run. Not pinned: the resumed source run's fresh attempt",
        {"raw": "succeeded", "confirmed": True, "history": [], "status": "compensated"},
        ("PartialPort",),
    ),
]

# --- CaseHub engine: CaseCompensationServiceImplTest -----------------------------------------


def _binding(name: str, **fields: Any) -> dict[str, Any]:
    return {"name": name, **fields}


def _one_step(target: str = "capability") -> dict[str, Any]:
    if target == "capability":
        undo = _binding(
            "undo-step-a",
            compensation=True,
            capability="undo-cap",
            worker="undo-step-a-worker",
        )
        original = _binding(
            "step-a", capability="cap-a", worker="worker-a", compensate="undo-step-a"
        )
    else:
        undo = _binding("undo-step-a", compensation=True, target=target)
        original = _binding("step-a", target=target, compensate="undo-step-a")
    return {"bindings": [original, undo], "workers": ["undo-step-a-worker"]}


def _case(
    definition: dict[str, Any], status: str, *items: dict[str, Any], **extra: Any
) -> dict[str, Any]:
    return {
        "definition": definition,
        "cases": [{"id": "case-1", "status": status, "items": list(items)}],
        **extra,
    }


def _item(item_id: str, binding: str, status: str = "COMPLETED", **extra: Any) -> dict[str, Any]:
    return {"id": item_id, "binding": binding, "status": status, **extra}


def _undo_item(**extra: Any) -> dict[str, Any]:
    return _item("undo-item", "undo-step-a", "RUNNING", compensation=True, **extra)


COMPENSATE = {"do": "compensate", "caseId": "case-1", "triggeredBy": "operator"}


def _status(item_id: str, status: str) -> dict[str, Any]:
    return {"do": "itemStatus", "caseId": "case-1", "itemId": item_id, "status": status}


def _case_steps(start: dict[str, Any], *steps: dict[str, Any]) -> dict[str, Any]:
    return {"start": start, "steps": list(steps)}


CHAIN = {
    "bindings": [
        _binding("step-a", produces=["step-a-output"], compensate="undo-a"),
        _binding("step-b", consumes=["step-a-output"], compensate="undo-b"),
        _binding("undo-a", compensation=True, capability="undo-cap", worker="undo-worker"),
        _binding("undo-b", compensation=True, capability="undo-cap", worker="undo-worker"),
    ],
    "workers": ["undo-worker"],
}

ENGINE_PORTS = [
    Port(
        "dispatch_publishes_workerScheduleEvent",
        "SG-44",
        "compensating a COMPLETED case dispatches undo-step-a to worker undo-step-a-worker with "
        "capability undo-cap",
        _case_steps(_case(_one_step(), "COMPLETED", _item("item-a", "step-a")), COMPENSATE),
    ),
    Port(
        "dispatch_marks_planItem_dispatching",
        "SG-44",
        "the new compensation plan item is DISPATCHING (its id is Rescind's; CaseHub's is a "
        "random UUID)",
        _case_steps(_case(_one_step(), "COMPLETED", _item("item-a", "step-a")), COMPENSATE),
    ),
    Port(
        "dispatch_unsupported_target_faults",
        "SG-101",
        "the test's targets are mocked JudgmentTargets and no JudgmentScheduler resolves, so "
        "dispatch fails and the case ends COMPENSATION_FAULTED, after the compensation item is "
        "created and COMPENSATION_STEP_STARTED logged (the test's name says unsupported "
        "target; the path it exercises is the missing scheduler)",
        _case_steps(
            _case(
                _one_step("judgment"),
                "COMPLETED",
                _item("item-a", "step-a"),
                judgmentScheduler=False,
            ),
            COMPENSATE,
        ),
    ),
    Port(
        "dispatch_judgmentTarget_calls_judgmentScheduler",
        "SG-44",
        "a judgment target is scheduled through the JudgmentScheduler with binding undo-step-a",
        _case_steps(
            _case(_one_step("judgment"), "COMPLETED", _item("item-a", "step-a")), COMPENSATE
        ),
    ),
    Port(
        "advancement_completed_fires_next_step",
        "SG-46",
        "a linked compensation item completing while COMPENSATING leaves nothing to undo: the "
        "case becomes COMPENSATED",
        _case_steps(
            _case(
                _one_step(),
                "COMPENSATING",
                _item("item-a", "step-a"),
                _undo_item(compensatesItemId="item-a"),
            ),
            _status("undo-item", "COMPLETED"),
        ),
    ),
    Port(
        "advancement_faulted_transitions_to_compensation_faulted",
        "SG-46",
        "a compensation item without a compensated-item link faulting while COMPENSATING "
        "faults the case",
        _case_steps(
            _case(_one_step(), "COMPENSATING", _item("item-a", "step-a"), _undo_item()),
            _status("undo-item", "FAULTED"),
        ),
        ("UnlinkedCompensationItem",),
    ),
    Port(
        "advancement_ignores_non_compensation_planItems",
        "SG-46",
        "an ordinary plan item completing while COMPENSATING changes nothing",
        _case_steps(
            _case(_one_step(), "COMPENSATING", _item("item-a", "step-a", "RUNNING")),
            _status("item-a", "COMPLETED"),
        ),
    ),
    Port(
        "advancement_ignores_when_not_compensating",
        "SG-46",
        "a compensation item completing while the case is RUNNING changes nothing",
        _case_steps(
            _case(_one_step(), "RUNNING", _item("item-a", "step-a"), _undo_item()),
            _status("undo-item", "COMPLETED"),
        ),
        ("UnlinkedCompensationItem",),
    ),
    Port(
        "full_saga_two_steps_compensated_in_reverse_order",
        "SG-47",
        "step-b consumes what step-a produces: undo-b is dispatched first, and when it "
        "completes undo-a is dispatched",
        _case_steps(
            _case(CHAIN, "COMPLETED", _item("item-a", "step-a"), _item("item-b", "step-b")),
            COMPENSATE,
            _status("item-b-cmp-1", "COMPLETED"),
        ),
    ),
]

# --- CaseHub engine: CompensationBindingValidationTest -----------------------------------------


def _capability(name: str, **fields: Any) -> dict[str, Any]:
    return {"name": name, "capability": name, **fields}


BINDING_PORTS = [
    Port(
        "validCompensationPair_noError",
        "SG-50",
        "a binding and the compensation-only binding it names: no error",
        {
            "bindings": [
                _capability("irb-review", compensate="irb-reversal"),
                _capability("irb-reversal", compensation=True),
            ]
        },
    ),
    Port(
        "compensateRef_missingTarget_returnsError",
        "SG-50",
        "compensate names a binding that does not exist: exactly one error",
        {"bindings": [_capability("irb-review", compensate="nonexistent")]},
    ),
    Port(
        "selfCompensation_returnsError",
        "SG-51",
        "a binding naming itself: exactly one error (not also a cycle)",
        {"bindings": [_capability("irb-review", compensate="irb-review")]},
    ),
    Port(
        "circularCompensation_returnsError",
        "SG-52",
        "a and b name each other: a circular-compensation error",
        {"bindings": [_capability("a", compensate="b"), _capability("b", compensate="a")]},
    ),
    Port(
        "noCompensation_noErrors",
        "SG-54",
        "ordinary bindings without compensate are no error (Rescind reports them as gaps)",
        {"bindings": [_capability("step-a"), _capability("step-b")]},
    ),
    Port(
        "orphanedCompensationBinding_returnsWarning",
        "SG-87",
        "a compensation-only binding nobody names is returned in the validator's list, which "
        "the YAML loader refuses (the test's name says warning; the list is the error list)",
        {"bindings": [_capability("step-a"), _capability("orphaned-reversal", compensation=True)]},
    ),
]

# --- CaseHub work: WorkItemServiceTest -------------------------------------------------------


def _do(action: str, item_id: str = "w", **extra: Any) -> dict[str, Any]:
    return {"do": action, "itemId": item_id, **extra}


def _work(*steps: dict[str, Any], status: str = "PENDING", **items: str) -> dict[str, Any]:
    start = [{"id": "w", "status": status}, *({"id": k, "status": v} for k, v in items.items())]
    return {"start": {"workItems": start}, "steps": list(steps)}


CLAIM, START, COMPLETE = _do("claim"), _do("start"), _do("complete")
DELEGATE = _do("delegate")


def _lifecycle(test: str, rule: str, comment: str, *steps: dict[str, Any], **start: Any) -> Port:
    return Port(test, rule, comment, _work(*steps, **start))


WORK_LIFECYCLE_PORTS = [
    _lifecycle("claim_transitionsPendingToAssigned", "SG-88", "claim: PENDING -> ASSIGNED", CLAIM),
    _lifecycle(
        "start_transitionsAssignedToInProgress",
        "SG-88",
        "start: ASSIGNED -> IN_PROGRESS",
        CLAIM,
        START,
    ),
    _lifecycle(
        "complete_transitionsInProgressToCompleted",
        "SG-88",
        "complete: IN_PROGRESS -> COMPLETED",
        CLAIM,
        START,
        COMPLETE,
    ),
    _lifecycle(
        "reject_fromInProgress_transitionsToRejected",
        "SG-88",
        "reject: IN_PROGRESS -> REJECTED",
        CLAIM,
        START,
        _do("reject"),
    ),
    _lifecycle(
        "reject_fromAssigned_isValid", "SG-88", "reject: ASSIGNED -> REJECTED", CLAIM, _do("reject")
    ),
    _lifecycle(
        "delegate_setsNewAssigneeAndStatusDelegated",
        "SG-88",
        "delegate: ASSIGNED -> DELEGATED. Not pinned: the new assignee",
        CLAIM,
        DELEGATE,
    ),
    _lifecycle(
        "acceptDelegation_transitionsToAssigned",
        "SG-88",
        "accept_delegation: DELEGATED -> ASSIGNED. Not pinned: the assignee",
        CLAIM,
        DELEGATE,
        _do("accept_delegation"),
    ),
    _lifecycle(
        "acceptDelegation_notDelegated_throws",
        "SG-88",
        "accept_delegation on an ASSIGNED item is refused",
        CLAIM,
        _do("accept_delegation"),
    ),
    _lifecycle(
        "declineDelegation_poolPath_transitionsToPending",
        "SG-88",
        "decline_delegation with the POOL target: DELEGATED -> PENDING",
        CLAIM,
        DELEGATE,
        _do("decline_delegation", target="PENDING"),
    ),
    _lifecycle(
        "declineDelegation_delegatorPath_returnsToOriginalActor",
        "SG-88",
        "decline_delegation with the DELEGATOR target: DELEGATED -> ASSIGNED (back to the "
        "delegator, who is not modelled)",
        CLAIM,
        DELEGATE,
        _do("decline_delegation", target="ASSIGNED"),
    ),
    _lifecycle(
        "declineDelegation_notDelegated_throws",
        "SG-88",
        "decline_delegation on an ASSIGNED item is refused",
        CLAIM,
        _do("decline_delegation", target="PENDING"),
    ),
    _lifecycle(
        "release_transitionsAssignedToPending",
        "SG-88",
        "release: ASSIGNED -> PENDING",
        CLAIM,
        _do("release"),
    ),
    _lifecycle(
        "suspend_fromAssigned_transitionsToSuspended",
        "SG-88",
        "suspend: ASSIGNED -> SUSPENDED",
        CLAIM,
        _do("suspend"),
    ),
    _lifecycle(
        "resume_afterAssignedSuspend_returnsToAssigned",
        "SG-88",
        "resume returns to ASSIGNED",
        CLAIM,
        _do("suspend"),
        _do("resume"),
    ),
    _lifecycle(
        "resume_afterInProgressSuspend_returnsToInProgress",
        "SG-88",
        "resume returns to IN_PROGRESS",
        CLAIM,
        START,
        _do("suspend"),
        _do("resume"),
    ),
    _lifecycle(
        "cancel_fromPending_transitionsToCancelled", "SG-88", "cancel: PENDING", _do("cancel")
    ),
    _lifecycle(
        "cancel_fromAssigned_transitionsToCancelled",
        "SG-88",
        "cancel: ASSIGNED",
        CLAIM,
        _do("cancel"),
    ),
    _lifecycle(
        "cancel_fromInProgress_transitionsToCancelled",
        "SG-88",
        "cancel: IN_PROGRESS",
        CLAIM,
        START,
        _do("cancel"),
    ),
    _lifecycle(
        "cancel_fromSuspended_transitionsToCancelled",
        "SG-88",
        "cancel: SUSPENDED",
        CLAIM,
        _do("suspend"),
        _do("cancel"),
    ),
    _lifecycle(
        "complete_pendingItem_throwsIllegalStateException",
        "SG-88",
        "complete on PENDING is refused",
        COMPLETE,
    ),
    _lifecycle(
        "complete_completedItem_throwsIllegalStateException",
        "SG-88",
        "complete on COMPLETED is refused",
        CLAIM,
        START,
        COMPLETE,
        COMPLETE,
    ),
    _lifecycle(
        "start_pendingItem_throwsIllegalStateException",
        "SG-88",
        "start on PENDING is refused",
        START,
    ),
    _lifecycle(
        "claim_assignedItem_throwsIllegalStateException",
        "SG-88",
        "claim on ASSIGNED is refused",
        CLAIM,
        CLAIM,
    ),
    _lifecycle(
        "release_pendingItem_throwsIllegalStateException",
        "SG-88",
        "release on PENDING is refused",
        _do("release"),
    ),
    _lifecycle(
        "suspend_completedItem_throwsIllegalStateException",
        "SG-88",
        "suspend on COMPLETED is refused",
        CLAIM,
        START,
        COMPLETE,
        _do("suspend"),
    ),
    _lifecycle(
        "resume_inProgressItem_throwsIllegalStateException",
        "SG-88",
        "resume on IN_PROGRESS is refused",
        CLAIM,
        START,
        _do("resume"),
    ),
    _lifecycle(
        "claim_nonExistentUuid_throwsWorkItemNotFoundException",
        "SG-61",
        "claim on an unknown item is refused as not found",
        _do("claim", "ghost"),
    ),
    _lifecycle(
        "delegate_fromInProgress_isValid",
        "SG-88",
        "delegate: IN_PROGRESS -> DELEGATED",
        CLAIM,
        START,
        DELEGATE,
    ),
    _lifecycle(
        "release_fromInProgress_throwsIllegalStateException",
        "SG-88",
        "release on IN_PROGRESS is refused",
        CLAIM,
        START,
        _do("release"),
    ),
    _lifecycle(
        "reject_fromPending_throwsIllegalStateException",
        "SG-88",
        "reject on PENDING is refused",
        _do("reject"),
    ),
    _lifecycle(
        "start_fromInProgress_throwsIllegalStateException",
        "SG-88",
        "start on IN_PROGRESS is refused",
        CLAIM,
        START,
        START,
    ),
    _lifecycle(
        "suspend_fromPending_throwsIllegalStateException",
        "SG-88",
        "suspend on PENDING is refused",
        _do("suspend"),
    ),
    _lifecycle(
        "resume_fromInProgress_throwsIllegalStateException",
        "SG-88",
        "resume on IN_PROGRESS is refused",
        CLAIM,
        START,
        _do("resume"),
    ),
    _lifecycle(
        "cancel_completedItem_throwsIllegalStateException",
        "SG-88",
        "cancel on COMPLETED is refused",
        CLAIM,
        START,
        COMPLETE,
        _do("cancel"),
    ),
    _lifecycle("fault_fromPending_transitionsToFaulted", "SG-88", "fault: PENDING", _do("fault")),
    _lifecycle(
        "fault_fromAssigned_transitionsToFaulted", "SG-88", "fault: ASSIGNED", CLAIM, _do("fault")
    ),
    _lifecycle(
        "fault_fromInProgress_transitionsToFaulted",
        "SG-88",
        "fault: IN_PROGRESS",
        CLAIM,
        START,
        _do("fault"),
    ),
    _lifecycle(
        "fault_fromSuspended_transitionsToFaulted",
        "SG-88",
        "fault: SUSPENDED",
        CLAIM,
        _do("suspend"),
        _do("fault"),
    ),
    _lifecycle(
        "fault_fromDelegated_transitionsToFaulted",
        "SG-88",
        "fault: DELEGATED",
        CLAIM,
        DELEGATE,
        _do("fault"),
    ),
    _lifecycle(
        "fault_fromTerminal_throws",
        "SG-88",
        "fault on COMPLETED is refused",
        CLAIM,
        START,
        COMPLETE,
        _do("fault"),
    ),
    _lifecycle(
        "faultFromSystem_fromPending_transitionsToFaulted",
        "SG-88",
        "fault_from_system: PENDING",
        _do("fault_from_system"),
    ),
    _lifecycle(
        "faultFromSystem_fromTerminal_returnsSilently",
        "SG-88",
        "fault_from_system on COMPLETED leaves it COMPLETED without an error",
        CLAIM,
        START,
        COMPLETE,
        _do("fault_from_system"),
    ),
    _lifecycle(
        "obsolete_fromPending_transitionsToObsolete", "SG-88", "obsolete: PENDING", _do("obsolete")
    ),
    _lifecycle(
        "obsolete_fromInProgress_transitionsToObsolete",
        "SG-88",
        "obsolete: IN_PROGRESS",
        CLAIM,
        START,
        _do("obsolete"),
    ),
    _lifecycle(
        "obsolete_fromTerminal_throws",
        "SG-88",
        "obsolete on COMPLETED is refused",
        CLAIM,
        START,
        COMPLETE,
        _do("obsolete"),
    ),
    _lifecycle(
        "obsoleteFromSystem_fromPending_transitionsToObsolete",
        "SG-88",
        "obsolete_from_system: PENDING",
        _do("obsolete_from_system"),
    ),
    _lifecycle(
        "obsoleteFromSystem_fromTerminal_returnsSilently",
        "SG-88",
        "obsolete_from_system on COMPLETED leaves it COMPLETED",
        CLAIM,
        START,
        COMPLETE,
        _do("obsolete_from_system"),
    ),
    _lifecycle(
        "cancelFromSystem_fromPending_transitionsToCancelled",
        "SG-88",
        "cancel_from_system: PENDING",
        _do("cancel_from_system"),
    ),
    _lifecycle(
        "cancelFromSystem_fromTerminal_returnsSilently",
        "SG-88",
        "cancel_from_system on COMPLETED leaves it COMPLETED",
        CLAIM,
        START,
        COMPLETE,
        _do("cancel_from_system"),
    ),
]


def _compensation(test: str, rule: str, comment: str, *steps: dict[str, Any], **start: Any) -> Port:
    return Port(test, rule, comment, _work(*steps, **start))


COMPENSATE_W = _do("compensate", newId="c", triggeredBy="operator-1")

WORK_COMPENSATION_PORTS = [
    _compensation(
        "compensate_completedWorkItem_createsCompensatingWorkItem",
        "SG-62",
        "compensating a COMPLETED item creates a PENDING item linked to it; the original is "
        "COMPENSATING and still COMPLETED",
        CLAIM,
        START,
        COMPLETE,
        COMPENSATE_W,
    ),
    _compensation(
        "compensate_pendingWorkItem_throws",
        "SG-61",
        "a PENDING item cannot be compensated",
        COMPENSATE_W,
    ),
    _compensation(
        "compensate_alreadyCompensating_throws",
        "SG-61",
        "a second compensate is refused (compensation activity already exists)",
        CLAIM,
        START,
        COMPLETE,
        COMPENSATE_W,
        _do("compensate", newId="c2"),
    ),
    _compensation(
        "compensate_compensatingWorkItem_throws",
        "SG-61",
        "a completed compensating item cannot itself be compensated",
        CLAIM,
        START,
        COMPLETE,
        COMPENSATE_W,
        _do("claim", "c"),
        _do("start", "c"),
        _do("complete", "c"),
        _do("compensate", "c", newId="c3"),
    ),
    _compensation(
        "markCompensated_setsStatusToCompensated",
        "SG-63",
        "markCompensated (called directly, the compensator still PENDING) sets COMPENSATED",
        CLAIM,
        START,
        COMPLETE,
        COMPENSATE_W,
        _do("markCompensated"),
    ),
    _compensation(
        "compensate_writesAuditEntry",
        "SG-62",
        "compensate audits COMPENSATION_STARTED on the original",
        CLAIM,
        START,
        COMPLETE,
        COMPENSATE_W,
    ),
]

_SCHEMA = {"input": {"type": "object"}, "expected": {"type": "object"}}


def build() -> VectorFile:
    work = WORK_LIFECYCLE_PORTS + WORK_COMPENSATION_PORTS
    return VectorFile(
        topic=TOPIC,
        header=(
            "Upstream compensation tests transcribed one vector per test (docs/spec/saga.md).",
            "Each test's provenance names the upstream test; groups reuse the saga-plans (run),",
            "saga-lifecycles (reconcile, case, work-item) and saga-bindings (validate) formats.",
            "docs/upstream-readings.md lists every upstream test of these areas and why some",
            "were not ported.",
        ),
        notes=NOTES,
        groups=(
            VectorGroup(
                "run", _vectors("agentctl.runtime", AGENTCTL_RUNTIME, run_document, AGENTCTL_PORTS)
            ),
            VectorGroup(
                "reconcile",
                _vectors(
                    "agentctl.runtime", AGENTCTL_RUNTIME, reconcile_document, RECONCILIATION_PORTS
                ),
            ),
            VectorGroup(
                "case", _vectors("casehub.engine", CASEHUB_ENGINE_TEST, case_document, ENGINE_PORTS)
            ),
            VectorGroup(
                "validate",
                _vectors("casehub.bindings", CASEHUB_BINDING_TEST, validate_answer, BINDING_PORTS),
            ),
            VectorGroup(
                "work-item", _vectors("casehub.work", CASEHUB_WORK_TEST, work_item_document, work)
            ),
        ),
        test_schema=_SCHEMA,
    )
