"""The bounds on what the suite reads, checked before any work whose cost grows with it.

Two kinds of input can make a small thing expensive: a driver's reply (a 30 MB line under the
byte cap that is one object with two million members costs seconds to decode, every time it
is sent), and the compact ``{"repeat": text, "count": n}`` notation that vectors, replay files
and driver-side helpers expand (154 bytes can ask for gigabytes). Both are measured here with
work proportional to the bound, not to what was asked, and refused with a sentence.

- ``reply_shape`` scans a reply line's structure (strings skipped) and stops as soon as it has
  seen more than ``MAX_REPLY_MEMBERS`` members (object members plus array items) or a nesting
  deeper than ``MAX_REPLY_DEPTH``. The largest reply the built-in reference gives any check has
  465 members and a depth of 10, so the bounds leave a wide margin for other implementations.
- ``expand_text`` / ``expand_bytes`` repeat a unit only when the result stays within
  ``MAX_EXPANSION_BYTES``: twice the protocol's largest frame (``MAX_WIRE_FRAME_BYTES``), which
  covers every vector that tests one byte past a cap (the largest expands to 1 MiB).
"""

from __future__ import annotations

import re
from typing import Final

from rescind.reference.digests import MAX_WIRE_FRAME_BYTES

MAX_REPLY_MEMBERS: Final = 100_000
"""Object members plus array items in one reply, counted over every level."""
MAX_REPLY_DEPTH: Final = 128
"""Containers nested in one reply (Python's decoder itself stops near 1,000)."""
MAX_EXPANSION_BYTES: Final = 2 * MAX_WIRE_FRAME_BYTES
"""The most one ``repeat``/``count`` (or ``trailing_spaces``) expansion may produce, in UTF-8."""

_TOKEN = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{},]')
_OPEN = frozenset(b"[{")
_CLOSE = frozenset(b"]}")
_COMMA = ord(",")


class ExpansionTooLarge(ValueError):
    """A ``repeat``/``count`` asks for more than ``MAX_EXPANSION_BYTES`` (or a count that is
    not a non-negative integer); nothing was allocated. ``where`` names it (``what`` given to
    ``expand_*``, or the dotted path ``check_expansions`` found it at)."""

    def __init__(self, message: str, where: str) -> None:
        super().__init__(message)
        self.where = where


def reply_shape(
    raw: bytes, max_members: int = MAX_REPLY_MEMBERS, max_depth: int = MAX_REPLY_DEPTH
) -> str | None:
    """Why ``raw`` (one reply line) is beyond the bounds, or ``None`` when it is within them.

    The counts of ``,``, ``[`` and ``{`` over the whole line (fast, in C) bound the members and
    the depth from above, so a line within both needs nothing more. Otherwise the structure is
    walked token by token, strings skipped, and the walk stops at the first bound passed: it
    looks at no more than a few tokens per member allowed, however many the line holds."""
    opened = raw.count(b"[") + raw.count(b"{")
    if opened <= max_depth and opened + raw.count(b",") <= max_members:
        return None
    members = depth = 0
    for token in _TOKEN.finditer(raw):
        first = token.group()[0]
        if first in _OPEN:
            members += 1
            depth += 1
            if depth > max_depth:
                return f"nests containers more than {max_depth} deep"
        elif first in _CLOSE:
            depth -= 1
        elif first == _COMMA:
            members += 1
        else:
            continue
        if members > max_members:
            return f"holds more than {max_members} members and items"
    return None


def _units(count: object, unit_bytes: int, what: str) -> int:
    if not isinstance(count, int) or isinstance(count, bool) or count < 0:
        raise ExpansionTooLarge(f"{what}: 'count' must be a non-negative integer", what)
    if count * max(unit_bytes, 1) > MAX_EXPANSION_BYTES:
        raise ExpansionTooLarge(
            f"{what}: {count} repetitions of {unit_bytes} bytes pass the expansion bound of "
            f"{MAX_EXPANSION_BYTES} bytes",
            what,
        )
    return count


def expand_text(unit: str, count: object, what: str = "repeat") -> str:
    """``unit * count``, refused before allocation past ``MAX_EXPANSION_BYTES`` (UTF-8)."""
    size = len(unit.encode("utf-8", "surrogatepass"))
    return unit * _units(count, size, what)


def expand_bytes(unit: bytes, count: object, what: str = "repeat") -> bytes:
    """``unit * count``, refused before allocation past ``MAX_EXPANSION_BYTES``."""
    return unit * _units(count, len(unit), what)


def check_expansions(document: object, where: str = "") -> None:
    """Raise ``ExpansionTooLarge`` for the first compact expansion in ``document`` (any
    ``{"repeat"|"byte_hex": .., "count": n}`` object, or a ``trailing_spaces`` member) that
    asks for more than the bound: a file is refused before anything reads it."""
    stack: list[tuple[object, str]] = [(document, where)]
    while stack:
        node, path = stack.pop()
        if isinstance(node, dict):
            if "count" in node and ("repeat" in node or "byte_hex" in node):
                unit = node.get("repeat", node.get("byte_hex"))
                size = len(str(unit).encode("utf-8", "surrogatepass"))
                if "byte_hex" in node:
                    size //= 2
                _units(node["count"], size, path or ".")
            if "trailing_spaces" in node:
                _units(node["trailing_spaces"], 1, f"{path}.trailing_spaces")
            stack.extend((value, f"{path}.{key}") for key, value in node.items())
        elif isinstance(node, list):
            stack.extend((value, f"{path}.{index}") for index, value in enumerate(node))
