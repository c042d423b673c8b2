"""Citations point at upstream or at docs/spec rule ids, never at the research digests.

The digests Rescind was first written from are not part of this repository, so a reader cannot
follow a citation of them. docs/spec/README.md ("Upstream sources") says how to cite instead.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Built from pieces so that this file does not match its own patterns.
SECTION_SIGN = "\N{SECTION SIGN}"
FACTS = "fact" + "s"
ABBREVIATIONS = ("w" + "pf", "h" + "lf")  # the digests' short names
FORBIDDEN = re.compile(
    "|".join(
        (
            re.escape(SECTION_SIGN),
            rf"-{FACTS}\b",
            rf"{FACTS}\.md",
            # A digest's short name followed by a section number; plain English passes.
            rf"\b(?:worker|host|saga)(?:-ledger|-protocol)?[ -]{FACTS}\s+(?:\d|{SECTION_SIGN})",
            rf"\b{FACTS[:-1]}s? digests?\b",
            rf"\b(?:{'|'.join(ABBREVIATIONS)})\b",
        )
    ),
    re.IGNORECASE,
)
TEXT_SUFFIXES = {".py", ".md", ".json", ".txt", ".toml", ".mjs", ".js", ".yaml", ".yml"}
SKIPPED_DIRECTORIES = {"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache"}


def scanned_roots() -> list[Path]:
    """docs/spec, tests, and every folder of the installed package: src/rescind and the
    top-level layers it links to (a directory walk does not follow those links)."""
    package = ROOT / "src" / "rescind"
    layers = [link.resolve() for link in package.iterdir() if link.is_symlink()]
    return [ROOT / "docs" / "spec", ROOT / "tests", package, *layers]


def scanned_files() -> list[Path]:
    files = set()
    for root in scanned_roots():
        for path in root.rglob("*"):
            if path.suffix not in TEXT_SUFFIXES or not path.is_file():
                continue
            if SKIPPED_DIRECTORIES.intersection(path.relative_to(ROOT).parts):
                continue
            files.add(path)
    return sorted(files)


def offending_lines(text: str) -> list[str]:
    return [
        f"{number}: {line.strip()[:120]}"
        for number, line in enumerate(text.splitlines(), start=1)
        if FORBIDDEN.search(line)
    ]


def test_the_scan_covers_the_spec_the_tests_and_every_package() -> None:
    names = {path.relative_to(ROOT).as_posix() for path in scanned_files()}
    for expected in (
        "docs/spec/README.md",
        "tests/test_spec_citations.py",
        "tests/upstream/README.md",
        "model/core/actions.py",
        "tables/saga.py",
        "conformance/vectors/tool.py",
        "src/rescind/__init__.py",
        "vectors/registry.json",
    ):
        assert expected in names


@pytest.mark.parametrize(
    "line",
    [
        f"see worker-protocol-{FACTS} {SECTION_SIGN}5.2",
        f"host-ledger-{FACTS} 9 item 43",
        f"(saga-{FACTS}.md)",
        f"# {SECTION_SIGN}9 item 13",
        f"the {FACTS[:-1]} digest {SECTION_SIGN}6",
        f"worker {FACTS} 5.1",
        f"(host-ledger {FACTS} 2.8)",
        f"# {ABBREVIATIONS[0]} 11.7 fenced CAS",
    ],
)
def test_the_pattern_catches_digest_citations(line: str) -> None:
    assert offending_lines(line)


@pytest.mark.parametrize(
    "line",
    [
        "`crates/splash-protocol/src/lib.rs`: `CapabilityGrant::compensation_fingerprint`",
        "upstream probe output, `out_ap.txt` row `JSON minus0`",
        "an invalid grant gives its validation error, no digest",
        "def test_upstream_table_facts_hold_in_the_model() -> None:",
        "HL-22, HL-23 (upstream test compensation_is_host_approved_bound_and_applied_once)",
        f"the honest-host {FACTS} the compensation proofs use",
    ],
)
def test_the_pattern_lets_upstream_citations_through(line: str) -> None:
    assert not offending_lines(line)


def test_no_file_cites_the_research_digests() -> None:
    found = {}
    for path in scanned_files():
        lines = offending_lines(path.read_text(encoding="utf-8", errors="replace"))
        if lines:
            found[path.relative_to(ROOT).as_posix()] = lines
    assert not found, "cite upstream or a docs/spec rule id instead (docs/spec/README.md):\n" + (
        "\n".join(f"{name}:{line}" for name, lines in found.items() for line in lines)
    )
