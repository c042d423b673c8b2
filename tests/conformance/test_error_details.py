"""Error details are part of the answer: the normative members of a refusal's details are
compared, the informative ones are not, and the published catalogue is the one in force."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from rescind.conformance.driver import handle
from rescind.conformance.error_catalogue import catalogue_json
from rescind.conformance.harness import InProcessDriver
from rescind.conformance.runner import run_checks
from rescind.conformance.vector_files import load_vector_files
from rescind.conformance.vectors.checks import vector_checks

ROOT = Path(__file__).resolve().parents[2]
CATALOGUE = ROOT / "conformance/schemas/error-details.json"
SPOILED = ("maximum", "actual", "layer", "operation_key")


def _published() -> dict[str, Any]:
    return json.loads(CATALOGUE.read_text(encoding="utf-8"))


def test_the_published_catalogue_is_fresh() -> None:
    assert _published() == catalogue_json()


def _spoil(value: Any) -> Any:
    """Every refusal's details with maximum and actual off by one, layer dropped and another
    operation key; every other member (and every code) left as it was."""
    if isinstance(value, list):
        return [_spoil(item) for item in value]
    if not isinstance(value, dict):
        return value
    spoiled = {key: _spoil(item) for key, item in value.items()}
    details = spoiled.get("details")
    if isinstance(spoiled.get("error"), str) and isinstance(details, dict):
        changed = {k: v for k, v in details.items() if k != "layer"}
        for key in ("maximum", "actual"):
            if isinstance(changed.get(key), int):
                changed[key] += 1
        if "operation_key" in changed:
            changed["operation_key"] = "another-key"
        spoiled["details"] = changed
    return spoiled


def spoiling(message: Mapping[str, Any]) -> dict[str, Any]:
    reply = handle(message)
    if message.get("op") in ("hello", "bye") or "ok" not in reply:
        return reply
    return {**reply, "ok": _spoil(reply["ok"])}


def _normative_spoils(value: Any, codes: Mapping[str, Any]) -> Iterator[str]:
    """The spoiled members that the published catalogue calls normative, in ``value``."""
    if isinstance(value, list):
        for item in value:
            yield from _normative_spoils(item, codes)
    elif isinstance(value, dict):
        details = value.get("details")
        if isinstance(value.get("error"), str) and isinstance(details, dict):
            normative = set(codes.get(value["error"], {}).get("normative", {})) | {"layer"}
            for member in SPOILED:
                if member not in details or member not in normative:
                    continue
                number = isinstance(details[member], int) and not isinstance(details[member], bool)
                if member in ("layer", "operation_key") or number:
                    yield member
        for key, item in value.items():
            if key != "f64":
                yield from _normative_spoils(item, codes)


def _vectors() -> dict[str, tuple[str, Mapping[str, Any]]]:
    return {
        test["id"]: (document["topic"], test)
        for document in load_vector_files()
        for group in document["testGroups"]
        for test in group["tests"]
    }


@pytest.fixture(scope="module")
def spoiled_run() -> Any:
    checks = [c for c in vector_checks() if not c.id.endswith(".f64")]
    return run_checks(checks, lambda: InProcessDriver(spoiling))


def test_spoiled_normative_details_fail_exactly_the_vectors_that_record_them(
    spoiled_run: Any,
) -> None:
    codes = _published()["codes"]
    vectors = _vectors()
    # A top-level refusal carries only its code (docs/driver-protocol.md): its members are
    # where the walk starts, not a refusal's details.
    expected_failures = {
        test_id
        for test_id, (_, test) in vectors.items()
        if any(
            True
            for key, member in test["expected"].items()
            if key not in ("error", "details", "f64")
            for _ in _normative_spoils(member, codes)
        )
    }
    failed = {r.check.id for r in spoiled_run.results if r.outcome.status == "fail"}
    assert failed == expected_failures
    topics = {vectors[test_id][0] for test_id in failed}
    assert {"session-scenarios", "authorizer-traces", "journal-traces", "storage"} <= topics
    for result in spoiled_run.results:
        if result.outcome.status == "fail":
            comparison = result.outcome.comparison
            assert comparison is not None
            paths = [comparison.at + d.path for d in comparison.differences]
            assert any("/details" in path for path in paths), (result.check.id, paths)


def test_each_spoiled_member_is_caught_somewhere(spoiled_run: Any) -> None:
    messages = " ".join(r.outcome.message for r in spoiled_run.results)
    for member in SPOILED:
        assert f"/details/{member}" in messages, member


def test_informative_members_are_never_compared() -> None:
    """serialization's details are serde's wording: a driver may say anything there."""
    vectors = _vectors()
    chosen = next(
        test_id
        for test_id, (_, test) in vectors.items()
        if '"error": "serialization", "details"' in json.dumps(test["expected"])
    )

    def rewording(message: Mapping[str, Any]) -> dict[str, Any]:
        reply = handle(message)
        text = json.dumps(reply)
        return json.loads(text.replace('"reason": "', '"reason": "reworded '))

    check = next(c for c in vector_checks() if c.id == chosen)
    assert check.run(InProcessDriver(rewording)).status == "pass"
    assert check.run(InProcessDriver(spoiling)).status == "pass"


def test_an_unanswered_normative_member_is_a_gap_not_a_pass() -> None:
    vectors = _vectors()
    codes = _published()["codes"]
    chosen = next(
        test_id
        for test_id, (_, test) in vectors.items()
        if "maximum" in set(_normative_spoils(test["expected"], codes))
    )

    def unanswered(message: Mapping[str, Any]) -> dict[str, Any]:
        text = json.dumps(handle(message))
        return json.loads(
            text.replace('"maximum": ', '"maximum": {"unsupported": "private"}, "was": ')
        )

    check = next(c for c in vector_checks() if c.id == chosen)
    outcome = check.run(InProcessDriver(unanswered))
    assert outcome.status == "unsupported", outcome
    assert "/details/maximum" in outcome.message
