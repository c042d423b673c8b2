"""An adapter that raises during reconciliation gets a typed answer, as dispatch and
compensation already do; reconciliation has no effect, so the answer stays definite."""

from __future__ import annotations

from typing import Any, NoReturn

import pytest

from rescind.conformance.fixtures.session_cases import CASES
from rescind.conformance.interpreters.worker_scenario import ScenarioRun
from rescind.reference.errors import error_registry

CASE = "session.edge-49.reconcile-writes-unchanged-state"


def _broken(_: Any) -> NoReturn:
    raise RuntimeError("an adapter bug")


def test_a_raising_reconciliation_adapter_is_adapter_failed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    spec = next(case for case in CASES if case.id == CASE).spec()
    dispatch, reconcile, again = spec["steps"]
    run = ScenarioRun(spec["setup"])
    assert "result" in run.step(dispatch)  # the operation is admitted and running
    working = run.adapter.reconcile_operation
    monkeypatch.setattr(run.adapter, "reconcile_operation", _broken)
    failed = run.step({"send": reconcile["send"]})  # no scripted outcome: the adapter raises
    assert failed["error"] == "adapter_failed"
    assert failed["details"] == {"tool": "text.echo", "error": "adapter_raised"}
    assert error_registry()["adapter_failed"].definite
    assert failed["after"]["poisoned"] is False
    monkeypatch.setattr(run.adapter, "reconcile_operation", working)
    assert "result" in run.step(again)  # the session keeps working afterwards
