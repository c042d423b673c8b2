"""What a failing vector check shows: the expectation, the driver's reply and where they differ.

Both values are kept bounded so that a report never carries a large payload: a string longer
than ``MAX_STRING`` characters keeps a prefix and its length (``"abc…(5000 chars)"``), a value
whose compact JSON passes ``MAX_VALUE_BYTES`` keeps what fits and marks the rest, and at most
``MAX_DIFFERENCES`` differing paths are listed. The request is never kept: only the vector's
published expectation and the reply.

The differences are those of the one walk of expectation against reply (``verdict.judge``,
which also gives the check its verdict); this module says what is compared at all
(``compared``: informative keys and non-normative details are not) and keeps the evidence
bounded. Each listed ``path`` is an RFC 6901 JSON pointer into ``expected`` and ``actual``, and
``at`` says where ``expected`` sits in the vector's ``expected`` (``/f64`` for the informative
profile answer).

A member of the reply whose value is exactly ``{"unsupported": "<reason>"}`` (one key, a string
value), where the expectation has anything else, is *unanswered*: the driver says it cannot
answer that member (upstream keeps it private, say). It is not a difference; it is listed in
``unanswered`` (at most ``MAX_UNANSWERED``, the rest counted). Only an object member's value
counts: the whole reply ``{"unsupported": ...}`` is the reply kind, and an array item such as
a trace's step result ``{"unsupported": ...}`` is the step-level contract (the driver stops).
"""

from __future__ import annotations

import enum
import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

import attrs

from rescind.conformance.error_catalogue import compared_details
from rescind.conformance.harness import Reply

# The string bounds live in drivertext (one place for every driver string); re-exported.
from rescind.conformance.harness.text import MAX_STRING as MAX_STRING
from rescind.conformance.harness.text import STRING_PREFIX as STRING_PREFIX
from rescind.conformance.harness.text import short as _short_string

MAX_VALUE_BYTES: Final = 4096
"""The compact JSON of each whole value stays within this many UTF-8 bytes."""
MAX_DIFFERENCE_BYTES: Final = 256
"""The compact JSON of each side of one difference stays within this many bytes."""
MAX_DIFFERENCES: Final = 16
MAX_UNANSWERED: Final = 256
MAX_DEPTH: Final = 24
_MARKER_ROOM = 48
"""Bytes kept free in a container for the marker that says what was left out."""


class Absent(enum.Enum):
    """One side of a difference has nothing at that path (a missing key or list item)."""

    ABSENT = "absent"


ABSENT: Final = Absent.ABSENT

INFORMATIVE_KEYS: Final = frozenset({"reason", "f64", "note", "findings", "upstreamMessage"})
"""Expectation keys that describe upstream, not the protocol: never compared."""
DETAILS: Final = "details"
"""A refusal's details (beside its ``error`` code): only their normative members are compared
(``error_catalogue``); the others are informative."""
DETAILS_COMPARED: Final = (
    "in an expected refusal {error, details}, only the normative members of details are "
    "compared: per error code, conformance/schemas/error-details.json (installed as "
    "rescind/conformance/schemas/error-details.json); the others are informative"
)


class _Skip(enum.Enum):
    SKIP = "skip"


SKIP: Final = _Skip.SKIP


def compared(parent: Mapping[str, Any], key: str, value: Any) -> Any:
    """What of the expectation ``parent[key]`` is compared: ``SKIP`` for an informative key or
    for details with no normative member; of a refusal's details, the normative members."""
    if key == DETAILS:
        code = parent.get("error")
        if not isinstance(code, str) or not isinstance(value, Mapping):
            return SKIP
        kept = compared_details(code, value)
        return kept if kept else SKIP
    return SKIP if key in INFORMATIVE_KEYS else value


def unanswered_reason(value: Any) -> str | None:
    """The reason of an unanswered member's marker ``{"unsupported": "<reason>"}`` (exactly
    one key, a string value); ``None`` for any other value."""
    if isinstance(value, Mapping) and len(value) == 1:
        reason = value.get("unsupported")
        if isinstance(reason, str):
            return reason
    return None


def unanswered_member(expected: Any, actual: Any) -> str | None:
    """The reason when ``actual`` (an object member's value) is the unanswered marker and
    ``expected`` is something else: not a difference (see the module docstring)."""
    reason = unanswered_reason(actual)
    return reason if reason is not None and expected != actual else None


def pointer(path: Sequence[str | int]) -> str:
    """An RFC 6901 JSON pointer."""
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in path)


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _compact(value: Any) -> str:
    """Compact JSON; a lone surrogate (valid JSON, not encodable as UTF-8) is written as its
    JSON escape, so the text always encodes and still reads back to the same value."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


compact = _compact
"""Public name: reports show bounded values as this compact JSON."""


def _size(value: Any) -> int:
    return len(_compact(value).encode("utf-8"))


class _Bounder:
    """Copies a value into plain JSON within a running byte estimate, noting whether anything
    was cut. The estimate can be passed by a little (closing markers of nested containers);
    ``bounded`` measures the result and retries with less."""

    def __init__(self, budget: int) -> None:
        self.left = budget
        self.cut = False

    def scalar(self, value: Any) -> Any:
        if isinstance(value, str):
            text, cut = _short_string(value)
            self.cut |= cut
            return text
        if value is None or isinstance(value, bool):
            return value
        if isinstance(value, int):
            if value.bit_length() > 256:
                self.cut = True
                return f"…(integer of {value.bit_length()} bits)"
            return value
        if isinstance(value, float) and math.isfinite(value):
            return value
        # Not JSON (a NaN, or an in-process adapter's own object): say what it was, no more.
        self.cut = True
        return f"…({type(value).__name__})"

    def copy(self, value: Any, depth: int) -> Any:
        if isinstance(value, Mapping):
            if depth >= MAX_DEPTH:
                return self._spend(f"…(object of {len(value)} members)")
            return self._object(value, depth)
        if isinstance(value, list | tuple):
            if depth >= MAX_DEPTH:
                return self._spend(f"…(array of {len(value)} items)")
            return self._array(value, depth)
        copied = self.scalar(value)
        self.left -= _size(copied) + 1
        return copied

    def _spend(self, marker: str) -> str:
        self.cut = True
        self.left -= _size(marker) + 1
        return marker

    def _object(self, value: Mapping[Any, Any], depth: int) -> dict[str, Any]:
        copied: dict[str, Any] = {}
        self.left -= 2
        for index, (key, member) in enumerate(value.items()):
            name, cut = _short_string(str(key))
            if self.left - _size(name) <= _MARKER_ROOM:
                copied["…"] = self._spend(f"({len(value) - index} more members)")
                break
            if name in copied:
                # Two long keys with one prefix and length: the second is left out.
                self.cut = True
                continue
            self.cut |= cut
            self.left -= _size(name) + 1
            copied[name] = self.copy(member, depth + 1)
        return copied

    def _array(self, value: Sequence[Any], depth: int) -> list[Any]:
        copied: list[Any] = []
        self.left -= 2
        for index, item in enumerate(value):
            if self.left <= _MARKER_ROOM:
                copied.append(self._spend(f"…({len(value) - index} more items)"))
                break
            copied.append(self.copy(item, depth + 1))
        return copied


def bounded(value: Any, budget: int = MAX_VALUE_BYTES) -> tuple[Any, bool]:
    """A plain JSON copy of ``value`` whose compact UTF-8 JSON is at most ``budget`` bytes
    (``budget`` at least 64), and whether anything was left out."""
    estimate = budget
    while estimate >= _MARKER_ROOM:
        bounder = _Bounder(estimate)
        copied = bounder.copy(value, 0)
        if _size(copied) <= budget:
            return copied, bounder.cut
        estimate = estimate * 3 // 4
    return f"…({type(value).__name__})", True


def _bounded_side(value: Any | Absent) -> tuple[str | None, bool]:
    if value is ABSENT:
        return None, False
    copied, cut = bounded(value, MAX_DIFFERENCE_BYTES)
    return _compact(copied), cut


@attrs.frozen
class Difference:
    """One differing path: each side as bounded compact JSON, ``None`` when absent there."""

    path: str
    expected: str | None
    actual: str | None

    def to_json(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"path": self.path}
        if self.expected is not None:
            entry["expected"] = json.loads(self.expected)
        if self.actual is not None:
            entry["actual"] = json.loads(self.actual)
        return entry


@attrs.frozen
class Unanswered:
    """A member the driver marked unanswerable: its pointer (into ``expected``, like a
    difference's path) and the driver's reason, shortened like any long string."""

    path: str
    reason: str

    def to_json(self) -> dict[str, str]:
        return {"path": self.path, "reason": self.reason}


def _unanswered(path: str, reason: str) -> tuple[Unanswered, bool]:
    short_path, cut_p = _short_string(path)
    short_reason, cut_r = _short_string(reason)
    return Unanswered(short_path, short_reason), cut_p or cut_r


@attrs.frozen
class Comparison:
    """A failing vector check's bounded evidence (the values are kept as compact JSON text so
    the object stays immutable and hashable, like the outcome that holds it)."""

    at: str
    expected: str
    actual: str
    differences: tuple[Difference, ...]
    omitted: int = 0
    """Differing paths beyond ``MAX_DIFFERENCES``, not listed."""
    truncated: bool = False
    """Some value or difference was shortened or cut to stay within the bounds."""
    unanswered: tuple[Unanswered, ...] = ()
    """Members the driver marked ``{"unsupported": reason}``: not differences. A check whose
    comparison has these and no differences was answered in part (status ``unsupported``)."""
    omitted_unanswered: int = 0
    """Unanswered members beyond ``MAX_UNANSWERED``, not listed."""

    @property
    def unanswered_count(self) -> int:
        return len(self.unanswered) + self.omitted_unanswered

    def to_json(self) -> dict[str, Any]:
        return {
            "at": self.at,
            "expected": json.loads(self.expected),
            "actual": json.loads(self.actual),
            "differences": [difference.to_json() for difference in self.differences],
            "omittedDifferences": self.omitted,
            "unanswered": [member.to_json() for member in self.unanswered],
            "omittedUnanswered": self.omitted_unanswered,
            "truncated": self.truncated,
        }

    @classmethod
    def from_json(cls, document: object) -> Comparison:
        """Read back from a JSON report, bounding it again: a report file is input too."""
        if not isinstance(document, Mapping):
            raise ValueError("a comparison is an object")
        at = document.get("at")
        entries = document.get("differences")
        if not isinstance(at, str) or not isinstance(entries, list):
            raise ValueError("a comparison has a string 'at' and a 'differences' list")
        if "expected" not in document or "actual" not in document:
            raise ValueError("a comparison has 'expected' and 'actual'")
        omitted = document.get("omittedDifferences", 0)
        if not isinstance(omitted, int) or isinstance(omitted, bool) or omitted < 0:
            raise ValueError("'omittedDifferences' is a count")
        differences: list[Difference] = []
        cut = bool(document.get("truncated", False))
        for entry in entries[:MAX_DIFFERENCES]:
            if not isinstance(entry, Mapping) or not isinstance(entry.get("path"), str):
                raise ValueError("each difference is an object with a string 'path'")
            expected, cut_e = _bounded_side(entry.get("expected", ABSENT))
            actual, cut_a = _bounded_side(entry.get("actual", ABSENT))
            path, cut_p = _short_string(entry["path"])
            cut |= cut_e or cut_a or cut_p
            differences.append(Difference(path, expected, actual))
        unanswered_entries = document.get("unanswered", [])
        omitted_unanswered = document.get("omittedUnanswered", 0)
        if not isinstance(unanswered_entries, list):
            raise ValueError("'unanswered' is a list")
        if (
            not isinstance(omitted_unanswered, int)
            or isinstance(omitted_unanswered, bool)
            or omitted_unanswered < 0
        ):
            raise ValueError("'omittedUnanswered' is a count")
        unanswered: list[Unanswered] = []
        for entry in unanswered_entries[:MAX_UNANSWERED]:
            if not isinstance(entry, Mapping) or not all(
                isinstance(entry.get(key), str) for key in ("path", "reason")
            ):
                raise ValueError("each unanswered member has a string 'path' and 'reason'")
            member, cut_u = _unanswered(entry["path"], entry["reason"])
            cut |= cut_u
            unanswered.append(member)
        expected_value, cut_e = bounded(document["expected"])
        actual_value, cut_a = bounded(document["actual"])
        at_text, cut_at = _short_string(at)
        return cls(
            at=at_text,
            expected=_compact(expected_value),
            actual=_compact(actual_value),
            differences=tuple(differences),
            omitted=omitted + max(0, len(entries) - MAX_DIFFERENCES),
            truncated=cut or cut_e or cut_a or cut_at,
            unanswered=tuple(unanswered),
            omitted_unanswered=omitted_unanswered
            + max(0, len(unanswered_entries) - MAX_UNANSWERED),
        )


def reply_value(reply: Reply) -> dict[str, Any]:
    """The reply as the JSON the vector's expectation is written against."""
    if reply.kind == "ok":
        return dict(reply.ok or {})
    if reply.kind == "error":
        value: dict[str, Any] = {"error": reply.error_code}
        if reply.definite is not None:
            value["definite"] = reply.definite
        return value
    return {"unsupported": reply.unsupported}


JsonPath = tuple[str | int, ...]


def bounded_comparison(
    at: str,
    expected: Any,
    actual: Any,
    found: Sequence[tuple[JsonPath, Any | Absent, Any | Absent]],
    unanswered: Sequence[tuple[str, str]],
) -> Comparison:
    """The bounded evidence of one walk (``verdict.judge``): its differing paths (the first
    ``MAX_DIFFERENCES`` listed, the rest counted) and its unanswered members (pointers into
    ``expected``, the first ``MAX_UNANSWERED`` listed)."""
    listed: list[Difference] = []
    cut = False
    for path, left, right in found[:MAX_DIFFERENCES]:
        expected_side, cut_e = _bounded_side(left)
        actual_side, cut_a = _bounded_side(right)
        text, cut_p = _short_string(pointer(path))
        cut |= cut_e or cut_a or cut_p
        listed.append(Difference(text, expected_side, actual_side))
    members = []
    for where, reason in unanswered[:MAX_UNANSWERED]:
        member, cut_u = _unanswered(where, reason)
        cut |= cut_u
        members.append(member)
    expected_value, cut_e = bounded(expected)
    actual_value, cut_a = bounded(actual)
    return Comparison(
        at=at,
        expected=_compact(expected_value),
        actual=_compact(actual_value),
        differences=tuple(listed),
        omitted=len(found) - len(listed),
        truncated=cut or cut_e or cut_a,
        unanswered=tuple(members),
        omitted_unanswered=max(0, len(unanswered) - MAX_UNANSWERED),
    )
