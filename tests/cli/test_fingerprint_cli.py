"""``rescind fingerprint`` prints the published known-answer values exactly."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rescind.cli import main


def _run(
    argv: list[str], data: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str, str]:
    source = tmp_path / "payload"
    source.write_bytes(data)
    code = main([*argv, str(source)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize(
    ("data", "fmt", "canonical", "worker", "host"),
    [
        (
            b'{"right":22,"left":20}',
            "json",
            "6a736f6e00000000000000167b226c656674223a32302c227269676874223a32327d",
            "97b596370568d8bf144de6def87e9d0d3d52f25e96bed12dc4be35526fceb39a",
            None,
        ),
        (
            b"release",
            "text",
            "74657874000000000000000772656c65617365",
            "71c51e90a22434f9390af1b8fbbaf8a306fb6c2e9eb0471a141dabca66b95036",
            None,
        ),
        (
            b'{"version":"1.2.3"}',
            "json",
            "6a736f6e00000000000000137b2276657273696f6e223a22312e322e33227d",
            None,
            "f17665c665a8f47f05875a69b373118616db461c2df93da5eaeb8aaf656e55ef",
        ),
        (
            b'{"undo":"release"}',
            "json",
            None,
            "5cc121e4a0ce2f79ae6b83397eb4f81a66bf12a9b1fe5836835a8118de24d578",
            "8c7a61f637d8155a4b17f2bc63135583cc98ecd8379bf92ccaf283d68be3b487",
        ),
        (
            b"",
            "text",
            "746578740000000000000000",
            "554a5e2842cc41ca063dd93deaab829d3f921ec1c9fcb0c2c04548b54183a258",
            None,
        ),
    ],
)
def test_known_answers(
    data: bytes,
    fmt: str,
    canonical: str | None,
    worker: str | None,
    host: str | None,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = _run(
        ["fingerprint", "--format", fmt, "--output", "json"], data, tmp_path, capsys
    )
    assert code == 0
    report = json.loads(out)
    for key, expected in (
        ("canonicalInputHex", canonical),
        ("workerInputFingerprint", worker),
        ("hostInputFingerprint", host),
    ):
        if expected is not None:
            assert report[key] == expected
    code, text, _ = _run(["fingerprint", "--format", fmt], data, tmp_path, capsys)
    for expected in (canonical, worker, host):
        if expected is not None:
            assert expected in text


def test_hazards_are_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(
        ["fingerprint", "--output", "json"],
        b'{"a":1e2,"a":-0,"b":{"$serde_json::private::Number":"1"}}',
        tmp_path,
        capsys,
    )
    assert code == 0
    hazards = {(hazard["kind"], hazard["where"]) for hazard in json.loads(out)["hazards"]}
    # /a: 0 vs -0.0; /b: a number in splash-v5 but an object in splash-v5-f64
    assert hazards == {
        ("duplicate_key", "a"),
        ("reserved_key", "$serde_json::private::Number"),
        ("number_mode_difference", "/a"),
        ("number_mode_difference", "/b"),
    }


def test_f64_rejection_is_a_hazard(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["fingerprint", "--output", "json"], b"[1e400]", tmp_path, capsys)
    report = json.loads(out)
    assert code == 0 and report["splash-v5-f64"]["code"] == "serialization"


@pytest.mark.parametrize(
    ("data", "fmt"),
    [(b'{"a":1,}', "json"), (b"42", "json"), (b"\xff", "text"), (b"[" * 40 + b"]" * 40, "json")],
)
def test_bad_input_exits_2_with_one_line(data: bytes, fmt: str) -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "rescind", "fingerprint", "--format", fmt],
        input=data,
        capture_output=True,
        check=False,
    )
    assert completed.returncode == 2
    lines = completed.stderr.decode().strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("rescind: error:")
    assert "Traceback" not in completed.stderr.decode()


def test_reads_stdin_by_default() -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "rescind", "fingerprint", "--output", "json"],
        input=b"{}",
        capture_output=True,
        check=True,
    )
    assert (
        json.loads(completed.stdout)["workerInputFingerprint"]
        == "808eacaced59aa781db84ec2f0f6206203e613ff3b6c657de31e8efce2ffceba"
    )


@pytest.mark.parametrize(
    ("content", "extra", "fix"),
    [
        (b'{"a":', [], "add --format text"),
        (b"\xff\xfe", [], "convert the file to UTF-8"),
        (b"\xff\xfe", ["--format", "text"], "convert the file to UTF-8"),
        (b"x" * 100, ["--max-input-bytes", "10"], "raise it, e.g. --max-input-bytes"),
    ],
)
def test_fingerprint_errors_name_the_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, extra: list[str], fix: str
) -> None:
    payload = tmp_path / "payload"
    payload.write_bytes(content)
    assert main(["fingerprint", *extra, str(payload)]) == 2
    err = capsys.readouterr().err
    assert fix in err and err.count("\n") == 1


def test_fingerprint_unreadable_file_has_no_raw_errno(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for path in (tmp_path / "missing.json", tmp_path):
        assert main(["fingerprint", str(path)]) == 2
        err = capsys.readouterr().err
        assert "[Errno" not in err and f"cannot read payload file {path}:" in err
