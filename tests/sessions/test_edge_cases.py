"""Worker edge cases 42-54 (docs/spec/edge-cases.md) and the crash scenarios, checked against
what the spec states: outcomes, adapter counts, writes, revisions, poisoning, journals."""

from __future__ import annotations

import json
from typing import Any

import pytest

from rescind.conformance.fixtures.session_cases import CASES
from rescind.conformance.interpreters.worker_scenario import run_scenario

PENDING_RECORD = '"state":{"state":"pending"}'
EMPTY_JOURNAL = '{"format_version":2,"scope":"tenant","records":[]}'


def run(case_id: str) -> list[dict[str, Any]]:
    case = next(case for case in CASES if case.id == case_id)
    outcome = run_scenario(case.spec())
    steps: list[dict[str, Any]] = outcome["steps"]
    return steps


def status_of(step: dict[str, Any]) -> Any:
    return json.loads(step["result"])["result"]["status"]


def test_42_one_effect_two_writes_free_resend() -> None:
    first, resend = run("session.edge-42.two-writes-one-effect")
    assert first["after"]["snapshots"] == 2 and first["after"]["dispatch_calls"] == 1
    assert status_of(first) == {
        "state": "succeeded",
        "payload": {"format": "text", "value": "done"},
    }
    assert status_of(resend) == status_of(first)
    assert json.loads(resend["result"])["result"]["request_id"] == "d2"
    assert resend["after"]["snapshots"] == 2 and resend["after"]["dispatch_calls"] == 1


@pytest.mark.parametrize(
    ("name", "code", "cause"),
    [
        ("unavailable", "journal_persistence_failed", "store_unavailable"),
        ("conflict", "journal_persistence_failed", "write_conflict"),
        ("expired-lease", "journal_persistence_failed", "fencing_token_rejected"),
        ("non-increasing-revision", "invalid_journal_revision", None),
    ],
)
def test_43_failed_admission_write(name: str, code: str, cause: str | None) -> None:
    failed, after_poison = run(f"session.edge-43.admission-write-{name}")
    assert failed["error"] == code
    if cause is None:
        assert failed["details"] == {"expected": 0, "actual": 0}
    else:
        assert failed["details"]["cause"] == cause
    state = failed["after"]
    assert state["journal"] == EMPTY_JOURNAL  # the key is not in memory
    assert state["dispatch_calls"] == 0 and state["poisoned"] is True
    assert state["stored_revision"] == 0
    assert after_poison["error"] == "session_poisoned"
    assert after_poison["after"]["reconcile_calls"] == 0


def test_44_failed_write_after_the_effect() -> None:
    failed, refused = run("session.edge-44.post-effect-write-fails")
    assert failed["error"] == "indeterminate_operation"
    assert failed["details"]["cause_kind"] == "journal"
    state = failed["after"]
    assert PENDING_RECORD in state["journal"] and state["snapshots"] == 1 and state["poisoned"]
    assert refused["error"] == "session_poisoned" and refused["after"]["reconcile_calls"] == 0
    revision_case = run("session.edge-44.post-effect-non-increasing-revision")[0]
    assert revision_case["details"]["cause_kind"] == "invalid_journal_revision"
    assert revision_case["after"]["poisoned"] is True


def test_45_adapter_indeterminate() -> None:
    failed, resend = run("session.edge-45.adapter-indeterminate")
    assert failed["error"] == "indeterminate_operation"
    assert failed["details"]["cause_kind"] == "adapter"
    assert PENDING_RECORD in failed["after"]["journal"]
    assert failed["after"]["snapshots"] == 1 and failed["after"]["poisoned"] is False
    assert resend["error"] == "pending_operation"


def test_46_adapter_failed_and_the_call_budget() -> None:
    steps = run("session.edge-46.adapter-failed-resends-spend-calls")
    assert steps[0]["details"] == {"tool": "text.echo", "error": "failed"}
    assert [step.get("error") for step in steps[1:3]] == ["pending_operation"] * 2
    assert steps[3]["error"] == "call_budget_exhausted" and steps[3]["details"]["maximum"] == 3
    assert all(step["after"]["dispatch_calls"] == 1 for step in steps)
    kinds = [step["details"]["error"] for step in run("session.edge-46.other-adapter-errors")]
    assert kinds == ["unsupported", "invalid_json_input", "invalid_json_output"]


def test_47_oversized_success() -> None:
    (failed,) = run("session.edge-47.oversized-success")
    assert failed["details"] == {
        "operation_key": "op-1",
        "cause_kind": "protocol",
        "cause": "output_too_large",
    }
    assert PENDING_RECORD in failed["after"]["journal"] and not failed["after"]["poisoned"]


def test_48_reconciliation_budgets() -> None:
    per_tool = run("session.edge-48.per-tool-reconciliation-budget")
    assert per_tool[2]["error"] == "reconciliation_budget_exhausted"
    assert per_tool[2]["details"] == {"tool": "text.echo", "maximum": 1}
    assert per_tool[2]["after"]["reconcile_calls"] == 1
    per_session = run("session.edge-48.session-reconciliation-budget")
    assert per_session[2]["error"] == "reconciliation_session_budget_exhausted"
    assert per_session[2]["details"] == {"maximum": 1}
    assert per_session[2]["after"]["reconcile_calls"] == 1


def test_49_reconciliation_details() -> None:
    _, unknown, allowed = run("session.edge-49.unknown-key-spends-no-budget")
    assert unknown["error"] == "unknown_operation" and unknown["after"]["reconcile_calls"] == 0
    assert "result" in allowed  # the only allowed reconciliation was not used up
    revisions = [
        step["after"]["revision"]
        for step in run("session.edge-49.reconcile-writes-unchanged-state")
    ]
    assert revisions == [2, 3, 4]
    done, oversized, contradiction, again = run(
        "session.edge-49.reconcile-oversized-or-contradictory"
    )
    for refused in (oversized, contradiction):
        assert refused["after"]["journal"] == done["after"]["journal"]
        assert refused["after"]["snapshots"] == done["after"]["snapshots"]
        assert refused["after"]["poisoned"] is False
    assert oversized["details"]["actual"] == 17 and oversized["details"]["maximum"] == 16
    assert again["after"]["revision"] == done["after"]["revision"] + 1


def test_50_failed_reconciliation_write() -> None:
    running, failed, refused = run("session.edge-50.reconcile-write-fails")
    assert failed["error"] == "journal_persistence_failed"
    assert failed["after"]["poisoned"] is True
    assert failed["after"]["journal"] == running["after"]["journal"]
    assert refused["error"] == "session_poisoned"


def test_51_opening() -> None:
    case = next(case for case in CASES if case.id == "session.edge-51.missing-adapter")
    assert run_scenario(case.spec())["open"]["error"] == "missing_adapter"
    (zero,) = run("session.edge-51.zero-lease")
    assert zero["error"] == "invalid_journal_lease"
    first, replay = run("session.edge-51.replayed-open-session")
    assert first["result"] == {"revision": 0, "fence": 1}
    assert replay["error"] == "admission_failed"
    assert replay["details"]["cause"] == "session_already_admitted"
    role, kind = run("session.open.order")
    assert role["error"] == "requires_worker_authenticator"
    assert kind["error"] == "unexpected_opening_message"


def test_52_no_declarations() -> None:
    invoke, dispatch, compensate = run("session.edge-52.no-declarations")
    assert invoke["error"] == "invocation_safety_not_declared"
    assert dispatch["error"] == "durable_operation_contract_not_declared"
    assert compensate["error"] == "durable_operation_contract_not_declared"
    assert dispatch["after"]["journal"] == EMPTY_JOURNAL
    assert dispatch["after"]["persist_attempts"] == 0


def test_53_unexpected_messages() -> None:
    kinds = [step["details"]["kind"] for step in run("session.edge-53.unexpected-messages.r2")]
    assert kinds == ["cancel", "close_session", "open_session"]


def test_54_bridge_revisions_fences_and_scope() -> None:
    _, stored, takeover, newer, stale, scope = run("session.edge-54.bridge-revisions-fences-scope")
    assert stored["result"]["revision"] == 2
    assert takeover["result"] == {"fence": 2}
    assert newer["result"] == {"revision": 3}
    assert stale["error"] == "fencing_token_rejected"
    assert stale["details"] == {"current": 2, "supplied": 1}
    assert scope["error"] == "operation_journal_scope_mismatch"
    assert scope["details"] == {"expected": "tenant", "actual": "tenant-other"}


def test_restart_reconciles_instead_of_redispatching() -> None:
    failed, restart, resend, reconciled, replay = run(
        "session.crash.restart-reconciles-never-redispatches"
    )
    assert failed["after"]["dispatch_calls"] == 1 and failed["after"]["poisoned"]
    assert restart["result"]["fence"] == 2 and PENDING_RECORD in restart["after"]["journal"]
    assert resend["error"] == "pending_operation"
    assert status_of(reconciled)["state"] == "succeeded"
    assert status_of(replay) == status_of(reconciled)
    assert replay["after"]["dispatch_calls"] == 1


def test_lost_acknowledgement_is_recovered_through_reconciliation() -> None:
    lost, restart, resend, reconciled, replay = run("session.crash.lost-admission-ack")
    assert lost["details"]["cause"] == "store_outcome_unknown"
    assert lost["after"]["journal"] == EMPTY_JOURNAL and lost["after"]["stored_revision"] == 1
    assert PENDING_RECORD in restart["after"]["journal"]
    assert resend["error"] == "pending_operation"
    assert status_of(reconciled) == {"state": "cancelled"}
    assert replay["after"]["dispatch_calls"] == 0


def test_takeover_fences_the_old_session() -> None:
    steps = run("session.crash.takeover-fences-old-session")
    refused = steps[2]
    assert refused["details"]["cause"] == "fencing_token_rejected"
    assert refused["after"]["stored_revision"] == steps[0]["after"]["stored_revision"]
    assert steps[3]["error"] == "session_poisoned"
    assert steps[4]["result"]["fence"] == 3
    before_admission = run("session.crash.takeover-before-admission")
    assert before_admission[1]["after"]["dispatch_calls"] == 0
    assert before_admission[3]["after"]["dispatch_calls"] == 1


def test_compensation_is_never_run_twice_after_a_crash() -> None:
    steps = run("session.crash.compensation-write-fails-then-restart")
    assert steps[1]["error"] == "indeterminate_compensation"
    assert steps[1]["details"]["compensation_key"] == "cmp-op-1"
    assert steps[3]["error"] == "pending_compensation"
    assert steps[3]["after"]["compensate_calls"] == 1


def test_tampered_frame_neither_poisons_nor_uses_the_sequence() -> None:
    tampered, genuine = run("session.frames.tampered-frame-does-not-poison")
    assert tampered["error"] == "invalid_authentication_tag"
    assert tampered["details"]["layer"] == "protocol"
    assert tampered["after"]["poisoned"] is False
    assert "result" in genuine
