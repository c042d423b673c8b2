"""Bad input on the command line: exit code 2 and one line on stderr that names a stable code
(or, for argument errors, the argument), never a traceback or a usage block."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rescind.cli import main
from rescind.conformance.explore.worker import REPLAY_FORMAT

LONG_INTEGER = "1" * 5000  # past Python's default integer-string conversion limit (4,300)


def _one_line_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    return lines[0]


def test_a_bad_choice_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    line = _one_line_error(["fingerprint", "--format", "xml"], capsys)
    assert line.startswith("rescind fingerprint: error: argument --format: invalid choice")


def test_a_missing_subcommand_argument_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    line = _one_line_error(["replay"], capsys)
    assert line == "rescind replay: error: the following arguments are required: file"


def _replay_document(**changes: Any) -> dict[str, Any]:
    document = {
        "format": REPLAY_FORMAT,
        "op": "journal.trace",
        "args": {"steps": []},
        "expected": {"steps": []},
        "message": "saved",
    }
    document.update(changes)
    return document


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('"a json string"', "not a json object"),
        ("[" * 100_000, "nested too deeply"),
        ("{not json", "not json"),
        (json.dumps(_replay_document(format="other/1")), "not a rescind replay format"),
        (json.dumps(_replay_document(args="x")), "missing or mistyped member"),
        (json.dumps(_replay_document(expected=[])), "missing or mistyped member"),
        (json.dumps(_replay_document(args={"steps": 3})), "missing or mistyped member"),
    ],
)
def test_a_malformed_replay_file_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, reason: str
) -> None:
    path = tmp_path / "replay.json"
    path.write_text(text, encoding="utf-8")
    line = _one_line_error(["replay", str(path)], capsys)
    assert line.startswith("rescind: error: invalid_replay_file")
    assert f"reason='{reason}'" in line


def _saga_file(tmp_path: Path, attempt: str) -> str:
    """A described source run whose one effect has ``attempt`` written as given."""
    run = {
        "sourceRun": {
            "runId": "src-1",
            "state": "failed",
            "tasks": [
                {
                    "id": "first",
                    "compensate": {"uses": "action:restore"},
                    "effects": [{"id": "e-first", "status": "succeeded", "attempt": 7777}],
                },
                {"id": "fail", "needs": ["first"], "state": "failed"},
            ],
        }
    }
    path = tmp_path / "run.json"
    path.write_text(json.dumps(run).replace("7777", attempt), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("action", ["plan", "validate"])
def test_a_saga_number_past_f64_is_out_of_range(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], action: str
) -> None:
    for written in (LONG_INTEGER, "1" + "0" * 309, "-" + LONG_INTEGER, "1e400"):
        line = _one_line_error(["saga", action, _saga_file(tmp_path, written)], capsys)
        assert line == (
            "rescind: error: saga_invalid_input (field='file', reason='number out of range')"
        )


def test_a_saga_integer_within_f64_is_judged_by_its_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 10^308 is still a number upstream reads; only its field's own rule decides about it.
    assert main(["saga", "plan", _saga_file(tmp_path, "1" + "0" * 308)]) == 0
    assert "executable" in capsys.readouterr().out
