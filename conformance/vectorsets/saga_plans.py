"""Vectors for agentctl compensation: plans, executions, reconciliations and declarations.

Inputs use the file format of ``rescind saga plan`` (docs/saga.md); expected values are
computed by the reference at export time. Each test also states the result its author meant
(valid or invalid), and ``build`` refuses to export when the reference disagrees.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rescind.conformance.interpreters.saga_documents import (
    declare_document,
    plan_document,
    run_document,
)
from rescind.conformance.provenance import Provenance, assumed, derived, upstream
from rescind.conformance.vectorformat import Flag, VectorFile, VectorGroup, VectorTest
from rescind.conformance.vectorretired import live_id
from rescind.conformance.vectorsets._saga_evidence import (
    AGENTCTL,
    AGENTCTL_COMPILER,
    AGENTCTL_COMPILER_EXPANSION,
    AGENTCTL_SCENARIO_CODE,
    AGENTCTL_TEMPLATE,
    agentctl_code,
    scenario_of,
)
from rescind.reference.errors import RescindError

TOPIC = "saga-plans"

NOTES = (
    Flag(
        "PartialCompensation",
        "treating a plan with blocks as all-or-nothing",
        "eligible inverses never run, or blocked tasks are silently dropped from the report",
    ),
    Flag(
        "UncertainEffect",
        "treating an uncertain effect as applied or as not applied without reconciliation",
        "a change that may not exist is undone, or one that exists is never undone",
    ),
    Flag(
        "Inferred",
        "this outcome is derived from the rules rather than asserted by an upstream test",
        "an implementation that follows the upstream code literally may differ here",
    ),
    Flag(
        "RescindChoice",
        "a detail upstream does not settle (template grammar, approval per retry, id layout)",
        "another implementation may choose differently; only the rule's intent is normative",
    ),
    Flag(
        "AgentctlTemplate",
        "the case turns on agentctl's ${{ expr }} template grammar (template.rs)",
        "a renderer with another grammar renders, blocks or refuses the input differently",
    ),
    Flag(
        "Idempotence",
        "finalizing or planning twice appends or plans again",
        "a source effect is compensated twice or reported as still pending",
    ),
)

NEVER = "never"


def eff(effect_id: str, status: str = "succeeded", **extra: Any) -> dict[str, Any]:
    return {"id": effect_id, "status": status, **extra}


def task(
    task_id: str,
    *effects: dict[str, Any],
    needs: tuple[str, ...] = (),
    compensate: dict[str, Any] | None = None,
    undeclared: bool = False,
    **extra: Any,
) -> dict[str, Any]:
    body: dict[str, Any] = {"id": task_id}
    if needs:
        body["needs"] = list(needs)
    if not undeclared:
        body["compensate"] = compensate or {"uses": "action:restore"}
    if effects:
        body["effects"] = list(effects)
    body.update(extra)
    return body


def source(*tasks: dict[str, Any], state: str = "failed", **extra: Any) -> dict[str, Any]:
    body = {"runId": "src-1", "state": state, "policyApproval": NEVER, "tasks": list(tasks)}
    body.update(extra)
    return body


def doc(run: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"sourceRun": run, **extra}


def s1(**extra: Any) -> dict[str, Any]:
    """AG-S1's source: first -> second -> fail (an assert that fails)."""
    return source(
        task("first", eff("e-first")),
        task("second", eff("e-second"), needs=("first",), **extra),
        task("fail", needs=("second",), undeclared=True, state="failed"),
    )


def cmp_task(source_task: str, effect_ids: list[str], *effects: dict[str, Any]) -> dict[str, Any]:
    return {"sourceTaskId": source_task, "sourceEffectIds": effect_ids, "effects": list(effects)}


def single(status: str = "uncertain") -> dict[str, Any]:
    return source(task("uncertain", eff("e-1", status)))


def create_fail() -> dict[str, Any]:
    """AG-S6's source: create (write) -> fail."""
    return source(
        task("create", eff("e-create")),
        task("fail", needs=("create",), undeclared=True, state="failed"),
    )


def uncertain_inverse_run() -> dict[str, Any]:
    return {
        "runId": "cmp-1",
        "state": "failed",
        "tasks": [cmp_task("create", ["e-create"], eff("c-1", "uncertain"))],
    }


RESULT = {"result": {"type": "object"}}
PLAN_CASES: list[tuple[str, str, str, tuple[str, ...], dict[str, Any], str]] = [
    ("plan.ag-s1.reverse-order", "SG-19", "AG-S1: second then first", (), doc(s1()), "valid"),
    (
        "plan.ag-s2.after-full-compensation",
        "SG-26",
        "AG-S2: a succeeded earlier run is finalized first, so nothing is left",
        ("Idempotence",),
        doc(
            s1(),
            compensationRuns=[
                {
                    "runId": "cmp-1",
                    "state": "succeeded",
                    "tasks": [
                        cmp_task("second", ["e-second"], eff("c-second")),
                        cmp_task("first", ["e-first"], eff("c-first")),
                    ],
                }
            ],
        ),
        "valid",
    ),
    (
        "plan.ag-s3.retry-plans-remainder",
        "SG-16",
        "AG-S3: first was undone, second's inverse failed twice; only second is planned",
        ("PartialCompensation",),
        doc(
            s1(),
            compensationRuns=[
                {
                    "runId": "cmp-1",
                    "state": "failed",
                    "tasks": [
                        cmp_task(
                            "second",
                            ["e-second"],
                            eff("c-second-1", "failed"),
                            eff("c-second-2", "failed", attempt=2),
                        ),
                        cmp_task("first", ["e-first"], eff("c-first")),
                    ],
                }
            ],
        ),
        "valid",
    ),
    (
        "plan.ag-s4.uncertain-source-blocks",
        "SG-15",
        "AG-S4: an uncertain source effect blocks its task",
        ("UncertainEffect",),
        doc(single()),
        "valid",
    ),
    (
        "plan.ag-s4.uncertain-source-reconciled-applied",
        "SG-15",
        "AG-S4: reconciled applied, the task is planned",
        ("UncertainEffect",),
        doc(single(), reconciliations=[{"effectId": "e-1", "status": "applied", "result": {}}]),
        "valid",
    ),
    (
        "plan.ag-s5.uncertain-source-reconciled-not-applied",
        "SG-15",
        "AG-S5: reconciled not_applied: nothing to do, complete, exit OK",
        ("UncertainEffect", "Inferred"),
        doc(single(), reconciliations=[{"effectId": "e-1", "status": "not_applied"}]),
        "valid",
    ),
    (
        "plan.ag-s6.uncertain-inverse-blocks",
        "SG-14",
        "AG-S6: the earlier inverse is uncertain, so create is blocked",
        ("UncertainEffect",),
        doc(create_fail(), compensationRuns=[uncertain_inverse_run()]),
        "valid",
    ),
    (
        "plan.ag-s6.uncertain-inverse-reconciled-applied",
        "SG-25",
        "AG-S6: the inverse reconciled applied finalizes the source effect",
        ("UncertainEffect",),
        doc(
            create_fail(),
            compensationRuns=[uncertain_inverse_run()],
            reconciliations=[{"effectId": "c-1", "status": "applied", "result": {}}],
        ),
        "valid",
    ),
    (
        "plan.ag-s7.uncertain-inverse-reconciled-not-applied",
        "SG-25",
        "AG-S7: the inverse reconciled not_applied: create is planned again",
        ("UncertainEffect", "Inferred"),
        doc(
            create_fail(),
            compensationRuns=[uncertain_inverse_run()],
            reconciliations=[{"effectId": "c-1", "status": "not_applied"}],
        ),
        "valid",
    ),
    (
        "plan.ag-s8.after-cancelled-run",
        "SG-27",
        "AG-S8: a cancelled run dispatched nothing; the plan is executable, no blocks",
        (),
        doc(
            s1(),
            compensationRuns=[
                {
                    "runId": "cmp-1",
                    "state": "cancelled",
                    "tasks": [cmp_task("second", ["e-second"]), cmp_task("first", ["e-first"])],
                }
            ],
        ),
        "valid",
    ),
    (
        "plan.ag-s12.in-progress-blocks",
        "SG-13",
        "AG-S12: a paused compensation run blocks everything with task *",
        (),
        doc(
            s1(),
            compensationRuns=[
                {
                    "runId": "cmp-1",
                    "state": "paused",
                    "tasks": [cmp_task("second", ["e-second"], eff("c-1", "waiting_for_approval"))],
                }
            ],
        ),
        "valid",
    ),
    (
        "plan.ag-s13.unknown-task",
        "SG-12",
        "AG-S13: selecting an unknown task",
        (),
        doc(s1(), selection=["nope"]),
        "valid",
    ),
    (
        "plan.ag-s13.undeclared-compensation",
        "SG-12",
        "AG-S13: selecting a task without compensate",
        (),
        doc(s1(), selection=["fail"]),
        "valid",
    ),
    (
        "plan.selection-limits-tasks",
        "SG-12",
        "only the selected task is planned",
        (),
        doc(s1(), selection=["first"]),
        "valid",
    ),
    (
        "plan.selection-repeats-collapse",
        "SG-82",
        "a selection that repeats a task and names two tasks out of sorted order: the repeat "
        "collapses, selectedTasks is sorted and the plan still walks the reverse order",
        (),
        doc(s1(), selection=["second", "first", "second"]),
        "valid",
    ),
    (
        "plan.selection-blocks-sorted",
        "SG-82",
        "three selected ids out of sorted order, two unknown and one without compensate: the "
        "selection blocks come out sorted by task id",
        (),
        doc(s1(), selection=["zeta", "fail", "alpha"]),
        "valid",
    ),
    (
        "plan.ag-s14.running-source",
        "SG-10",
        "AG-S14: a running source cannot be planned for",
        (),
        doc(s1() | {"state": "running"}),
        "invalid",
    ),
    (
        "plan.ag-s14.paused-source",
        "SG-10",
        "AG-S14: a paused source cannot be planned for",
        (),
        doc(s1() | {"state": "paused"}),
        "invalid",
    ),
    (
        "plan.cancelled-source",
        "SG-10",
        "a cancelled source is terminal and can be planned for",
        (),
        doc(s1() | {"state": "cancelled"}),
        "valid",
    ),
    (
        "plan.ag-s17.declaration-tiebreak",
        "SG-19",
        "AG-S17: declared b, a, c with c needing a and b: compensation c, a, b",
        (),
        doc(
            source(
                task("b", eff("e-b")),
                task("a", eff("e-a")),
                task("c", eff("e-c"), needs=("a", "b")),
                state="succeeded",
            )
        ),
        "valid",
    ),
    (
        "plan.ag-s21.irrelevant-effects",
        "SG-3",
        "AG-S21: observe, pure and model effects need no compensation and block nothing",
        (),
        doc(
            source(
                task(
                    "look",
                    eff("e-observe", **{"class": "observe"}),
                    eff("e-pure", **{"class": "pure"}),
                    eff("e-model", "uncertain", **{"class": "model"}),
                )
            )
        ),
        "valid",
    ),
    (
        "plan.memory-write-relevant",
        "SG-3",
        "an internal_state (memory write) effect is compensated",
        (),
        doc(source(task("remember", eff("e-mem", **{"class": "internal_state"})))),
        "valid",
    ),
    (
        "plan.one-entry-covers-all-effects",
        "SG-16",
        "one compensation task covers every eligible effect of its task",
        (),
        doc(
            source(
                task(
                    "multi",
                    eff("e-1", attempt=1, status="failed"),
                    eff("e-2", attempt=2),
                    eff("e-3", attempt=2, **{"class": "network"}),
                )
            )
        ),
        "valid",
    ),
    (
        "plan.partial-executable-incomplete",
        "SG-20",
        "one task eligible, one blocked: executable yet incomplete",
        ("PartialCompensation", "UncertainEffect"),
        doc(
            source(
                task("first", eff("e-first")),
                task("second", eff("e-second", "uncertain"), needs=("first",)),
            )
        ),
        "valid",
    ),
    (
        "plan.unconfirmed-source-blocks",
        "SG-15",
        "a legacy unconfirmed success blocks its task",
        (),
        doc(single("succeeded") | {"tasks": [task("t", eff("e-1", confirmed=False))]}),
        "valid",
    ),
    (
        "plan.unconfirmed-inverse-blocks",
        "SG-14",
        "an earlier inverse with an unconfirmed success blocks its source task",
        (),
        doc(
            create_fail(),
            compensationRuns=[
                {
                    "runId": "cmp-1",
                    "state": "failed",
                    "tasks": [cmp_task("create", ["e-create"], eff("c-1", confirmed=False))],
                }
            ],
        ),
        "valid",
    ),
    (
        "plan.reversed-inverse-blocks",
        "SG-14",
        "an inverse that was itself reconciled compensated blocks its source task",
        (),
        doc(
            source(task("create", eff("e-create")), task("other", eff("e-other"))),
            compensationRuns=[
                {
                    "runId": "cmp-1",
                    "state": "failed",
                    "tasks": [
                        cmp_task("create", ["e-create"], eff("c-create")),
                        cmp_task("other", ["e-other"], eff("c-other")),
                    ],
                }
            ],
            reconciliations=[
                {
                    "effectId": "c-create",
                    "status": "compensated",
                    "compensationEffectId": "c-other",
                }
            ],
        ),
        "valid",
    ),
    (
        "plan.input-unavailable.agentctl-syntax",
        "SG-81",
        "the compensate input needs an output the source never recorded",
        ("AgentctlTemplate",),
        doc(
            source(
                task("first", eff("e-first")),
                task(
                    "second",
                    eff("e-second"),
                    needs=("first",),
                    compensate={
                        "uses": "action:restore",
                        "with": {"path": "${{ tasks.first.output.path }}"},
                    },
                ),
            )
        ),
        "valid",
    ),
    (
        "plan.input-rendered.agentctl-syntax",
        "SG-81",
        "the compensate input reads the recorded output, inputs and memory",
        ("AgentctlTemplate",),
        doc(
            source(
                task("first", eff("e-first"), output={"path": "a.txt"}),
                task(
                    "second",
                    eff("e-second"),
                    compensate={
                        "uses": "action:restore",
                        "with": {
                            "path": "${{ tasks.first.output.path }}",
                            "mode": "${{ inputs.mode }}",
                            "note": "literal",
                        },
                    },
                ),
                inputs={"mode": "safe"},
            )
        ),
        "valid",
    ),
    (
        "plan.input-not-object.agentctl-syntax",
        "SG-81",
        "a whole-input template that renders to a string is a hard error",
        ("AgentctlTemplate",),
        doc(
            source(
                task(
                    "first",
                    eff("e-first"),
                    output={"path": "a.txt"},
                    compensate={"uses": "action:restore", "with": "${{ tasks.first.output.path }}"},
                )
            )
        ),
        "invalid",
    ),
    (
        "plan.automatic-flag",
        "SG-29",
        "a source declaring onFailure automatic reports automatic=true",
        (),
        doc(s1() | {"compensation": {"onFailure": "automatic"}}),
        "valid",
    ),
    (
        "plan.contradictory-history",
        "SG-6",
        "an input history applied then not_applied is refused",
        ("UncertainEffect",),
        doc(
            single(),
            reconciliations=[
                {"effectId": "e-1", "status": "applied", "result": {}},
                {"effectId": "e-1", "status": "not_applied"},
            ],
        ),
        "invalid",
    ),
    (
        "plan.needs-cycle",
        "SG-19",
        "tasks that need each other have no compiled order",
        (),
        doc(source(task("a", needs=("b",)), task("b", needs=("a",)))),
        "invalid",
    ),
]


def _vector(
    compute: Callable[[dict[str, Any]], dict[str, Any]],
    case: tuple[str, str, str, tuple[str, ...], dict[str, Any], str],
) -> VectorTest:
    test_id, rule, comment, flags, document, meant = case
    try:
        expected, result = compute(document), "valid"
    except RescindError as error:
        expected, result = {"error": error.code}, "invalid"
    if result != meant:
        raise ValueError(f"{test_id}: the reference says {result}, the author meant {meant}")
    provenance = provenance_of(test_id, rule, flags)
    return VectorTest(
        live_id(test_id), rule, comment, document, expected, result, flags, provenance=provenance
    )


_LAYOUT = "the plan's ids and layout are Rescind's (SG-2)"
_UNCONFIRMED_RULES = frozenset({"SG-24"})
"""Rules whose scenarios touch confirmed code but whose own detail is not confirmed upstream."""


def _agentctl_compiler(symbols: str) -> Provenance:
    commit, path = AGENTCTL_COMPILER_EXPANSION
    return upstream("upstream-code", AGENTCTL, commit, path, symbols)


def provenance_of(test_id: str, rule: str, flags: tuple[str, ...]) -> Provenance:
    """agentctl scenarios whose deciding function was read (docs/spec/edge-cases.md) rest on
    that code; Rescind's choices are assumed; everything else is derived from the rules."""
    if "RescindChoice" in flags:
        return assumed(
            f"{rule}: a detail upstream does not settle (a template grammar, approval per retry "
            "or an id layout); Rescind's choice is assumed here"
        )
    if rule == "SG-82":
        return agentctl_code(
            "plan_compensation", note="the selection is a BTreeSet built from the selected slice"
        )
    if rule == "SG-92":
        return _agentctl_compiler(
            "compile_compensation (check order; returns None without action: or for an unknown"
            " action), compile (compile_compensation in one loop over the tasks,"
            " validate_compensation_templates in a second); diagnostics are Rescind's shape",
        )
    if "AgentctlTemplate" in flags:
        return upstream(
            "upstream-code",
            AGENTCTL,
            AGENTCTL_TEMPLATE[0],
            AGENTCTL_TEMPLATE[1],
            "render, validate_expression, referenced_tasks; plan_compensation blocks a task on any"
            " render error (compensation_input_unavailable)",
        )
    if rule == "SG-90":
        return _agentctl_compiler(
            "expand_tasks (children keep compensate, the aggregate's is cleared),"
            " expanded_task_id; dsl.rs ForeachDefinition (binding defaults to item)",
        )
    if rule in ("SG-28", "SG-84"):
        # Approval per dispatch and the rejection path were read in agentctl's runtime.
        return agentctl_code("resume", "prepare_effect_with_approval")
    scenario = scenario_of(test_id)
    if "Inferred" in flags:
        return derived(rule, note="inferred from plan_compensation's paths; no upstream test")
    if scenario == "ag-s17":
        commit, path = AGENTCTL_COMPILER
        tie = f"the tie-break is opensourceops/agentctl {commit} {path} test "
        tie += "stable_order_uses_declaration_order_for_ready_tasks"
        return agentctl_code("plan_compensation", note=f"{tie}; {_LAYOUT}")
    if scenario == "ag-s21":
        return derived(
            rule,
            note="plan_compensation skips irrelevant effects; which classes are irrelevant is "
            "not confirmed in upstream source",
        )
    symbols = AGENTCTL_SCENARIO_CODE.get(scenario or "")
    if symbols is not None and rule not in _UNCONFIRMED_RULES:
        return agentctl_code(*symbols, note=_LAYOUT)
    return derived(rule)


def lineage_steps(run: dict[str, Any], steps: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"lineage": doc(run, **extra), "steps": steps}


PLAN = {"do": "plan"}


def _compensate(run_id: str = "cmp-1", **extra: Any) -> dict[str, Any]:
    return {"do": "compensate", "runId": run_id, **extra}


EXECUTION_CASES: list[tuple[str, str, str, tuple[str, ...], dict[str, Any], str]] = [
    (
        "run.ag-s1.full-reverse-then-idempotent",
        "SG-23",
        "AG-S1/S2: second then first succeed; every source effect compensated; replanning is "
        "complete and not executable",
        ("Idempotence",),
        lineage_steps(s1(), [_compensate(), PLAN, _compensate("cmp-2")]),
        "valid",
    ),
    (
        "run.ag-s3.continue-retry-remainder",
        "SG-24",
        "AG-S3: second's inverse fails with retryable I/O twice (maxAttempts 2), first is still "
        "undone; after the fix only second is planned and then succeeds",
        ("PartialCompensation",),
        lineage_steps(
            s1(compensate={"uses": "action:restore", "retry": {"maxAttempts": 2}}),
            [
                _compensate(script={"compensate--second": ["io_error", "io_error"]}),
                PLAN,
                _compensate("cmp-2"),
                PLAN,
            ],
        ),
        "valid",
    ),
    (
        "run.backoff-fixed",
        "SG-24",
        "retryable failures wait backoffMs each time, unchanged",
        (),
        lineage_steps(
            s1(
                compensate={
                    "uses": "action:restore",
                    "retry": {"maxAttempts": 3, "backoffMs": 250},
                }
            ),
            [_compensate(script={"compensate--second": ["provider_error_retryable", "io_error"]})],
        ),
        "valid",
    ),
    (
        "run.non-retryable-not-retried",
        "SG-24",
        "a task error is not retried even with attempts left",
        (),
        lineage_steps(
            s1(compensate={"uses": "action:restore", "retry": {"maxAttempts": 3}}),
            [_compensate(script={"compensate--second": ["task_error"]})],
        ),
        "valid",
    ),
    (
        "run.policy-denied-no-effect",
        "SG-24",
        "a policy denial fails the task before any effect and is not retried",
        (),
        lineage_steps(
            s1(compensate={"uses": "action:restore", "retry": {"maxAttempts": 3}}),
            [_compensate(script={"compensate--second": ["policy_denied"]})],
        ),
        "valid",
    ),
    (
        "run.ag-s4.reconcile-then-compensate",
        "SG-15",
        "AG-S4: blocked until reconciled applied, then compensation succeeds",
        ("UncertainEffect",),
        lineage_steps(
            single(),
            [
                PLAN,
                _compensate(),
                {"do": "reconcile", "effectId": "e-1", "status": "applied", "result": {}},
                _compensate("cmp-2"),
            ],
        ),
        "valid",
    ),
    (
        "run.ag-s6.uncertain-inverse.upstream-effect-id",
        "SG-25",
        "AG-S6: the inverse times out (uncertain), the run fails, the replan is blocked; "
        "reconciling the inverse applied completes it (effect ids: agentctl's layout over "
        "Rescind's operation and input digest)",
        ("UncertainEffect", "RescindChoice"),
        lineage_steps(
            create_fail(),
            [
                _compensate(script={"compensate--create": ["uncertain"]}),
                PLAN,
                {
                    "do": "reconcile",
                    "latestEffectOf": {"runId": "cmp-1", "taskId": "create"},
                    "status": "applied",
                    "result": {},
                },
                PLAN,
            ],
        ),
        "valid",
    ),
    (
        "run.ag-s7.uncertain-inverse-not-applied",
        "SG-25",
        "AG-S7: the inverse reconciled not_applied; a new run retries with a new effect id",
        ("UncertainEffect", "Inferred"),
        lineage_steps(
            create_fail(),
            [
                _compensate(script={"compensate--create": ["uncertain"]}),
                {
                    "do": "reconcile",
                    "latestEffectOf": {"runId": "cmp-1", "taskId": "create"},
                    "status": "not_applied",
                },
                PLAN,
                _compensate("cmp-2"),
                PLAN,
            ],
        ),
        "valid",
    ),
    (
        "run.ag-s8.cancelled-dispatches-nothing",
        "SG-27",
        "AG-S8: a pre-cancelled run has no effect and the next plan is executable",
        (),
        lineage_steps(s1(), [_compensate(cancelled=True), PLAN]),
        "valid",
    ),
    (
        "run.ag-s9.automatic-after-failure",
        "SG-29",
        "AG-S9: onFailure automatic compensates a failed source in one linked run",
        (),
        lineage_steps(
            create_fail() | {"compensation": {"onFailure": "automatic"}},
            [{"do": "automatic", "runId": "cmp-1"}, PLAN],
        ),
        "valid",
    ),
    (
        "run.ag-s10.automatic-not-on-cancel",
        "SG-29",
        "AG-S10: a cancelled source never triggers automatic compensation",
        (),
        lineage_steps(
            create_fail() | {"compensation": {"onFailure": "automatic"}, "state": "cancelled"},
            [{"do": "automatic", "runId": "cmp-1"}],
        ),
        "valid",
    ),
    (
        "run.automatic-manual-default",
        "SG-29",
        "without onFailure automatic nothing happens after a failure",
        (),
        lineage_steps(create_fail(), [{"do": "automatic", "runId": "cmp-1"}]),
        "valid",
    ),
    (
        "run.automatic-blocked-silent",
        "SG-29",
        "automatic compensation with a blocked plan silently does nothing",
        ("UncertainEffect",),
        lineage_steps(
            single() | {"compensation": {"onFailure": "automatic"}},
            [{"do": "automatic", "runId": "cmp-1"}],
        ),
        "valid",
    ),
    (
        "run.ag-s11-s12.approval-always",
        "SG-28",
        "AG-S11/S12: approval always pauses; a replan is blocked in progress and compensate "
        "creates no run; approve and resume succeeds and finalizes",
        (),
        lineage_steps(
            create_fail() | {"compensation": {"approval": "always"}},
            [
                _compensate(),
                PLAN,
                _compensate("cmp-2"),
                {"do": "approve", "runId": "cmp-1"},
                {"do": "resume", "runId": "cmp-1"},
                PLAN,
            ],
        ),
        "valid",
    ),
    (
        "run.approval-policy-inherits-mutations",
        "SG-28",
        "approval policy keeps the source's mutations policy, so the inverse waits",
        (),
        lineage_steps(create_fail() | {"policyApproval": "mutations"}, [_compensate()]),
        "valid",
    ),
    (
        "run.approval-never-overrides",
        "SG-28",
        "approval never runs without asking even when the source asks for every mutation",
        (),
        lineage_steps(
            create_fail() | {"policyApproval": "always", "compensation": {"approval": "never"}},
            [_compensate()],
        ),
        "valid",
    ),
    (
        "run.approval-rejected",
        "SG-28",
        "rejecting the approval cancels the effect and fails the task; the replan plans it again",
        (),
        lineage_steps(
            create_fail() | {"compensation": {"approval": "always"}},
            [
                _compensate(),
                {"do": "reject", "runId": "cmp-1"},
                {"do": "resume", "runId": "cmp-1"},
                PLAN,
            ],
        ),
        "valid",
    ),
    (
        "run.approval-rejected-stops-the-run",
        "SG-84",
        "two compensations wait for approval; the first is rejected: resume fails that task and "
        "the run at once, never dispatches the second and finalizes nothing",
        (),
        lineage_steps(
            s1() | {"compensation": {"approval": "always"}},
            [
                _compensate(),
                {"do": "reject", "runId": "cmp-1"},
                {"do": "resume", "runId": "cmp-1"},
                PLAN,
            ],
        ),
        "valid",
    ),
    (
        "run.generated-workflow.agentctl-syntax",
        "SG-23",
        "the generated compensation workflow: plan order, no needs, continue on failure, "
        "declared retry and timeout or 120 s, one worker, lineage input, manual onFailure",
        (),
        lineage_steps(
            s1(
                compensate={
                    "uses": "action:restore",
                    "with": {"path": "${{ inputs.path }}"},
                    "retry": {"maxAttempts": 3, "backoffMs": 100},
                    "timeoutSeconds": 30,
                }
            )
            | {
                "workflow": "deploy",
                "inputs": {"path": "a.txt"},
                "compensation": {"onFailure": "automatic", "approval": "always"},
            },
            [_compensate(), {"do": "workflow", "runId": "cmp-1"}],
        ),
        "valid",
    ),
    (
        "run.ag-s19.retry-after-compensation",
        "SG-30",
        "AG-S19: a failed-only retry is incompatible; restarting from first is compatible",
        (),
        lineage_steps(
            s1(),
            [
                _compensate(),
                {"do": "retryCheck"},
                {"do": "retryCheck", "fromTasks": ["first"], "restartSuccessful": True},
            ],
        ),
        "valid",
    ),
    (
        "run.ag-s18.reconciliation-table",
        "SG-6",
        "AG-S18: uncertain -> applied -> compensated with a confirmed inverse is accepted; "
        "contradictions, bad first records and bad links are refused",
        (),
        lineage_steps(
            source(
                task("u", eff("e-u", "uncertain")),
                task("v", eff("e-v", "uncertain")),
                task("w", eff("e-w")),
            ),
            [
                {"do": "reconcile", "effectId": "e-u", "status": "applied", "result": {}},
                {"do": "reconcile", "effectId": "e-u", "status": "not_applied"},
                {
                    "do": "reconcile",
                    "effectId": "e-u",
                    "status": "compensated",
                    "compensationEffectId": "c-ok",
                },
                {"do": "reconcile", "effectId": "e-v", "status": "not_applied"},
                {
                    "do": "reconcile",
                    "effectId": "e-v",
                    "status": "compensated",
                    "compensationEffectId": "c-ok",
                },
                {"do": "reconcile", "effectId": "e-w", "status": "applied", "result": {}},
                {
                    "do": "reconcile",
                    "effectId": "e-w",
                    "status": "compensated",
                    "compensationEffectId": "e-w",
                },
                {
                    "do": "reconcile",
                    "effectId": "e-w",
                    "status": "compensated",
                    "compensationEffectId": "c-bad",
                },
                {
                    "do": "reconcile",
                    "effectId": "c-ok",
                    "status": "compensated",
                    "compensationEffectId": "c-other",
                },
                {"do": "reconcile", "effectId": "e-w", "status": "compensated"},
                {"do": "reconcile", "effectId": "e-v", "status": "applied", "result": {}},
                {"do": "reconcile", "effectId": "e-u", "status": "applied", "result": {}},
                {"do": "reconcile", "effectId": "e-v", "status": "not_applied", "actor": " "},
                {"do": "reconcile", "effectId": "e-u", "status": "compensated", "reason": ""},
            ],
            compensationRuns=[
                {
                    "runId": "cmp-1",
                    "state": "failed",
                    "tasks": [
                        cmp_task("u", ["e-u"], eff("c-ok")),
                        cmp_task("w", ["e-w"], eff("c-bad", "failed")),
                    ],
                },
                {
                    "runId": "cmp-2",
                    "state": "succeeded",
                    "tasks": [cmp_task("v", ["e-v"], eff("c-other"))],
                },
            ],
        ),
        "valid",
    ),
    (
        "run.first-reconciliation-table",
        "SG-5",
        "first records: compensated needs a confirmed success; applied never fits one",
        (),
        lineage_steps(
            source(task("u", eff("e-u", "uncertain")), task("w", eff("e-w"))),
            [
                {
                    "do": "reconcile",
                    "effectId": "e-u",
                    "status": "compensated",
                    "compensationEffectId": "c-ok",
                },
                {"do": "reconcile", "effectId": "e-w", "status": "applied", "result": {}},
                {"do": "reconcile", "effectId": "e-u", "status": "applied"},
                {"do": "reconcile", "effectId": "e-w", "status": "not_applied"},
                {
                    "do": "reconcile",
                    "effectId": "e-w",
                    "status": "compensated",
                    "compensationEffectId": "c-ok",
                },
                {"do": "reconcile", "effectId": "nope", "status": "not_applied"},
            ],
            compensationRuns=[
                {
                    "runId": "cmp-1",
                    "state": "failed",
                    "tasks": [cmp_task("w", ["e-w"], eff("c-ok"))],
                }
            ],
        ),
        "valid",
    ),
]


def _workflow(*tasks: dict[str, Any], **extra: Any) -> dict[str, Any]:
    actions = {"write": "builtin.write", "read": "builtin.read", "assign": "builtin.assign"}
    return {"workflow": {"actions": actions, "tasks": list(tasks), **extra}}


def _undo(uses: str = "action:write", /, **extra: Any) -> dict[str, Any]:
    # Positional-only: ``**{"with": ...}`` (a Python keyword) must land in ``extra``.
    return {"uses": uses, **extra}


TEMPLATE_OUTPUT = {"path": "a.txt", "meta": {"k": "v"}, "count": 3, "ratio": 1.5}
TEMPLATE_INPUTS = {"mode": "safe", "flag": True, "zero": 0}
TEMPLATE_ROWS: tuple[tuple[str, Any, str], ...] = (
    ("bare-braces", "{{ inputs.mode }}", "`{{ }}` without `$` is literal text"),
    ("bare-braces-in-text", "at {{ tasks.first.output.path }}", "`{{ }}` inside text is literal"),
    ("whole-object", "${{ tasks.first.output.meta }}", "one whole expression keeps an object"),
    ("whole-output", "${{ tasks.first.output }}", "the whole recorded output, as an object"),
    ("whole-number", "${{ tasks.first.output.count }}", "one whole expression keeps a number"),
    ("whole-float", "${{ tasks.first.output.ratio }}", "a float stays a JSON number"),
    ("not-equals", "${{ not inputs.mode == safe }}", "`not A == B`: a negated comparison"),
    ("not-equals-other", "${{ not inputs.mode == other }}", "`not A == B` when A differs"),
    ("equals-quoted", '${{ inputs.mode == "safe" }}', "a quoted literal compares as text"),
    ("not-truthy-zero", "${{ not inputs.zero }}", "`not` of a falsy zero"),
    ("number-in-text", "n=${{ tasks.first.output.count }}", "a number interpolated into text"),
    ("float-in-text", "r=${{ tasks.first.output.ratio }}", "a float interpolated into text"),
    ("object-in-text", "m=${{ tasks.first.output.meta }}", "an object cannot be interpolated"),
    ("empty-expression", "${{ }}", "an expression that trims to nothing: refused as input"),
    ("unclosed", "${{ inputs.mode", "`${{` with no `}}` after it: refused as input"),
)
"""Template classes (SG-81): each is one compensate input value rendered against the same
source, through plan, compensation run and the generated workflow's ``with``."""


def _template_case(
    label: str, value: Any, comment: str
) -> tuple[str, str, str, tuple[str, ...], dict[str, Any], str]:
    run = source(
        task("first", eff("e-first"), output=TEMPLATE_OUTPUT),
        task(
            "second",
            eff("e-second"),
            needs=("first",),
            compensate={"uses": "action:restore", "with": {"v": value}},
        ),
        inputs=TEMPLATE_INPUTS,
    )
    steps = [PLAN, _compensate(), {"do": "workflow", "runId": "cmp-1"}]
    # A syntax error is a compile-time error (SG-32 invalid_template): such a source run
    # cannot exist, so its file is refused.
    meant = "invalid" if comment.endswith("refused as input") else "valid"
    return (
        f"run.template.{label}",
        "SG-81",
        f"compensate input {value!r}: {comment}",
        ("AgentctlTemplate",),
        lineage_steps(run, steps),
        meant,
    )


TEMPLATE_CASES = [_template_case(*row) for row in TEMPLATE_ROWS]

_BAD_WITH = {"with": {"path": "${{ }}", "from": "${{ tasks.ghost.output }}"}}
"""A compensate input with an empty expression and a template naming an unknown task."""

DECLARATION_CASES: list[tuple[str, str, str, tuple[str, ...], dict[str, Any], str]] = [
    (
        "declare.no-named-action-stops-the-task",
        "SG-92",
        "an inverse that names no action (agent:x) with broken bounds and templates: one "
        "not_a_named_action, no bound or template diagnostic for that task",
        ("AgentctlTemplate",),
        _workflow(
            {
                "id": "create",
                "uses": "action:write",
                "compensate": _undo("agent:x", retry={"maxAttempts": 0}, **_BAD_WITH),
            }
        ),
        "valid",
    ),
    (
        "declare.missing-action-stops-the-task",
        "SG-92",
        "a non-mutating task whose inverse action is missing, with broken bounds and templates: "
        "no_mutating_effect then missing_action, nothing else for that task",
        ("AgentctlTemplate",),
        _workflow(
            {
                "id": "calc",
                "uses": "action:assign",
                "compensate": _undo("action:gone", timeoutSeconds=0, **_BAD_WITH),
            }
        ),
        "valid",
    ),
    (
        "declare.templates-after-every-other-check",
        "SG-92",
        "task a has a bad template, task b a broken bound and a read inverse: b's "
        "action_not_effectful and out_of_bounds come before a's template diagnostics",
        ("AgentctlTemplate",),
        _workflow(
            {"id": "a", "uses": "action:write", "compensate": _undo(**_BAD_WITH)},
            {
                "id": "b",
                "uses": "action:write",
                "compensate": _undo("action:read", retry={"backoffMs": 60001}),
            },
        ),
        "valid",
    ),
    (
        "declare.valid-write",
        "SG-32",
        "a write task undone by a write action compiles cleanly",
        (),
        _workflow({"id": "create", "uses": "action:write", "compensate": _undo()}),
        "valid",
    ),
    (
        "declare.ag-s15.assign-with-read",
        "SG-32",
        "AG-S15: an assign task with a read inverse: not mutating and not effectful",
        (),
        _workflow({"id": "calc", "uses": "action:assign", "compensate": _undo("action:read")}),
        "valid",
    ),
    (
        "declare.ag-s15.agent-inverse",
        "SG-32",
        "AG-S15: an agent cannot be an inverse",
        (),
        _workflow({"id": "create", "uses": "action:write", "compensate": _undo("agent:x")}),
        "valid",
    ),
    (
        "declare.ag-s15.missing-action",
        "SG-32",
        "AG-S15: the inverse action does not exist",
        (),
        _workflow({"id": "create", "uses": "action:write", "compensate": _undo("action:missing")}),
        "valid",
    ),
    (
        "declare.ag-s15.bounds",
        "SG-31",
        "AG-S15: maxAttempts 0 and 21, backoffMs 60001, timeoutSeconds 0 and 86401",
        (),
        _workflow(
            {"id": "a", "uses": "action:write", "compensate": _undo(retry={"maxAttempts": 0})},
            {"id": "b", "uses": "action:write", "compensate": _undo(retry={"maxAttempts": 21})},
            {"id": "c", "uses": "action:write", "compensate": _undo(retry={"backoffMs": 60001})},
            {"id": "d", "uses": "action:write", "compensate": _undo(timeoutSeconds=0)},
            {"id": "e", "uses": "action:write", "compensate": _undo(timeoutSeconds=86401)},
            {
                "id": "f",
                "uses": "action:write",
                "compensate": _undo(
                    retry={"maxAttempts": 20, "backoffMs": 60000}, timeoutSeconds=86400
                ),
            },
        ),
        "valid",
    ),
    (
        "declare.ag-s15.workflow-invocation",
        "SG-32",
        "AG-S15: a sub-workflow invocation may not declare compensate",
        (),
        _workflow({"id": "sub", "uses": "workflow:child", "compensate": _undo()}),
        "valid",
    ),
    (
        "declare.ag-s15.template-unknown-task.agentctl-syntax",
        "SG-32",
        "AG-S15: a template naming unknown task ghost; own output and non-needs are fine",
        ("AgentctlTemplate",),
        _workflow(
            {"id": "other", "uses": "action:write"},
            {
                "id": "create",
                "uses": "action:write",
                "compensate": _undo(
                    **{
                        "with": {
                            "a": "${{ tasks.ghost.output }}",
                            "b": "${{ tasks.create.output.path }}",
                            "c": "${{ tasks.other.output }}",
                        }
                    }
                ),
            },
        ),
        "valid",
    ),
    (
        "declare.invalid-template.agentctl-syntax",
        "SG-81",
        "an unclosed ${{ is an invalid template",
        ("AgentctlTemplate",),
        _workflow(
            {
                "id": "create",
                "uses": "action:write",
                "compensate": _undo(**{"with": {"a": "x ${{ inputs.y"}}),
            }
        ),
        "valid",
    ),
    (
        "declare.agent-mutating-tool",
        "SG-32",
        "an agent with a non-pure tool may declare compensate; one with only observe may not",
        (),
        _workflow(
            {"id": "writer", "uses": "agent:w", "compensate": _undo()},
            {"id": "looker", "uses": "agent:l", "compensate": _undo()},
            agents={"w": ["observe", "workspace"], "l": ["observe", "model"]},
        ),
        "valid",
    ),
    (
        "declare.structural-never",
        "SG-32",
        "routers and aggregates are never compensable",
        (),
        _workflow({"id": "route", "structure": "router", "compensate": _undo()}),
        "valid",
    ),
    (
        "declare.ag-s16.foreach-expansion.upstream-child-id",
        "SG-90",
        "AG-S16: foreach children (ids as agentctl hashes their bindings) keep compensate, the "
        "aggregate has none",
        (),
        _workflow(
            {
                "id": "create",
                "uses": "action:write",
                "foreach": ["one", "two"],
                "compensate": _undo(),
            }
        ),
        "valid",
    ),
]

_SCHEMA = {
    "input": {
        "type": "object",
        "properties": {
            "sourceRun": {"type": "object"},
            "compensationRuns": {"type": "array"},
            "reconciliations": {"type": "array"},
            "selection": {"type": "array", "items": {"type": "string"}},
            "lineage": {"type": "object"},
            "steps": {"type": "array"},
            "workflow": {"type": "object"},
        },
        "additionalProperties": False,
    },
    "expected": {
        "type": "object",
        "properties": {
            "error": {"type": "string"},
            "apiVersion": {"const": "agentctl.dev/compensation-plan/v1"},
            "sourceRunId": {"type": "string"},
            "executable": {"type": "boolean"},
            "complete": {"type": "boolean"},
            "automatic": {"type": "boolean"},
            "selectedTasks": {"type": "array"},
            "tasks": {"type": "array"},
            "blocked": {"type": "array"},
            "alreadyCompensatedEffects": {"type": "array"},
            "agentctlExit": {"enum": ["OK", "POLICY"]},
            "results": {"type": "array"},
            "diagnostics": {"type": "array"},
            "expanded": {"type": "array"},
        },
        "additionalProperties": False,
    },
}


def build() -> VectorFile:
    return VectorFile(
        topic=TOPIC,
        header=(
            "agentctl workflow-level compensation (docs/spec/saga.md SG-1..SG-33).",
            "plan: input is a `rescind saga plan` file; expected is the plan plus the agentctl",
            "exit status name. run: steps over a lineage, one result per step ({error} when the",
            "step is refused). declare: compile-time diagnostics and foreach expansion.",
        ),
        notes=NOTES,
        groups=(
            VectorGroup("plan", tuple(_vector(plan_document, case) for case in PLAN_CASES)),
            VectorGroup(
                "run",
                tuple(_vector(run_document, case) for case in (*EXECUTION_CASES, *TEMPLATE_CASES)),
            ),
            VectorGroup(
                "declare", tuple(_vector(declare_document, case) for case in DECLARATION_CASES)
            ),
        ),
        test_schema=_SCHEMA,
    )
