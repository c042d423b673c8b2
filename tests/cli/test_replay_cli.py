"""``rescind replay`` says what it compared: whose reply, to which operation, against the
expectation saved in which file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rescind.cli import main
from rescind.conformance.explore.worker import REPLAY_FORMAT
from rescind.conformance.ops import registry as operations

ARGS = {"format": "json", "text": '{"b":2,"a":1}'}


def _replay(tmp_path: Path, expected: dict[str, object]) -> Path:
    path = tmp_path / "journal-0123.json"
    document = {"format": REPLAY_FORMAT, "op": "canonical.input", "args": ARGS}
    path.write_text(json.dumps({**document, "expected": expected}), encoding="utf-8")
    return path


def test_replay_says_what_it_compared_against(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _replay(tmp_path, operations.run("canonical.input", ARGS))
    assert main(["replay", str(path)]) == 0
    first, second = capsys.readouterr().out.splitlines()
    assert first.startswith("compared: the reply of rescind-reference ")
    assert "(the built-in reference, in process) to canonical.input" in first
    assert f"expected answer saved in {path}" in first
    assert second == "agrees: the reply matches the saved expectation"
    wrong = _replay(tmp_path, {**operations.run("canonical.input", ARGS), "canonicalJson": "x"})
    assert main(["replay", str(wrong)]) == 1
    assert capsys.readouterr().out.splitlines()[1] == "disagrees: /canonicalJson differs"
