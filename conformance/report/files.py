"""Writes the report files a run asked for (``rescind check`` and ``rescind report merge``
take the same --junit, --markdown and --html options)."""

from __future__ import annotations

from pathlib import Path

from rescind.conformance.report.html import write_html
from rescind.conformance.report.run import to_markdown, write_junit
from rescind.conformance.runner import RunReport


def write_files(
    report: RunReport, *, junit: Path | None, markdown: Path | None, html: Path | None
) -> None:
    """Each file that is named; nothing for ``None``."""
    if junit:
        write_junit(report, junit)
    if markdown:
        markdown.write_text(to_markdown(report), encoding="utf-8")
    if html:
        write_html(report, html)
