"""Ledger traces for the engine's telemetry (docs/spec/ledger.md HL-25): one trace per
``WorkflowEvent`` variant in the reference's scope, each with a refused call that records
nothing. The variants and the calls that record them are upstream's ``WorkflowEngine``
(``record_event`` call sites in ``crates/splash-workflow/src/lib.rs``)."""

from __future__ import annotations

from typing import Any

from rescind.conformance.fixtures.trace_dsl import (
    FAILED,
    PLAN,
    RUNNING,
    SUCCEEDED,
    SUCCEEDED_EMPTY,
    UNDO_DRIFT,
    approve,
    call,
    compensated,
    dispatch_and_observe,
    on,
    policy_and_target,
    prepare,
    reconcile,
    record_intent,
    record_op,
    setup,
)

Case = tuple[str, str, tuple[str, ...], str, dict[str, Any]]
"""(id, rule, flags, comment, trace)."""

EVENTS = call("events", engine="engine")
OTHER_PLAN = {"other-plan": {"engine": "other", "steps": PLAN}}


def _trace(steps: list[dict[str, Any]], **setup_args: Any) -> dict[str, Any]:
    return {"setup": setup(**setup_args), "steps": steps}


def _apply_compensation(tag: str) -> list[dict[str, Any]]:
    return [
        call(
            "worker_reply", session="worker", to=tag, status=SUCCEEDED_EMPTY, **{"as": f"{tag}-r"}
        ),
        on("apply_compensation", request=tag, session="host", frame=f"{tag}-r"),
    ]


# fmt: off
CASES: list[Case] = [
    ("ledger.trace.event.planned", "HL-25", (), "plan records planned {plan_id, step_count} (the set-up plan is plan 1); a refused plan (no steps, a repeated step id) records nothing and spends no plan id.", _trace([
        EVENTS,
        call("plan", engine="engine", steps=[["build", "make"], ["publish", "let release = true"]], **{"as": "two"}),
        call("plan", engine="engine", steps=[]),
        call("plan", engine="engine", steps=[["a", "x"], ["a", "y"]]),
        call("plan", engine="engine", steps=[["only", "x"]], **{"as": "three"}),
        EVENTS,
    ])),
    ("ledger.trace.event.approved", "HL-25", (), "a plan approval records approved {plan_id}; approving another engine's plan is refused and records nothing.", _trace([
        EVENTS,
        call("approve_plan", engine="engine", plan="plan", **{"as": "a1"}),
        call("approve_plan", engine="engine", plan="other-plan", **{"as": "a2"}),
        call("approve_plan", engine="engine", plan="plan", **{"as": "a3"}),
        EVENTS,
    ], engines=("engine", "other"), plans=OTHER_PLAN)),
    ("ledger.trace.event.operation-ledger-created", "HL-25", (), "operation_ledger records operation_ledger_created {plan_id}; a ledger for another engine's plan is refused and records nothing.", _trace([
        EVENTS,
        on("operation_ledger", **{"as": "second"}),
        call("operation_ledger", engine="engine", plan="other-plan", **{"as": "foreign"}),
        EVENTS,
    ], engines=("engine", "other"), plans=OTHER_PLAN)),
    ("ledger.trace.event.operation-recorded", "HL-25", (), "recording an operation records operation_recorded {plan_id, step_id, tool}; a repeated key and an unknown step are refused and record nothing.", _trace([
        EVENTS,
        record_op(),
        record_op(),
        record_op("other", step="deploy"),
        EVENTS,
    ])),
    ("ledger.trace.event.operation-observed", "HL-25", (), "an applied dispatch result and an applied reconciliation record operation_observed {plan_id, step_id, tool, state}; a contradicting reconciliation is refused and records nothing.", _trace([
        record_op(),
        EVENTS,
        *dispatch_and_observe(status=RUNNING),
        *reconcile("$op", SUCCEEDED, "rc1"),
        *reconcile("$op", FAILED, "rc2"),
        EVENTS,
    ])),
    ("ledger.trace.event.compensation-recorded", "HL-25", (), "recording a compensation intent records compensation_recorded {plan_id, operation_key, compensation_key}; a second intent for the same operation is refused and records nothing.", _trace([
        record_op(),
        *dispatch_and_observe(),
        *policy_and_target(),
        EVENTS,
        record_intent(),
        record_intent(name="again", nonce="release-42:publish:undo:2"),
        EVENTS,
    ])),
    ("ledger.trace.event.compensation-approved", "HL-25", (), "a compensation approval records compensation_approved (not approved); an approval for drifted input is refused and records nothing.", _trace([
        *compensated(),
        EVENTS,
        approve("a0", input=UNDO_DRIFT),
        approve("a1"),
        EVENTS,
    ])),
    ("ledger.trace.event.compensation-observed", "HL-25", (), "an applied compensation result records compensation_observed {plan_id, operation_key, compensation_key, state}; sealing with drifted input is refused and records nothing.", _trace([
        *compensated(),
        approve("a1"),
        EVENTS,
        prepare("c1", "a1", payload=UNDO_DRIFT),
        approve("a2"),
        prepare("c2", "a2"),
        *_apply_compensation("c2"),
        EVENTS,
    ])),
]
# fmt: on
