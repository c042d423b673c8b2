"""A check that only talks to the driver: the runner tests (deadline, pipes, bounds, the
in-process adapter) count such checks, what stops them and what their driver did."""

from __future__ import annotations

from typing import Any

from rescind.conformance.runner_check import Check, Outcome

REQUEST = ("canonical.input", {"format": "json", "text": "{}"})


def probe_check(index: int, requests: int = 1) -> Check:
    """Check ``probe.<index>`` (capability ``canonical``): asks for the canonical form of
    ``{}`` ``requests`` times and passes when every reply is ``ok``."""

    def run(driver: Any) -> Outcome:
        kinds = {driver.request(*REQUEST).kind for _ in range(requests)}
        return Outcome("pass" if kinds == {"ok"} else "fail")

    return Check(f"probe.{index}", "must", "CJ-1", "canonical", "probe", run)
