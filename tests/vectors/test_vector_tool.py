"""The vector tooling: freshness, schemas, and the append-only ID registry."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from rescind.conformance.provenance import derived
from rescind.conformance.vectors import tool as vectortool
from rescind.conformance.vectors.format import Flag, VectorFile, VectorGroup, VectorTest


def test_committed_vectors_are_fresh_valid_and_registered() -> None:
    assert vectortool.check(vectortool.default_directory()) == []


def test_regeneration_is_byte_identical() -> None:
    assert vectortool.generate() == vectortool.generate()


def _copy(tmp_path: Path) -> Path:
    target = tmp_path / "vectors"
    shutil.copytree(
        vectortool.default_directory(), target, ignore=shutil.ignore_patterns("*.py", "__pycache__")
    )
    return target


def test_an_edited_vector_file_is_caught(tmp_path: Path) -> None:
    directory = _copy(tmp_path)
    path = directory / "canonical-input.json"
    path.write_text(path.read_text().replace('"valid"', '"acceptable"', 1))
    problems = vectortool.check(directory)
    assert any("differs from what the reference generates" in problem for problem in problems)


def test_a_changed_meaning_is_refused(tmp_path: Path) -> None:
    directory = _copy(tmp_path)
    registry_path = directory / "registry.json"
    registry = json.loads(registry_path.read_text())
    some_id = sorted(registry["ids"])[0]
    registry["ids"][some_id]["meaning"] = "0" * 64
    registry_path.write_text(json.dumps(registry))
    assert any("changed meaning" in problem for problem in vectortool.check(directory))
    assert any("changed meaning" in problem for problem in vectortool.export(directory))


def test_a_disappeared_id_is_refused(tmp_path: Path) -> None:
    directory = _copy(tmp_path)
    registry_path = directory / "registry.json"
    registry = json.loads(registry_path.read_text())
    registry["ids"]["canon.never-existed"] = {"topic": "canonical-input", "meaning": "1" * 64}
    registry_path.write_text(json.dumps(registry))
    assert any("disappeared" in problem for problem in vectortool.check(directory))


def test_a_flag_without_note_is_rejected() -> None:
    test = VectorTest(
        id="x.y",
        rule="CJ-1",
        comment="",
        input={},
        expected={},
        result="valid",
        flags=("Undocumented",),
        provenance=derived("CJ-1"),
    )
    with pytest.raises(ValueError, match="without a note"):
        VectorFile(topic="t", header=(), notes=(), groups=(VectorGroup("T", (test,)),)).to_json()


def test_unused_note_is_rejected() -> None:
    with pytest.raises(ValueError, match="unused"):
        VectorFile(topic="t", header=(), notes=(Flag("Unused", "b", "e"),), groups=()).to_json()


def test_every_vector_cites_a_rule_defined_in_docs_spec() -> None:
    spec = Path(__file__).resolve().parents[2] / "docs" / "spec"
    defined = set()
    for page in spec.glob("*.md"):
        import re

        defined.update(re.findall(r"\*\*([A-Z]{2,4}-\d{1,3})\*\*", page.read_text()))
    for path in vectortool.default_directory().glob("*.json"):
        if path.name == "registry.json":
            continue
        document = json.loads(path.read_text())
        for group in document["testGroups"]:
            for test in group["tests"]:
                assert test["rule"] in defined, f"{test['id']} cites undefined rule {test['rule']}"


def test_export_refuses_a_non_empty_directory_that_is_not_a_vectors_directory(
    tmp_path: Path,
) -> None:
    from rescind.cli import main

    precious = tmp_path / "home"
    precious.mkdir()
    (precious / "notes.txt").write_text("keep me", encoding="utf-8")
    assert main(["vectors", "export", "--dir", str(precious)]) == 1
    assert sorted(p.name for p in precious.iterdir()) == ["notes.txt"]
    # An empty directory is a fresh vectors directory; exporting again into it is fine.
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    assert main(["vectors", "export", "--dir", str(fresh)]) == 0
    assert (fresh / "registry.json").is_file()
    assert main(["vectors", "export", "--dir", str(fresh)]) == 0


def test_export_never_follows_symlinks(tmp_path: Path) -> None:
    from rescind.cli import main

    fresh = tmp_path / "vectors"
    fresh.mkdir()
    assert main(["vectors", "export", "--dir", str(fresh)]) == 0
    victim = tmp_path / "victim.txt"
    victim.write_text("untouched", encoding="utf-8")
    target = fresh / "canonical-input.json"
    target.unlink()
    target.symlink_to(victim)
    assert main(["vectors", "export", "--dir", str(fresh)]) == 1
    assert victim.read_text(encoding="utf-8") == "untouched" and target.is_symlink()
    link = tmp_path / "link"
    link.symlink_to(fresh)
    assert main(["vectors", "export", "--dir", str(link)]) == 2
    assert victim.read_text(encoding="utf-8") == "untouched"


@pytest.mark.parametrize(
    ("registry", "said"),
    [
        ("{}", "has no 'ids' object"),
        ("[]", "has no 'ids' object"),
        ('{"ids": {"a": {"meaning": 1}}}', "string fields"),
        ('{"ids": {}, "retired": []}', "'retired' must map"),
        ("{not json", "cannot be read as JSON"),
    ],
)
def test_a_registry_that_is_not_one_is_refused_with_a_sentence(
    tmp_path: Path, registry: str, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from rescind.cli import main

    (tmp_path / "registry.json").write_text(registry, encoding="utf-8")
    assert main(["vectors", "export", "--dir", str(tmp_path)]) == 1
    refusal = capsys.readouterr().err
    assert refusal.startswith("refused: ") and said in refusal and "Traceback" not in refusal
    assert sorted(p.name for p in tmp_path.iterdir()) == ["registry.json"]  # nothing written
    assert main(["vectors", "check", "--dir", str(tmp_path)]) == 1
    assert said in capsys.readouterr().out
