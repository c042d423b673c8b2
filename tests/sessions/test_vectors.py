"""The session-scenarios vector topic: it builds, matches its schema, names existing rules,
covers every probe block, every worker edge case 42-54 and every policy-table row, and its
expected documents replay."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import jsonschema

from rescind.conformance.interpreters.host_scenario import run_host_scenario
from rescind.conformance.interpreters.worker_scenario import run_scenario
from rescind.conformance.vectors.format import VectorFile
from rescind.conformance.vectors.sets.session_scenarios import build
from rescind.conformance.vectors.tool import file_schema, self_describing

DOCS = Path(__file__).resolve().parents[2] / "docs" / "spec"


@cache
def vectors() -> VectorFile:
    return build()


def test_document_matches_its_schema() -> None:
    vector_file = vectors()
    document = json.loads(json.dumps(self_describing(vector_file.to_json())))
    jsonschema.validate(document, file_schema(vector_file))


def test_rules_exist_in_the_docs() -> None:
    defined = set()
    for name in ("session.md", "recovery.md", "compensation-reconcile.md", "precedence.md"):
        defined |= set(re.findall(r"\*\*((?:WS|RC|CR|EP)-\d+)\*\*", (DOCS / name).read_text()))
    used = {test.rule for test in vectors().tests}
    assert used <= defined
    assert {f"RC-{n}" for n in range(1, 17)} <= used


def test_coverage_of_probe_blocks_edge_cases_and_rows() -> None:
    ids = [test.id for test in vectors().tests]
    for block in range(1, 8):
        assert any(i.startswith(f"session.probe-{block}.") for i in ids), block
    for item in range(42, 55):
        assert any(i.startswith(f"session.edge-{item}.") for i in ids), item
    for row in range(1, 16):
        assert any(i.startswith(f"recovery.row-{row:02d}.") for i in ids), row
    assert "recovery.edge-48.fenced-ledger-recovery.planned-events" in ids


def test_expected_documents_replay() -> None:
    """A second run of every input gives the same document (the runs are deterministic and
    independent of anything else in the process)."""
    for test in vectors().tests:
        runner = run_scenario if test.input["kind"] == "worker" else run_host_scenario
        assert runner(test.input["scenario"]) == test.expected, test.id
