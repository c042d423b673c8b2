"""Every canonical-JSON row of upstream's probe output, reproduced by the reference and
present, with the same values, in the committed golden vectors."""

from __future__ import annotations

import importlib.resources
import json
import re

import pytest

from rescind.reference.digests import worker_input_fingerprint
from rescind.reference.errors import RescindError
from rescind.reference.jsonparse import parse_json
from rescind.reference.numbers import NumberMode
from rescind.reference.payload import ToolPayload
from tests.canonical.probe_rows import UPSTREAM, json_rows, number_rows, text_rows

MODES = {"out_ap.txt": NumberMode.AP, "out_noap.txt": NumberMode.F64}


def _display_bytes(display: str) -> bytes:
    """The probe printed raw bytes as ``\\xNN``; everything else is literal text."""
    out = bytearray()
    for match in re.finditer(r"\\x([0-9a-f]{2})|(.)", display, re.S):
        out += bytes([int(match.group(1), 16)]) if match.group(1) else match.group(2).encode()
    return bytes(out)


def _rows() -> list[tuple[str, NumberMode, object]]:
    return [(name, mode, row) for name, mode in MODES.items() for row in json_rows(name)]


def test_probe_files_were_read() -> None:
    assert len(json_rows("out_ap.txt")) == 53
    assert len(json_rows("out_noap.txt")) == 53
    assert len(text_rows("out_ap.txt")) == 3


@pytest.mark.parametrize(("file_name", "mode", "row"), _rows(), ids=lambda value: str(value)[:40])
def test_json_row(file_name: str, mode: NumberMode, row) -> None:  # type: ignore[no-untyped-def]
    if row.parse_error is not None:
        with pytest.raises(RescindError) as caught:
            parse_json(row.input, mode)
        assert caught.value.code == "serialization"
        return
    payload = ToolPayload.json(parse_json(row.input, mode), mode)
    assert payload.canonical_body == _display_bytes(row.canon_json)
    assert payload.size == row.size
    assert payload.canonical_input_bytes().hex() == row.canonical_hex
    assert worker_input_fingerprint(payload) == row.input_fp


@pytest.mark.parametrize(("name", "hex_text", "fingerprint"), text_rows("out_ap.txt"))
def test_text_row(name: str, hex_text: str, fingerprint: str) -> None:
    body = bytes.fromhex(hex_text)[12:].decode("utf-8")
    payload = ToolPayload.text(body)
    assert payload.canonical_input_bytes().hex() == hex_text
    assert worker_input_fingerprint(payload) == fingerprint


@pytest.mark.parametrize("section", ["f64", "ap"])
def test_number_rows(section: str) -> None:
    mode = NumberMode.AP if section == "ap" else NumberMode.F64
    rows = number_rows(section)
    assert len(rows) == 11
    for lexeme, expected in rows:
        value = parse_json(f"[{lexeme}]", mode)
        assert ToolPayload.json(value, mode).canonical_body.decode() == f"[{expected}]"


def test_depth_and_recursion_rows() -> None:
    text = (UPSTREAM / "out_ap.txt").read_text(encoding="utf-8")
    rows = re.findall(
        r"^(\d+) (arrays around \{\}|arrays around scalar 1|arrays around \[\]|nested objects)[^:]*: (Ok\((\d+)\)|Err\(JsonPayloadTooDeep)",
        text,
        re.M,
    )
    assert len(rows) == 10
    for count, kind, outcome, size in rows:
        n = int(count)
        if kind == "arrays around {}":
            source = "[" * n + "{}" + "]" * n
        elif kind == "arrays around scalar 1":
            source = "[" * n + "1" + "]" * n
        elif kind == "arrays around []":
            source = "[" * n + "[]" + "]" * n
        else:
            source = "{}"
            for _ in range(n - 1):
                source = '{"a":' + source + "}"
        payload = ToolPayload.json_text(source)
        if outcome.startswith("Ok"):
            payload.validate()
            assert payload.size == int(size)
        else:
            with pytest.raises(RescindError) as caught:
                payload.validate()
            assert caught.value.code == "json_payload_too_deep"
    recursion = re.findall(
        r"^parse (\d+) nested arrays: (Ok|Err)",
        text + (UPSTREAM / "out_other.txt").read_text(),
        re.M,
    )
    assert len(recursion) >= 6
    for count, outcome in recursion:
        source = "[" * int(count) + "]" * int(count)
        if outcome == "Ok":
            parse_json(source)
        else:
            with pytest.raises(RescindError, match="recursion_limit_exceeded"):
                parse_json(source)


def _vector_tests() -> dict[str, dict]:  # type: ignore[type-arg]
    document = json.loads(
        importlib.resources.files("rescind.vectors").joinpath("canonical-input.json").read_text()
    )
    return {test["id"]: test for group in document["testGroups"] for test in group["tests"]}


def test_every_probe_row_is_a_vector_that_agrees() -> None:
    by_input = {}
    for test in _vector_tests().values():
        if "text" in test["input"] and test["input"]["format"] == "json":
            by_input.setdefault(test["input"]["text"], []).append(test)
    for file_name, mode in MODES.items():
        for row in json_rows(file_name):
            matching = by_input.get(row.input)
            assert matching, f"probe row {row.name} has no vector"
            test = matching[0]
            view = test["expected"]
            if mode is NumberMode.F64 and "f64" in view:
                view = view["f64"]
            if row.parse_error is not None:
                assert view["error"] == "serialization", row.name
            else:
                assert view["canonicalInputHex"] == row.canonical_hex, row.name
                assert view["workerInputFingerprint"] == row.input_fp, row.name
