"""Every golden vector says where its expectation comes from, and the citation holds up:
probe rows exist in the probe files, kinds are one of six, and the meaning digest ignores it."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import attrs
import jsonschema
import pytest

from rescind.conformance.provenance import (
    KINDS,
    OBSERVATION_DIRECTORY,
    PROBE_FILES,
    Provenance,
    assumed,
    derived,
    joined,
    observed,
    splash_code,
)
from rescind.conformance.vector_files import load_vector_files
from rescind.conformance.vectors import observation
from rescind.conformance.vectors import tool as vectortool
from rescind.conformance.vectors.format import VectorFile, VectorGroup, VectorTest

UPSTREAM = Path(__file__).resolve().parents[1] / "upstream"
PROBE_FLAGS = {"UpstreamProbe", "UpstreamKnownAnswer", "ProbeObserved"}


@cache
def _tests() -> tuple[dict[str, Any], ...]:
    """The exported tests (tests/vectors/test_vector_tool.py checks they are fresh)."""
    return tuple(
        test
        for document in load_vector_files()
        for group in document["testGroups"]
        for test in group["tests"]
    )


def _probe_lines(file_name: str) -> list[str]:
    return (UPSTREAM / file_name).read_text(encoding="utf-8").splitlines()


def _cited_rows(citation: str) -> list[tuple[str, str]]:
    """(file, label) for every probe row a citation names: the backquoted labels after each
    mention of a probe file, up to the next file or the end of that clause."""
    rows = []
    for part in citation.split("; "):
        pieces = re.split(r"(out_\w+\.txt)", part)
        for file_name, text in zip(pieces[1::2], pieces[2::2], strict=True):
            rows += [(file_name, label) for label in re.findall(r"`([^`]+)`", text)]
    return rows


def test_provenance_kinds_are_the_six_of_the_issue() -> None:
    assert KINDS == (
        "upstream-observed",
        "upstream-test",
        "upstream-code",
        "design-doc",
        "derived",
        "assumed",
    )


@pytest.mark.parametrize(
    ("kind", "citation", "complaint"),
    [
        ("observed", "tests/upstream/out_ap.txt row `fp`", "must be in"),
        ("derived", "", "must not be empty"),
        ("derived", "   ", "must not be empty"),
        ("derived", "computed by the reference", "rule"),
        ("upstream-observed", "out_ap.txt row `fp`", "probe file"),
        ("upstream-observed", "observations/splash.json `x` matched", "observation file"),
        ("upstream-code", "crates/splash-protocol/src/lib.rs SessionAuthorizer", "repository"),
        ("upstream-test", "ymote/Splash main crates/x.rs test t", "repository"),
        ("design-doc", "the CaseHub design", "repository"),
    ],
)
def test_invalid_provenance_is_refused(kind: str, citation: str, complaint: str) -> None:
    with pytest.raises(ValueError, match=complaint):
        Provenance(kind, citation)


def test_helpers_build_checked_citations() -> None:
    assert observed("out_ap.txt", "fp").citation == "tests/upstream/out_ap.txt row `fp`"
    assert derived("GR-1", "WJ-3").citation == (
        "computed by the reference from docs/spec/grants.md GR-1; docs/spec/journal.md WJ-3"
    )
    code = splash_code("crates/splash-protocol/src/lib.rs", "SessionAuthorizer::new")
    assert code.kind == "upstream-code" and " 623d57c5c524" in code.citation
    assert assumed("why").to_json() == {"kind": "assumed", "citation": "why"}
    with pytest.raises(ValueError, match="no probe file"):
        observed("out_x.txt", "fp")
    with pytest.raises(ValueError, match="cannot join"):
        joined(observed("out_ap.txt", "fp"), derived("GR-1"))


def test_every_vector_carries_a_provenance_of_a_known_kind() -> None:
    assert len(_tests()) > 1500
    for test in _tests():
        assert set(test["provenance"]) == {"kind", "citation"}, test["id"]
        assert test["provenance"]["kind"] in KINDS, test["id"]


def test_a_vector_cannot_be_built_without_provenance() -> None:
    with pytest.raises(TypeError, match="provenance"):
        VectorTest("x.y", "CJ-1", "", {}, {}, "valid")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        VectorTest("x.y", "CJ-1", "", {}, {}, "valid", provenance="derived")  # type: ignore[arg-type]


def test_every_cited_probe_row_exists() -> None:
    cited = 0
    for test in _tests():
        citation = test["provenance"]["citation"]
        for file_name, label in _cited_rows(citation):
            assert file_name in PROBE_FILES, test["id"]
            assert any(line.startswith(label) for line in _probe_lines(file_name)), (
                f"{test['id']}: no row {label!r} in {file_name}"
            )
            cited += 1
        if test["provenance"]["kind"] == "upstream-observed":
            if citation.startswith(OBSERVATION_DIRECTORY):
                # Observed through a driver built from upstream: the file says it matched.
                name = citation[len(OBSERVATION_DIRECTORY) :].split(".json", 1)[0]
                seen = {o.name: o for o in observation.load()}[name].vectors[test["id"]]
                assert seen.answered == "matched", test["id"]
                continue
            assert citation.startswith("tests/upstream/out_"), test["id"]
            assert _cited_rows(citation), test["id"]
    assert cited > 250


def test_probe_flagged_vectors_keep_their_probe_evidence() -> None:
    """A vector flagged as probe-backed is upstream-observed, or says which probe rows back
    part of it (and why the rest is not observed): the flag and the provenance never disagree
    silently."""
    for test in _tests():
        if PROBE_FLAGS & set(test["flags"]):
            provenance = test["provenance"]
            if provenance["kind"] != "upstream-observed":
                assert "out_" in provenance["citation"] or "probe" in provenance["citation"], test[
                    "id"
                ]


def test_probe_parity_vectors_are_upstream_observed() -> None:
    """Vectors that tests/canonical and tests/worker compare with probe rows, spot-checked."""
    kinds = {test["id"]: test["provenance"]["kind"] for test in _tests()}
    for test_id in (
        "canon.json.probe.basic",
        "canon.number.probe.minus-zero",
        "canon.text.release",
        "codec.probe.format-version-1",
        "journal.probe.upstream-lifecycle",
        "journal.terminal-equality.f64.negative-zero",
        "session.probe-3.running-replay-then-compensation",
        "tag.probe.host-close-seq-1",
        "token.selector.uppercase",
    ):
        assert kinds[test_id] == "upstream-observed", test_id


def test_derived_citations_name_rules_defined_in_docs_spec() -> None:
    spec = Path(__file__).resolve().parents[2] / "docs" / "spec"
    defined = set()
    for page in spec.glob("*.md"):
        defined.update(re.findall(r"\*\*([A-Z]{2,4}-\d{1,3})\*\*", page.read_text()))
    for test in _tests():
        if test["provenance"]["kind"] == "derived":
            cited = re.findall(r"\b[A-Z]{2,4}-\d{1,3}\b", test["provenance"]["citation"])
            assert cited and set(cited) <= defined, test["id"]


def test_provenance_does_not_change_a_vectors_meaning() -> None:
    test = VectorTest("x.y", "CJ-1", "", {"a": 1}, {"b": 2}, "valid", provenance=derived("CJ-1"))
    other = attrs.evolve(test, provenance=observed("out_ap.txt", "fp"), comment="other")
    assert vectortool.meaning(test) == vectortool.meaning(other)


def test_the_schema_requires_provenance() -> None:
    test = VectorTest("x.y", "CJ-1", "", {}, {}, "valid", provenance=derived("CJ-1"))
    vector_file = VectorFile("t", (), (), (VectorGroup("T", (test,)),))

    def exported() -> dict[str, Any]:
        # What vectortool.self_describing adds for a bound topic ("t" has no binding).
        document = {**vector_file.to_json(), "informativeKeys": [], "detailsCompared": ""}
        document["testGroups"][0]["capability"] = "canonical"
        return json.loads(json.dumps(document))  # type: ignore[no-any-return]

    document = exported()
    schema = vectortool.file_schema(vector_file)
    jsonschema.validate(document, schema)
    del document["testGroups"][0]["tests"][0]["provenance"]
    with pytest.raises(jsonschema.ValidationError, match="provenance"):
        jsonschema.validate(document, schema)
    document = exported()
    document["testGroups"][0]["tests"][0]["provenance"]["kind"] = "folklore"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(document, schema)


def test_a_vector_belongs_to_the_profile_its_request_asks_for() -> None:
    plain = VectorTest("x.y", "WJ-1", "", {"text": "{}"}, {}, "valid", provenance=derived("WJ-1"))
    assert plain.profile is None and "profile" not in plain.to_json()
    f64 = {"text": "{}", "profile": "splash-v5-f64"}
    asked = VectorTest("x.z", "WJ-1", "", f64, {}, "valid", provenance=derived("WJ-1"))
    assert asked.to_json()["profile"] == "splash-v5-f64"
    traced = {"setup": {"profile": "splash-v5-f64"}, "steps": []}
    assert VectorTest("x.t", "WJ-6", "", traced, {}, "valid", provenance=derived("WJ-6")).profile
    with pytest.raises(ValueError, match="asks for"):
        VectorTest("x.w", "WJ-1", "", f64, {}, "valid", provenance=derived("WJ-1"), profile=None)
    with pytest.raises(ValueError):
        VectorTest(
            "x.v", "WJ-1", "", {}, {}, "valid", provenance=derived("WJ-1"), profile="splash-v6"
        )


def test_the_f64_flag_and_the_f64_profile_go_together() -> None:
    for test in _tests():
        flagged = "F64Profile" in test["flags"]
        assert flagged == (test.get("profile") == "splash-v5-f64"), test["id"]
