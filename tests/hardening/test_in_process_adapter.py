"""An in-process adapter (the pytest plugin's kind of driver) that misbehaves gets the same
failure names as a driver process, and the runner carries on past it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from rescind.conformance.driver import handle
from rescind.conformance.harness import HarnessFailure, InProcessDriver
from rescind.conformance.runner import run_checks
from tests.conformance.check_doubles import probe_check


def _adapter(misbehaviour: str) -> Any:
    def adapter(message: Mapping[str, Any]) -> Any:
        if message["op"] != "canonical.input":
            return handle(message)
        if misbehaviour == "raises":
            raise KeyError("args")
        if misbehaviour == "list":
            return [1, 2]
        return {"id": message["id"], "result": "?"}

    return adapter


@pytest.mark.parametrize(
    ("misbehaviour", "kind"),
    [("raises", "crashed"), ("list", "non_json_output"), ("no-outcome", "malformed_reply")],
)
def test_a_misbehaving_adapter_is_named(misbehaviour: str, kind: str) -> None:
    driver = InProcessDriver(_adapter(misbehaviour))
    with pytest.raises(HarnessFailure) as caught:
        driver.request("canonical.input", {"format": "json", "text": "{}"})
    assert caught.value.kind == kind


def test_the_runner_carries_on_past_a_raising_adapter() -> None:
    checks = [probe_check(i) for i in range(3)]
    report = run_checks(checks, lambda: InProcessDriver(_adapter("raises")))
    assert [result.outcome.status for result in report.results] == ["error"] * 3
    assert report.exit_code() == 2
    assert "crashed" in report.harness_failures[0]
