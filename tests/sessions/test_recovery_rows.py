"""Each row of the host crash and recovery policy table (docs/spec/recovery.md RC-1..RC-15) and
RC-16 (host edge case 48) as an executable scenario; the expected codes and numbers come from
those rules."""

from __future__ import annotations

import json
from typing import Any

import pytest

from rescind.conformance.fixtures.recovery_cases import ROWS, Step
from rescind.conformance.interpreters.host_scenario import run_host_scenario

Run = list[tuple[Step, dict[str, Any]]]


def run(prefix: str) -> Run:
    (case,) = [case for case in ROWS if case.id.startswith(prefix)]
    outcome = run_host_scenario(case.spec())
    return list(zip(case.steps, outcome["steps"], strict=True))


def find(steps: Run, call: str, **match: Any) -> list[dict[str, Any]]:
    return [
        outcome
        for step, outcome in steps
        if step.call == call and all(step.args.get(k) == v for k, v in match.items())
    ]


def one(steps: Run, call: str, **match: Any) -> dict[str, Any]:
    (outcome,) = find(steps, call, **match)
    return outcome


def errors(steps: Run, call: str, **match: Any) -> list[str]:
    return [outcome.get("error", "ok") for outcome in find(steps, call, **match)]


def frame_request(outcome: dict[str, Any]) -> dict[str, Any]:
    request: dict[str, Any] = json.loads(outcome["result"])["message"]["request"]
    return request


def test_every_row_of_the_table_has_a_scenario() -> None:
    rules = sorted({case.rule for case in ROWS}, key=lambda rule: int(rule.split("-")[1]))
    assert rules == [f"RC-{n}" for n in range(1, 17)]


def test_row_1_not_succeeded_originals() -> None:
    steps = run("recovery.row-01")
    refused = "compensation_requires_succeeded_operation"
    derived = find(steps, "derive_compensation_key")
    assert [outcome["error"] for outcome in derived] == [refused] * 4
    assert [outcome["details"]["state"] for outcome in derived] == [
        "pending",
        "running",
        "failed",
        "cancelled",
    ]
    assert errors(steps, "approve_compensation") == [refused]
    assert [o["result"] for o in find(steps, "driver_apply_reconciliation")] == [
        "succeeded",
        "failed",
    ]
    assert errors(steps, "driver_record_compensation") == [refused, "ok"]


def test_row_2_intent_is_durable_before_approval() -> None:
    steps = run("recovery.row-02")
    states = find(steps, "driver_state")
    assert states[0]["result"]["ledger_revision"] == 3
    assert states[0]["result"]["storage_revision"] == 2  # the intent is not durable yet
    assert errors(steps, "driver_compensate") == ["ledger_not_persisted", "ok"]
    assert one(steps, "driver_persist")["result"] == 3
    approval = one(steps, "approve_compensation")["result"]
    assert approval["ledger_revision"] == 3  # persisting did not move the ledger revision
    assert one(steps, "driver_apply_compensation")["result"] == "succeeded"
    assert one(steps, "worker_calls")["result"]["compensate"] == 1


def test_row_3_pending_intent_is_resealed_after_a_crash() -> None:
    steps = run("recovery.row-03")
    key = one(steps, "driver_record_compensation", driver="h1")["result"]
    policies = find(steps, "policy")
    assert policies[0]["result"] == policies[1]["result"]  # same grant, same fingerprint
    recovered = one(steps, "driver_recover")["result"]
    assert recovered["fence"] == 2 and recovered["ledger_revision"] == 3
    assert errors(steps, "driver_record_compensation", driver="h2") == [
        "compensation_already_recorded"
    ]
    resent = frame_request(one(steps, "driver_compensate", driver="h2"))
    first = frame_request(one(steps, "driver_compensate", driver="h1"))
    assert resent["compensation_key"] == first["compensation_key"] == key
    assert (resent["session_id"], resent["request_id"]) == ("host-2", "c2")
    assert errors(steps, "deliver", frame="c2") == ["pending_compensation"]
    assert one(steps, "worker_calls")["result"]["compensate"] == 1
    assert '"state":{"state":"pending"}}' in one(steps, "worker_journal")["result"]["journal"]


def test_row_4_succeeded_compensation() -> None:
    steps = run("recovery.row-04")
    before, after = (outcome["result"] for outcome in find(steps, "driver_state"))
    assert before["ledger_revision"] == after["ledger_revision"] == 4
    assert after["storage_revision"] == before["storage_revision"] + 1
    assert errors(steps, "driver_record_compensation") == ["ok", "compensation_already_recorded"]
    assert errors(steps, "apply_verified_compensation") == ["invalid_compensation_state_transition"]
    assert one(steps, "worker_calls")["result"]["compensate"] == 1


def test_row_5_failed_or_cancelled_compensation_stays_terminal() -> None:
    steps = run("recovery.row-05")
    applied = [o["result"] for o in find(steps, "driver_apply_compensation")]
    assert applied == ["failed", "cancelled", "failed"]
    assert errors(steps, "driver_record_compensation")[-2:] == ["compensation_already_recorded"] * 2
    assert one(steps, "worker_calls")["result"]["compensate"] == 2


@pytest.mark.parametrize(
    ("prefix", "approve", "prepare"),
    [
        (
            "recovery.row-06",
            ["compensation_policy_mismatch", "ok", "compensation_policy_mismatch"],
            ["approval_mismatch"],
        ),
        ("recovery.row-07", ["compensation_policy_mismatch", "ok"], ["approval_mismatch"]),
        ("recovery.row-11", ["ok", "ok"], ["approval_mismatch", "approval_mismatch"]),
    ],
)
def test_rows_6_7_11_drift_between_approval_and_seal(
    prefix: str, approve: list[str], prepare: list[str]
) -> None:
    steps = run(prefix)
    assert errors(steps, "approve_compensation") == approve
    assert errors(steps, "prepare_compensation") == prepare


def test_row_6_grant_drift_at_policy_and_worker() -> None:
    steps = run("recovery.row-06")
    assert errors(steps, "policy") == ["ok", "ok", "compensation_not_granted"]
    fingerprints = [o["result"]["grant_fingerprint"] for o in find(steps, "policy")[:2]]
    assert fingerprints[0] != fingerprints[1]
    assert errors(steps, "deliver", frame="c2") == ["compensation_grant_mismatch"]


def test_row_8_tool_drift() -> None:
    steps = run("recovery.row-08")
    assert errors(steps, "approve_compensation") == ["compensation_policy_mismatch"]
    assert errors(steps, "driver_record_compensation") == ["compensation_policy_mismatch"]


def test_row_9_key_drift() -> None:
    steps = run("recovery.row-09")
    assert errors(steps, "prepare_compensation") == ["approval_mismatch"]
    assert errors(steps, "apply_verified_compensation") == [
        "unknown_operation",
        "compensation_request_mismatch",
    ]


def test_row_10_input_drift() -> None:
    steps = run("recovery.row-10")
    drift = "compensation_input_fingerprint_mismatch"
    assert errors(steps, "approve_compensation") == [drift, "ok"]
    assert errors(steps, "prepare_compensation") == [drift, "approval_mismatch"]
    assert errors(steps, "apply_verified_compensation") == [drift]


def test_row_12_lost_responses_are_resent_without_a_second_effect() -> None:
    steps = run("recovery.row-12")
    lost_dispatch, lost_compensation, done = (o["result"] for o in find(steps, "driver_state"))
    assert lost_dispatch["ledger_revision"] == 1  # still pending: nothing was applied
    assert lost_compensation["ledger_revision"] == 3  # intent recorded, result lost
    assert done["ledger_revision"] == 4
    assert one(steps, "worker_calls")["result"] == {"dispatch": 1, "compensate": 1, "reconcile": 0}


def test_row_13_stale_ledgers() -> None:
    steps = run("recovery.row-13")
    recovered = find(steps, "driver_recover")
    assert [o.get("error", "ok") for o in recovered] == [
        "rollback_detected",
        "stale_revision",
        "ok",
    ]
    assert recovered[1]["details"] == {"actual": 1, "minimum": 2}
    assert recovered[2]["result"]["ledger_revision"] == 1


def test_row_14_two_recovering_writers() -> None:
    steps = run("recovery.row-14")
    fences = [o["result"]["fence"] for o in find(steps, "driver_recover")]
    assert fences == [2, 3]
    refused = find(steps, "driver_record_operation", driver="h2")
    assert refused[0]["details"] == {"current": 3, "supplied": 2}
    assert refused[1]["error"] == "host_driver_poisoned"
    stored_before, stored_after = (o["result"]["revision"] for o in find(steps, "stored"))
    assert (stored_before, stored_after) == (1, 2)
    assert one(steps, "driver_state", driver="h2")["result"]["poisoned"] is True
    assert one(steps, "driver_record_operation", driver="h1", nonce="n3")["details"] == {
        "current": 3,
        "supplied": 1,
    }


def test_row_15_terminal_state_is_not_a_resume_path() -> None:
    steps = run("recovery.row-15")
    assert errors(steps, "prepare_external_operation") == ["operation_already_terminal"]
    assert [o["result"] for o in find(steps, "driver_apply_dispatch")] == ["succeeded", "succeeded"]
    assert one(steps, "driver_state")["result"]["ledger_revision"] == 2
    assert one(steps, "worker_calls")["result"]["dispatch"] == 1


def test_edge_48_fenced_ledger_recovery() -> None:
    steps = run("recovery.edge-48")
    mismatch, stale, second, third = find(steps, "driver_apply_reconciliation")
    assert mismatch["error"] == "reconciliation_mismatch"
    assert stale["details"] == {"current": 2, "supplied": 1}
    stored = [o["result"] for o in find(steps, "stored")]
    assert [entry["revision"] for entry in stored] == [1, 2, 3]
    assert [json.loads(entry["ledger"])["revision"] for entry in stored] == [1, 2, 2]
    h1 = one(steps, "driver_state", driver="h1")["result"]
    assert "operation_observed" not in h1["events"]
    assert second["result"] == third["result"] == "running"
