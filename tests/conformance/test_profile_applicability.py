"""A vector belongs to its number profile: a driver that does not declare that profile gets
the vector's check as not-applicable, in every topic, never as a failure."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

from rescind.conformance.driver import handle
from rescind.conformance.harness import InProcessDriver
from rescind.conformance.runner import RunReport, run_checks
from rescind.conformance.runner_check import Check
from rescind.conformance.vector_files import load_vector_files
from rescind.conformance.vectors.checks import vector_checks
from rescind.conformance.vectors.format import requested_profile

F64 = "splash-v5-f64"
AP = "splash-v5"


def _asks_for(args: Mapping[str, Any], profile: str) -> bool:
    return requested_profile(args) == profile


def driver_declaring(profile: str) -> Callable[[], InProcessDriver]:
    """The reference behind a hello that declares one profile; like a real single-profile
    implementation (drivers/node), it refuses requests for the other one."""
    other = F64 if profile == AP else AP

    def single_profile(message: Mapping[str, Any]) -> dict[str, Any]:
        reply = handle(message)
        if message.get("op") == "hello":
            reply["ok"]["profiles"] = [profile]
        elif _asks_for(message.get("args", {}), other):
            return {"id": message.get("id"), "error": {"code": "unsupported_profile"}}
        return reply

    return lambda: InProcessDriver(single_profile)


@cache
def _checks() -> tuple[Check, ...]:
    return tuple(vector_checks())


@cache
def _run(profile: str) -> RunReport:
    return run_checks(list(_checks()), driver_declaring(profile))


def _status(report: RunReport) -> dict[str, str]:
    return {result.check.id: result.outcome.status for result in report.results}


def _f64_vector_ids() -> set[str]:
    """Read from the JSON, independently of how vectorchecks resolves a check's profile."""
    found = set()
    for document in load_vector_files():
        for group in document["testGroups"]:
            for test in group["tests"]:
                if test.get("profile", group.get("profile", document["profile"])) == F64:
                    found.add(test["id"])
    return found


def test_the_f64_journal_codec_vector_is_not_applicable_to_a_splash_v5_driver() -> None:
    result = next(r for r in _run(AP).results if r.check.id == "codec.numbers.f64")
    assert result.check.tier == "must"
    assert result.outcome.status == "not-applicable"
    assert result.outcome.message == f"profile {F64} not declared"


def test_every_f64_check_in_every_topic_is_not_applicable_and_nothing_fails() -> None:
    status = _status(_run(AP))
    f64_ids = _f64_vector_ids()
    f64_topics = {check.source for check in _checks() if check.id in f64_ids}
    assert {"journal-codec", "journal-traces", "frames"} <= f64_topics
    for check in _checks():
        if check.profile == F64:
            assert status[check.id] == "not-applicable", check.id
    assert all(status[test_id] == "not-applicable" for test_id in f64_ids)
    assert "fail" not in status.values() and "error" not in status.values()


def test_a_driver_of_the_other_profile_sees_the_splash_v5_vectors_as_not_applicable() -> None:
    report = _run(F64)
    status = _status(report)
    f64_ids = _f64_vector_ids()
    assert f64_ids and all(status[test_id] == "pass" for test_id in f64_ids)
    vector_ids = {check.id for check in _checks() if check.profile == AP}
    assert len(vector_ids) > 1000
    assert all(status[test_id] == "not-applicable" for test_id in vector_ids)
    assert not report.failed


def test_a_driver_declaring_both_profiles_runs_both() -> None:
    report = run_checks(
        [check for check in _checks() if check.source == "journal-codec"],
        lambda: InProcessDriver(handle),
    )
    status = _status(report)
    assert status["codec.numbers.f64"] == "pass" and status["codec.numbers.ap"] == "pass"


def _ignores_the_f64_profile(declared: list[str]) -> Callable[[], InProcessDriver]:
    """The reference declaring ``declared``, but answering every splash-v5-f64 request
    with its splash-v5 bytes (the number mode is ignored)."""

    def ignoring(message: Mapping[str, Any]) -> dict[str, Any]:
        args = message.get("args", {})
        if _asks_for(args, F64):
            message = {**message, "args": {**args, "profile": AP}}
        reply = handle(message)
        if message.get("op") == "hello":
            reply["ok"]["profiles"] = declared
        return reply

    return lambda: InProcessDriver(ignoring)


def _number_mode_differs() -> set[str]:
    """Canonical-input vectors flagged as having another answer under splash-v5-f64, read
    from the JSON."""
    return {
        f"{test['id']}.f64"
        for document in load_vector_files()
        if document["topic"] == "canonical-input"
        for group in document["testGroups"]
        for test in group["tests"]
        if "NumberModeDiffers" in test["flags"]
    }


def test_a_failing_check_of_a_declared_profile_fails_the_run() -> None:
    checks = [check for check in _checks() if check.source == "canonical-input"]
    declared = run_checks(checks, _ignores_the_f64_profile([AP, F64]))
    failing = {r.check.id for r in declared.results if r.outcome.status == "fail"}
    assert failing and failing <= _number_mode_differs()
    assert {r.check.tier for r in declared.results if r.check.id in failing} == {"profile"}
    assert declared.failed and declared.exit_code() == 1
    # The same driver declaring only splash-v5 is never asked: nothing fails, exit 0.
    undeclared = run_checks(checks, _ignores_the_f64_profile([AP]))
    assert {r.outcome.status for r in undeclared.results if r.check.id in failing} == {
        "not-applicable"
    }
    assert undeclared.exit_code() == 0
