"""Provenance from observation: ``rescind vectors observe`` records what a driver answered
to every vector, deterministically; ``rescind vectors export`` turns what it matched into
``upstream-observed`` (keeping the earlier evidence in the citation), never upgrades what it
differed on, and refuses a difference that is not a named finding."""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
import tomllib
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import attrs
import pytest

from rescind.cli import main
from rescind.conformance.comparison import INFORMATIVE_KEYS
from rescind.conformance.driver import handle
from rescind.conformance.harness import InProcessDriver, Upstream
from rescind.conformance.provenance import SPLASH
from rescind.conformance.vector_files import load_vector_files
from rescind.conformance.vectors import observation
from rescind.conformance.vectors import tool as vectortool
from rescind.conformance.vectors.checks import vector_checks
from rescind.conformance.vectors.findings import ObservedDifference
from rescind.conformance.vectors.observation import InvalidObservation, Observation
from rescind.conformance.vectors.sets.topics import discover
from tests.conformance.partial_drivers import (
    PRIVATE_OPS,
    PRIVATE_REASONS,
    TRACE_OPS,
    differs_on,
    private_members,
    restricted,
)

ROOT = Path(__file__).resolve().parents[2]
FAKE = f"{sys.executable} -m tests.conformance.partial_drivers"


def _tests() -> Iterator[tuple[str, str, dict[str, Any]]]:
    for document in load_vector_files():
        for group in document["testGroups"]:
            for test in group["tests"]:
                yield document["topic"], group["type"], test


@cache
def _committed() -> dict[str, dict[str, Any]]:
    return {test["id"]: test for _, _, test in _tests()}


@pytest.fixture(autouse=True)
def _no_findings(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fakes stand in for upstream and answer like the reference, so the real findings
    (vectors upstream answers differently) would all read as stale here."""
    monkeypatch.setattr(observation, "OBSERVED_DIFFERENCES", ())


@cache
def _base_provenance() -> dict[str, dict[str, Any]]:
    """Every vector's provenance before any observation (what the vector sets state)."""
    files, problems = observation.derive(discover(), [], [])
    assert problems == []
    return {test.id: test.provenance.to_json() for f in files for test in f.tests}


def _not_applicable_to_the_fake() -> set[str]:
    """The saga topics (agentctl, CaseHub) and Rescind's extension (its topic, and vectors of
    its profile in other topics): not Splash's."""
    extension = "splash-v5+compensation-reconcile"
    found = set()
    for topic, _, test in _tests():
        profile = test.get("profile") or test["input"].get("profile")
        setup = test["input"].get("setup")
        if isinstance(setup, dict):
            profile = profile or setup.get("profile")
        if topic.startswith("saga-") or topic == "compensation-reconcile" or profile == extension:
            found.add(test["id"])
    return found


def _inexpressible_for_the_fake() -> set[str]:
    """Worked out from the vector files: raw request+grant steps of journal/authorizer
    traces, and the grants operation the fake does not offer."""
    found = set()
    for topic, group, test in _tests():
        traces = topic in ("journal-traces", "authorizer-traces") or (
            topic == "splash-upstream-tests" and group in ("journal", "authorizer")
        )
        steps = test["input"].get("steps", []) if traces else []
        if any({"request", "grant"} <= set(step.get("args", {})) for step in steps):
            found.add(test["id"])
        grants = topic == "grants" or (topic == "splash-upstream-tests" and group == "grants")
        if grants and test["input"].get("operation") == "manifest_attenuate":
            found.add(test["id"])
    return found


@pytest.fixture(scope="module")
def observed() -> Observation:
    return attrs.evolve(
        observation.observe(lambda: InProcessDriver(restricted), "cmd"), name="partial-fake"
    )


def test_observe_records_every_vector_check_and_what_it_answered(observed: Observation) -> None:
    check_ids = {check.id for check in vector_checks()}
    assert set(observed.vectors) == check_ids
    unsupported = {i for i, seen in observed.vectors.items() if seen.answered == "unsupported"}
    assert unsupported == _inexpressible_for_the_fake()
    assert len(unsupported) > 40
    not_applicable = {
        i for i, seen in observed.vectors.items() if seen.answered == "not-applicable"
    }
    assert {i.removesuffix(".f64") for i in not_applicable} == _not_applicable_to_the_fake()
    others = set(observed.vectors) - unsupported - not_applicable
    assert {observed.vectors[i].answered for i in others} == {"matched"} and len(others) > 1000
    assert observed.implementation == "partial-fake" and observed.version == "0.1.0"
    assert observed.upstream == Upstream(*SPLASH.split())


def test_the_reply_digest_is_of_the_replies_and_nothing_else(observed: Observation) -> None:
    _, _, test = next(t for t in _tests() if t[0] == "canonical-input")
    reply = handle({"id": 1, "op": "canonical.input", "args": test["input"]})
    text = json.dumps(
        [["canonical.input", {"ok": reply["ok"]}]], sort_keys=True, separators=(",", ":")
    )
    assert (
        observed.vectors[test["id"]].reply == "sha256:" + hashlib.sha256(text.encode()).hexdigest()
    )
    digests = [seen.reply for seen in observed.vectors.values()]
    assert (
        len(set(digests)) > 500
    )  # a digest of each reply (many are the same error), not of a status


def test_observation_files_are_deterministic(observed: Observation) -> None:
    again = observation.observe(lambda: InProcessDriver(restricted), "cmd")
    text = observed.render()
    assert again.render() == text
    assert json.loads(text)["vectors"] == dict(sorted(json.loads(text)["vectors"].items()))
    reread = Observation.from_json("partial-fake", json.loads(text))
    assert reread.render() == text and reread == observed


def _copy_vectors(tmp_path: Path) -> Path:
    target = tmp_path / "vectors"
    shutil.copytree(ROOT / "vectors", target)
    return target


def test_export_derives_upstream_observed_from_what_matched(
    observed: Observation, tmp_path: Path
) -> None:
    directory = _copy_vectors(tmp_path)
    registry = (directory / "registry.json").read_text()
    assert vectortool.export(directory, [observed]) == []
    assert vectortool.check(directory, [observed]) == []
    assert (directory / "registry.json").read_text() == registry  # no id changed meaning
    assert any("differs from what the reference" in p for p in vectortool.check(directory, []))

    exported = {
        test["id"]: test
        for path in directory.glob("*.json")
        if path.name != "registry.json"
        for group in json.loads(path.read_text())["testGroups"]
        for test in group["tests"]
    }
    before = _base_provenance()
    unchanged = _inexpressible_for_the_fake() | _not_applicable_to_the_fake()
    commit = SPLASH.split()[1]
    kinds_seen = set()
    for test_id, test in exported.items():
        old, new = before[test_id], test["provenance"]
        if test_id in unchanged:
            assert new == old, test_id
            continue
        assert new["kind"] == "upstream-observed", test_id
        kinds_seen.add(old["kind"])
        observed_text = (
            f"conformance/observations/partial-fake.json `{test_id}` matched by partial-fake "
            f"0.1.0, built from ymote/Splash {commit}"
        )
        if old["kind"] == "upstream-observed":
            assert new["citation"] == f"{old['citation']}; also {observed_text}", test_id
        else:
            assert new["citation"].startswith(observed_text + "; "), test_id
            assert new["citation"].endswith(": " + old["citation"]), test_id
        if old["kind"] == "upstream-test":
            assert "; also asserted by upstream test: ymote/Splash" in new["citation"]
    assert {"upstream-observed", "upstream-test", "upstream-code", "derived"} <= kinds_seen


def test_a_difference_is_refused_unless_it_is_a_named_finding(tmp_path: Path) -> None:
    _, _, target = next(
        t
        for t in _tests()
        if t[0] == "canonical-input"
        and t[2]["result"] == "valid"
        and t[2]["input"]["format"] == "json"
    )
    same_text = {
        t["id"]
        for topic, _, t in _tests()
        if topic == "canonical-input" and t["input"].get("text") == target["input"]["text"]
    }
    checks = [c for c in vector_checks() if c.source == "canonical-input"]
    seen = observation.observe(
        lambda: InProcessDriver(differs_on(target["input"]["text"])), "cmd", checks=checks
    )
    seen = attrs.evolve(seen, name="partial-fake")
    differed = {i for i, s in seen.vectors.items() if s.answered == "differed"}
    assert {i.removesuffix(".f64") for i in differed} == same_text and target["id"] in differed

    directory = _copy_vectors(tmp_path)
    before = (directory / "canonical-input.json").read_text()
    problems = vectortool.export(directory, [seen])
    assert len(problems) == len(same_text) and all("upstream answered" in p for p in problems)
    assert any(p.startswith(f"{target['id']}: upstream answered") for p in problems)
    assert (directory / "canonical-input.json").read_text() == before  # nothing written
    assert any(p.startswith(target["id"]) for p in vectortool.check(directory, [seen]))

    findings = [
        ObservedDifference(i, "F3", f"{SPLASH} crates/x/src/lib.rs thing") for i in same_text
    ]
    finding = findings[0] if findings[0].vector == target["id"] else findings[-1]
    files, problems = observation.derive(discover(), [seen], findings)
    assert problems == []
    by_id = {t.id: t for f in files for t in f.tests}
    kept = by_id[target["id"]].provenance
    assert kept.kind == _committed()[target["id"]]["provenance"]["kind"]
    assert kept.citation.endswith("docs/findings.md F3, " + finding.site)
    others = [i for i in seen.vectors if i not in differed and i in by_id]
    assert others and all(by_id[i].provenance.kind == "upstream-observed" for i in others)

    # A listed finding that upstream now matches is stale.
    clean = attrs.evolve(seen, vectors={**seen.vectors, target["id"]: seen.vectors[others[0]]})
    _, problems = observation.derive(discover(), [clean], findings)
    assert problems and "now matches" in problems[0]


def test_an_observation_of_another_upstream_commit_is_refused(observed: Observation) -> None:
    other = attrs.evolve(observed, upstream=Upstream("ymote/Splash", "0" * 40))
    _, problems = observation.derive(discover(), [other], [])
    assert problems and "pinned to" in problems[0]


def test_a_match_outside_the_upstreams_topics_is_refused(observed: Observation) -> None:
    saga = sorted(_not_applicable_to_the_fake())[0]
    matched = next(seen for seen in observed.vectors.values() if seen.answered == "matched")
    claimed = attrs.evolve(observed, vectors={**observed.vectors, saga: matched})
    _, problems = observation.derive(discover(), [claimed], [])
    assert len(problems) == 1 and "does not define" in problems[0] and saga in problems[0]


def test_the_cli_observes_with_a_relative_command_and_export_reads_it(tmp_path: Path) -> None:
    out = tmp_path / "observations" / "partial-fake.json"
    assert main(["vectors", "observe", "--impl", f"{FAKE} restricted", "--out", str(out)]) == 0
    text = out.read_text()
    document = json.loads(text)
    assert str(ROOT) not in text and "timestamp" not in text
    assert document["producedBy"].startswith("rescind vectors observe --impl ")
    assert "tests.conformance.partial_drivers restricted" in document["producedBy"]
    assert document["driver"] == {"name": "partial-fake", "version": "0.1.0"}
    assert main(["vectors", "observe", "--impl", f"{FAKE} restricted", "--out", str(out)]) == 0
    assert out.read_text() == text
    directory = _copy_vectors(tmp_path)
    observations = str(out.parent)
    assert main(["vectors", "check", "--dir", str(directory), "--observations", observations]) == 1
    assert main(["vectors", "export", "--dir", str(directory), "--observations", observations]) == 0
    assert main(["vectors", "check", "--dir", str(directory), "--observations", observations]) == 0


def test_a_broken_observation_file_is_a_typed_error(tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text('{"format": "rescind-observation/1"}')
    with pytest.raises(InvalidObservation) as raised:
        observation.load(tmp_path)
    assert raised.value.code == "observation_invalid"
    assert main(["vectors", "check", "--observations", str(tmp_path)]) == 2
    assert observation.load(tmp_path / "missing") == ()


def test_observation_files_ship_as_package_data() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert (
        "observations/*.json"
        in pyproject["tool"]["setuptools"]["package-data"]["rescind.conformance"]
    )
    assert observation.default_directory() == ROOT / "conformance" / "observations"


def test_the_reference_cannot_be_observed_as_upstream() -> None:
    with pytest.raises(InvalidObservation, match="reference"):
        observation.observe(
            lambda: InProcessDriver(handle),
            "cmd",
            upstream=Upstream(*SPLASH.split()),
            checks=[c for c in vector_checks() if c.source == "host-keys"],
        )


PRIVATE_TOPICS = ("canonical-input", "authorizer-traces")


def _private_pointers(expected: Any, names: frozenset[str], path: str = "") -> Iterator[str]:
    """Pointers of the members named in ``names`` (not under an error object or an
    informative key): where the private-members fake answers the marker."""
    if isinstance(expected, dict):
        if "error" in expected:
            return
        for key, value in expected.items():
            if key in INFORMATIVE_KEYS:
                continue
            inner = f"{path}/{key}"
            yield from [inner] if key in names else _private_pointers(value, names, inner)
    elif isinstance(expected, list):
        for index, item in enumerate(expected):
            yield from _private_pointers(item, names, f"{path}/{index}")


@pytest.fixture(scope="module")
def observed_in_part() -> Observation:
    checks = [c for c in vector_checks() if c.source in PRIVATE_TOPICS]
    seen = observation.observe(lambda: InProcessDriver(private_members), "cmd", checks=checks)
    return attrs.evolve(seen, name="private-fake")


def _partial_expectations() -> dict[str, tuple[str, ...]]:
    """Per check id, the sorted pointers the fake leaves unanswered where nothing else stops
    it (a raw step cuts a trace first: that vector is unsupported, not partial)."""
    wanted = {}
    for topic, _, test in _tests():
        if topic not in PRIVATE_TOPICS or test["id"] in _inexpressible_for_the_fake():
            continue
        names = PRIVATE_OPS["canonical.input" if topic == "canonical-input" else TRACE_OPS[1]]
        for check_id, expected, at in (
            (test["id"], test["expected"], ""),
            (f"{test['id']}.f64", test["expected"].get("f64"), "/f64"),
        ):
            if isinstance(expected, dict):
                pointers = sorted(at + p for p in _private_pointers(expected, names))
                if pointers:
                    wanted[check_id] = tuple(pointers)
    return wanted


def test_a_reply_answered_in_part_is_observed_partial_with_its_pointers(
    observed_in_part: Observation,
) -> None:
    wanted = _partial_expectations()
    partial = {
        i: s.unanswered for i, s in observed_in_part.vectors.items() if s.answered == "partial"
    }
    assert partial == wanted and len(partial) > 150
    assert observed_in_part.vectors["canon.text.release"].unanswered == ("/hostInputFingerprint",)
    others = {s.answered for i, s in observed_in_part.vectors.items() if i not in partial}
    assert others <= {"matched", "unsupported", "not-applicable"}
    assert observed_in_part.counts()["partial"] == len(partial)
    text = observed_in_part.render()
    assert json.loads(text)["vectors"]["canon.text.release"] == {
        "answered": "partial",
        "reply": observed_in_part.vectors["canon.text.release"].reply,
        "unanswered": ["/hostInputFingerprint"],
    }
    assert Observation.from_json("private-fake", json.loads(text)).render() == text


def test_the_digest_of_a_partial_answer_is_of_the_reply_with_its_markers(
    observed_in_part: Observation,
) -> None:
    _, _, test = next(t for t in _tests() if t[2]["id"] == "canon.text.release")
    reply = private_members({"id": 1, "op": "canonical.input", "args": test["input"]})
    assert reply["ok"]["hostInputFingerprint"] == {
        "unsupported": PRIVATE_REASONS["hostInputFingerprint"]
    }
    text = json.dumps(
        [["canonical.input", {"ok": reply["ok"]}]], sort_keys=True, separators=(",", ":")
    )
    digest = "sha256:" + hashlib.sha256(text.encode()).hexdigest()
    assert observed_in_part.vectors["canon.text.release"].reply == digest


def test_a_partial_observation_notes_the_citation_and_keeps_the_kind(
    observed_in_part: Observation, observed: Observation
) -> None:
    files, problems = observation.derive(discover(), [observed_in_part], [])
    assert problems == []
    exported = {test.id: test.provenance for f in files for test in f.tests}
    wanted = _partial_expectations()
    noted = 0
    for test_id, old in _base_provenance().items():
        new = exported[test_id]
        if test_id not in wanted:
            seen = observed_in_part.vectors.get(test_id)
            matched = seen is not None and seen.answered == "matched"
            assert (new.kind == "upstream-observed") if matched else (new.to_json() == old)
            continue
        noted += 1
        assert new.kind == old["kind"], test_id  # a partly observed vector is not upgraded
        shown = ", ".join(wanted[test_id][:12])
        more = len(wanted[test_id]) - 12
        shown += f" and {more} more" if more > 0 else ""
        assert new.citation == (
            f"{old['citation']}; observed upstream in part "
            f"(conformance/observations/private-fake.json: every member matched except {shown})"
        ), test_id
    assert noted > 150
    assert exported["canon.text.release"].citation.endswith(
        "; observed upstream in part (conformance/observations/private-fake.json: every "
        "member matched except /hostInputFingerprint)"
    )
    # Another observation that matched the whole reply upgrades it as before.
    both, problems = observation.derive(discover(), [observed_in_part, observed], [])
    assert problems == []
    upgraded = {test.id: test.provenance for f in both for test in f.tests}
    assert upgraded["canon.text.release"].kind == "upstream-observed"


def test_export_and_check_accept_a_partial_observation(
    observed_in_part: Observation, tmp_path: Path
) -> None:
    directory = _copy_vectors(tmp_path)
    registry = (directory / "registry.json").read_text()
    assert vectortool.export(directory, [observed_in_part]) == []
    assert vectortool.check(directory, [observed_in_part]) == []
    assert (directory / "registry.json").read_text() == registry


@pytest.mark.parametrize(
    "entry",
    [
        {"answered": "partial", "reply": "sha256:" + "0" * 64},
        {"answered": "partial", "reply": "sha256:" + "0" * 64, "unanswered": ["/b", "/a"]},
        {"answered": "partial", "reply": "sha256:" + "0" * 64, "unanswered": ["a"]},
        {"answered": "matched", "reply": "sha256:" + "0" * 64, "unanswered": ["/a"]},
    ],
)
def test_a_partial_entry_lists_sorted_pointers_and_only_it_does(entry: dict[str, Any]) -> None:
    document = {
        "format": observation.FORMAT,
        "driver": {"name": "x", "version": "1"},
        "upstream": {"repository": "ymote/Splash", "commit": SPLASH.split()[1]},
        "profiles": [],
        "producedBy": "cmd",
        "vectors": {"canon.text.release": entry},
    }
    with pytest.raises(InvalidObservation):
        Observation.from_json("x", document)
