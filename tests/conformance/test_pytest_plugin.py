"""The pytest plugin turns checks into test items for an in-process adapter."""

from __future__ import annotations

import pytest

ADAPTER = """
from rescind.conformance.driver import handle

def broken(message):
    reply = handle(message)
    if message.get("op") == "canonical.input" and "ok" in reply:
        reply["ok"]["workerInputFingerprint"] = "0" * 64
    return reply
"""


def test_plugin_is_idle_without_an_adapter(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_nothing="def test_one():\n    pass\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


def test_reference_adapter_passes(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(
        "--rescind-adapter",
        "rescind.conformance.driver:handle",
        "--rescind-select",
        "canon.text",
        "-q",
    )
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed", 0) >= 8 and "failed" not in outcomes


def test_broken_adapter_fails_with_check_ids(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(my_adapter=ADAPTER)
    pytester.syspathinsert()
    result = pytester.runpytest(
        "--rescind-adapter", "my_adapter:broken", "--rescind-select", "canon.text.release"
    )
    result.assert_outcomes(failed=2)  # canon.text.release and canon.text.release-1-2-3
    result.stdout.fnmatch_lines(["*canon.text.release (CJ-26*workerInputFingerprint differs*"])


def test_undeclared_capabilities_are_skipped(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        only_canonical="""
from rescind.conformance.driver import handle

def adapter(message):
    reply = handle(message)
    if message.get("op") == "hello":
        reply["ok"]["capabilities"] = ["canonical"]
    return reply
"""
    )
    pytester.syspathinsert()
    result = pytester.runpytest(
        "--rescind-adapter", "only_canonical:adapter", "--rescind-select", "grant.fp", "-q"
    )
    outcomes = result.parseoutcomes()
    assert outcomes.get("skipped", 0) > 5 and "passed" not in outcomes


def test_unsupported_requests_are_skipped_with_the_reason(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        no_text="""
from rescind.conformance.driver import handle

def adapter(message):
    if message.get("op") == "canonical.input" and message["args"].get("format") == "text":
        return {"id": message["id"], "unsupported": "no text payloads here"}
    return handle(message)
"""
    )
    pytester.syspathinsert()
    result = pytester.runpytest(
        "--rescind-adapter", "no_text:adapter", "--rescind-select", "canon.text.release", "-rs"
    )
    result.assert_outcomes(skipped=2)
    result.stdout.fnmatch_lines(["*unsupported: no text payloads here*"])
