"""One self-contained HTML page for a run: the topic x provenance matrix, every failing check
with its expected/actual difference and counterexample steps, and the lifecycle diagrams.

The page must open in a browser with no network: the style is inline, there is no script,
the diagrams are inline SVG drawn here from the lifecycle tables, and a Content-Security-Policy
forbids every fetch. Every piece of text that comes from the run goes through ``html.escape``.
Like the other reports it shows no driver payload bytes beyond the check's own message and a
vector check's bounded comparison (``rescind.conformance.comparison``).
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from rescind.conformance.comparison import Comparison
from rescind.conformance.harness.text import visible
from rescind.conformance.report import rules as rule_coverage
from rescind.conformance.report.claim import Claim, claim_of, detail_lines, headline
from rescind.conformance.report.diagram_svg import lifecycle_figure
from rescind.conformance.report.run import (
    PROVENANCE_LABELS,
    SUMMARY_STATUSES,
    counts_by_provenance,
    not_run_line,
    provenance_of,
    vector_tests,
)
from rescind.conformance.runner import RunReport
from rescind.conformance.runner_check import Result
from rescind.tables.registry import LIFECYCLES, Registered

PROBLEM_STATUSES = ("fail", "error", "xpass")
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.:-]{0,47}")
SHORT_VALUE = 48
"""Step arguments longer than this are shown by length only: they are payloads, not names."""


_PAGE_TEXT = 64 * 1024
"""No piece of text on the page is longer (driver text is bounded far below at its source)."""


def _e(value: object) -> str:
    """Text made visible (``harness.text.visible``: no lone surrogate, control or bidi override
    reaches the page) and escaped: nothing from the run can become markup."""
    return html.escape(visible(value, limit=_PAGE_TEXT, keep_lines=True), quote=True)


def _said(value: object) -> str:
    """A message (a check's, a note, a harness failure): at most ``MAX_SHOWN`` characters on
    the page, with the length and a digest of the whole (the JSON report has all of it)."""
    return html.escape(visible(value, keep_lines=True), quote=True)


@attrs.frozen
class Difference:
    """Expected against actual, read back from a check's message (``verdict.judge`` words
    its reasons in a few fixed shapes)."""

    where: str
    expected: str
    actual: str


_STEP_PREFIX = re.compile(r"^step (?P<step>\d+) \((?P<call>[^)]*)\): (?P<rest>.*)$", re.S)
_SHAPES: tuple[tuple[re.Pattern[str], Any], ...] = (
    (
        re.compile(r"^expected error (?P<e>\S+), got error (?P<a>.*)$"),
        lambda m: ("reply", f"error {m['e']}", f"error {m['a']}"),
    ),
    (
        re.compile(r"^expected error (?P<e>\S+), got (?P<a>.*)$"),
        lambda m: ("reply", f"error {m['e']}", f"{m['a']} reply"),
    ),
    (
        re.compile(r"^expected a result, got (?P<a>.*)$"),
        lambda m: ("reply", "ok (a result)", m["a"]),
    ),
    (
        re.compile(r"^(?P<p>\S*): error (?P<a>\S+) != (?P<e>\S+)$"),
        lambda m: (m["p"] or "result", f"error {m['e']}", f"error {m['a']}"),
    ),
    (
        re.compile(r"^(?P<p>\S+) missing$"),
        lambda m: (m["p"], "present", "missing"),
    ),
    (
        re.compile(r"^(?P<p>\S*) has another length$"),
        lambda m: (m["p"] or "result", "the vector's length", "another length"),
    ),
    (
        re.compile(r"^(?P<p>\S*) is not an object$"),
        lambda m: (m["p"] or "result", "an object", "not an object"),
    ),
    (
        re.compile(r"^(?P<p>\S*) differs$"),
        lambda m: (m["p"] or "result", "the vector's value", "another value"),
    ),
)


_GENERIC = ("present", "the vector's value")
"""Expectations a message only implies; the vector's value replaces them when it is short."""


def difference_of(message: str) -> Difference | None:
    """The difference a failure message states, or ``None`` when it is not a comparison."""
    text = message.split("; minimal trace of", 1)[0]
    prefix = ""
    stepped = _STEP_PREFIX.match(text)
    if stepped:
        prefix = f"step {stepped['step']} ({stepped['call']}) "
        text = stepped["rest"]
    for pattern, parts in _SHAPES:
        matched = pattern.match(text)
        if matched:
            where, expected, actual = parts(matched)
            return Difference(prefix + where, expected, actual)
    return None


def expected_at(expectation: object, where: str) -> str | None:
    """The expectation's value at a difference's path, shown only when it is a name (an error
    code, a state, a verdict) or an integer or boolean: never payload text."""
    if expectation is None or not where.startswith("/"):
        return None
    node: Any = expectation
    for part in where.strip("/").split("/"):
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    if isinstance(node, Mapping) and isinstance(node.get("error"), str):
        node = node["error"]
        return f"error {node}" if _NAME.fullmatch(node) else None
    if isinstance(node, bool | int) or node is None:
        return json.dumps(node)
    return node if isinstance(node, str) and _NAME.fullmatch(node) else None


def _failing_step(message: str) -> int | None:
    """The 0-based step a message blames: ``/steps/N/...`` or the trace runner's ``step N``."""
    pointer = re.search(r"/steps/(\d+)(?:/|\s|$)", message)
    if pointer:
        return int(pointer.group(1))
    stepped = _STEP_PREFIX.match(message)
    return int(stepped["step"]) - 1 if stepped else None


def _short(value: object) -> str:
    if isinstance(value, bool | int | float) or value is None:
        return json.dumps(value)
    if isinstance(value, str):
        return value if len(value) <= SHORT_VALUE else f"…({len(value)} chars)"
    return f"…({type(value).__name__})"


def step_text(step: object) -> str:
    """One trace step as ``name key=value ...``: names and small scalars, never payloads."""
    if isinstance(step, Mapping):
        name = next((str(step[k]) for k in ("call", "do", "op") if k in step), "step")
        args = step.get("args")
        fields = args if isinstance(args, Mapping) else step
        shown = [
            f"{key}={_short(value)}"
            for key, value in fields.items()
            if key not in ("call", "do", "op")
        ]
        checkpoint = step.get("checkpoint")
        if isinstance(checkpoint, str) and fields is args:
            shown.append(f"checkpoint={_short(checkpoint)}")
        return " ".join([name, *shown])
    if isinstance(step, list | tuple) and step:
        return " ".join(_short(part) for part in step)
    return _short(step)


@attrs.frozen
class Evidence:
    """What a failure is shown with: the expectation it was compared with (a vector's, or the
    reference's answer saved with an exploration trace) and the trace's steps."""

    expectation: object = None
    steps: tuple[str, ...] = ()


def evidence_of(result: Result, vectors: Mapping[str, Mapping[str, Any]]) -> Evidence:
    message = result.outcome.message
    test = vectors.get(result.check.id.removesuffix(".f64"))
    if test is not None:
        expectation = test.get("expected")
        if result.check.id.endswith(".f64") and isinstance(expectation, Mapping):
            expectation = expectation.get("f64")
        return Evidence(expectation, _steps_of(test.get("input")))
    saved = re.search(r"saved to (?P<path>\S+) \(rescind replay", message)
    if saved:
        try:
            document = json.loads(Path(saved["path"]).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return Evidence()
        if isinstance(document, Mapping):
            return Evidence(document.get("expected"), _steps_of(document.get("args")))
        return Evidence()
    if result.check.source.startswith("model-") and ": " in message:
        return Evidence(steps=tuple(filter(None, message.split(": ", 1)[1].split(" | "))))
    return Evidence(steps=tuple(message.split(" | ")[1:]))


def _steps_of(holder: object) -> tuple[str, ...]:
    steps = holder.get("steps") if isinstance(holder, Mapping) else None
    return tuple(step_text(step) for step in steps) if isinstance(steps, list) else ()


_STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:1.5rem auto;max-width:78rem;padding:0 1rem;
color:#1d232a;background:#fff}
h1{font-size:1.5rem}h2{border-bottom:1px solid #ccd;margin-top:2rem}
.verdict{padding:.1rem .5rem;border-radius:.3rem;color:#fff}
.verdict.pass{background:#2f7d32}.verdict.fail{background:#b3261e}
table{border-collapse:collapse;margin:.5rem 0}
th,td{border:1px solid #ccd;padding:.2rem .5rem;text-align:left;vertical-align:top}
td.cell,td.total{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
td.empty{background:#f4f4f6}
.n-pass{color:#2f7d32}.n-fail{color:#b3261e;font-weight:bold}.n-na{color:#666}.n-unsupported{color:#8a5a00}
.n-other{color:#8a5a00}
td.has-fail{background:#fdecea}
article.failure{border:1px solid #e3b5b1;border-left:5px solid #b3261e;border-radius:.3rem;
padding:.3rem 1rem;margin:1rem 0}
article.failure.soft{border-left-color:#8a5a00}
pre{white-space:pre-wrap;word-break:break-word;background:#f6f7f9;padding:.4rem;margin:.3rem 0}
table.diff td.expected{background:#e8f5e9}table.diff td.actual{background:#fdecea}
table.diff em.absent{color:#666}
table.diff{width:100%;table-layout:fixed}table.diff th:first-child{width:22%}
table.diff code{word-break:break-all;white-space:pre-wrap}
details.values .sides{display:grid;grid-template-columns:1fr 1fr;gap:.5rem}
details.values h4{margin:.3rem 0}
ol.steps li.blamed{background:#fdecea;font-weight:bold}
ol.steps code{font-size:.85rem}
dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:0 1rem;margin:.3rem 0}
dl.meta dt{color:#555}dl.meta dd{margin:0}
figure{margin:1rem 0;overflow-x:auto}
svg text{font:12px system-ui,sans-serif}
svg .node rect{fill:#eef2f7;stroke:#44546a;stroke-width:1.2}
svg .node.terminal rect{stroke-width:3}
svg .edge path{fill:none;stroke:#44546a;stroke-width:1.1}
svg .edge circle{fill:#fff;stroke:#44546a;stroke-width:.8}
svg .edge text{font-size:10px}
"""

_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


def to_html(
    report: RunReport,
    *,
    vectors: Mapping[str, Mapping[str, Any]] | None = None,
    lifecycles: Sequence[Registered] = LIFECYCLES,
) -> str:
    problems = [r for r in report.results if r.outcome.status in PROBLEM_STATUSES]
    if vectors is None:
        vectors = vector_tests() if problems else {}
    passed = report.exit_code() == 0
    claim = claim_of(report)
    verdict = claim.verdict
    title = f"Rescind conformance: {report.implementation} {report.version} — {verdict}"
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{_POLICY}">',
        '<meta name="viewport" content="width=device-width,initial-scale=1">',
        f"<title>{_e(title)}</title><style>{_STYLE}</style></head><body>",
        *_header(report, verdict, passed),
        *_claim(claim),
        *_matrix(report),
        *_rules(report),
        *_notes(report),
        *_harness(report),
        *_failures(problems, vectors),
        *_diagrams(lifecycles),
        "</body></html>",
    ]
    return "\n".join(parts) + "\n"


def write_html(report: RunReport, path: Path) -> None:
    path.write_text(to_html(report), encoding="utf-8")


def _header(report: RunReport, verdict: str, passed: bool) -> list[str]:
    counts = ", ".join(f"{count} {_e(status)}" for status, count in sorted(report.counts().items()))
    return [
        f"<header><h1>Rescind conformance: {_e(report.implementation)} {_e(report.version)} "
        f'<span class="verdict {"pass" if passed else "fail"}" id="verdict">{_e(verdict)}</span>'
        "</h1>",
        '<dl class="meta">',
        *(
            [f'<dt>not run</dt><dd id="not-run">{_e(not_run_line(report))}</dd>']
            if report.not_run
            else []
        ),
        f"<dt>checks</dt><dd>{len(report.results)}: {counts}</dd>",
        f"<dt>exit code</dt><dd>{report.exit_code()}</dd>",
        f"<dt>capabilities</dt><dd>{_e(', '.join(report.capabilities) or 'none')}</dd>",
        f"<dt>profiles</dt><dd>{_e(', '.join(report.profiles) or 'none')}</dd>",
        f"<dt>seconds</dt><dd>{report.seconds:.1f}</dd>",
        "</dl></header>",
    ]


def _claim(claim: Claim) -> list[str]:
    """The claim: the headline, the declaration, and each class's status."""
    rows = "".join(
        f'<tr><td>{_e(part.name)}</td><td class="claim-{_e(part.status.replace(" ", "-"))}">'
        f"{_e(part.status)}</td><td>{part.tally.passed}</td><td>{part.tally.failed}</td>"
        f"<td>{part.tally.unanswered}</td><td>{part.tally.restricted}</td>"
        f"<td>{_e(', '.join(part.missing))}</td></tr>"
        for part in claim.classes
    )
    details = "".join(f"<li>{_e(line)}</li>" for line in detail_lines(claim))
    return [
        f'<section id="claim"><h2>Claim</h2><p>{_e(headline(claim))}</p><ul>{details}</ul>',
        "<table><thead><tr><th>class</th><th>status</th><th>pass</th><th>fail</th>"
        "<th>unanswered</th><th>restricted</th><th>not declared</th></tr></thead>",
        f"<tbody>{rows}</tbody></table></section>",
    ]


def _rules(report: RunReport) -> list[str]:
    """The rules the run's checks cite and how each fared."""
    rows = "".join(
        f"<tr><td>{_e(rule)}</td><td>{_e(rule_coverage.reached(counted))}</td>"
        f"<td>{counted.passed}</td><td>{counted.failed}</td><td>{counted.unanswered}</td>"
        f"<td>{counted.restricted}</td><td>{counted.not_applicable}</td>"
        f"<td>{_e(', '.join(kinds))}</td></tr>"
        for rule, counted, kinds in rule_coverage.by_rule(report.results)
    )
    return [
        '<section id="rules"><h2>Rules reached by this run</h2><table><thead><tr>'
        "<th>rule</th><th>reached</th><th>pass</th><th>fail</th><th>unanswered</th>"
        "<th>restricted</th><th>n/a</th><th>provenance</th></tr></thead>",
        f"<tbody>{rows}</tbody></table></section>",
    ]


def _tally(results: Iterable[Result]) -> dict[tuple[str, str], dict[str, int]]:
    cells: dict[tuple[str, str], dict[str, int]] = {}
    for result in results:
        key = (result.check.source, provenance_of(result.check))
        row = cells.setdefault(key, dict.fromkeys((*SUMMARY_STATUSES, "other"), 0))
        status = result.outcome.status
        row[status if status in SUMMARY_STATUSES else "other"] += 1
    return cells


def _cell(row: Mapping[str, int] | None, attributes: str, css: str) -> str:
    if row is None:
        return f'<td class="empty"{attributes}></td>'
    marks = [
        f'<span class="n-pass" title="pass">{row["pass"]} pass</span>',
        f'<span class="n-fail" title="fail">{row["fail"]} fail</span>' if row["fail"] else "",
        f'<span class="n-na" title="not applicable">{row["not-applicable"]} n/a</span>'
        if row["not-applicable"]
        else "",
        f'<span class="n-unsupported" title="unanswered by the driver">'
        f"{row['unsupported']} unsupported</span>"
        if row["unsupported"]
        else "",
        f'<span class="n-na" title="excused by a declared restriction">'
        f"{row['restricted']} restricted</span>"
        if row["restricted"]
        else "",
        f'<span class="n-other" title="error, xfail, xpass">{row.get("other", 0)} other</span>'
        if row.get("other", 0)
        else "",
    ]
    data = "".join(
        f' data-{name}="{row.get(status, 0)}"'
        for name, status in (
            ("pass", "pass"),
            ("fail", "fail"),
            ("not-applicable", "not-applicable"),
            ("unsupported", "unsupported"),
            ("restricted", "restricted"),
            ("other", "other"),
        )
    )
    failing = " has-fail" if row["fail"] or row.get("other", 0) else ""
    return f'<td class="{css}{failing}"{attributes}{data}>{" ".join(m for m in marks if m)}</td>'


def _sum(rows: Iterable[Mapping[str, int]]) -> dict[str, int]:
    total = dict.fromkeys((*SUMMARY_STATUSES, "other"), 0)
    for row in rows:
        for key, value in row.items():
            total[key] = total.get(key, 0) + value
    return total


def _matrix(report: RunReport) -> list[str]:
    cells = _tally(report.results)
    sources = list(dict.fromkeys(result.check.source for result in report.results))
    labels = [label for label in PROVENANCE_LABELS if any(key[1] == label for key in cells)]
    lines = [
        '<section id="matrix"><h2>Checks by topic and provenance</h2>',
        "<p>Each cell counts the checks of one topic (rows) whose expectation has one "
        "provenance (columns): pass, fail, not applicable (capability or profile not "
        "declared: never a pass), unsupported (the driver declared the capability but cannot "
        "express the request or a step: never a pass, never a failure) and other (error, "
        "xfail, xpass). <code>model</code> checks "
        "are not vectors: their oracle is Rescind's own model or reference.</p>",
        '<table class="matrix"><thead><tr><th>topic</th>',
        *(f'<th scope="col">{_e(label)}</th>' for label in labels),
        '<th scope="col">all</th></tr></thead><tbody>',
    ]
    for source in sources:
        lines.append(f'<tr><th scope="row">{_e(source)}</th>')
        for label in labels:
            attributes = f' data-source="{_e(source)}" data-provenance="{_e(label)}"'
            lines.append(_cell(cells.get((source, label)), attributes, "cell"))
        row_total = _sum(cells[key] for key in cells if key[0] == source)
        lines.append(_cell(row_total, f' data-source="{_e(source)}"', "total") + "</tr>")
    by_provenance = counts_by_provenance(report)
    lines.append('<tr class="totals"><th scope="row">all</th>')
    for label in labels:
        total = _sum([by_provenance[label]])
        lines.append(_cell(total, f' data-provenance="{_e(label)}"', "total"))
    lines.append(_cell(_sum(cells.values()), "", "total") + "</tr></tbody></table></section>")
    return lines


def _notes(report: RunReport) -> list[str]:
    if not report.notes:
        return []
    items = "".join(f"<li>{_said(note)}</li>" for note in report.notes)
    return [f'<section id="notes"><h2>Notes</h2><ul>{items}</ul></section>']


def _harness(report: RunReport) -> list[str]:
    if not report.harness_failures:
        return []
    items = "".join(f"<li><pre>{_said(failure)}</pre></li>" for failure in report.harness_failures)
    return [f'<section id="harness"><h2>Driver protocol failures</h2><ul>{items}</ul></section>']


def _failures(problems: Sequence[Result], vectors: Mapping[str, Mapping[str, Any]]) -> list[str]:
    lines = [f'<section id="failures"><h2>Failing checks ({len(problems)})</h2>']
    if not problems:
        lines.append("<p>None.</p>")
    for result in problems:
        lines.extend(_failure(result, vectors))
    lines.append("</section>")
    return lines


def _failure(result: Result, vectors: Mapping[str, Mapping[str, Any]]) -> list[str]:
    check, outcome = result.check, result.outcome
    soft = "" if result.failed else " soft"
    note = "" if result.failed else " (does not fail the run)"
    lines = [
        f'<article class="failure{soft}" id="check-{_e(check.id)}" data-check="{_e(check.id)}" '
        f'data-status="{_e(outcome.status)}">',
        f"<h3><code>{_e(check.id)}</code> — {_e(outcome.status)}{note}</h3>",
        '<dl class="meta">',
        f"<dt>rule</dt><dd>{_e(check.rule)}</dd>",
        f"<dt>tier</dt><dd>{_e(check.tier)}</dd>",
        f"<dt>topic</dt><dd>{_e(check.source)}</dd>",
        f"<dt>provenance</dt><dd>{_e(provenance_of(check))}</dd>",
    ]
    if check.profile:
        lines.append(f"<dt>profile</dt><dd>{_e(check.profile)}</dd>")
    if check.description:
        lines.append(f"<dt>checks that</dt><dd>{_e(check.description)}</dd>")
    lines.append("</dl>")
    lines.append(f'<pre class="message">{_said(outcome.message)}</pre>')
    evidence = evidence_of(result, vectors)
    difference = None if outcome.comparison else difference_of(outcome.message)
    if outcome.comparison is not None:
        lines += _comparison(outcome.comparison)
    elif difference is not None:
        value = expected_at(evidence.expectation, difference.where)
        if value is not None and difference.expected in _GENERIC:
            difference = attrs.evolve(difference, expected=value)
        lines += [
            '<table class="diff"><thead><tr><th>where</th><th>expected</th><th>actual</th>'
            "</tr></thead><tbody><tr>",
            f'<td class="where"><code>{_e(difference.where)}</code></td>',
            f'<td class="expected">{_e(difference.expected)}</td>',
            f'<td class="actual">{_e(difference.actual)}</td>',
            "</tr></tbody></table>",
        ]
    steps = evidence.steps
    if steps:
        blamed = _failing_step(outcome.message)
        lines.append('<p>Counterexample trace:</p><ol class="steps">')
        for index, step in enumerate(steps):
            css = ' class="blamed"' if index == blamed else ""
            lines.append(f"<li{css}><code>{_e(step)}</code></li>")
        lines.append("</ol>")
    lines.append("</article>")
    return lines


def _side(text: str | None) -> str:
    return '<em class="absent">absent</em>' if text is None else f"<code>{_e(text)}</code>"


def _pretty(text: str) -> str:
    return json.dumps(json.loads(text), indent=2, ensure_ascii=False)


def _comparison(comparison: Comparison) -> list[str]:
    """Every differing path side by side, then both whole (bounded) values, folded."""
    lines = [
        f'<table class="diff" data-at="{_e(comparison.at)}"><thead><tr><th>where</th>'
        "<th>expected</th><th>actual</th></tr></thead><tbody>",
    ]
    for difference in comparison.differences:
        where = comparison.at + difference.path
        lines += [
            f'<tr data-path="{_e(difference.path)}">',
            f'<td class="where"><code>{_e(where or "(whole reply)")}</code></td>',
            f'<td class="expected">{_side(difference.expected)}</td>',
            f'<td class="actual">{_side(difference.actual)}</td></tr>',
        ]
    lines.append("</tbody></table>")
    if comparison.omitted:
        lines.append(f"<p>{comparison.omitted} more differing paths are not listed.</p>")
    if comparison.unanswered_count:
        members = ", ".join(
            f"<code>{_e(comparison.at + member.path)}</code> ({_e(member.reason)})"
            for member in comparison.unanswered
        )
        more = comparison.omitted_unanswered
        rest = f", {more} more" if more else ""
        lines.append(
            f'<p class="unanswered">Unanswered by the driver (not compared): {members}{rest}</p>'
        )
    note = " (shortened to stay small)" if comparison.truncated else ""
    where = f" at <code>{_e(comparison.at)}</code>" if comparison.at else ""
    lines += [
        f'<details class="values"><summary>Compared values{where}{note}</summary>',
        '<div class="sides"><div><h4>expected (the vector)</h4>',
        f'<pre class="value" data-side="expected">{_e(_pretty(comparison.expected))}</pre></div>',
        "<div><h4>actual (the driver's reply)</h4>",
        f'<pre class="value" data-side="actual">{_e(_pretty(comparison.actual))}</pre></div>',
        "</div></details>",
    ]
    return lines


def _diagrams(lifecycles: Sequence[Registered]) -> list[str]:
    lines = [
        '<section id="diagrams"><h2>Lifecycle diagrams</h2>',
        "<p>Drawn from the lifecycle tables the reference executes (bold border: terminal; "
        "dot: initial). Numbered edges are listed under each diagram.</p>",
    ]
    for index, entry in enumerate(lifecycles):
        lines.append(lifecycle_figure(entry, f"d{index}"))
    lines.append("</section>")
    return lines
