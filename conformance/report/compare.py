"""Several implementations side by side: the claim of each ``rescind check --json`` report as
one column of a matrix (verdict, each conformance class, each capability), in text,
Markdown and HTML.

A report is a file anyone can write: only the ``claim`` section is read, every string in it
is bounded and made visible before it is shown, and a status outside the claim's vocabulary
is refused rather than printed.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from rescind.conformance.harness.text import markdown, short, visible
from rescind.conformance.report.claim import CLASSES
from rescind.conformance.report.claim import STATUSES as CLAIM_STATUSES

STATUSES = frozenset(CLAIM_STATUSES)


class NotAClaim(ValueError):
    """A report without a readable claim section."""


@attrs.frozen
class Column:
    name: str
    verdict: str
    classes: Mapping[str, str]
    capabilities: Mapping[str, str]
    counts: Mapping[str, Mapping[str, int]]
    """Per class: pass, fail, unanswered, restricted."""


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise NotAClaim(f"{what} is not a string")
    return visible(short(value)[0])


def _status(value: Any, what: str) -> str:
    if value not in STATUSES:
        raise NotAClaim(f"{what} is not a claim status")
    return str(value)


def _count(entry: Mapping[str, Any], key: str) -> int:
    value = entry.get(key, 0)
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def column_of(document: Mapping[str, Any]) -> Column:
    claim = document.get("claim")
    if not isinstance(claim, Mapping):
        raise NotAClaim("no claim section (a report written before claims existed?)")
    implementation = claim.get("implementation")
    if not isinstance(implementation, Mapping):
        raise NotAClaim("claim.implementation is not an object")
    name = " ".join(
        _text(implementation.get(key), f"implementation.{key}") for key in ("name", "version")
    )
    classes: dict[str, str] = {}
    counts: dict[str, dict[str, int]] = {}
    for entry in _entries(claim.get("classes"), "classes"):
        label = _text(entry.get("name"), "a class name")
        classes[label] = _status(entry.get("status"), f"class {label}")
        counts[label] = {
            key: _count(entry, key) for key in ("pass", "fail", "unanswered", "restricted")
        }
    capabilities = {
        _text(entry.get("name"), "a capability"): _status(entry.get("status"), "a capability")
        for entry in _entries(claim.get("capabilityStatus"), "capabilityStatus")
    }
    return Column(name, _text(claim.get("verdict"), "verdict"), classes, capabilities, counts)


def _entries(value: Any, what: str) -> list[Mapping[str, Any]]:
    if not isinstance(value, list) or not all(isinstance(item, Mapping) for item in value):
        raise NotAClaim(f"claim.{what} is not a list of objects")
    return list(value)


def _cell(column: Column, name: str) -> str:
    status = column.classes.get(name, "not claimed")
    if status == "not claimed":
        return status
    count = column.counts.get(name, {})
    extra = [
        f"{count[key]} {key}" for key in ("fail", "unanswered", "restricted") if count.get(key)
    ]
    return status + (f" ({', '.join(extra)})" if extra else "")


def rows(columns: Sequence[Column]) -> list[list[str]]:
    """The matrix: a header row, the verdict, one row per class, one per capability."""
    matrix = [["", *(column.name for column in columns)]]
    matrix.append(["verdict", *(column.verdict for column in columns)])
    for each in CLASSES:
        matrix.append([f"class {each.name}", *(_cell(column, each.name) for column in columns)])
    names = sorted({name for column in columns for name in column.capabilities})
    for name in names:
        matrix.append([name, *(column.capabilities.get(name, "not claimed") for column in columns)])
    return matrix


def to_markdown(columns: Sequence[Column]) -> str:
    matrix = rows(columns)
    lines = ["| " + " | ".join(markdown(cell) for cell in matrix[0]) + " |"]
    lines.append("|" + "---|" * len(matrix[0]))
    lines += ["| " + " | ".join(markdown(cell) for cell in row) + " |" for row in matrix[1:]]
    return "\n".join(lines) + "\n"


def to_html(columns: Sequence[Column]) -> str:
    matrix = rows(columns)
    head = "".join(f"<th>{html.escape(cell)}</th>" for cell in matrix[0])
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(cell)}</td>" for cell in row) + "</tr>"
        for row in matrix[1:]
    )
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'\"><title>Rescind: implementations compared</title></head>"
        f"<body><h1>Implementations compared</h1><table><thead><tr>{head}</tr></thead>"
        f"<tbody>{body}</tbody></table></body></html>\n"
    )


def to_text(columns: Sequence[Column]) -> str:
    matrix = rows(columns)
    widths = [max(len(row[index]) for row in matrix) for index in range(len(matrix[0]))]
    return (
        "\n".join(
            "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
            for row in matrix
        )
        + "\n"
    )
