"""The compensation-reconcile vectors: derived, profile-scoped to the extension, passed by the
reference driver (which declares the profile) and not-applicable to a splash-v5-only one."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rescind.conformance.checks import Check
from rescind.conformance.driver import handle
from rescind.conformance.harness import InProcessDriver
from rescind.conformance.runner import run_checks
from rescind.conformance.vectorchecks import vector_checks

PROFILE = "splash-v5+compensation-reconcile"
VECTORS = Path(__file__).resolve().parents[2] / "vectors" / "compensation-reconcile.json"


def _document() -> dict[str, Any]:
    return json.loads(VECTORS.read_text(encoding="utf-8"))


def _checks() -> list[Check]:
    return [check for check in vector_checks() if check.source == "compensation-reconcile"]


def _declaring(*profiles: str) -> InProcessDriver:
    def reply(message: Mapping[str, Any]) -> dict[str, Any]:
        answer = handle(message)
        if message.get("op") == "hello":
            answer["ok"]["profiles"] = list(profiles)
        return answer

    return InProcessDriver(reply)


def test_every_vector_is_derived_and_belongs_to_the_extension_profile() -> None:
    tests = [test for group in _document()["testGroups"] for test in group["tests"]]
    assert len(tests) >= 10
    for test in tests:
        assert test["provenance"]["kind"] == "derived", test["id"]
        assert "compensation-reconcile.md CR-" in test["provenance"]["citation"], test["id"]
        assert test["profile"] == PROFILE, test["id"]
        assert test["rule"].startswith("CR-")


def test_the_reference_driver_declares_the_profile_and_passes() -> None:
    hello = handle({"id": 1, "op": "hello"})
    assert PROFILE in hello["ok"]["profiles"]
    report = run_checks(_checks(), lambda: InProcessDriver(handle))
    statuses = {result.check.id: result.outcome.status for result in report.results}
    assert statuses and set(statuses.values()) == {"pass"}, statuses


def test_a_splash_v5_only_driver_gets_not_applicable() -> None:
    report = run_checks(_checks(), lambda: _declaring("splash-v5", "splash-v5-f64"))
    outcomes = {result.outcome.status for result in report.results}
    assert outcomes == {"not-applicable"}
    assert all(
        result.outcome.message == f"profile {PROFILE} not declared" for result in report.results
    )


def test_the_gate_vector_expects_the_refusal_under_splash_v5() -> None:
    gate = next(c for c in _checks() if c.id == "cr.gate.upstream-profile-refuses")
    steps = _document()["testGroups"][0]["tests"][0]["expected"]["steps"]
    assert gate.id == _document()["testGroups"][0]["tests"][0]["id"]
    assert [step.get("error") for step in steps][2] == "extension_not_enabled"
