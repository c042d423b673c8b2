"""Loading a worker journal as a vector asks: the re-encoding and the record count."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rescind.conformance.interpreters.worker_trace import text_of
from rescind.reference.numbers import NumberMode
from rescind.reference.worker.journal import WorkerOperationJournal


def load_journal(case: Mapping[str, Any]) -> dict[str, Any]:
    """``from_json`` (or ``from_json_for_scope`` when the case names a scope) in the case's
    number mode; raises the reference's error when the journal is refused."""
    mode = NumberMode(case.get("profile", NumberMode.AP.profile))
    text = text_of(case["text"])
    if "expected_scope" in case:
        loaded = WorkerOperationJournal.from_json_for_scope(text, case["expected_scope"], mode)
    else:
        loaded = WorkerOperationJournal.from_json(text, mode)
    return {"journal": loaded.to_json(), "records": len(loaded.records)}
