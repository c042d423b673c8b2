"""The agentctl template exploration area (saga.run): the reference agrees with itself, the
generator reaches rendered, blocked and refused sources, and a driver that writes rendered
numbers and booleans in the generated workflow as strings is caught with a single template,
which replays."""

from __future__ import annotations

import collections
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hypothesis import given, settings

from rescind.conformance.driver import handle
from rescind.conformance.explore.areas import AREAS
from rescind.conformance.explore.engine import explore, reference_answer, replay, save_replay
from rescind.conformance.explore.templates import TEMPLATE_AREA as AREA
from rescind.conformance.harness import InProcessDriver
from rescind.conformance.ops import registry as operations


def test_the_area_is_explored_by_rescind_check() -> None:
    assert AREA in AREAS and AREA.op in operations.operation_names()


def test_traces_reach_rendered_blocked_and_refused_sources() -> None:
    seen: collections.Counter[str] = collections.Counter()

    @settings(max_examples=200, database=None, deadline=None)
    @given(AREA.traces)
    def check(trace: dict[str, Any]) -> None:
        assert AREA.rebuild(trace, AREA.steps_of(trace)) == trace
        answer = reference_answer(AREA.op, trace)
        assert answer.get("error") != "bad_request"
        if "error" in answer:
            seen[answer["error"]] += 1
        else:
            seen["blocked" if answer["results"][0]["plan"]["blocked"] else "rendered"] += 1

    check()
    assert seen["rendered"] >= 20 and seen["blocked"] > 0 and seen["saga_invalid_input"] > 0


def test_the_reference_agrees_with_itself() -> None:
    assert explore(InProcessDriver(handle), AREA, 200, seed=7).disagreement is None


def _scalars_as_text(message: Mapping[str, Any]) -> dict[str, Any]:
    """The reference, except that rendered numbers and booleans reach the generated workflow
    as text (a renderer that always interpolates)."""
    reply = handle(message)
    if message.get("op") != AREA.op or "ok" not in reply:
        return reply
    for result in reply["ok"]["results"]:
        for task in result.get("workflow", {}).get("tasks", []):
            task["with"] = {
                key: json.dumps(value) if isinstance(value, (bool, int, float)) else value
                for key, value in task["with"].items()
            }
    return reply


def test_scalars_rendered_as_text_are_caught_and_replay(tmp_path: Path) -> None:
    result = explore(InProcessDriver(_scalars_as_text), AREA, 300, seed=7)
    assert result.disagreement is not None
    assert len(AREA.steps_of(result.disagreement.trace)) == 1
    document = json.loads(save_replay(result.disagreement, tmp_path, AREA.name).read_text())
    assert replay(document, InProcessDriver(handle)) is None
    assert replay(document, InProcessDriver(_scalars_as_text)) is not None
