"""Refinement, host side: every step of the reference host is a transition the model allows.

``host_refinement_machine`` holds the state machine; here it runs under the loaded
Hypothesis profile, walks one fixed recovery story, and the checker is shown to fail: on
made-up snapshots the model forbids, and on references broken inside the test (monkeypatch,
restored afterwards).
"""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from rescind.model.refinement.abstraction import Abstraction, describe
from rescind.model.refinement.host import (
    ApprovalView,
    HostCompensationView,
    HostObservation,
    HostOperationView,
    explain_host_step,
)
from rescind.reference.host import ledger as ledger_module
from rescind.reference.host.approvals import Approval
from rescind.reference.host.compensation import WorkflowCompensationPolicy
from rescind.reference.host.ledger import WorkflowOperationLedger
from tests.model.grant_views import grant_view
from tests.model.host_refinement_machine import (
    HOST_REFINEMENT_SETTINGS,
    ROOT_GRANT,
    SCOPE,
    TOOL,
    HostRefinementMachine,
)

HostRefinementMachine.TestCase.settings = HOST_REFINEMENT_SETTINGS
TestReferenceHostRefinesModel = HostRefinementMachine.TestCase


# -- the harness itself: it must reject what the model forbids -------------------------------

KEY = "op-1"
INTENT = HostCompensationView("cmp-1", SCOPE, ROOT_GRANT.compensation_fingerprint(), "pending")
GRANTS = {TOOL: grant_view(ROOT_GRANT)}


def _host(revision: int, **fields: Any) -> HostObservation:
    return HostObservation(
        revision, fields.pop("operations", {}), fields.pop("approvals", {}), GRANTS
    )


def _succeeded(intent: HostCompensationView | None = None, seen: int = 0) -> dict[str, Any]:
    return {KEY: HostOperationView(TOOL, "succeeded", intent, seen)}


def test_host_harness_explains_an_intent_and_its_approval() -> None:
    before = _host(2, operations=_succeeded())
    recorded = _host(3, operations=_succeeded(INTENT, 1))
    path = explain_host_step(Abstraction(), before, recorded, "record_compensation")
    assert path is not None and describe(path) == ["record_compensation"]
    approved = _host(
        3, operations=_succeeded(INTENT, 1), approvals={"n1": ApprovalView(KEY, 3, False, 0)}
    )
    path = explain_host_step(Abstraction(), recorded, approved, "approve")
    assert path is not None and describe(path) == ["approve"]


def test_host_harness_rejects_an_approval_bound_to_another_revision() -> None:
    recorded = _host(3, operations=_succeeded(INTENT, 1))
    approved = _host(
        3, operations=_succeeded(INTENT, 1), approvals={"n1": ApprovalView(KEY, 2, False, 0)}
    )
    assert explain_host_step(Abstraction(), recorded, approved, "approve") is None


def test_host_harness_rejects_a_second_use_of_an_approval() -> None:
    used = _host(
        3, operations=_succeeded(INTENT, 1), approvals={"n1": ApprovalView(KEY, 3, True, 1)}
    )
    again = attrs.evolve(used, approvals={"n1": ApprovalView(KEY, 3, True, 2)})
    assert explain_host_step(Abstraction(), used, again, "prepare") is None


def test_host_harness_rejects_an_intent_rewritten_in_place() -> None:
    """An identical intent written again: nothing visible changes but the revision."""
    before = _host(3, operations=_succeeded(INTENT, 1))
    after = _host(4, operations=_succeeded(INTENT, 1))
    for kind in ("record_compensation", "compensation_result", "worker_result"):
        assert explain_host_step(Abstraction(), before, after, kind) is None


def test_host_harness_rejects_a_restart_that_loses_a_change() -> None:
    before = _host(3, operations=_succeeded(INTENT, 1))
    after = _host(2, operations=_succeeded())
    for kind in ("restart", "record_compensation", "worker_result"):
        assert explain_host_step(Abstraction(), before, after, kind) is None


def test_a_recovery_story_is_explained_step_by_step() -> None:
    """One fixed path through the rarer corners (a lost acknowledgement, recovery, an
    approval from an older engine, a narrower grant, a frame of a dead session), each step
    explained by the one model action HL-22, HL-23 and the RC rules lead us to expect."""
    machine = HostRefinementMachine()
    machine.an_original_succeeds("succeeded")
    machine.store_fault("lost_ack")
    machine.record_compensation("a", "first")
    assert machine.driver.poisoned
    machine.restart(False)
    machine.approve("a", False)
    machine.restart(False)
    machine.prepare(0, False, "any")
    machine.prepare(0, False, "new")
    machine.compensation_result(0, "running", False)
    machine.worker_result("a", "failed", "reconcile")
    machine.restart(True)
    machine.approve("a", False)
    machine.compensation_result(0, "succeeded", False)
    machine.record_compensation("a", "second")
    assert machine.history == [
        "record operation a",
        "worker result a succeeded via dispatch",
        "store fault armed: lost_ack",
        "record compensation intent a (first) [store: lost_ack]: refused (store_outcome_unknown)",
        "restart",
        "approve a: e2-n1",
        "restart",
        "prepare a with e2-n1 (older engine): refused (approval_mismatch)",
        "approve a: e3-n1",
        "prepare a with e3-n1 (unused): sealed",
        "compensation result a running (host-3)",
        "worker result a failed via reconcile: refused (invalid_state_transition)",
        "restart under a grant with 2 compensations",
        "approve a: refused (compensation_policy_mismatch)",
        "compensation result a succeeded (host-3): refused (invalid_authentication_tag)",
        "record compensation intent a (second): refused (compensation_already_recorded)",
    ]
    assert machine.explanations == [
        ["record_operation"],
        ["apply_result"],
        [],
        ["record_compensation"],  # the write landed although its acknowledgement was lost
        [],
        ["approve"],
        [],
        ["prepare"],  # used up on entry, then refused: another engine issued it
        ["approve"],
        ["prepare"],
        ["apply_compensation_result"],
        [],  # succeeded -> failed is refused
        ["attenuate_grant"],
        [],  # the intent's grant fingerprint is no longer the active grant's
        [],  # the frame of session host-3 does not open in session host-4
        [],  # one intent per original
    ]
    assert machine.uses == {"e2-n1": 1, "e3-n1": 1}


# -- broken references: the check must report them ------------------------------------------


def _fails(step: Any, *args: Any) -> None:
    with pytest.raises(AssertionError, match="allows no transition"):
        step(*args)


def test_a_ledger_that_accepts_a_second_intent_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    original = WorkflowOperationLedger.record_compensation

    def forgetful(
        self: WorkflowOperationLedger,
        operation_key: str,
        policy: WorkflowCompensationPolicy,
        compensation_key: str,
        canonical_input: bytes,
    ) -> None:
        operation = self.require_operation(operation_key)
        if operation.compensation is not None:  # forget the first intent, keep the revision
            cleared = attrs.evolve(operation, compensation=None)
            self._commit(self.revision, self._replace(operation_key, cleared))
        original(self, operation_key, policy, compensation_key, canonical_input)

    monkeypatch.setattr(WorkflowOperationLedger, "record_compensation", forgetful)
    machine = HostRefinementMachine()
    machine.an_original_succeeds()
    machine.record_compensation("a", "first")
    _fails(machine.record_compensation, "a", "second")
    assert "record compensation intent a (second)" in machine.history[-1]


def test_an_approval_that_can_be_used_twice_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    def lenient(self: Approval) -> None:  # marks the approval used but never refuses
        object.__setattr__(self, "_consumed", True)

    monkeypatch.setattr(Approval, "consume", lenient)
    machine = HostRefinementMachine()
    machine.an_original_succeeds()
    machine.record_compensation("a", "first")
    machine.approve("a", False)
    machine.prepare(0, False, "any")
    assert len(machine.prepared) == 1
    _fails(machine.prepare, 0, False, "again")
    assert len(machine.prepared) == 2  # the reference really sealed a second frame


def test_a_ledger_that_changes_a_terminal_state_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(
        ledger_module, "operation_transition", lambda current, observed: current is not observed
    )
    machine = HostRefinementMachine()
    machine.an_original_succeeds()
    _fails(machine.worker_result, "a", "failed", "reconcile")
