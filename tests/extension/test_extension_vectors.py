"""The compensation-reconcile vectors: derived, profile-scoped to the extension, passed by the
reference driver (which declares the profile) and not-applicable to a splash-v5-only one,
except the plain-driver refusals, which belong to splash-v5 and every session driver runs."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rescind.conformance.driver import handle
from rescind.conformance.harness import InProcessDriver
from rescind.conformance.runner import run_checks
from rescind.conformance.runner_check import Check
from rescind.conformance.vectors.checks import vector_checks

PROFILE = "splash-v5+compensation-reconcile"
PLAIN = {"cr.gate.plain-driver-reconcile", "cr.gate.plain-driver-frame"}
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
        assert test["profile"] == ("splash-v5" if test["id"] in PLAIN else PROFILE), test["id"]
        assert test["rule"].startswith("CR-")
    assert {test["id"] for test in tests} >= PLAIN


def test_the_reference_driver_declares_the_profile_and_passes() -> None:
    hello = handle({"id": 1, "op": "hello"})
    assert PROFILE in hello["ok"]["profiles"]
    report = run_checks(_checks(), lambda: InProcessDriver(handle))
    statuses = {result.check.id: result.outcome.status for result in report.results}
    assert statuses and set(statuses.values()) == {"pass"}, statuses


def test_a_splash_v5_only_driver_gets_not_applicable_but_for_the_plain_refusals() -> None:
    report = run_checks(_checks(), lambda: _declaring("splash-v5", "splash-v5-f64"))
    statuses = {result.check.id: result.outcome.status for result in report.results}
    assert {statuses[test_id] for test_id in PLAIN} == {"pass"}
    others = [result for result in report.results if result.check.id not in PLAIN]
    assert {result.outcome.status for result in others} == {"not-applicable"}
    assert all(result.outcome.message == f"profile {PROFILE} not declared" for result in others)


def _reconciles_anyway(message: Mapping[str, Any]) -> dict[str, Any]:
    """A plain driver that enables the extension whatever the scenario's profile says."""
    if message.get("op") == "session.compensation-reconcile":
        scenario = message["args"]["scenario"]
        message = {**message, "args": {"scenario": {**scenario, "profile": PROFILE}}}
    answer = handle(message)
    if message.get("op") == "hello":
        answer["ok"]["profiles"] = ["splash-v5"]
    return answer


def _without_the_operation(message: Mapping[str, Any]) -> dict[str, Any]:
    """A plain session driver that does not implement the operation at all."""
    if message.get("op") == "session.compensation-reconcile":
        return {"id": message.get("id"), "unsupported": message["op"]}
    answer = handle(message)
    if message.get("op") == "hello":
        answer["ok"]["profiles"] = ["splash-v5"]
    return answer


def test_a_plain_driver_that_reconciles_anyway_fails() -> None:
    report = run_checks(_checks(), lambda: InProcessDriver(_reconciles_anyway))
    failing = {r.check.id for r in report.results if r.outcome.status == "fail"}
    assert failing == PLAIN and report.exit_code() == 1


def test_a_plain_driver_without_the_operation_is_unsupported_never_passed() -> None:
    """Answering ``unsupported`` is the driver saying it cannot express the request: the two
    plain-profile checks are reported so (never a pass), no other check changes, and the
    claim is partial (exit 3): no restriction names the operation."""
    report = run_checks(_checks(), lambda: InProcessDriver(_without_the_operation))
    by_status = {r.check.id: r.outcome.status for r in report.results}
    assert {i for i, status in by_status.items() if status == "unsupported"} == PLAIN
    assert not {i for i, status in by_status.items() if status == "fail"}
    assert report.exit_code() == 3


def test_the_gate_vector_expects_the_refusal_under_splash_v5() -> None:
    gate = next(c for c in _checks() if c.id == "cr.gate.upstream-profile-refuses")
    steps = _document()["testGroups"][0]["tests"][0]["expected"]["steps"]
    assert gate.id == _document()["testGroups"][0]["tests"][0]["id"]
    assert [step.get("error") for step in steps][2] == "extension_not_enabled"
