"""The number-text exploration area (canonical.input): well-formed JSON numbers, the reference
agrees with itself, and a driver that reads numbers as binary floats is caught with a trace
shrunk to a few numbers, which replays."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from hypothesis import given, settings

from rescind.conformance.driver import handle
from rescind.conformance.explore.areas import AREAS
from rescind.conformance.explore.engine import explore, replay, save_replay
from rescind.conformance.explore.numbers import NUMBER_AREA as AREA
from rescind.conformance.harness import InProcessDriver
from rescind.conformance.ops import registry as operations
from tests.conformance.broken_drivers import BROKEN

# RFC 8259's number grammar, written out independently of the generator.
NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")


def test_the_area_is_explored_by_rescind_check() -> None:
    assert AREA in AREAS and AREA.op in operations.operation_names()


@settings(max_examples=200, database=None, deadline=None)
@given(AREA.traces)
def test_traces_are_arrays_of_grammatical_numbers(trace: dict[str, Any]) -> None:
    assert trace["format"] == "json" and trace["text"].startswith("[")
    lexemes = [step["number"] for step in AREA.steps_of(trace)]
    assert lexemes and all(NUMBER.fullmatch(lexeme) for lexeme in lexemes)
    assert AREA.rebuild(trace, AREA.steps_of(trace)) == trace


def test_the_reference_agrees_with_itself() -> None:
    assert explore(InProcessDriver(handle), AREA, 300, seed=3).disagreement is None


def test_binary_float_numbers_are_caught_and_the_minimal_trace_replays(tmp_path: Path) -> None:
    broken = BROKEN["binary-float-numbers"]
    result = explore(InProcessDriver(broken), AREA, 300, seed=3)
    assert result.disagreement is not None
    assert len(AREA.steps_of(result.disagreement.trace)) == 1  # one number shows it
    path = save_replay(result.disagreement, tmp_path, AREA.name)
    document = json.loads(path.read_text())
    assert replay(document, InProcessDriver(handle)) is None
    assert replay(document, InProcessDriver(broken)) is not None
