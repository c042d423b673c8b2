"""`rescind saga plan|validate FILE`: output, JSON, exit codes, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rescind.cli import main
from tests.saga.builders import compensable, source_file

SOURCE = source_file(
    compensable("first"),
    {**compensable("second", "uncertain"), "needs": ["first"]},
    {"id": "fail", "needs": ["second"], "state": "failed"},
)
BINDINGS = {
    "bindings": [
        {"name": "reserve", "compensate": "release", "produces": ["r"]},
        {"name": "charge", "compensate": "refund", "consumes": ["r"]},
        {"name": "release", "compensation": True},
        {"name": "refund", "compensation": True},
    ]
}


def write(tmp_path: Path, body: Any, name: str = "in.json") -> str:
    path = tmp_path / name
    path.write_text(body if isinstance(body, str) else json.dumps(body), encoding="utf-8")
    return str(path)


def test_plan_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["saga", "plan", write(tmp_path, SOURCE)]) == 0
    out = capsys.readouterr().out
    for fragment in (
        "compensate--first",
        "unreconciled_source_effect",
        "e-second",
        "executable: true",
        "complete: false",
        "agentctl exit: POLICY",
    ):
        assert fragment in out


def test_plan_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["saga", "plan", "--json", write(tmp_path, SOURCE)]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert [t["sourceTaskId"] for t in plan["tasks"]] == ["first"]
    assert plan["blocked"][0]["rule"] == "unreconciled_source_effect"
    assert (plan["executable"], plan["complete"], plan["agentctlExit"]) == (True, False, "POLICY")


def test_plan_selection_and_nothing_to_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = json.loads(json.dumps(SOURCE))
    body["reconciliations"] = [{"effectId": "e-second", "status": "not_applied"}]
    body["selection"] = ["second"]
    assert main(["saga", "plan", write(tmp_path, body)]) == 0
    out = capsys.readouterr().out
    assert "no compensation task" in out and "complete: true" in out and "agentctl exit: OK" in out


def test_validate_valid_with_a_gap(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gapped = {"bindings": [*BINDINGS["bindings"], {"name": "notify"}]}
    assert main(["saga", "validate", write(tmp_path, gapped)]) == 0
    out = capsys.readouterr().out
    assert "compensation_gap" in out and "valid: true" in out
    assert "one order (one step at a time): charge, reserve" in out
    assert "every order keeps: charge before reserve" in out
    assert main(["saga", "validate", "--json", write(tmp_path, BINDINGS)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["valid"] and report["order"]["before"] == [["charge", "reserve"]]


def test_validate_errors_exit_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    body = {"bindings": [{"name": "a", "compensate": "b"}, {"name": "b", "compensate": "a"}]}
    assert main(["saga", "validate", write(tmp_path, body)]) == 1
    out = capsys.readouterr().out
    assert "saga_binding_cycle" in out and "a -> b -> a" in out and "valid: false" in out


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ("{not json", "invalid JSON"),
        ('{"a": 1, "a": 2}', "repeats a key"),
        ("[]", "must be an object"),
        ({"sourceRun": {"runId": "x y", "state": "failed", "tasks": []}}, "not an identifier"),
        ({"sourceRun": {"runId": "r", "state": "done", "tasks": []}}, "must be one of"),
        ({"sourceRun": {"runId": "r", "state": "failed", "tasks": []}, "extra": 1}, "unknown key"),
        (
            {"sourceRun": {"runId": "r", "state": "running", "tasks": []}},
            "saga_source_not_terminal",
        ),
        (
            {
                "sourceRun": {
                    "runId": "r",
                    "state": "failed",
                    "tasks": [{"id": "a", "needs": ["a"]}],
                }
            },
            "saga_dependency_cycle",
        ),
        (
            {
                "sourceRun": {
                    "runId": "r",
                    "state": "failed",
                    "tasks": [
                        {"id": "a", "effects": [{"id": "e", "status": "failed", "confirmed": True}]}
                    ],
                }
            },
            "only a succeeded effect",
        ),
        (
            {
                "sourceRun": {
                    "runId": "r",
                    "state": "failed",
                    "tasks": [{"id": "a", "effects": [{"id": "e", "status": "uncertain"}]}],
                },
                "reconciliations": [
                    {"effectId": "e", "status": "compensated", "compensationEffectId": "e"}
                ],
            },
            "saga_reconciliation_not_allowed",
        ),
        ('{"x": NaN}', "not JSON"),
    ],
)
def test_plan_bad_input_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], body: Any, fragment: str
) -> None:
    assert main(["saga", "plan", write(tmp_path, body)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("rescind: error:") and fragment in lines[0]
    assert "Traceback" not in captured.err


@pytest.mark.parametrize(
    "body",
    [
        {"bindings": [{"name": "a"}, {"name": "a"}]},
        {"bindings": [{"name": "a", "target": "robot"}]},
        {"bindings": "none"},
        {},
    ],
)
def test_validate_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str], body: Any) -> None:
    assert main(["saga", "validate", write(tmp_path, body)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_unreadable_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    binary = tmp_path / "bin.json"
    binary.write_bytes(b"\xff\xfe")
    assert main(["saga", "plan", str(binary)]) == 2
    assert "not UTF-8" in capsys.readouterr().err
    assert main(["saga", "validate", str(tmp_path / "missing.json")]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
    deep = "[" * 100000 + "]" * 100000
    assert main(["saga", "plan", write(tmp_path, '{"sourceRun": ' + deep + "}")]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("action", "body", "shown"),
    [
        (
            "plan",
            {"sourceRun": {"runId": "x/y", "state": "failed", "tasks": []}},
            "sourceRun.runId",
        ),
        (
            "plan",
            {"sourceRun": {"runId": "r", "state": "failed", "tasks": [{"id": "a", "needsX": []}]}},
            "sourceRun.tasks[0].needsX",
        ),
        ("validate", {"bindings": [{"name": 3}]}, "bindings[0].name"),
    ],
)
def test_invalid_input_names_the_json_keys_as_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], action: str, body: Any, shown: str
) -> None:
    assert main(["saga", action, write(tmp_path, body)]) == 2
    err = capsys.readouterr().err
    assert f"saga_invalid_input at {shown}: " in err and "file." not in err


def test_validate_says_a_run_file_is_a_run_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, {"sourceRun": {"runId": "r", "state": "failed", "tasks": []}})
    assert main(["saga", "validate", path]) == 2
    assert f"looks like a run file, not a binding set: use rescind saga plan {path}" in (
        capsys.readouterr().err
    )
