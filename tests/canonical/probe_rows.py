"""Readers for the upstream probe outputs copied into tests/upstream/ (an independent oracle:
these values were produced by running upstream's compiled code)."""

from __future__ import annotations

import re
from pathlib import Path

import attrs

UPSTREAM = Path(__file__).resolve().parent.parent / "upstream"


@attrs.frozen
class JsonRow:
    name: str
    input: str
    canon_json: str | None
    canonical_hex: str | None
    size: int | None
    input_fp: str | None
    parse_error: str | None


def json_rows(file_name: str) -> list[JsonRow]:
    text = (UPSTREAM / file_name).read_text(encoding="utf-8")
    rows = []
    pattern = re.compile(
        r"^JSON (\S+): input=(.*?)(?: -> PARSE ERROR: ([^\n]*)|\n   canon_json=([^\n]*)\n"
        r"   canonical_hex=([0-9a-f]+)\n   to_vec_equals_canon=true size=(\d+)\n"
        r"   input_fp=([0-9a-f]{64}))$",
        re.S | re.M,
    )
    for match in pattern.finditer(text):
        name, source, error, canon, hex_text, size, fingerprint = match.groups()
        rows.append(
            JsonRow(
                name,
                source,
                canon,
                hex_text,
                int(size) if size else None,
                fingerprint,
                error,
            )
        )
    return rows


def text_rows(file_name: str) -> list[tuple[str, str, str]]:
    text = (UPSTREAM / file_name).read_text(encoding="utf-8")
    return re.findall(
        r"^TEXT (\S+): canonical_hex=([0-9a-f]+) input_fp=([0-9a-f]{64})$", text, re.M
    )


def number_rows(section: str) -> list[tuple[str, str]]:
    """``num X -> [Y]`` rows of out_other.txt; section ``f64`` (first) or ``ap`` (after
    the '--- AP extra' marker)."""
    text = (UPSTREAM / "out_other.txt").read_text(encoding="utf-8")
    before, _, after = text.partition("--- AP extra")
    chosen = after if section == "ap" else before
    return re.findall(r"^num (\S+) -> \[(\S+)\]$", chosen, re.M)
