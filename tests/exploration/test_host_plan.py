"""The multi-fault plan area (host-keys.plan_fingerprint): its plans break several checks, the
reference agrees with itself, and a driver that reads every id before counting steps (the
reference's order before issue 33) is caught."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hypothesis import given, settings

from rescind.conformance.driver import handle
from rescind.conformance.explore.areas import AREAS
from rescind.conformance.explore.engine import explore
from rescind.conformance.explore.host_plan import HOST_PLAN_AREA as AREA
from rescind.conformance.harness import InProcessDriver
from rescind.conformance.ops import registry as operations
from rescind.reference.digests import is_step_id


def test_the_area_is_explored_by_rescind_check() -> None:
    assert AREA in AREAS and AREA.op in operations.operation_names()


@settings(max_examples=200, database=None, deadline=None)
@given(AREA.traces)
def test_plans_round_trip_through_their_steps(trace: dict[str, Any]) -> None:
    assert trace["operation"] == "plan_fingerprint"
    assert AREA.rebuild(trace, AREA.steps_of(trace)) == trace


def test_the_generator_draws_plans_with_two_faults() -> None:
    seen: set[str] = set()

    @settings(max_examples=300, database=None, deadline=None)
    @given(AREA.traces)
    def collect(trace: dict[str, Any]) -> None:
        steps = trace["steps"]
        ids = [step[0] for step in steps]
        faults = {
            "count": len(steps) > 1024,
            "source": any(isinstance(step[1], Mapping) for step in steps),
            "id": any(not is_step_id(step_id) for step_id in ids),
            "repeat": len(set(ids)) < len(ids),
        }
        if sum(faults.values()) >= 2:
            seen.add("+".join(sorted(name for name, broken in faults.items() if broken)))

    collect()
    assert {"id+repeat", "id+source"} <= seen


def test_the_reference_agrees_with_itself() -> None:
    assert explore(InProcessDriver(handle), AREA, 150, seed=5).disagreement is None


def _ids_first(message: Mapping[str, Any]) -> Mapping[str, Any]:
    """A driver that refuses any invalid step id before looking at the plan's size."""
    if message.get("op") == AREA.op:
        steps = message["args"]["steps"]
        if any(not is_step_id(step[0]) for step in steps):
            return {"id": message["id"], "error": {"code": "invalid_step_id", "definite": True}}
    return handle(message)


def test_ids_checked_first_is_caught() -> None:
    result = explore(InProcessDriver(_ids_first), AREA, 300, seed=5)
    assert result.disagreement is not None
    assert result.disagreement.expected == {"error": "invalid_plan"}
    # shrunk to a few steps, or to the 1,025 a too-long plan needs
    assert len(AREA.steps_of(result.disagreement.trace)) in {1, 2, 3, 1025}


def _chars(source: object) -> tuple[int, int]:
    """(characters, UTF-8 bytes) of a source written as text or ``{repeat, count}``."""
    if isinstance(source, Mapping):
        unit, count = source["repeat"], source["count"]
        return len(unit) * count, len(unit.encode("utf-8")) * count
    assert isinstance(source, str)
    return len(source), len(source.encode("utf-8"))


def _counts_characters(message: Mapping[str, Any]) -> Mapping[str, Any]:
    """A driver whose source bound counts characters: where that alone changes the verdict
    (more than 1 MiB of bytes in at most 1 MiB of characters) it checks a plan whose sources
    are replaced by as many ASCII characters, as such a driver would judge it."""
    if message.get("op") == AREA.op:
        steps = message["args"]["steps"]
        sizes = [_chars(step[1]) for step in steps]
        limit = 1_048_576
        if sum(size[1] for size in sizes) > limit >= sum(size[0] for size in sizes):
            ascii_steps = [
                [step[0], {"repeat": "x", "count": size[0]}]
                for step, size in zip(steps, sizes, strict=True)
            ]
            return handle({**message, "args": {**message["args"], "steps": ascii_steps}})
    return handle(message)


def test_source_bound_counted_in_characters_is_caught() -> None:
    result = explore(InProcessDriver(_counts_characters), AREA, 300, seed=5)
    assert result.disagreement is not None
    assert result.disagreement.expected == {"error": "invalid_plan"}
    sources = [step[1] for step in result.disagreement.trace["steps"]]
    assert any(isinstance(source, Mapping) and source["repeat"] != "x" for source in sources)
