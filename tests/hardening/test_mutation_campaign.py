"""The mutation campaign's bookkeeping (benchmarks/mutation_campaign.py): its list of
mutants left out of the score must name mutants that exist in today's source, and the
scores must count each exclusion class as documented. Running mutants is the script's job."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from types import ModuleType

import pytest

from tests.benchmark_scripts import load_benchmark

ROOT = Path(__file__).resolve().parents[2]
EXCLUSIONS = ROOT / "benchmarks" / "results" / "mutation-equivalents.json"


@pytest.fixture(scope="module")
def campaign() -> ModuleType:
    return load_benchmark("mutation_campaign")


def _exclusions() -> list[dict[str, object]]:
    rows: list[dict[str, object]] = json.loads(EXCLUSIONS.read_text(encoding="utf-8"))
    return rows


@pytest.mark.parametrize(
    "row", _exclusions(), ids=lambda row: f"{row['module']}:{row['line']}:{row['mutation']}"
)
def test_each_exclusion_names_a_mutant_of_todays_source(
    campaign: ModuleType, row: dict[str, object]
) -> None:
    # A reference edit shifts lines: a stale entry would silently excuse another mutant.
    source = (ROOT / str(row["module"])).read_text(encoding="utf-8")
    points = campaign.mutation_points(source)
    matching = [p for p in points if (p["line"], p["mutation"]) == (row["line"], row["mutation"])]
    assert matching, "no such mutation point any more: re-triage this entry"
    assert row["class"] in campaign.EXCLUSION_CLASSES
    assert len(str(row["reason"])) > 20, "each exclusion needs its argument"
    for point in matching:
        mutated = campaign.mutate(source, point)
        assert mutated != source
        ast.parse(mutated)


def test_scores_leave_out_exclusions_and_the_strict_score_only_equivalents(
    campaign: ModuleType,
) -> None:
    def result(line: int, status: str) -> dict[str, object]:
        return {"module": "reference/x.py", "line": line, "mutation": "m", "status": status}

    results = [
        result(1, "killed"),
        result(2, "killed"),
        result(3, "killed"),
        result(4, "survived"),
        result(5, "survived"),
        result(6, "survived"),
    ]
    exclusions = {
        ("reference/x.py", 5, "m"): ("equivalent", "why"),
        ("reference/x.py", 6, "m"): ("masked", "why"),
    }
    report = campaign.summarise(results, exclusions)
    total = report["total"]
    assert (total["killed"], total["survived"], total["equivalent"]) == (3, 1, 2)
    assert total["score"] == 75.0  # 3 of the 4 not left out
    assert total["strict_score"] == 60.0  # 3 of 5: the masked mutant counts as a survivor
    assert total["excluded_by_class"] == {
        "equivalent": 1,
        "masked": 1,
        "outside-protocol": 0,
        "detail-unrecorded": 0,
    }


def test_rescore_counts_a_sample_as_drawn_against_todays_exclusions(
    campaign: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    excluded = _exclusions()[0]
    results = [
        {"module": "reference/x.py", "line": 1, "mutation": "m", "status": "killed"},
        # marked equivalent by an older list: rescoring must judge it again, not trust it
        {"module": "reference/x.py", "line": 2, "mutation": "m", "status": "equivalent"},
        {**{k: excluded[k] for k in ("module", "line", "mutation")}, "status": "survived"},
    ]
    report = tmp_path / "earlier.json"
    report.write_text(json.dumps({"results": results}), encoding="utf-8")
    assert campaign.rescore(report) == 0
    total = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("total"))
    mutants, killed, _timeouts, survived, equivalent, score = total.split()[1:]
    assert (mutants, killed, survived, equivalent, score) == ("3", "1", "1", "1", "50.0")
