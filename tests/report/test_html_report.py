"""``rescind check --html FILE`` against a deliberately broken driver: the page lists exactly
the failures of the JSON report of the same run, its matrix counts agree with the JSON
checks, counterexample traces are numbered steps, it fetches nothing, and headless Chromium
renders the failures."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import attrs
import pytest

from rescind.conformance.report import html as report_html
from rescind.conformance.runner import RunReport
from rescind.conformance.runner_check import Outcome, Result
from rescind.tables.registry import LIFECYCLES
from tests.cli_process import run_rescind
from tests.conformance.check_doubles import passing_check
from tests.report.html_page import COUNTS, Page, read

ROOT = Path(__file__).resolve().parents[2]
BROKEN = "second-compensation-key"
"""Breaks WJ-13/WJ-15 (a second compensation key is admitted): journal-trace vectors fail at
a known step and exploration finds a minimal trace."""
BROKEN_CHECKS = {
    "journal.edge-34.compensation-duplicates",
    "journal.edge-35.compensation-mismatches",
}
SELECT = ("journal-traces", "canonical-input", "exploration")


@attrs.frozen
class Run:
    report: dict[str, Any]
    html: str
    page: Page


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    directory = tmp_path_factory.mktemp("html")
    page = directory / "report.html"
    arguments = [
        "check",
        "--impl",
        f"{sys.executable} -m tests.conformance.broken_drivers {BROKEN}",
        "--no-model",
        *(part for name in SELECT for part in ("--select", name)),
        # A fixed seed and no example database: exploration explores the same traces on
        # every machine (the default seed is fresh unless HYPOTHESIS_PROFILE=ci, and the
        # default database would replay what an earlier run of any test saved).
        "--seed",
        "0",
        "--example-db",
        "none",
        "--replay-dir",
        str(directory / "replays"),
        "--json",
        "--html",
        str(page),
    ]
    done = run_rescind(*arguments, timeout=600)
    assert done.returncode == 1, done.stderr
    text = page.read_text(encoding="utf-8")
    return Run(json.loads(done.stdout), text, read(text))


def _problems(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        check["id"]: check
        for check in report["checks"]
        if check["status"] in ("fail", "error", "xpass")
    }


def test_failing_checks_are_those_of_the_json_report(run: Run) -> None:
    problems = _problems(run.report)
    assert set(problems) >= BROKEN_CHECKS
    assert set(run.page.articles) == set(problems)
    for check_id, article in run.page.articles.items():
        assert article.status == problems[check_id]["status"]
        assert problems[check_id]["message"] in "".join(article.text)
    assert run.page.verdict == "FAIL"


def test_matrix_cells_count_the_json_checks(run: Run) -> None:
    expected: dict[tuple[str, str], Counter[str]] = {}
    for check in run.report["checks"]:
        status = check["status"] if check["status"] in COUNTS else "other"
        expected.setdefault((check["source"], check["provenance"]), Counter())[status] += 1
    assert set(run.page.cells) == set(expected)
    for key, counts in expected.items():
        assert run.page.cells[key] == {name: counts[name] for name in COUNTS}, key
        assert f"{counts['pass']} pass" in run.page.cell_text[key]
    sources = {source for source, _ in expected}
    kinds = {kind for _, kind in expected}
    assert run.page.empty == {(s, k) for s in sources for k in kinds} - set(expected)
    by_kind = run.report["countsByProvenance"]
    assert set(run.page.column_totals) == set(by_kind)
    for kind, row in by_kind.items():
        assert run.page.column_totals[kind] == {name: row.get(name, 0) for name in COUNTS}
    for source in sources:
        total = sum(run.page.row_totals[source].values())
        assert total == sum(1 for check in run.report["checks"] if check["source"] == source)


def _vector_tests(topic: str) -> dict[str, dict[str, Any]]:
    document = json.loads((ROOT / "vectors" / f"{topic}.json").read_text(encoding="utf-8"))
    return {test["id"]: test for group in document["testGroups"] for test in group["tests"]}


def test_failing_traces_are_numbered_steps_with_the_blamed_one_marked(run: Run) -> None:
    vectors = _vector_tests("journal-traces")
    problems = _problems(run.report)
    traced = [check_id for check_id in problems if check_id in vectors]
    assert set(traced) >= BROKEN_CHECKS
    for check_id in traced:
        article = run.page.articles[check_id]
        test = vectors[check_id]
        steps = test["input"]["steps"]
        assert [step.split()[0] for step in article.steps] == [s["call"] for s in steps]
        blamed = re.search(r"/steps/(\d+)/", problems[check_id]["message"])
        assert blamed is not None
        index = int(blamed.group(1))
        assert article.blamed == [index]
        # The broken driver admits every second compensation the vector refuses: the page
        # lists each refusal, the first one blamed, and the reply has no error at those paths.
        refused = [
            i
            for i, step in enumerate(test["expected"]["steps"])
            if step.get("error") == "compensation_identity_mismatch"
        ]
        assert refused[0] == index
        # each refusal differs at its code and at its details (operation_key is normative)
        assert article.paths == [
            path for i in refused for path in (f"/steps/{i}/error", f"/steps/{i}/details")
        ]
        assert article.expected[::2] == [json.dumps("compensation_identity_mismatch")] * len(
            refused
        )
        assert all("operation_key" in shown for shown in article.expected[1::2])
        assert article.actual == ["absent"] * 2 * len(refused)


def test_exploration_counterexample_is_the_saved_minimal_trace(run: Run) -> None:
    # Seed 0 finds the broken rule within the default budget (measured); a miss is a failure.
    exploration = _problems(run.report).get("explore.journal-authorizer")
    assert exploration is not None, "exploration with seed 0 missed the broken rule"
    saved = re.search(r"minimal trace of (\d+) steps saved to (\S+) ", exploration["message"])
    assert saved is not None
    replay = json.loads(Path(saved.group(2)).read_text(encoding="utf-8"))
    article = run.page.articles["explore.journal-authorizer"]
    calls = [step["call"] for step in replay["args"]["steps"]]
    assert len(calls) == int(saved.group(1))
    assert [step.split()[0] for step in article.steps] == calls


def test_page_fetches_nothing(run: Run) -> None:
    assert not re.search(r"https?://", run.html, re.IGNORECASE)
    assert not {"script", "link", "img", "iframe", "object", "embed"} & set(run.page.tags)
    assert not [pair for pair in run.page.attributes if pair[0] in ("src", "href", "srcset")]
    policy = [m for m in run.page.meta if m.get("http-equiv") == "Content-Security-Policy"]
    assert policy and "default-src 'none'" in policy[0]["content"]
    assert "@import" not in run.html and "url(" not in run.html.replace("url(#", "")


def test_every_lifecycle_is_drawn_with_its_states_and_edges(run: Run) -> None:
    assert set(run.page.figures) == {entry.name for entry in LIFECYCLES}
    for entry in LIFECYCLES:
        drawn = run.page.figures[entry.name]
        assert drawn["svg"] == 1
        assert drawn["node"] == len(list(entry.lifecycle.states))
        assert drawn["edge"] == drawn["legend"] > 0


def _report(message: str, source: str, status: str = "fail") -> RunReport:
    check = passing_check("model.<b>x</b>", "model", source, rule="WJ-1")
    na = passing_check("v.na", "canonical", "canonical-input", provenance="derived")
    results = (
        Result(check, Outcome(status, message)),  # type: ignore[arg-type]
        Result(na, Outcome("not-applicable", "capability canonical not declared")),
        Result(attrs.evolve(na, id="v.x"), Outcome("xfail", "listed")),
    )
    return RunReport("impl <script>alert(1)</script>", "1", (), (), results, (), 0.5)


def test_model_counterexample_lines_become_steps_and_text_is_escaped() -> None:
    lines = ["s0: idle", "s1: <admit> & go", "s2: done"]
    text = report_html.to_html(_report("violated: " + " | ".join(lines), "model-journal"))
    page = read(text)
    assert "script" not in page.tags and "b" not in page.tags
    assert "impl <script>alert(1)</script>" in "".join(page.text)
    assert page.articles["model.<b>x</b>"].steps == lines
    assert page.cells[("canonical-input", "derived")] == {
        "pass": 0,
        "fail": 0,
        "not-applicable": 1,
        "other": 1,
    }


def test_refinement_counterexample_lines_become_steps() -> None:
    text = report_html.to_html(_report("counterexample | world 3 | order a, b", "refinement-saga"))
    assert read(text).articles["model.<b>x</b>"].steps == ["world 3", "order a, b"]


@pytest.mark.parametrize(
    ("message", "where", "expected", "actual"),
    [
        ("expected error a_b, got ok", "reply", "error a_b", "ok reply"),
        ("expected error a_b, got error c_d", "reply", "error a_b", "error c_d"),
        ("expected a result, got error x_y", "reply", "ok (a result)", "error x_y"),
        ("/steps/2: error c_d != a_b", "/steps/2", "error a_b", "error c_d"),
        ("/k/0 has another length", "/k/0", "the vector's length", "another length"),
        ("step 3 (admit): /x differs", "step 3 (admit) /x", "the vector's value", "another value"),
    ],
)
def test_difference_is_read_from_each_message_shape(
    message: str, where: str, expected: str, actual: str
) -> None:
    assert report_html.difference_of(message) == report_html.Difference(where, expected, actual)


def _chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found:
        return found
    if os.name != "posix" or os.geteuid() != 0 or shutil.which("apt-get") is None:
        pytest.skip("chromium is not installed and this user cannot apt-get install it (not root)")
    environment = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "--no-install-recommends", "chromium"]

    def apt(command: list[str]) -> bool:
        done = subprocess.run(command, env=environment, capture_output=True, timeout=1200)
        return done.returncode == 0

    # A stale package list is the usual reason an install fails: refresh it once and retry.
    if not apt(install) and apt(["apt-get", "update"]):
        apt(install)
    found = shutil.which("chromium")
    if not found:
        pytest.skip("chromium is absent and `apt-get install -y chromium` did not provide it")
    return found


def _headless(browser: str, *arguments: str) -> subprocess.CompletedProcess[str]:
    sandbox = ["--no-sandbox"] if os.geteuid() == 0 else []
    command = [browser, "--headless", "--disable-gpu", *sandbox, *arguments]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


def test_headless_chromium_renders_the_failures(run: Run, tmp_path: Path) -> None:
    browser = _chromium()
    page = tmp_path / "report.html"
    page.write_text(run.html, encoding="utf-8")
    # A dead proxy: if the page tried to fetch anything it could only fail, never succeed.
    offline = ["--proxy-server=127.0.0.1:9", "--disable-background-networking"]
    dumped = _headless(browser, *offline, "--dump-dom", page.as_uri())
    assert dumped.returncode == 0, dumped.stderr[-2000:]
    rendered = read(dumped.stdout)
    assert set(rendered.articles) == set(_problems(run.report))
    assert rendered.cells == run.page.cells
    assert rendered.verdict == "FAIL"
    assert set(rendered.figures) == {entry.name for entry in LIFECYCLES}
    shot = tmp_path / "report.png"
    done = _headless(
        browser, *offline, "--window-size=1280,2000", f"--screenshot={shot}", page.as_uri()
    )
    assert done.returncode == 0 and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
