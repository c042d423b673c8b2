"""HL-25: the engine records planned and approved where upstream's WorkflowEngine calls
record_event (plan, a plan approval), and a refused call records nothing."""

from __future__ import annotations

import pytest

from rescind.reference.errors import RescindError
from rescind.reference.host.engine import WorkflowEngine
from rescind.reference.host.plan import IdCounter


def _types(engine: WorkflowEngine) -> list[dict[str, object]]:
    return [event.to_json() for event in engine.drain_events()]


def test_plan_records_planned_with_its_step_count() -> None:
    engine = WorkflowEngine(IdCounter())
    engine.plan([("build", "make"), ("publish", "let release = true")])
    assert _types(engine) == [{"type": "planned", "plan_id": 1, "step_count": 2}]


def test_a_refused_plan_records_nothing_and_spends_no_id() -> None:
    engine = WorkflowEngine(IdCounter())
    with pytest.raises(RescindError) as caught:
        engine.plan([("a", "x"), ("a", "y")])
    assert caught.value.code == "invalid_plan"
    assert _types(engine) == []
    engine.plan([("a", "x")])
    assert _types(engine) == [{"type": "planned", "plan_id": 1, "step_count": 1}]


def test_plan_approval_records_approved_and_a_refused_one_nothing() -> None:
    ids = IdCounter()  # one counter: the two engines get different ids
    engine, other = WorkflowEngine(ids), WorkflowEngine(ids)
    plan = engine.plan([("publish", "let release = true")])
    foreign = other.plan([("publish", "let release = true")])
    engine.drain_events()
    engine.approve_plan(plan)
    with pytest.raises(RescindError) as caught:
        engine.approve_plan(foreign)
    assert caught.value.code == "plan_ownership_mismatch"
    assert _types(engine) == [{"type": "approved", "plan_id": 1}]
