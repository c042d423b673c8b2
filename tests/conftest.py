"""Hypothesis profiles: ``ci`` (default, fast, no deadline) and ``thorough`` (deep runs).

Select with HYPOTHESIS_PROFILE=thorough. Deadlines are off in both: timing belongs in
benchmarks/, and a slow CI machine must never turn into a flaky failure.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
)
settings.register_profile(
    "thorough",
    max_examples=2000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

pytest_plugins = ["pytester"]


@pytest.fixture(scope="session", autouse=True)
def _session_proof_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Proof results are cached in a directory of this session only (subprocesses inherit
    it): tests never read a user's cache, and a test that must prove passes --no-cache or
    its own RESCIND_CACHE_DIR. That cache is this session's own, so it is read even where
    CI is set (which otherwise turns reading off, docs/bounds.md): CI is unset meanwhile."""
    before = os.environ.get("RESCIND_CACHE_DIR")
    ci = os.environ.pop("CI", None)
    os.environ["RESCIND_CACHE_DIR"] = str(tmp_path_factory.mktemp("rescind-cache"))
    yield
    if ci is not None:
        os.environ["CI"] = ci
    if before is None:
        del os.environ["RESCIND_CACHE_DIR"]
    else:
        os.environ["RESCIND_CACHE_DIR"] = before
