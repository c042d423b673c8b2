"""Readers for labelled lines of the upstream probe outputs (tests/upstream/): the values
there come from running upstream's compiled code, so they are an independent oracle."""

from __future__ import annotations

import re
from pathlib import Path

UPSTREAM = Path(__file__).resolve().parent.parent / "upstream"


def lines(file_name: str) -> list[str]:
    return (UPSTREAM / file_name).read_text(encoding="utf-8").splitlines()


def labelled(file_name: str, label: str, *, section: str = "all") -> str:
    """The text after ``label: `` on the first matching line. ``section`` selects the part
    of out_other.txt before the AP markers (``f64``) or after them (``ap``)."""
    for line in section_lines(file_name, section):
        if line.startswith(label + ": "):
            return line[len(label) + 2 :]
    raise KeyError(f"{file_name}: no line labelled {label!r}")


def section_lines(file_name: str, section: str) -> list[str]:
    """out_other.txt holds non-AP rows first, then ``--- AP extra`` and the AP rows, then the
    non-AP ``terminal`` rows, then ``--- AP eq`` and the AP ``terminal`` rows."""
    all_lines = lines(file_name)
    if section == "all":
        return all_lines
    ap_extra = all_lines.index("--- AP extra")
    ap_eq = all_lines.index("--- AP eq")
    first_terminal = next(i for i, line in enumerate(all_lines) if line.startswith("terminal "))
    if section == "f64":
        return all_lines[:ap_extra] + all_lines[first_terminal:ap_eq]
    return all_lines[ap_extra:first_terminal] + all_lines[ap_eq:]


def error_code(upstream: str) -> str:
    """``Err(OperationIdentityMismatch("k"))`` -> ``operation_identity_mismatch``; a wrapped
    ``Protocol(X ..)`` is unwrapped; ``Ok(..)`` -> ``ok``."""
    text = upstream.strip()
    if text.startswith("Ok"):
        return "ok"
    match = re.match(r"Err\((?:Protocol\()?([A-Za-z]+)", text)
    if match is None:
        raise ValueError(f"not a probe result: {upstream!r}")
    return re.sub(r"(?<!^)(?=[A-Z])", "_", match.group(1)).lower()
