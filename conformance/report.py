"""Reports of a run: JSON (machine), JUnit XML (CI dashboards), Markdown (people), and the
expected-failures list a downstream CI keeps to track known gaps."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from rescind.conformance.checks import Check, Result
from rescind.conformance.comparison import Comparison
from rescind.conformance.provenance import KINDS
from rescind.conformance.runner import RunReport

NOT_A_VECTOR = "model"
"""The provenance label of checks that are not golden vectors (model proofs, saga refinement,
differential exploration): their oracle is Rescind's own model or reference, run live."""

PROVENANCE_LABELS: tuple[str, ...] = (*KINDS, NOT_A_VECTOR)
SUMMARY_STATUSES: tuple[str, ...] = ("pass", "fail", "not-applicable", "unsupported")
SKIPPED_STATUSES: tuple[str, ...] = ("not-applicable", "unsupported", "xfail")
"""Reported as skipped (with the status and the reason) in JUnit: neither a pass nor a failure."""


def provenance_of(check: Check) -> str:
    return check.provenance if check.provenance is not None else NOT_A_VECTOR


def counts_by_provenance(report: RunReport) -> dict[str, dict[str, int]]:
    """Per provenance label (in ``PROVENANCE_LABELS`` order, present ones only): how many
    checks passed, failed, were not applicable and were unsupported by the driver; ``other``
    sums error, xfail and xpass."""
    tally: dict[str, dict[str, int]] = {}
    for result in report.results:
        row = tally.setdefault(provenance_of(result.check), dict.fromkeys(SUMMARY_STATUSES, 0))
        status = result.outcome.status
        key = status if status in SUMMARY_STATUSES else "other"
        row[key] = row.get(key, 0) + 1
    return {label: tally[label] for label in PROVENANCE_LABELS if label in tally}


def to_json(report: RunReport) -> dict[str, Any]:
    return {
        "implementation": {"name": report.implementation, "version": report.version},
        "capabilities": list(report.capabilities),
        "profiles": list(report.profiles),
        "restrictions": list(report.restrictions),
        "passed": not report.failed and not report.harness_broken,
        "exitCode": report.exit_code(),
        "counts": report.counts(),
        "countsByProvenance": counts_by_provenance(report),
        "harnessFailures": list(report.harness_failures),
        "seconds": round(report.seconds, 3),
        "checks": [_check_json(result) for result in report.results],
    }


def _check_json(result: Result) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "id": result.check.id,
        "tier": result.check.tier,
        "rule": result.check.rule,
        "source": result.check.source,
        "capability": result.check.capability,
        "provenance": provenance_of(result.check),
        "status": result.outcome.status,
        "message": result.outcome.message,
        "seconds": round(result.outcome.seconds, 6),
    }
    if result.outcome.comparison is not None:
        entry["comparison"] = result.outcome.comparison.to_json()
    return entry


MARKDOWN_PATHS = 5
"""Differing paths a Markdown failure row lists; the JSON and HTML reports list them all."""


def _code(text: str) -> str:
    return f"`` {text} ``" if "`" in text else f"`{text}`"


def differing_paths(comparison: Comparison) -> list[str]:
    """Each differing path as a pointer into the vector's expectation (``at`` + ``path``)."""
    return [comparison.at + difference.path for difference in comparison.differences]


def _paths_cell(comparison: Comparison | None) -> str:
    if comparison is None:
        return ""
    paths = differing_paths(comparison)
    shown = [_code(path or "(whole reply)") for path in paths[:MARKDOWN_PATHS]]
    more = len(paths) - len(shown) + comparison.omitted
    if more:
        shown.append(f"+{more} more")
    return ", ".join(shown).replace("|", "\\|")


def write_junit(report: RunReport, path: Path) -> None:
    suites = ElementTree.Element("testsuites", name="rescind")
    by_source: dict[str, list[Any]] = {}
    for result in report.results:
        by_source.setdefault(result.check.source, []).append(result)
    for source, results in by_source.items():
        suite = ElementTree.SubElement(
            suites,
            "testsuite",
            name=source,
            tests=str(len(results)),
            failures=str(sum(1 for r in results if r.outcome.status == "fail")),
            errors=str(sum(1 for r in results if r.outcome.status == "error")),
            skipped=str(sum(1 for r in results if r.outcome.status in SKIPPED_STATUSES)),
        )
        for result in results:
            case = ElementTree.SubElement(
                suite,
                "testcase",
                classname=f"rescind.{source}",
                name=result.check.id,
                time=f"{result.outcome.seconds:.6f}",
            )
            status = result.outcome.status
            if status == "fail" and result.check.tier == "must":
                ElementTree.SubElement(case, "failure", message=result.outcome.message)
            elif status == "error":
                ElementTree.SubElement(case, "error", message=result.outcome.message)
            elif status in SKIPPED_STATUSES or status == "fail":
                ElementTree.SubElement(
                    case, "skipped", message=f"{status}: {result.outcome.message}"
                )
    ElementTree.ElementTree(suites).write(path, encoding="utf-8", xml_declaration=True)


def to_markdown(report: RunReport) -> str:
    counts = report.counts()
    verdict = "PASS" if report.exit_code() == 0 else "FAIL"
    lines = [
        f"# Rescind conformance: {report.implementation} {report.version} — {verdict}",
        "",
        "| status | checks |",
        "|---|---|",
        *(f"| {status} | {count} |" for status, count in sorted(counts.items())),
        "",
        "| provenance | pass | fail | not-applicable | unsupported | other |",
        "|---|---|---|---|---|---|",
        *(
            f"| {label} | {row['pass']} | {row['fail']} | {row['not-applicable']} "
            f"| {row['unsupported']} | {row.get('other', 0)} |"
            for label, row in counts_by_provenance(report).items()
        ),
        "",
    ]
    if report.harness_failures:
        lines += ["## Driver protocol failures", ""]
        lines += [f"- {failure}" for failure in report.harness_failures] + [""]
    lines += _unsupported_lines(report)
    problems = [r for r in report.results if r.outcome.status in ("fail", "error", "xpass")]
    if problems:
        lines += [
            "## Failures",
            "",
            "| check | tier | rule | status | message | differs at |",
            "|---|---|---|---|---|---|",
        ]
        for result in problems:
            message = result.outcome.message.replace("|", "\\|")
            lines.append(
                f"| `{result.check.id}` | {result.check.tier} | {result.check.rule} "
                f"| {result.outcome.status} | {message} "
                f"| {_paths_cell(result.outcome.comparison)} |"
            )
    return "\n".join(lines) + "\n"


def _unsupported_lines(report: RunReport) -> list[str]:
    """Checks the driver answered ``unsupported`` (what it cannot express), with its reason."""
    unsupported = [r for r in report.results if r.outcome.status == "unsupported"]
    if not unsupported:
        return []
    lines = ["## Unsupported by the driver", "", "| check | message |", "|---|---|"]
    for result in unsupported:
        message = result.outcome.message.replace("|", "\\|")
        lines.append(f"| `{result.check.id}` | {message} |")
    return [*lines, ""]


def expected_failures_text(report: RunReport) -> str:
    """The fresh expected-failures list: every must check that failed or errored now."""
    failing = sorted(
        result.check.id
        for result in report.results
        if result.check.tier == "must" and result.outcome.status in ("fail", "error", "xfail")
    )
    header = "# Rescind expected failures: one check id per line; '#' starts a comment.\n"
    return header + "".join(f"{check_id}\n" for check_id in failing)


def read_expected_failures(path: Path) -> list[str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line.split("#", 1)[0].strip() for line in lines if line.split("#", 1)[0].strip()]
