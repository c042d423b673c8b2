"""``rescind diagnose``: the reference reads every hazard as upstream does, each deliberately
broken driver is caught in the reading it breaks, and every hazard can tell its readings
apart with the vectors it cites."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest

from rescind.cli import main
from rescind.conformance.diagnose import Diagnosis, canonical_tests, diagnose, probes_of
from rescind.conformance.driver import handle
from rescind.conformance.harness import InProcessDriver
from rescind.conformance.hazards import HAZARDS, LABELS, NOT_APPLICABLE
from rescind.conformance.vectors.readings import Refused, Style, canonical_body
from tests.cli_process import run_rescind
from tests.conformance.broken_drivers import BROKEN

TESTS = canonical_tests()
IDS = list(TESTS)


def _readings(diagnosis: Diagnosis) -> dict[str, tuple[str, ...]]:
    return {line.aspect: line.reading for line in diagnosis.lines}


def _differing(diagnosis: Diagnosis) -> set[str]:
    return {line.aspect for line in diagnosis.lines if line.matches_upstream is False}


def test_the_reference_reads_every_hazard_as_upstream() -> None:
    diagnosis = diagnose(InProcessDriver(handle))
    assert len(diagnosis.lines) == sum(len(hazard.aspects) for hazard in HAZARDS)
    assert all(line.matches_upstream for line in diagnosis.lines)
    readings = _readings(diagnosis)
    assert readings["number-mode"] == ("lexeme-preserving",)
    assert readings["number-spelling"] == ("serde-normalized",)
    assert readings["key-order"] == ("code-points",)
    assert readings["duplicate-keys"] == ("last-wins",)
    assert readings["nesting"] == ("limit-127",)
    assert readings["depth"] == ("values-32",)
    # Every decided line cites the vectors that ruled the other readings out.
    assert all(line.evidence for line in diagnosis.lines)


# The UTF-16 and first-wins drivers re-encode payloads from a parse without CJ-11, so they
# also read the reserved number key as an ordinary key; diagnose reports that too.
@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (
            "utf16-key-order",
            {"key-order": ("utf-16",), "reserved-number-key": ("ordinary-key",)},
        ),
        (
            "first-wins-duplicates",
            {"duplicate-keys": ("first-wins",), "reserved-number-key": ("ordinary-key",)},
        ),
        (
            "binary-float-numbers",
            {
                "number-mode": ("binary-f64",),
                "f64-parse": ("truncating",),
                "f64-layout": ("zmij",),
                "reserved-number-key": ("ordinary-key",),
            },
        ),
    ],
)
def test_a_broken_driver_is_diagnosed_in_the_reading_it_breaks(
    name: str, expected: Mapping[str, tuple[str, ...]]
) -> None:
    diagnosis = diagnose(InProcessDriver(BROKEN[name]))
    readings = _readings(diagnosis)
    assert {aspect: readings[aspect] for aspect in expected} == expected
    differing = _differing(diagnosis)
    # f64 parse and layout have no upstream value: the number-mode line carries the difference.
    assert differing == set(expected) - {"f64-parse", "f64-layout"}


def test_upstream_readings_reproduce_the_published_vectors() -> None:
    """The canonicalizer behind every prediction, at upstream's reading, computes exactly the
    bytes the vectors publish (an independent path: the vectors come from the reference's
    canonical.input, the predictions from readings.py)."""
    checked = 0
    for hazard in HAZARDS:
        for probe in probes_of(hazard, IDS):
            expected = TESTS[probe]["expected"]
            try:
                body: bytes | None = canonical_body(TESTS[probe]["input"], Style())
            except Refused:
                body = None
            if expected.get("error") == "serialization":
                assert body is None, probe
            elif "error" not in expected:  # envelope, depth and size are not its business
                assert body == bytes.fromhex(expected["canonicalInputHex"])[12:], probe
                checked += 1
    assert checked > 80


def test_the_f64_reading_reproduces_the_informative_vectors() -> None:
    """Truncating parse plus zmij layout is upstream's f64 build: the vectors' informative
    ``f64`` results (computed by the reference in its F64 mode) say so."""
    style = Style(numbers="f64-truncating-zmij")
    compared = 0
    for probe in probes_of(HAZARDS[0], IDS):
        expected = TESTS[probe]["expected"]
        informative = expected.get("f64", expected)
        try:
            body = canonical_body(TESTS[probe]["input"], style)
        except Refused:
            assert "error" in informative, probe
            continue
        assert body == bytes.fromhex(informative["canonicalInputHex"])[12:], probe
        compared += 1
    assert compared > 40


@pytest.mark.parametrize("hazard", HAZARDS, ids=lambda hazard: hazard.key)
def test_every_pair_of_readings_is_told_apart_by_a_cited_vector(hazard: Any) -> None:
    probes = probes_of(hazard, IDS)
    assert probes and all(probe in TESTS for probe in probes)
    context = Style()
    predictions = {
        candidate.name: [candidate.predict(TESTS[p]["input"], context) for p in probes]
        for candidate in hazard.candidates
    }
    for first, second in combinations(hazard.candidates, 2):
        assert predictions[first.name] != predictions[second.name], (first.name, second.name)
    for candidate in hazard.candidates:
        assert set(candidate.aspects) == {aspect for aspect, _ in hazard.aspects}
        assert all(value in LABELS for value in candidate.aspects.values())
    assert hazard.upstream in {candidate.name for candidate in hazard.candidates}


def test_answers_no_reading_explains_are_reported_as_other() -> None:
    def refuse_everything(message: Mapping[str, Any]) -> dict[str, Any]:
        if message["op"] == "canonical.input":
            return {"id": message["id"], "error": {"code": "serialization", "definite": True}}
        return handle(message)

    lines = {line.aspect: line for line in diagnose(InProcessDriver(refuse_everything)).lines}
    numbers = lines["number-mode"]
    assert numbers.status == "other" and numbers.matches_upstream is False
    assert numbers.evidence and "closest" in numbers.description
    # Rejecting everything is one of the readings of the input hazards.
    assert lines["invalid-escapes"].status == "decided"


def test_a_driver_without_canonical_input_is_not_diagnosed() -> None:
    def unsupported(message: Mapping[str, Any]) -> dict[str, Any]:
        if message["op"] == "canonical.input":
            return {"id": message["id"], "unsupported": "no"}
        return handle(message)

    lines = diagnose(InProcessDriver(unsupported)).lines
    assert {line.status for line in lines} == {"not-diagnosed"}
    assert all(line.matches_upstream is None for line in lines)


def test_cli_json_and_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diagnose", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["implementation"]["name"] == "rescind-reference"
    rows = report["readings"]
    assert {row["aspect"] for row in rows} >= {"number-mode", "key-order", "duplicate-keys"}
    assert all(row["matchesUpstream"] and row["evidence"] for row in rows)
    assert main(["diagnose"]) == 0
    table = capsys.readouterr().out
    assert "Rescind diagnosis" in table and "object key order" in table


@pytest.mark.parametrize(
    ("module", "key_order"),
    [
        ("rescind.conformance.driver", "code-points"),
        ("tests.conformance.broken_drivers utf16-key-order", "utf-16"),
    ],
)
def test_cli_over_a_pipe(module: str, key_order: str) -> None:
    completed = run_rescind("diagnose", "--json", "--impl", f"{sys.executable} -m {module}")
    assert completed.returncode == 0, completed.stderr[-2000:]
    rows = {row["aspect"]: row for row in json.loads(completed.stdout)["readings"]}
    assert rows["key-order"]["reading"] == [key_order]
    assert rows["key-order"]["matchesUpstream"] is (key_order == "code-points")
    assert "canon.object.planes" in rows["key-order"]["evidence"]


def test_cli_refuses_a_driver_without_the_canonical_capability(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    driver = tmp_path / "grants_only.py"
    driver.write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    request = json.loads(line)\n"
        "    ok = {'protocol': 'rescind-driver/1', 'capabilities': ['grants']}\n"
        "    print(json.dumps({'id': request['id'], 'ok': ok if request['op'] == 'hello' else {}}),"
        " flush=True)\n"
        "    if request['op'] == 'bye':\n"
        "        break\n"
    )
    assert main(["diagnose", "--impl", f"{sys.executable} {driver}"]) == 2
    assert "capability canonical" in capsys.readouterr().err


def test_not_applicable_is_labelled() -> None:
    assert LABELS[NOT_APPLICABLE] == "not applicable"


def test_diagnose_in_a_pipe_fits_80_columns_and_never_breaks_an_id(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["diagnose"]) == 0
    out = capsys.readouterr().out
    assert out and all(len(line) <= 80 for line in out.splitlines())
    assert "┃" not in out  # a list, not a table that folds cells
    assert main(["diagnose", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    words = set(out.replace(",", " ").split())
    shown = [
        evidence.removeprefix("canon.")
        for line in document["readings"]
        for evidence in line["evidence"][:2]
    ]
    assert shown and all(identifier in words for identifier in shown)
