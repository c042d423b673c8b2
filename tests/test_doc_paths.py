"""Every repository path that the documentation cites exists.

A path is a token that starts with one of the repository's top-level folders (``docs/``,
``vectors/``, ``conformance/``, ...) or is ``README.md``; a glob (``vectors/*.json``) must
match a file. Files of upstream repositories are cited with the same spelling
(``src/value/de.rs`` of serde-rs/json, ``docs/worker-protocol.md`` of Splash): such a path is
accepted only when docs/spec/README.md's "Upstream sources" table lists it, so an upstream
citation is named once with its repository and commit, and a typo of ours is still caught.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
IGNORED_TOP_LEVEL = {"rescind.egg-info", "build", "dist", "rescind-replays"}
"""Not sources: build output, and where a local `rescind check` saves its replays."""


def top_level_folders() -> list[str]:
    return sorted(
        p.name
        for p in ROOT.iterdir()
        if p.is_dir()
        and (not p.name.startswith(".") or p.name == ".ci")
        and p.name not in IGNORED_TOP_LEVEL
    )


def path_pattern(folders: list[str]) -> re.Pattern[str]:
    heads = "|".join(re.escape(folder) for folder in folders)
    return re.compile(rf"(?<![\w./-])((?:{heads})/[\w.*+@-]*(?:/[\w.*+@-]+)*/?|README\.md)")


def cited_paths(text: str, pattern: re.Pattern[str]) -> set[str]:
    return {match.group(1).rstrip(".") for match in pattern.finditer(text)}


def upstream_paths() -> set[str]:
    text = (ROOT / "docs" / "spec" / "README.md").read_text(encoding="utf-8")
    section = text.split("## Upstream sources", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    return {path for row in rows for path in re.findall(r"`([\w./-]+/[\w.-]+)`", row)}


def documents() -> list[Path]:
    found = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    found += sorted((ROOT / "benchmarks").glob("*.md"))
    return found


def exists(path: str) -> bool:
    if "*" in path:
        return any(ROOT.glob(path))
    return (ROOT / path).exists()


def test_the_pattern_finds_paths_and_leaves_prose_alone() -> None:
    pattern = path_pattern(["docs", "vectors"])
    text = "see `docs/spec/canonical.md` CJ-9, vectors/*.json and docs/ itself; my-docs/x.md"
    assert cited_paths(text, pattern) == {"docs/spec/canonical.md", "vectors/*.json", "docs/"}
    assert not exists("vectors/tool-payload.json")
    assert exists("vectors/*.json") and exists("docs/spec/")


def test_upstream_table_is_read() -> None:
    listed = upstream_paths()
    assert "src/value/de.rs" in listed and "crates/splash-protocol/src/lib.rs" in listed


@pytest.mark.parametrize("document", documents(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_cited_repository_path_exists(document: Path) -> None:
    pattern = path_pattern(top_level_folders())
    upstream = upstream_paths()
    text = document.read_text(encoding="utf-8")
    missing = sorted(p for p in cited_paths(text, pattern) if not exists(p) and p not in upstream)
    assert not missing, f"{document.relative_to(ROOT)} cites paths that do not exist: {missing}"
