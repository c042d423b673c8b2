"""The lifecycle tables as data (``rescind.tables.saga``) and their JSON entry points
(``rescind.conformance.interpreters.saga_documents``)."""

from __future__ import annotations

import pytest

from rescind.conformance.interpreters.saga_documents import classify_document, transition_document
from rescind.reference.saga.errors import IllegalTransition, SagaInvalidInput
from rescind.tables.saga import (
    ALL_TABLES,
    RUN_TABLE,
    TASK_TABLE,
    RunState,
    StateTable,
    TaskState,
    Transition,
)


def test_agentctl_run_table_matches_digest() -> None:
    edges = {(r.source, r.target) for r in RUN_TABLE.transitions}
    R = RunState
    assert edges == {
        (R.RUNNING, R.PAUSED),
        (R.RUNNING, R.SUCCEEDED),
        (R.RUNNING, R.FAILED),
        (R.RUNNING, R.CANCELLED),
        (R.PAUSED, R.RUNNING),
        (R.PAUSED, R.FAILED),
        (R.PAUSED, R.CANCELLED),
    }
    assert RUN_TABLE.terminal == {R.SUCCEEDED, R.FAILED, R.CANCELLED}


def test_agentctl_task_table_matches_digest() -> None:
    T = TaskState
    expected = {
        T.PENDING: {T.READY, T.SKIPPED, T.CANCELLED},
        T.READY: {T.RUNNING, T.CANCELLED},
        T.RUNNING: {
            T.WAITING_FOR_APPROVAL,
            T.WAITING_FOR_EFFECT,
            T.SUCCEEDED,
            T.FAILED,
            T.RETRY_SCHEDULED,
            T.CANCELLED,
        },
        T.WAITING_FOR_APPROVAL: {T.RUNNING, T.FAILED, T.CANCELLED},
        T.WAITING_FOR_EFFECT: {T.RUNNING, T.FAILED, T.CANCELLED},
        T.RETRY_SCHEDULED: {T.READY, T.CANCELLED},
    }
    for state in TaskState:
        assert {r.target for r in TASK_TABLE.outgoing(state)} == expected.get(state, set())


def test_assumed_rows_never_touch_compensation_states() -> None:
    for table in ALL_TABLES:
        for row in table.transitions:
            if row.evidence == "assumed":
                assert "COMPENSAT" not in f"{row.source.value}{row.target.value}", row


def test_table_construction_refuses_ambiguity() -> None:
    R = RunState
    with pytest.raises(ValueError, match="two targets"):
        StateTable(
            name="bad",
            states=tuple(R),
            initial=frozenset({R.RUNNING}),
            terminal=frozenset(),
            final=frozenset(),
            transitions=(
                Transition(R.RUNNING, "go", R.PAUSED, "code"),
                Transition(R.RUNNING, "go", R.FAILED, "code"),
            ),
        )
    with pytest.raises(ValueError, match="undeclared"):
        StateTable(
            name="bad",
            states=(R.RUNNING,),
            initial=frozenset({R.RUNNING}),
            terminal=frozenset(),
            final=frozenset(),
            transitions=(Transition(R.RUNNING, "go", R.PAUSED, "code"),),
        )


def test_documents() -> None:
    assert transition_document(
        {"lifecycle": "casehub-case", "state": "COMPLETED", "trigger": "compensate"}
    ) == {"state": "COMPENSATING"}
    assert transition_document(
        {
            "lifecycle": "casehub-work-item",
            "state": "SUSPENDED",
            "trigger": "resume",
            "target": "IN_PROGRESS",
        }
    ) == {"state": "IN_PROGRESS"}
    with pytest.raises(IllegalTransition):
        transition_document(
            {"lifecycle": "casehub-case", "state": "COMPENSATED", "trigger": "compensate"}
        )
    assert classify_document({"lifecycle": "casehub-case", "state": "COMPLETED"}) == {
        "terminal": True,
        "final": False,
        "active": False,
        "activeEarlier": False,
    }
    for bad in (
        {"lifecycle": "nope", "state": "x", "trigger": "y"},
        {"lifecycle": "casehub-case", "state": "LOST", "trigger": "compensate"},
    ):
        with pytest.raises(SagaInvalidInput):
            transition_document(bad)
