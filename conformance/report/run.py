"""Reports of a run: JSON (machine), JUnit XML (CI dashboards), Markdown (people), and the
expected-failures list a downstream CI keeps to track known gaps.

Text that may come from a driver goes through ``harness.text``: bounded everywhere, escaped to
visible text in JUnit (well-formed XML 1.0 whatever the driver sent) and made inert in
Markdown (no raw HTML, link, image or table break). The JSON report keeps the (bounded)
strings as they are: ``json.dumps`` escapes what UTF-8 cannot carry.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import attrs

from rescind.conformance.comparison import Comparison, bounded, compact
from rescind.conformance.harness.text import markdown, markdown_code, visible
from rescind.conformance.provenance import KINDS
from rescind.conformance.report import rules as rule_coverage
from rescind.conformance.report.claim import claim_of, detail_lines, headline
from rescind.conformance.report.rules import NOT_A_VECTOR as NOT_A_VECTOR
from rescind.conformance.report.rules import provenance_of as provenance_of
from rescind.conformance.runner import RunReport
from rescind.conformance.runner_check import REQUIRED_TIERS, Check, Result
from rescind.conformance.vector_files import load_vector_files

PROVENANCE_LABELS: tuple[str, ...] = (*KINDS, NOT_A_VECTOR)
SUMMARY_STATUSES: tuple[str, ...] = ("pass", "fail", "not-applicable", "unsupported", "restricted")
SKIPPED_STATUSES: tuple[str, ...] = (
    "not-applicable",
    "unsupported",
    "restricted",
    "xfail",
    "not-run",
)
"""Reported as skipped (with the status and the reason) in JUnit: neither a pass nor a failure."""


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
    """The JSON report; the ``claim`` comes first."""
    code = report.exit_code()
    return {
        "claim": claim_of(report).to_json(),
        "implementation": {"name": report.implementation, "version": report.version},
        "capabilities": list(report.capabilities),
        "profiles": list(report.profiles),
        "restrictions": list(report.restrictions),
        "upstream": report.upstream,
        "passed": code == 0,
        "exitCode": code,
        "notRun": report.not_run,
        "deadline": report.deadline,
        "counts": report.counts(),
        "countsByProvenance": counts_by_provenance(report),
        "harnessFailures": list(report.harness_failures),
        "notes": list(report.notes),
        "seconds": round(report.seconds, 3),
        "rules": rule_coverage.to_json(report.results),
        "checks": [_check_json(result) for result in report.results],
    }


def _check_json(result: Result) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "id": result.check.id,
        "tier": result.check.tier,
        "rule": result.check.rule,
        "source": result.check.source,
        "capability": result.check.capability,
        "profile": result.check.profile,
        "provenance": provenance_of(result.check),
        "status": result.outcome.status,
        "message": result.outcome.message,
        "seconds": round(result.outcome.seconds, 6),
    }
    if result.outcome.restricted_by:
        entry["restrictedBy"] = list(result.outcome.restricted_by)
    if result.outcome.comparison is not None:
        entry["comparison"] = result.outcome.comparison.to_json()
    return entry


MARKDOWN_PATHS = 5
"""Differing paths a Markdown failure row lists; the JSON and HTML reports list them all."""


def _code(text: str) -> str:
    return markdown_code(text)


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
    return ", ".join(shown)


DETAIL_DIFFERENCES = 3
"""Differing paths a failure's details show with their values (JSON and HTML show them all)."""
INPUT_BYTES = 512
"""The input a failing vector check sent is shown as compact JSON of at most this many bytes."""


def vector_file(check: Check) -> str | None:
    """The vector file a vector check comes from (its topic names the file)."""
    return f"vectors/{check.source}.json" if check.provenance is not None else None


def input_text(check: Check, vectors: Mapping[str, Mapping[str, Any]]) -> str | None:
    """The input a vector check sent, as bounded compact JSON (``comparison.bounded``)."""
    test = vectors.get(check.id.removesuffix(".f64"))
    if test is None or "input" not in test:
        return None
    value, _ = bounded(test["input"], INPUT_BYTES)
    return compact(value)


def failure_details(result: Result, vectors: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """What a failure shows beyond its message, as short lines: the vector file, the input
    sent (bounded), and each differing path with its expected and actual value (bounded)."""
    lines = []
    source = vector_file(result.check)
    if source is not None:
        lines.append(f"vector: {source}, test {result.check.id.removesuffix('.f64')}")
        sent = input_text(result.check, vectors)
        if sent is not None:
            lines.append(f"input: {sent}")
    comparison = result.outcome.comparison
    if comparison is not None:
        for difference in comparison.differences[:DETAIL_DIFFERENCES]:
            where = comparison.at + difference.path or "(whole reply)"
            expected = "absent" if difference.expected is None else difference.expected
            actual = "absent" if difference.actual is None else difference.actual
            lines.append(f"at {where}: expected {expected}, actual {actual}")
        more = len(comparison.differences) - DETAIL_DIFFERENCES + comparison.omitted
        if more > 0:
            lines.append(f"+{more} more differing paths (--json or --html show them all)")
    return lines


_INDEX = re.compile(r"/\d+(?=/|$)")


def shape_of(result: Result) -> str | None:
    """A failure's difference shape: its topic and differing paths, array indices folded
    (``/steps/*/error``); ``None`` for a failure without a comparison."""
    comparison = result.outcome.comparison
    if comparison is None:
        return None
    paths = sorted({_INDEX.sub("/*", comparison.at + d.path) for d in comparison.differences})
    return f"{result.check.source} at {', '.join(paths) or '(whole reply)'}"


@attrs.frozen
class FailureGroup:
    """Failures whose differences have one shape: one likely cause."""

    shape: str
    results: tuple[Result, ...]
    rule: str
    """The likely rule: of the group's rules, the one with the largest share of its checks
    in this group (ties: more checks)."""
    rule_failed: int
    rule_total: int


def failure_groups(report: RunReport, minimum: int = 2) -> list[FailureGroup]:
    """Failing must checks grouped by difference shape, largest group first; only groups of
    at least ``minimum`` failures."""
    by_shape: dict[str, list[Result]] = {}
    for result in report.results:
        shape = shape_of(result) if result.failed else None
        if shape is not None:
            by_shape.setdefault(shape, []).append(result)
    ran: dict[str, int] = {}
    for result in report.results:
        if result.outcome.status != "not-applicable":
            ran[result.check.rule] = ran.get(result.check.rule, 0) + 1
    groups = []
    for shape, results in by_shape.items():
        if len(results) < minimum:
            continue
        in_group: dict[str, int] = {}
        for result in results:
            in_group[result.check.rule] = in_group.get(result.check.rule, 0) + 1
        rule = max(in_group, key=lambda r: (in_group[r] / ran[r], in_group[r], r))
        groups.append(FailureGroup(shape, tuple(results), rule, in_group[rule], ran[rule]))
    return sorted(groups, key=lambda group: -len(group.results))


def group_summary(group: FailureGroup) -> str:
    return (
        f"{len(group.results)} failures share one difference ({group.shape}): likely rule "
        f"{group.rule} ({group.rule_failed} of its {group.rule_total} checks fail this way)"
    )


_FAILURE_PREFIX = re.compile(r"^(?P<where>[^\s:]+): (?P<what>.*)$", re.S)


def harness_summary(report: RunReport) -> list[str]:
    """The driver protocol failures, each distinct failure once: a driver that crashes the
    same way on every restart is one crash, with the checks it happened on."""
    seen: dict[str, list[str]] = {}
    for failure in report.harness_failures:
        matched = _FAILURE_PREFIX.match(failure)
        where, what = (matched["where"], matched["what"]) if matched else ("", failure)
        seen.setdefault(what, []).append(where)
    lines = []
    for what, places in seen.items():
        named = [place for place in places if place]
        if len(places) == 1:
            lines.append(f"{named[0]}: {what}" if named else what)
            continue
        shown = ", ".join(named[:5]) + (f" +{len(named) - 5} more" if len(named) > 5 else "")
        lines.append(f"{what} ({len(places)} times: {shown})")
    return lines


def write_junit(report: RunReport, path: Path) -> None:
    vectors = vector_tests_for(report)

    def details(result: Result) -> list[str]:
        return [result.outcome.message, *failure_details(result, vectors)]

    suites = ElementTree.Element("testsuites", name="rescind")
    claim = claim_of(report)
    properties = ElementTree.SubElement(suites, "properties")
    ElementTree.SubElement(properties, "property", name="claim", value=visible(headline(claim)))
    for line in detail_lines(claim):
        ElementTree.SubElement(properties, "property", name="claim.detail", value=visible(line))
    for part in claim.classes:
        ElementTree.SubElement(
            properties, "property", name=f"claim.class.{part.name}", value=part.status
        )
    if report.notes:
        for note in report.notes:
            ElementTree.SubElement(properties, "property", name="note", value=visible(note))
    by_source: dict[str, list[Any]] = {}
    for result in report.results:
        by_source.setdefault(result.check.source, []).append(result)
    for source, results in by_source.items():
        suite = ElementTree.SubElement(
            suites,
            "testsuite",
            name=visible(source),
            tests=str(len(results)),
            failures=str(sum(1 for r in results if r.outcome.status == "fail")),
            errors=str(sum(1 for r in results if r.outcome.status == "error")),
            skipped=str(sum(1 for r in results if r.outcome.status in SKIPPED_STATUSES)),
        )
        for result in results:
            case = ElementTree.SubElement(
                suite,
                "testcase",
                classname=visible(f"rescind.{source}"),
                name=visible(result.check.id),
                time=f"{result.outcome.seconds:.6f}",
            )
            status = result.outcome.status
            message = visible(result.outcome.message)
            if status == "fail" and result.check.tier in REQUIRED_TIERS:
                failure = ElementTree.SubElement(case, "failure", message=message)
                failure.text = "\n".join(visible(line) for line in details(result))
            elif status == "error":
                ElementTree.SubElement(case, "error", message=message)
            elif status in SKIPPED_STATUSES or status == "fail":
                ElementTree.SubElement(case, "skipped", message=f"{status}: {message}")
    ElementTree.ElementTree(suites).write(path, encoding="utf-8", xml_declaration=True)


def not_run_line(report: RunReport) -> str:
    """The first line of every report of a run the deadline cut short."""
    limit = f"the deadline of {report.deadline:g} s" if report.deadline else "the deadline"
    return (
        f"{report.not_run} of {len(report.results)} checks not run: {limit} passed "
        "(exit code 4; --deadline sets it)"
    )


def to_markdown(report: RunReport) -> str:
    counts = report.counts()
    claim = claim_of(report)
    lines = [
        f"# Rescind conformance: {markdown(headline(claim))}",
        "",
        *(f"- {markdown(line)}" for line in detail_lines(claim)),
        "",
        "| class | status | pass | fail | unanswered | restricted |",
        "|---|---|---|---|---|---|",
        *(
            f"| {markdown(part.name)} | {markdown(part.status)} | {part.tally.passed} "
            f"| {part.tally.failed} | {part.tally.unanswered} | {part.tally.restricted} |"
            for part in claim.classes
        ),
        "",
        *([f"**{markdown(not_run_line(report))}**", ""] if report.not_run else []),
        "| status | checks |",
        "|---|---|",
        *(f"| {markdown(status)} | {count} |" for status, count in sorted(counts.items())),
        "",
        "| provenance | pass | fail | not-applicable | unsupported | restricted | other |",
        "|---|---|---|---|---|---|---|",
        *(
            f"| {markdown(label)} | {row['pass']} | {row['fail']} | {row['not-applicable']} "
            f"| {row['unsupported']} | {row['restricted']} | {row.get('other', 0)} |"
            for label, row in counts_by_provenance(report).items()
        ),
        "",
    ]
    if report.notes:
        lines += ["## Notes", ""]
        lines += [f"- {markdown(note)}" for note in report.notes] + [""]
    if report.harness_failures:
        lines += ["## Driver protocol failures", ""]
        lines += [f"- {markdown(failure)}" for failure in harness_summary(report)] + [""]
    lines += _unsupported_lines(report)
    lines += _rule_lines(report)
    problems = [r for r in report.results if r.outcome.status in ("fail", "error", "xpass")]
    if problems:
        lines += [
            "## Failures",
            "",
            "| check | tier | rule | status | message | differs at |",
            "|---|---|---|---|---|---|",
        ]
        for result in problems:
            check = result.check
            lines.append(
                f"| {_code(check.id)} | {markdown(check.tier)} | {markdown(check.rule)} "
                f"| {markdown(result.outcome.status)} | {markdown(result.outcome.message)} "
                f"| {_paths_cell(result.outcome.comparison)} |"
            )
        lines += _markdown_details(report, problems)
    return "\n".join(lines) + "\n"


def _markdown_details(report: RunReport, problems: list[Result]) -> list[str]:
    vectors = vector_tests_for(report)
    lines = ["", "## Failure details", ""]
    for group in failure_groups(report):
        ids = ", ".join(markdown_code(r.check.id) for r in group.results[:10])
        more = len(group.results) - 10
        lines.append(
            f"- **{markdown(group_summary(group))}**: {ids}{f' +{more} more' * (more > 0)}"
        )
    for result in problems:
        shown = failure_details(result, vectors)
        if not shown:
            continue
        lines.append(f"- {markdown_code(result.check.id)}")
        lines += [f"  - {markdown_code(line, limit=1024)}" for line in shown]
    return [*lines, ""]


def vector_tests_for(report: RunReport) -> Mapping[str, Mapping[str, Any]]:
    """The vector tests by id, loaded only when a vector check is among the problems."""
    problems = ("fail", "error", "xpass")
    if not any(r.check.provenance and r.outcome.status in problems for r in report.results):
        return {}
    return vector_tests()


def vector_tests() -> dict[str, Mapping[str, Any]]:
    """Every golden vector test by id (where a failure's input and steps are read from)."""
    return {
        test["id"]: test
        for document in load_vector_files()
        for group in document["testGroups"]
        for test in group["tests"]
    }


def _rule_lines(report: RunReport) -> list[str]:
    """The rules the run's checks cite and how each fared (failing and partial ones first)."""
    rows = rule_coverage.by_rule(report.results)
    rank = {"fails": 0, "partial": 1, "not run": 2, "passed": 3}
    rows.sort(key=lambda row: rank[rule_coverage.reached(row[1])])
    lines = [
        "## Rules reached by this run",
        "",
        "| rule | reached | pass | fail | unanswered | restricted | not applicable | provenance |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for rule, counted, kinds in rows:
        lines.append(
            f"| {markdown(rule)} | {rule_coverage.reached(counted)} | {counted.passed} "
            f"| {counted.failed} | {counted.unanswered} | {counted.restricted} "
            f"| {counted.not_applicable} | {markdown(', '.join(kinds))} |"
        )
    return [*lines, ""]


def _unsupported_lines(report: RunReport) -> list[str]:
    """Checks the driver answered ``unsupported`` (what it cannot express), with its reason."""
    unsupported = [r for r in report.results if r.outcome.status == "unsupported"]
    if not unsupported:
        return []
    lines = ["## Unanswered by the driver", "", "| check | message |", "|---|---|"]
    for result in unsupported:
        lines.append(f"| {markdown_code(result.check.id)} | {markdown(result.outcome.message)} |")
    return [*lines, ""]


def expected_failures_text(report: RunReport) -> str:
    """The fresh expected-failures list: every required (``must`` or declared ``profile``)
    check that failed or errored now."""
    failing = sorted(
        result.check.id
        for result in report.results
        if result.check.tier in REQUIRED_TIERS
        and result.outcome.status in ("fail", "error", "xfail")
    )
    header = "# Rescind expected failures: one check id per line; '#' starts a comment.\n"
    return header + "".join(f"{check_id}\n" for check_id in failing)


def read_expected_failures(path: Path) -> list[str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line.split("#", 1)[0].strip() for line in lines if line.split("#", 1)[0].strip()]
