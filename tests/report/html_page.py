"""Read an HTML report back with ``html.parser``: what the tests assert on, gathered without
any of the renderer's code (tags, classes and data attributes only)."""

from __future__ import annotations

from html.parser import HTMLParser

import attrs


@attrs.define
class Article:
    check: str
    status: str
    text: list[str] = attrs.field(factory=list)
    steps: list[str] = attrs.field(factory=list)
    blamed: list[int] = attrs.field(factory=list)
    expected: list[str] = attrs.field(factory=list)
    actual: list[str] = attrs.field(factory=list)
    paths: list[str] = attrs.field(factory=list)
    """The ``data-path`` of each row of the comparison table."""
    values: dict[str, str] = attrs.field(factory=dict)
    """The whole compared values (``pre.value`` by ``data-side``), as the page shows them."""


@attrs.define
class Page:
    tags: list[str] = attrs.field(factory=list)
    attributes: list[tuple[str, str]] = attrs.field(factory=list)
    meta: list[dict[str, str]] = attrs.field(factory=list)
    cells: dict[tuple[str, str], dict[str, int]] = attrs.field(factory=dict)
    cell_text: dict[tuple[str, str], str] = attrs.field(factory=dict)
    empty: set[tuple[str, str]] = attrs.field(factory=set)
    column_totals: dict[str, dict[str, int]] = attrs.field(factory=dict)
    row_totals: dict[str, dict[str, int]] = attrs.field(factory=dict)
    articles: dict[str, Article] = attrs.field(factory=dict)
    figures: dict[str, dict[str, int]] = attrs.field(factory=dict)
    verdict: str = ""
    text: list[str] = attrs.field(factory=list)


COUNTS = ("pass", "fail", "not-applicable", "other")


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.page = Page()
        self._article: Article | None = None
        self._capture: str | None = None
        self._cell: tuple[str, str] | None = None
        self._step: bool = False
        self._value: str | None = None
        self._figure: str | None = None
        self._in_verdict = False
        self._head = False

    def handle_starttag(self, tag: str, attrs_: list[tuple[str, str | None]]) -> None:
        attributes = {name: value or "" for name, value in attrs_}
        self.page.tags.append(tag)
        self.page.attributes.extend(attributes.items())
        classes = set(attributes.get("class", "").split())
        if tag == "meta":
            self.page.meta.append(attributes)
        if attributes.get("id") == "verdict":
            self._in_verdict = True
        if tag == "td" and "data-source" in attributes and "data-provenance" in attributes:
            key = (attributes["data-source"], attributes["data-provenance"])
            if "empty" in classes:
                self.page.empty.add(key)
            else:
                self.page.cells[key] = {name: int(attributes[f"data-{name}"]) for name in COUNTS}
                self._cell = key
        elif tag == "td" and "total" in classes:
            counts = {name: int(attributes[f"data-{name}"]) for name in COUNTS}
            if "data-source" in attributes:
                self.page.row_totals[attributes["data-source"]] = counts
            elif "data-provenance" in attributes:
                self.page.column_totals[attributes["data-provenance"]] = counts
        if tag == "article" and "failure" in classes:
            self._article = Article(attributes["data-check"], attributes["data-status"])
            self.page.articles[self._article.check] = self._article
        if self._article is not None and tag == "li":
            self._step = True
            self._article.steps.append("")
            if "blamed" in classes:
                self._article.blamed.append(len(self._article.steps) - 1)
        if self._article is not None and tag == "tr" and "data-path" in attributes:
            self._article.paths.append(attributes["data-path"])
        if self._article is not None and tag == "pre" and "value" in classes:
            self._value = attributes["data-side"]
            self._article.values[self._value] = ""
        if self._article is not None and tag == "td" and classes & {"expected", "actual"}:
            self._capture = "expected" if "expected" in classes else "actual"
            getattr(self._article, self._capture).append("")
        if tag == "figure" and "data-lifecycle" in attributes:
            self._figure = attributes["data-lifecycle"]
            self.page.figures[self._figure] = {"svg": 0, "node": 0, "edge": 0, "legend": 0}
        if self._figure is not None:
            counts = self.page.figures[self._figure]
            if tag == "svg":
                counts["svg"] += 1
            if tag == "g" and "node" in classes:
                counts["node"] += 1
            if tag == "g" and "edge" in classes:
                counts["edge"] += 1
            if tag == "thead":
                self._head = True
            if tag == "tr" and counts["svg"] and not self._head:
                counts["legend"] += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "article":
            self._article = None
        if tag == "li":
            self._step = False
        if tag == "pre":
            self._value = None
        if tag == "td":
            self._capture = None
            self._cell = None
        if tag == "figure":
            self._figure = None
        if tag == "thead":
            self._head = False
        if tag == "span":
            self._in_verdict = False

    def handle_data(self, data: str) -> None:
        self.page.text.append(data)
        if self._in_verdict:
            self.page.verdict += data
        if self._cell is not None:
            self.page.cell_text[self._cell] = self.page.cell_text.get(self._cell, "") + data
        if self._article is None:
            return
        self._article.text.append(data)
        if self._step:
            self._article.steps[-1] += data
        if self._value is not None:
            self._article.values[self._value] += data
        if self._capture is not None:
            values = getattr(self._article, self._capture)
            values[-1] += data


def read(text: str) -> Page:
    reader = _Reader()
    reader.feed(text)
    reader.close()
    return reader.page
