"""``rescind fingerprint`` has an input cap (typed error, an option to raise it), and its
low-memory inspection answers exactly as the full one.

Memory itself is measured by benchmarks/fingerprint_memory.py, not here.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from benchmarks.hardening.canonical_texts import payload_bytes
from rescind.cli import main
from rescind.cli.fingerprint import DEFAULT_MAX_INPUT_BYTES
from rescind.reference import inspect_fast as fast_module
from rescind.reference.errors import RescindError
from rescind.reference.inspect_fast import inspect_fast
from rescind.reference.inspect_payload import Inspection, inspect
from rescind.reference.payload_format import PayloadFormat
from tests.canonical_fast.test_differential import _MANY

CAP_LINE = f"rescind: error: fingerprint_input_too_large (maximum={DEFAULT_MAX_INPUT_BYTES})"


def _text_payload(tmp_path: Path, size: int) -> str:
    path = tmp_path / "payload.txt"
    path.write_bytes(b"x" * size)
    return str(path)


def test_a_payload_over_the_default_cap_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _text_payload(tmp_path, DEFAULT_MAX_INPUT_BYTES + 1)
    assert main(["fingerprint", "--format", "text", source]) == 2
    captured = capsys.readouterr()
    (line,) = captured.err.splitlines()
    assert captured.out == "" and line.startswith(CAP_LINE) and "--max-input-bytes" in line


def test_a_payload_at_the_cap_is_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = _text_payload(tmp_path, DEFAULT_MAX_INPUT_BYTES)
    assert main(["fingerprint", "--format", "text", "--output", "json", source]) == 0
    assert json.loads(capsys.readouterr().out)["size"] == DEFAULT_MAX_INPUT_BYTES


def test_the_option_raises_and_lowers_the_cap(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _text_payload(tmp_path, DEFAULT_MAX_INPUT_BYTES + 1)
    raised = str(DEFAULT_MAX_INPUT_BYTES + 1)
    assert main(["fingerprint", "--format", "text", "--max-input-bytes", raised, source]) == 0
    capsys.readouterr()
    assert main(["fingerprint", "--max-input-bytes", "10", _text_payload(tmp_path, 11)]) == 2
    assert "fingerprint_input_too_large (maximum=10)" in capsys.readouterr().err


def test_stdin_is_bounded_too(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stdin = io.TextIOWrapper(io.BytesIO(b"[" + b"0," * 10 + b"0]"))
    monkeypatch.setattr("sys.stdin", stdin)
    assert main(["fingerprint", "--max-input-bytes", "16"]) == 2
    assert "fingerprint_input_too_large" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["0", "-5", "many"])
def test_the_cap_must_be_a_positive_byte_count(
    value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["fingerprint", "--max-input-bytes", value]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("rescind fingerprint: error: argument --max-input-bytes")


# --- the low-memory inspection answers as the full one -----------------------------------


def _answered_by(
    inspector: Callable[[bytes, PayloadFormat], Inspection],
) -> Callable[[bytes], tuple[Any, ...]]:
    """What ``inspector`` answers for JSON ``data``, errors included, as comparable values."""

    def answer(data: bytes) -> tuple[Any, ...]:
        try:
            report = inspector(data, PayloadFormat.JSON)
        except RescindError as error:
            return ("error", error.code, dict(error.details))
        informative = report.informative
        if isinstance(informative, RescindError):
            informative = ("error", informative.code, dict(informative.details))
        return (report.format, report.canonical_body, report.digests, report.hazards, informative)

    return answer


_answer = _answered_by(inspect)
_fast_answer = _answered_by(inspect_fast)


@_MANY
@given(payload_bytes())
def test_inspect_fast_answers_as_inspect(data: bytes) -> None:
    assert _fast_answer(data) == _answer(data)


HAZARD_FREE = (
    b'{"b":[1,2.5,-3,"x\\u00e9",true,null],"a":{}}',
    b" [0,1,18446744073709551615,-9223372036854775808,0.5,-2.25] ",
    b'{"k":"\\ud83d\\ude00","n":[[[]]]}',
)
HAZARDOUS = (
    b'{"a":1,"a":2}',  # duplicate key
    b'{"a":{"$serde_json::private::Number":"1"}}',  # reserved key
    b"[-0]",  # -0: 0 in one mode, -0.0 in the other
    b"[1.50]",  # fraction spelled differently by the two modes
    b"[1e2]",  # an exponent: 1e+2 in one mode, 100.0 in the other
    b"[18446744073709551616]",  # past u64: a float in F64
    b"[1e400]",  # rejected by F64
)


def _no_full_inspection(*_: object) -> Inspection:
    raise AssertionError("fell back to the full inspection")


@pytest.mark.parametrize("data", HAZARD_FREE)
def test_a_payload_without_hazards_needs_no_full_inspection(data: bytes) -> None:
    expected = _answer(data)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fast_module, "inspect", _no_full_inspection)
        report = inspect_fast(data, PayloadFormat.JSON)
    assert (report.format, report.canonical_body, report.digests, report.hazards, None) == expected


@pytest.mark.parametrize("data", HAZARDOUS)
def test_a_hazard_is_reported_by_the_full_inspection(data: bytes) -> None:
    assert _fast_answer(data) == _answer(data)
    report = inspect(data, PayloadFormat.JSON)
    assert report.hazards or report.informative is not None


@given(st.integers(0, 200))
def test_long_arrays_of_small_numbers_take_the_light_path(count: int) -> None:
    data = ("[" + ",".join(str(index % 10) for index in range(count)) + "]").encode()
    expected = _answer(data)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fast_module, "inspect", _no_full_inspection)
        report = inspect_fast(data, PayloadFormat.JSON)
    assert (report.format, report.canonical_body, report.digests, report.hazards, None) == expected
