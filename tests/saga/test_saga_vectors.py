"""The saga vector topics: well-formed, documented rules, known answers written by hand from
the SG rules, and coverage of every saga scenario (AG-S1..AG-S21, CH-S1..CH-S18 in
docs/spec/edge-cases.md)."""

from __future__ import annotations

import hashlib
import importlib
import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from rescind.conformance.vectors.format import VectorFile
from rescind.conformance.vectors.retired import live_id
from rescind.conformance.vectors.sets import saga_bindings, saga_lifecycles, saga_plans
from rescind.conformance.vectors.tool import file_schema, self_describing

DOCS = Path(__file__).resolve().parents[2] / "docs" / "spec" / "saga.md"
FILES: dict[str, VectorFile] = {
    module.TOPIC: module.build() for module in (saga_plans, saga_bindings, saga_lifecycles)
}
TESTS = {test.id: test for vf in FILES.values() for test in vf.tests}


def expected(test_id: str) -> dict[str, Any]:
    """A case's expectation, by the id it was first published under (or its live one)."""
    return dict(TESTS[live_id(test_id)].expected)


def results(test_id: str) -> list[dict[str, Any]]:
    return list(expected(test_id)["results"])


@pytest.mark.parametrize("topic", sorted(FILES))
def test_file_is_consistent_and_schema_valid(topic: str) -> None:
    vector_file = FILES[topic]
    document = self_describing(vector_file.to_json())  # checks flags/notes and unique ids
    jsonschema.validate(document, file_schema(vector_file))
    assert document["numberOfTests"] == len(list(vector_file.tests))


def test_rules_are_documented() -> None:
    documented = set(re.findall(r"\*\*(SG-\d+)\*\*", DOCS.read_text(encoding="utf-8")))
    # error-precedence vectors cite the order's rule (docs/spec/precedence.md)
    precedence = DOCS.with_name("precedence.md").read_text(encoding="utf-8")
    documented |= set(re.findall(r"\*\*(EP-\d+)\*\*", precedence))
    used = {test.rule for test in TESTS.values()}
    assert used <= documented, used - documented
    from rescind.model.saga.proofs import checks

    assert {check.rule for check in checks()} <= documented


def test_ids_are_unique_across_topics() -> None:
    total = sum(len(list(vf.tests)) for vf in FILES.values())
    assert total == len(TESTS)


def tasks(plan: dict[str, Any]) -> list[str]:
    return [task["sourceTaskId"] for task in plan["tasks"]]


def blocks(plan: dict[str, Any]) -> list[tuple[str, str]]:
    return [(block["taskId"], block["rule"]) for block in plan["blocked"]]


def test_known_answers_agentctl_plans() -> None:
    s1 = expected("plan.ag-s1.reverse-order")
    assert tasks(s1) == ["second", "first"] and s1["executable"] and s1["complete"]
    s2 = expected("plan.ag-s2.after-full-compensation")
    assert (s2["executable"], s2["complete"], len(s2["alreadyCompensatedEffects"])) == (
        False,
        True,
        2,
    )
    assert blocks(expected("plan.ag-s4.uncertain-source-blocks")) == [
        ("uncertain", "unreconciled_source_effect")
    ]
    assert tasks(expected("plan.ag-s4.uncertain-source-reconciled-applied")) == ["uncertain"]
    s5 = expected("plan.ag-s5.uncertain-source-reconciled-not-applied")
    assert (s5["tasks"], s5["blocked"], s5["executable"], s5["complete"], s5["agentctlExit"]) == (
        [],
        [],
        False,
        True,
        "OK",
    )
    assert blocks(expected("plan.ag-s6.uncertain-inverse-blocks")) == [
        ("create", "unreconciled_compensation_effect")
    ]
    s6 = expected("plan.ag-s6.uncertain-inverse-reconciled-applied")
    assert (s6["executable"], s6["complete"], len(s6["alreadyCompensatedEffects"])) == (
        False,
        True,
        1,
    )
    assert tasks(expected("plan.ag-s7.uncertain-inverse-reconciled-not-applied")) == ["create"]
    s8 = expected("plan.ag-s8.after-cancelled-run")
    assert s8["executable"] and s8["blocked"] == []
    s12 = expected("plan.ag-s12.in-progress-blocks")
    assert blocks(s12) == [("*", "compensation_in_progress")] and not s12["executable"]
    for test_id, rule in (
        ("plan.ag-s13.unknown-task", "unknown_task"),
        ("plan.ag-s13.undeclared-compensation", "undeclared_compensation"),
    ):
        s13 = expected(test_id)
        assert [b[1] for b in blocks(s13)] == [rule] and s13["tasks"] == []
        assert (s13["executable"], s13["complete"], s13["agentctlExit"]) == (False, False, "POLICY")
    assert expected("plan.ag-s14.running-source") == {"error": "saga_source_not_terminal"}
    assert tasks(expected("plan.ag-s17.declaration-tiebreak")) == ["c", "a", "b"]
    s21 = expected("plan.ag-s21.irrelevant-effects")
    assert s21["tasks"] == [] and s21["blocked"] == []


def test_known_answers_agentctl_runs() -> None:
    first, replan, again = results("run.ag-s1.full-reverse-then-idempotent")
    assert first["outcome"]["state"] == "succeeded"
    assert first["outcome"]["compensatedTasks"] == ["second", "first"]
    assert first["effectsRequested"] == ["compensate--second", "compensate--first"]
    assert (replan["plan"]["executable"], replan["plan"]["complete"]) == (False, True)
    assert (
        len(replan["plan"]["alreadyCompensatedEffects"]) == 2 and again["outcome"]["runId"] is None
    )
    fail, plan2, retry, final = results("run.ag-s3.continue-retry-remainder")
    assert fail["outcome"]["state"] == "failed" and fail["attempts"]["compensate--second"] == 2
    assert (fail["outcome"]["compensatedTasks"], fail["outcome"]["failedTasks"]) == (
        ["first"],
        ["second"],
    )
    assert tasks(plan2["plan"]) == ["second"]
    assert retry["outcome"]["state"] == "succeeded" and retry["outcome"]["compensatedTasks"] == [
        "second"
    ]
    assert len(final["plan"]["alreadyCompensatedEffects"]) == 2
    cancelled, after = results("run.ag-s8.cancelled-dispatches-nothing")
    assert cancelled["outcome"]["state"] == "cancelled" and cancelled["effectsRequested"] == []
    assert after["plan"]["executable"] and after["plan"]["blocked"] == []
    automatic, _ = results("run.ag-s9.automatic-after-failure")
    assert automatic["outcome"]["state"] == "succeeded"
    assert results("run.ag-s10.automatic-not-on-cancel") == [{"outcome": None, "runs": 0}]
    paused, blocked, refused, _, resumed, done = results("run.ag-s11-s12.approval-always")
    assert paused["outcome"]["state"] == "paused"
    assert blocks(blocked["plan"]) == [("*", "compensation_in_progress")]
    assert refused["outcome"]["runId"] is None
    assert resumed["outcome"]["state"] == "succeeded" and done["plan"]["complete"]
    _, failed_only, restart = results("run.ag-s19.retry-after-compensation")
    assert not failed_only["compatible"]
    assert restart["compatible"] and restart["rerun"] == ["first", "second", "fail"]
    outcomes = [r.get("error", r.get("latest")) for r in results("run.ag-s18.reconciliation-table")]
    assert outcomes[:4] == [
        "applied",
        "saga_contradictory_reconciliation",
        "compensated",
        "not_applied",
    ]
    assert outcomes[4:9] == [
        "saga_contradictory_reconciliation",
        "saga_reconciliation_not_allowed",
        "saga_self_compensation",
        "saga_unconfirmed_compensation_effect",
        "saga_unrelated_compensation_effect",
    ]


def test_known_answers_declarations() -> None:
    rules = [d["rule"] for d in expected("declare.ag-s15.assign-with-read")["diagnostics"]]
    assert rules == ["no_mutating_effect", "action_not_effectful"]
    codes = [d["code"] for d in expected("declare.ag-s15.bounds")["diagnostics"]]
    assert codes == ["SchemaViolation"] * 5
    expanded = expected("declare.ag-s16.foreach-expansion.upstream-child-id")["expanded"]
    one = "create--0000-" + hashlib.sha256(b'{"item":"one","foreachIndex":0}').hexdigest()[:12]
    two = "create--0001-" + hashlib.sha256(b'{"item":"two","foreachIndex":1}').hexdigest()[:12]
    assert {e["id"]: e["compensate"] for e in expanded} == {one: True, two: True, "create": False}


def test_known_answers_casehub() -> None:
    assert expected("validate.ch-s13.self-reference")["error"] == "saga_binding_self_reference"
    assert expected("validate.ch-s13.missing-target")["error"] == "saga_binding_missing_target"
    assert expected("validate.ch-s13.two-cycle")["error"] == "saga_binding_cycle"
    assert expected("validate.ch-s13.orphan-refused")["error"] == "saga_binding_orphan"
    chain = expected("order.ch-s4.chain-reverse.any-order")["order"]
    assert chain["before"] == [["step-b", "step-a"]]
    s5 = expected("order.ch-s5.independent.any-order")["order"]
    assert s5 == {
        "undo": {"linearExtensionOf": {"items": ["step-a", "step-b"], "before": []}},
        "before": [],
    }
    edge = TESTS["transition.casehub-case.completed.compensate"]
    assert dict(edge.expected) == {"state": "COMPENSATING"} and "DocumentedException" in edge.flags
    for trigger in ("suspend", "cancel"):
        assert TESTS[f"transition.casehub-case.compensating.{trigger}"].result == "invalid"
    assert expected("transition.casehub-case.compensation-faulted.compensate") == {
        "state": "COMPENSATING"
    }
    assert expected("classify.casehub-case.compensation-faulted") == {
        "terminal": False,
        "final": False,
        "active": True,
        "activeEarlier": True,
    }
    assert expected("classify.casehub-case.suspended")["activeEarlier"] is False
    (s1,) = results("case.ch-s1.single-step")
    assert s1["statusChanges"] == [["COMPLETED", "COMPENSATING"]]
    assert [e["type"] for e in s1["events"]] == [
        "COMPENSATION_STARTED",
        "COMPENSATION_STEP_STARTED",
    ]
    assert s1["dispatches"][0]["worker"] == "undo-step-a-worker"
    retry, done = results("case.ch-s8.retry-from-faulted")
    assert [d["binding"] for d in retry["dispatches"]] == ["undo-a"] and done[
        "status"
    ] == "COMPENSATED"
    assert all(
        r == {"error": "saga_case_not_compensable"}
        for r in results("case.ch-s7.invalid-entry-states")[:-1]
    )
    last = results("work-item.ch-s15.happy-path")[-1]["items"][0]
    assert (last["status"], last["compensationStatus"]) == ("COMPLETED", "COMPENSATED")
    assert results("work-item.ch-s18.rejected-dead-end")[-1] == {
        "error": "saga_compensation_already_active"
    }


# Where each saga scenario (docs/spec/edge-cases.md) is checked: vector ids, or "module::test" names in this folder.
COVERAGE: dict[str, list[str]] = {
    "AG-S1": [
        "plan.ag-s1.reverse-order",
        "run.ag-s1.full-reverse-then-idempotent",
        "test_saga_execution::test_ag_s1_runs_in_reverse_and_reconciles",
    ],
    "AG-S2": [
        "plan.ag-s2.after-full-compensation",
        "test_saga_planner::test_ag_s2_after_full_compensation_nothing_left",
    ],
    "AG-S3": [
        "run.ag-s3.continue-retry-remainder",
        "test_saga_execution::test_ag_s3_continue_on_failure_then_retry_remainder",
    ],
    "AG-S4": ["plan.ag-s4.uncertain-source-blocks", "run.ag-s4.reconcile-then-compensate"],
    "AG-S5": [
        "plan.ag-s5.uncertain-source-reconciled-not-applied",
        "test_saga_planner::test_ag_s5_not_applied_needs_nothing",
    ],
    "AG-S6": [
        "run.ag-s6.uncertain-inverse.upstream-effect-id",
        "plan.ag-s6.uncertain-inverse-reconciled-applied",
    ],
    "AG-S7": [
        "run.ag-s7.uncertain-inverse-not-applied",
        "test_saga_planner::test_ag_s7_inverse_not_applied_replans",
    ],
    "AG-S8": [
        "run.ag-s8.cancelled-dispatches-nothing",
        "test_saga_execution::test_ag_s8_cancelled_run_dispatches_nothing",
    ],
    "AG-S9": [
        "run.ag-s9.automatic-after-failure",
        "test_saga_execution::test_ag_s9_automatic_after_failure",
    ],
    "AG-S10": [
        "run.ag-s10.automatic-not-on-cancel",
        "test_saga_execution::test_automatic_only_after_a_failed_normal_run",
    ],
    "AG-S11": [
        "run.ag-s11-s12.approval-always",
        "test_saga_execution::test_ag_s11_s12_approval_always_pause_approve_resume",
    ],
    "AG-S12": ["plan.ag-s12.in-progress-blocks", "run.ag-s11-s12.approval-always"],
    "AG-S13": ["plan.ag-s13.unknown-task", "plan.ag-s13.undeclared-compensation"],
    "AG-S14": ["plan.ag-s14.running-source", "plan.ag-s14.paused-source"],
    "AG-S15": [
        "declare.ag-s15.assign-with-read",
        "declare.ag-s15.bounds",
        "declare.ag-s15.agent-inverse",
        "declare.ag-s15.missing-action",
        "declare.ag-s15.workflow-invocation",
        "declare.ag-s15.template-unknown-task.agentctl-syntax",
    ],
    "AG-S16": [
        "declare.ag-s16.foreach-expansion.upstream-child-id",
        "test_saga_declarations::test_ag_s16_foreach_children_inherit_aggregate_does_not",
    ],
    "AG-S17": [
        "plan.ag-s17.declaration-tiebreak",
        "test_saga_planner::test_ag_s17_declaration_order_breaks_ties",
    ],
    "AG-S18": [
        "run.ag-s18.reconciliation-table",
        "run.first-reconciliation-table",
        "test_saga_effects::TestLaterReconciliation",
    ],
    "AG-S19": [
        "run.ag-s19.retry-after-compensation",
        "test_saga_execution::test_ag_s19_retry_after_compensation",
    ],
    "AG-S21": [
        "plan.ag-s21.irrelevant-effects",
        "test_saga_planner::test_ag_s21_irrelevant_effects_need_nothing",
    ],
    "CH-S1": ["case.ch-s1.single-step", "test_saga_casehub::test_ch_s1_single_step"],
    "CH-S2": ["case.ch-s2.step-completes", "test_saga_casehub::test_ch_s2_and_s3_step_outcomes"],
    "CH-S3": ["case.ch-s3.step-faults", "test_saga_casehub::test_ch_s2_and_s3_step_outcomes"],
    "CH-S4": ["case.ch-s4.reverse-dependency", "order.ch-s4.chain-reverse"],
    "CH-S5": [
        "case.ch-s5.independent-sequential",
        "case.ch-s5.independent-batched",
        "order.ch-s5.independent",
    ],
    "CH-S6": [
        "case.ch-s6.nothing-to-compensate",
        "test_saga_casehub::test_ch_s6_nothing_to_compensate",
    ],
    "CH-S7": [
        "case.ch-s7.invalid-entry-states",
        "test_saga_casehub::test_ch_s7_invalid_entry_states",
    ],
    "CH-S8": [
        "case.ch-s8.retry-from-faulted",
        "test_saga_casehub::test_ch_s8_retry_resumes_at_the_faulted_step",
    ],
    "CH-S9": [
        "case.ch-s9.unsupported-target",
        "test_saga_casehub::test_ch_s9_s10_dispatch_failures",
    ],
    "CH-S10": ["case.ch-s10.judgment-target", "case.ch-s10.no-judgment-scheduler"],
    "CH-S11": ["case.ch-s11.irrelevant-events", "test_saga_casehub::test_ch_s11_irrelevant_events"],
    "CH-S12": [
        "case.ch-s12.missing-binding",
        "test_saga_casehub::test_ch_s12_missing_binding_and_definition",
    ],
    "CH-S13": [
        "validate.ch-s13.self-reference",
        "validate.ch-s13.missing-target",
        "validate.ch-s13.no-compensation-fields",
        "validate.ch-s13.two-cycle",
        "validate.ch-s13.orphan-refused",
    ],
    "CH-S14": [
        "classify.casehub-case.compensated",
        "test_saga_casehub::test_ch_s14_status_predicates",
    ],
    "CH-S15": ["work-item.ch-s15.happy-path", "test_saga_workitems::test_ch_s15_happy_path"],
    "CH-S16": ["work-item.ch-s16.guards", "test_saga_workitems::test_ch_s16_guards_in_order"],
    "CH-S17": [
        "work-item.ch-s17.suspend-resume",
        "test_saga_workitems::test_ch_s17_suspend_resume",
    ],
    "CH-S18": ["work-item.ch-s18.rejected-dead-end", "test_saga_workitems::test_ch_s18_dead_end"],
}
NOT_COVERED = {
    "AG-S20": "replaying a recorded compensation run is an offline runtime feature (zero new "
    "effects, the recorded end state); Rescind models no run recorder, so a test would only "
    "restate its input",
}
SCENARIOS = [f"AG-S{n}" for n in range(1, 22)] + [f"CH-S{n}" for n in range(1, 19)]


def test_every_scenario_is_covered_or_explained() -> None:
    assert len(SCENARIOS) == 39
    assert set(COVERAGE) | set(NOT_COVERED) == set(SCENARIOS)
    assert not set(COVERAGE) & set(NOT_COVERED)
    for scenario, places in COVERAGE.items():
        for place in places:
            if "::" in place:
                module_name, function = place.split("::")
                module = importlib.import_module(f"{__package__}.{module_name}")
                assert callable(getattr(module, function, None)), (scenario, place)
            else:
                assert live_id(place) in TESTS, (scenario, place)


def test_rendered_vectors_round_trip() -> None:
    for vector_file in FILES.values():
        text = json.dumps(vector_file.to_json(), ensure_ascii=True)
        assert json.loads(text)["topic"] == vector_file.topic


# SG-81 by hand: what each template class renders to against output {"path": "a.txt",
# "meta": {"k": "v"}, "count": 3, "ratio": 1.5} and inputs {"mode": "safe", "flag": true,
# "zero": 0}; None where the task is blocked (compensation_input_unavailable).
TEMPLATE_ANSWERS: dict[str, Any] = {
    "bare-braces": "{{ inputs.mode }}",
    "bare-braces-in-text": "at {{ tasks.first.output.path }}",
    "whole-object": {"k": "v"},
    "whole-output": {"path": "a.txt", "meta": {"k": "v"}, "count": 3, "ratio": 1.5},
    "whole-number": 3,
    "whole-float": 1.5,
    "not-equals": False,
    "not-equals-other": True,
    "equals-quoted": True,
    "not-truthy-zero": True,
    "number-in-text": "n=3",
    "float-in-text": "r=1.5",
    "object-in-text": None,
}


@pytest.mark.parametrize("label", sorted(TEMPLATE_ANSWERS))
def test_template_classes_render_as_sg81_says(label: str) -> None:
    results = expected(f"run.template.{label}")["results"]
    blocked = [b["rule"] for b in results[0]["plan"]["blocked"]]
    rendered = {t["id"]: t["with"] for t in results[2]["workflow"]["tasks"]}
    answer = TEMPLATE_ANSWERS[label]
    if answer is None:
        assert blocked == ["compensation_input_unavailable"]
        assert "compensate--second" not in rendered
    else:
        assert blocked == [] and rendered["compensate--second"] == {"v": answer}
        # A bool is never a number here, nor a number a bool.
        assert type(rendered["compensate--second"]["v"]) is type(answer)


@pytest.mark.parametrize("label", ["empty-expression", "unclosed"])
def test_template_syntax_errors_refuse_the_source(label: str) -> None:
    assert expected(f"run.template.{label}") == {"error": "saga_invalid_input"}
