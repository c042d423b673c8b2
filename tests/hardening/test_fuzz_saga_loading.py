"""Saga documents that the fuzzing campaign found raising untyped errors: an ``actions`` or
``agents`` member that is not an object (TypeError while iterating it) and a compensation
``with`` object holding an integer past Python's digit limit (ValueError while writing its
canonical JSON). Each is now ``saga_invalid_input`` naming the field."""

from __future__ import annotations

from typing import Any

import pytest

from rescind.reference.saga.errors import SagaInvalidInput
from rescind.reference.saga.loading import read_lineage, read_workflow
from tests.saga.builders import compensable, source_file

TASKS: list[dict[str, Any]] = [{"id": "create", "uses": "action:write"}]


@pytest.mark.parametrize("member", ["actions", "agents"])
@pytest.mark.parametrize("value", [-1, "x", ["a"], True])
def test_workflow_member_that_is_not_an_object(member: str, value: object) -> None:
    with pytest.raises(SagaInvalidInput) as caught:
        read_workflow({"tasks": TASKS, member: value})
    assert caught.value.details["field"] == f"file.{member}"
    assert caught.value.details["reason"] == "must be an object"


def test_workflow_members_still_read() -> None:
    workflow = read_workflow(
        {"tasks": TASKS, "actions": {"write": "w"}, "agents": {"bot": ["write"]}}
    )
    assert workflow.actions == (("write", "w"),)
    assert workflow.agents == (("bot", ("write",)),)


def test_agent_tool_list_entries_are_checked() -> None:
    with pytest.raises(SagaInvalidInput) as caught:
        read_workflow({"tasks": TASKS, "agents": {"bot": [1]}})
    assert caught.value.details["field"] == "file.agents.bot.0"


def test_compensation_input_with_an_integer_past_the_digit_limit() -> None:
    document = source_file(compensable("first", with_={"n": 10**5000}))
    with pytest.raises(SagaInvalidInput) as caught:
        read_lineage(document)
    assert caught.value.details["reason"] == "number out of range"
    assert str(caught.value.details["field"]).endswith(".with")
