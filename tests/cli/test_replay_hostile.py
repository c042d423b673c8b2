"""``rescind replay`` treats its file as hostile data: a lone surrogate or a terminal escape in
``op`` is shown escaped, a compact ``repeat``/``count`` past the expansion bound is refused
before anything is allocated, and a FIFO is refused without being opened.

Before: the surrogate ended in a ``UnicodeEncodeError`` traceback, the escapes reached stdout
raw, and a 139-byte file asking for ``"a" * 3_000_000_000`` ran 48 s up to 5.9 GB of memory.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rescind.cli import main
from rescind.conformance.explore.worker import REPLAY_FORMAT
from rescind.conformance.harness.limits import (
    MAX_EXPANSION_BYTES,
    ExpansionTooLarge,
    expand_bytes,
    expand_text,
)
from rescind.conformance.interpreters import frame_lines, ledger_load, storage_harness


def _file(tmp_path: Path, op: str, args: dict[str, object]) -> Path:
    path = tmp_path / "replay.json"
    document = {"format": REPLAY_FORMAT, "op": op, "args": args, "expected": {}}
    path.write_text(json.dumps(document), encoding="utf-8")  # ensure_ascii: valid JSON
    return path


def _replay(path: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "rescind", "replay", str(path)],
        capture_output=True,
        check=False,
        timeout=60,
    )


def test_a_lone_surrogate_op_is_shown_escaped(tmp_path: Path) -> None:
    done = _replay(_file(tmp_path, "\ud800", {}))
    assert b"Traceback" not in done.stderr and done.returncode == 3
    assert b"to \\ud800 (0 steps)" in done.stdout


def test_terminal_escapes_never_reach_stdout(tmp_path: Path) -> None:
    done = _replay(_file(tmp_path, "\x1b]0;PWNED\x07\x1b[2J\u202e", {}))
    assert b"\x1b" not in done.stdout + done.stderr and b"\x07" not in done.stdout
    assert b"\\x1b]0;PWNED\\x07\\x1b[2J\\u202e" in done.stdout


def test_the_file_name_is_shown_escaped(tmp_path: Path) -> None:
    path = _file(tmp_path, "canonical.input", {"format": "json", "text": "{}"})
    hostile = path.rename(tmp_path / "x\x1b[2J.json")
    assert b"\x1b" not in _replay(hostile).stdout


@pytest.mark.parametrize(
    ("op", "args", "field"),
    [
        (
            "frames.message",
            {"line": {"prefix": "", "repeat": "a", "count": 3_000_000_000, "suffix": ""}},
            "args.line",
        ),
        ("ledger.load", {"text": "{}", "trailing_spaces": 3_000_000_000}, "args.trailing_spaces"),
        (
            "storage.trace",
            {"steps": [{"record": [{"repeat": "YWFh", "count": 10**12}]}]},
            "args.steps.0.record.0",
        ),
        ("x", {"payload_fill": {"byte_hex": "00", "count": MAX_EXPANSION_BYTES + 1}}, "fill"),
        ("x", {"line": {"repeat": "a", "count": -1}}, "args.line"),
    ],
)
def test_an_expansion_past_the_bound_is_refused_before_allocation(
    tmp_path: Path, op: str, args: dict[str, object], field: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", str(_file(tmp_path, op, args))]) == 2
    error = capsys.readouterr().err
    assert "invalid_replay_file" in error and "expansion bound" in error
    if field != "fill":
        assert f"field='{field}'" in error


def test_a_fifo_is_refused_without_opening_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "replay.json"
    os.mkfifo(fifo)  # opening it for reading would block until a writer comes
    assert main(["replay", str(fifo)]) == 2
    assert "not a regular file" in capsys.readouterr().err


def test_interpreters_use_the_same_bound() -> None:
    # Vectors and driver-side helpers read the notation through the same functions.
    assert len(expand_text("ab", MAX_EXPANSION_BYTES // 2)) == MAX_EXPANSION_BYTES
    with pytest.raises(ExpansionTooLarge):
        expand_text("ab", MAX_EXPANSION_BYTES // 2 + 1)
    with pytest.raises(ExpansionTooLarge):
        expand_bytes(b"\x00", True)  # a boolean is not a count
    line = {"prefix": "", "repeat": "a", "count": 3_000_000_000, "suffix": ""}
    with pytest.raises(ExpansionTooLarge):
        frame_lines.run_message({"line": line})
    with pytest.raises(ExpansionTooLarge):
        ledger_load.run({"text": "{}", "trailing_spaces": 3_000_000_000})
    with pytest.raises(ExpansionTooLarge):
        storage_harness.payload_of({"payload_fill": {"byte_hex": "00", "count": 10**10}})
