"""Every string a driver sends is data (issue 22): a hostile driver's name, version, error
codes, actual values and stderr go through every report format and the terminal, and the run
ends as a clean run with the same verdicts would, with every report written, well-formed,
inert and small."""

from __future__ import annotations

import html.parser
import json
import re
import sys
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest

from rescind.cli import main
from tests.report.hostile_driver import PAYLOADS

ROOT = Path(__file__).resolve().parents[2]
# Vectors expecting a result and vectors expecting an error: both reply kinds fail.
SELECTED = (
    "canon.text.release",
    "canon.json.probe.basic",
    "canon.object.nested-sort",
    "canon.ws.crlf",
    "canon.root.integer",
    "canon.reject.infinity",
)
# Nothing that moves a terminal's cursor, breaks XML 1.0 or fails to encode as UTF-8.
NOT_TEXT = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff\u202e]")
ACTIVE_TAGS = {"script", "iframe", "object", "embed", "img", "a", "link", "form", "base", "meta"}


class _Tags(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))


def _run(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[int, dict[str, Any], dict[str, str]]:
    out = tmp_path / kind
    out.mkdir()
    command = f"{sys.executable} -m tests.report.hostile_driver {kind}"
    common = ["check", "--no-model", "--explore-steps", "0", "--impl", command]
    for check_id in SELECTED:
        common += ["--select", check_id]
    code = main(
        [
            *common,
            "--junit",
            str(out / "report.xml"),
            "--markdown",
            str(out / "report.md"),
            "--html",
            str(out / "report.html"),
        ]
    )
    terminal = capsys.readouterr().out
    assert main([*common, "--json"]) == code
    document = json.loads(capsys.readouterr().out)
    files = {
        name: (out / name).read_bytes().decode("utf-8")
        for name in ("report.xml", "report.md", "report.html")
    }
    files["terminal"] = terminal
    return code, document, files


def _verdicts(document: dict[str, Any]) -> list[tuple[str, str]]:
    return [(check["id"], check["status"]) for check in document["checks"]]


def _markdown_is_inert(whole: str) -> None:
    # Code spans are literal in Markdown (no HTML, link or autolink inside): check the rest.
    text = re.sub(r"(`+)(?!`).*?(?<!`)\1(?!`)", "`code`", whole)
    assert not re.search(r"<[A-Za-z/!?]", text), "raw HTML in Markdown"
    assert not re.search(r"(?<!\\)\]\(", text), "a link or image in Markdown"
    assert not re.search(r"(?<!\\)!\[", text), "an image in Markdown"
    assert "javascript:" not in text and "https://" not in text, "an autolink in Markdown"
    rows = [line for line in text.splitlines() if line.startswith("|")]
    failures = text.split("## Failures", 1)[1].splitlines()
    table = [line for line in failures if line.startswith("|")]
    cells = {len(re.findall(r"(?<!\\)\|", line)) for line in table}
    assert len(cells) == 1, f"a Markdown table row broken: {cells}"
    assert all(line.endswith("|") for line in rows)


def _html_is_inert(text: str) -> None:
    parser = _Tags()
    parser.feed(text)
    tags = {tag for tag, _ in parser.tags}
    assert not tags & ACTIVE_TAGS - {"meta"}, tags & ACTIVE_TAGS
    for tag, attrs in parser.tags:
        for name, _ in attrs:
            assert not name.startswith("on") and name not in ("href", "src", "srcdoc"), (tag, name)
    metas = [dict(attrs) for tag, attrs in parser.tags if tag == "meta"]
    assert {"http-equiv": "Content-Security-Policy"}.items() <= metas[1].items()


@pytest.mark.parametrize("kind", sorted(set(PAYLOADS) - {"clean"}))
def test_hostile_driver_text_is_data_in_every_report(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    clean_code, clean_document, clean_files = _run("clean", tmp_path, capsys)
    code, document, files = _run(kind, tmp_path, capsys)
    # The same verdicts and exit code as a clean driver failing the same checks.
    assert clean_code == 1 and code == clean_code
    assert _verdicts(document) == _verdicts(clean_document)
    assert document["counts"] == clean_document["counts"]
    failing = [c for c in document["checks"] if c["status"] == "fail" and c["tier"] == "must"]
    assert len(failing) >= 4
    # Every report is written and well-formed.
    ElementTree.fromstring(files["report.xml"].encode("utf-8"))
    for name, text in files.items():
        assert not NOT_TEXT.search(text), (name, NOT_TEXT.search(text))
    _markdown_is_inert(files["report.md"])
    _html_is_inert(files["report.html"])
    # Driver text never reads as Rich markup: a hostile name shows as itself, visibly escaped.
    flat = " ".join(files["terminal"].split())
    assert all(check["id"] in flat for check in failing)
    assert flat.count("FAIL canon.") + flat.count("CAUSE ") >= 2
    if kind == "markup":
        assert "[/]" in files["terminal"] and "[bold red]PASS[/bold red]" in files["terminal"]
    if kind == "escapes":
        assert "\\x1b[2J" in files["terminal"] and "\\r" in files["terminal"]
    if kind == "surrogate":
        assert "\\ud800" in files["terminal"] and "\\ud800" in files["report.html"]
    # Bounded: a report with hostile text is at most a few KiB per check larger than clean.
    serialized = json.dumps(document)
    for name, text in [*files.items(), ("json", serialized)]:
        clean_size = len(json.dumps(clean_document) if name == "json" else clean_files[name])
        assert len(text) <= clean_size + 8 * 1024 * (len(SELECTED) + 1), (name, len(text))
