"""Seeds: a printed seed reproduces a run's traces; another seed explores other traces; the
ci profile keeps a fixed seed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import settings

from rescind.conformance.driver import handle
from rescind.conformance.explore import sharding
from rescind.conformance.explore.areas import AREAS
from rescind.conformance.explore.engine import Area, explore
from rescind.conformance.harness import InProcessDriver


def _traces(area: Area, seed: int) -> list[Any]:
    seen: list[Any] = []

    def recording(message: Mapping[str, Any]) -> dict[str, Any]:
        seen.append(message["args"])
        return handle(message)

    explore(InProcessDriver(recording), area, 15, seed)
    return seen


@pytest.mark.parametrize("area", AREAS, ids=lambda area: area.name)
def test_same_seed_same_traces_other_seed_other_traces(area: Area) -> None:
    first = _traces(area, 11)
    assert first == _traces(area, 11)
    assert first != _traces(area, 12)


def test_explicit_seed_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HYPOTHESIS_PROFILE", "ci")
    assert sharding.choose_seed(41) == 41


def test_ci_profile_keeps_the_fixed_seed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HYPOTHESIS_PROFILE", "ci")
    assert sharding.choose_seed(None) == sharding.FIXED_SEED


def test_a_randomized_run_draws_fresh_seeds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HYPOTHESIS_PROFILE", raising=False)
    settings.register_profile("rescind-test-random", derandomize=False)
    previous = settings._current_profile  # restored below: the suite runs under ci
    settings.load_profile("rescind-test-random")
    try:
        seeds = {sharding.choose_seed(None) for _ in range(5)}
    finally:
        settings.load_profile(previous or "ci")
    assert len(seeds) > 1 and sharding.FIXED_SEED not in seeds
