"""The worker vector topics: consistent, schema-valid, documented, covering every journal and
authorizer edge case, and replayable (committed files when exported, else freshly built)."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from rescind.conformance.interpreters.frame_trace import run_frame_trace
from rescind.conformance.interpreters.worker_trace import run_trace
from rescind.conformance.vectors.format import VectorFile
from rescind.conformance.vectors.sets import (
    authorizer_traces,
    frames,
    journal_codec,
    journal_traces,
)
from rescind.conformance.vectors.tool import default_directory, file_schema, self_describing

DOCS = Path(__file__).resolve().parents[2] / "docs" / "spec"
MODULES = {
    "journal-traces": (journal_traces, "journal.md"),
    "journal-codec": (journal_codec, "journal.md"),
    "authorizer-traces": (authorizer_traces, "authorizer.md"),
    "frames": (frames, "frames.md"),
}


@cache
def _built(topic: str) -> VectorFile:
    built: VectorFile = MODULES[topic][0].build()
    return built


def _document(topic: str) -> dict[str, Any]:
    """The committed file when the lead has exported it, else the freshly built one."""
    path = default_directory() / f"{topic}.json"
    if path.is_file():
        loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return loaded
    return _built(topic).to_json()


def _tests(topic: str) -> list[dict[str, Any]]:
    return [test for group in _document(topic)["testGroups"] for test in group["tests"]]


@pytest.mark.parametrize("topic", sorted(MODULES))
def test_topic_is_consistent_and_schema_valid(topic: str) -> None:
    vector_file = _built(topic)
    vector_file.check_consistency()
    jsonschema.Draft202012Validator(file_schema(vector_file)).validate(
        self_describing(vector_file.to_json())
    )


@pytest.mark.parametrize("topic", sorted(MODULES))
def test_every_rule_is_documented(topic: str) -> None:
    documents = (
        DOCS / name
        for name in (
            "journal.md",
            "authorizer.md",
            "frames.md",
            "messages.md",
            "canonical.md",
            "precedence.md",
        )
    )
    defined = set()
    for document in documents:
        defined |= set(re.findall(r"\*\*([A-Z]{2,4}-\d+)\*\*", document.read_text()))
    used = {test["rule"] for test in _tests(topic)}
    assert used <= defined, sorted(used - defined)


@pytest.mark.parametrize("topic", ["journal-traces", "authorizer-traces"])
def test_traces_replay(topic: str) -> None:
    for test in _tests(topic):
        assert run_trace(test["input"]) == test["expected"], test["id"]


def test_frame_traces_replay() -> None:
    for test in _tests("frames"):
        if test["id"].startswith("trace."):
            assert run_frame_trace(test["input"]) == test["expected"], test["id"]


# Worker edge case (docs/spec/edge-cases.md) -> vectors that cover it.
EDGE_CASES = {
    12: ["journal.edge-12.scalar-success-root", "codec.probe.state-succeeded-scalar"],
    13: ["journal.edge-13.success-depth"],
    15: ["journal.edge-15.duplicate-lifecycle"],
    16: ["journal.edge-16.changed-input"],
    17: ["journal.edge-17.other-tool"],
    18: ["journal.edge-18.failed-after-succeeded"],
    19: ["journal.edge-19.succeeded-then-other-payload-or-running"],
    20: ["journal.edge-20.cancelled-and-failed"],
    21: [
        "journal.terminal-equality.f64.negative-zero",
        "journal.terminal-equality.f64.integer-then-float",
    ],
    22: ["journal.edge-22.narrower-grant-replay"],
    23: ["journal.edge-23.success-format-mismatch"],
    24: ["journal.edge-24.observe-unknown-key"],
    25: ["journal.edge-25.record-limit-after-lookup"],
    26: ["journal.edge-26.bound-on-observation"],
    27: ["codec.edge-27.input-over-256-kib"],
    28: ["codec.probe.scope-check-mismatch", "codec.probe.roundtrip"],
    29: ["codec.edge-29.compensation-on-running-operation"],
    30: ["codec.probe.format-version-1", "codec.probe.65-records", "codec.probe.state-failed-4097"],
    31: [
        "codec.probe.missing-compensation",
        "codec.probe.state-extra-field",
        "codec.probe.whitespace",
    ],
    32: ["codec.probe.state-unknown-variant", "codec.probe.state-as-string"],
    33: ["journal.edge-33.compensation-requires-success"],
    34: ["journal.edge-34.compensation-duplicates"],
    35: ["journal.edge-35.compensation-mismatches"],
    36: ["journal.edge-36.observe-compensation-before-admission"],
    37: ["authorizer.edge-37.compensation-not-granted", "authorizer.edge-37.grant-changed"],
    38: ["authorizer.probe.compensation-budget"],
    39: ["authorizer.probe.compensation-budget"],
    40: ["authorizer.edge-40.request-id-capacity"],
    41: ["authorizer.edge-41.dispatch-results"],
}


def test_every_edge_case_has_vectors() -> None:
    ids = {test["id"] for topic in MODULES for test in _tests(topic)}
    missing = {case: [i for i in wanted if i not in ids] for case, wanted in EDGE_CASES.items()}
    assert not any(missing.values()), missing


def test_wj3_an_original_not_succeeded_is_refused_before_its_compensation_is_checked() -> None:
    # WJ-3 by hand: a compensation only on a succeeded record comes before the compensation's
    # own checks (key prefix, token, fingerprints), for every state that is not succeeded.
    order = [t for t in _built("journal-codec").tests if t.id.startswith("codec.order.")]
    assert len(order) == 12
    for test in order:
        assert json.loads(test.input["text"])["records"][0]["state"]["state"] != "succeeded"
        assert test.expected == {"error": "compensation_requires_succeeded_operation"}, test.id
