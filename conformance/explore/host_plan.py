"""Exploration of plan validation with several faults at once (``host-keys.plan_fingerprint``,
docs/spec/precedence.md EP-1, docs/spec/host-keys.md HK-3).

Hypothesis draws plans that tend to break more than one check: ids from a small pool of
valid, invalid (uppercase, empty, 129 bytes, a space, multi-byte UTF-8 within and one byte
past 128 bytes) and so repeated tokens, sometimes no step at all, sometimes padded past 1,024
steps, sometimes one large source of 2-, 3- or 4-byte characters at or just under 1 MiB (so a
small second source decides whether the byte total passes: counting characters never does). The
driver's answer (the fingerprint, or the code of the first check that refuses) must equal
the reference's, which follows upstream's order: empty, count, source size, then per step
its id and whether it repeats. A disagreement shrinks to the fewest steps that show it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hypothesis import strategies as st

from rescind.conformance.explore.engine import Area

_IDS = (
    "a",
    "b",
    "s.1",
    "a",
    "A",
    "",
    "s" * 129,
    "bad id",
    "\u00e9" * 64,  # 128 bytes in 64 characters: within the length, outside the byte grammar
    "s" * 127 + "\u00e9",  # 129 bytes in 128 characters
)
_SOURCES = ("", "x", "let release = true", "\u00e9", "\u4e2d", "\U0001f600")
# Large sources: ASCII past 1 MiB, and multi-byte text at exactly 1 MiB (2- and 4-byte) or one
# byte under it (3-byte), far fewer characters than bytes; any other non-empty source then
# puts the plan's byte total past the bound.
_HUGE = (
    {"repeat": "x", "count": 1_048_577},
    {"repeat": "\u00e9", "count": 524_288},
    {"repeat": "\u4e2d", "count": 349_525},
    {"repeat": "\U0001f600", "count": 262_144},
)
_PAD = 1_025


@st.composite
def faulty_plans(draw: st.DrawFn) -> dict[str, Any]:
    pairs = draw(st.lists(st.tuples(st.sampled_from(_IDS), st.sampled_from(_SOURCES)), max_size=6))
    steps: list[list[Any]] = [[step_id, source] for step_id, source in pairs]
    huge = draw(st.booleans())
    if steps and huge:
        steps[draw(st.integers(0, len(steps) - 1))][1] = draw(st.sampled_from(_HUGE))
    if draw(st.integers(0, 4)) == 0:
        steps += [[f"p{index}", ""] for index in range(_PAD - len(steps))]
    return {"operation": "plan_fingerprint", "steps": steps}


def _steps_of(trace: Mapping[str, Any]) -> Sequence[Mapping[str, Any]]:
    return [{"step": step} for step in trace["steps"]]


def _rebuild(trace: Mapping[str, Any], steps: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    return {**trace, "steps": [list(step["step"]) for step in steps]}


HOST_PLAN_AREA = Area(
    name="host-plan-faults",
    op="host-keys.plan_fingerprint",
    capability="host-keys",
    rule="EP-1",
    description="plans breaking several checks at once (empty, over 1,024 steps, over 1 MiB of "
    "source counted in bytes, invalid, multi-byte and repeated ids) get the first refusing "
    "check's code, in upstream's order, as the reference gives it",
    traces=faulty_plans(),
    rebuild=_rebuild,
    steps_of=_steps_of,
)
