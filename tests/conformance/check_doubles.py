"""Checks made for the runner and report tests: one that only talks to the driver (the
runner tests count such checks, what stops them and what their driver did) and one that
passes without asking anything (the report tests place it under a status of their own)."""

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


def passing_check(
    check_id: str,
    capability: str = "canonical",
    source: str = "probe",
    *,
    rule: str = "CJ-1",
    provenance: str | None = None,
) -> Check:
    """A ``must`` check that passes without a request."""
    return Check(
        id=check_id,
        tier="must",
        rule=rule,
        capability=capability,
        source=source,
        run=lambda _: Outcome("pass"),
        provenance=provenance,
    )
