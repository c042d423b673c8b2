"""Hypothesis profiles: ``ci`` (default, fast, no deadline) and ``thorough`` (deep runs).

Select with HYPOTHESIS_PROFILE=thorough. Deadlines are off in both: timing belongs in
benchmarks/, and a slow CI machine must never turn into a flaky failure.
"""

from __future__ import annotations

import os

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
