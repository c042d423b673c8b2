"""The one verdict: a vector expectation walked against a driver's reply once.

``judge`` walks ``expected`` against the reply a single time and keeps everything every
reader needs: the one-line reason of the first difference (the check's message, exploration's
disagreement), every differing path (the report's bounded ``comparison``), every member the
driver left unanswered, and the driver's own ``unsupported`` answer if it gave one. Nothing
else walks a reply, so the verdict and the report cannot drift apart.

The rules (what is compared at all lives in ``comparison``: informative keys and the
non-normative members of a refusal's details are skipped):

* an expected refusal (top-level ``error``) is compared by its code only, and an expected
  result against any other reply kind differs as a whole;
* inside a result, an expected error object is compared by its code first; when the codes
  differ nothing beside it is compared, otherwise every other compared key beside it is;
* an object member whose value is the marker ``{"unsupported": "<reason>"}`` (where the
  expectation has anything else) is unanswered, not a difference;
* an expected order matcher (``harness.orders``) differs as a whole when it rejects the list;
* keys the reply adds are ignored; lists differ item by item, and a missing or extra item is
  a difference of its own.

The reason names the first difference in walk order (a list of another length is named at
the list, before its items), so ``problem`` is ``None`` exactly when ``differences`` is empty.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from rescind.conformance.comparison import (
    ABSENT,
    SKIP,
    Absent,
    Comparison,
    JsonPath,
    bounded_comparison,
    compared,
    pointer,
    reply_value,
    unanswered_member,
)
from rescind.conformance.harness import Reply
from rescind.conformance.harness.orders import is_matcher, violation

Found = tuple[JsonPath, Any | Absent, Any | Absent]
"""One differing path: where, the expected side and the reply's side (``ABSENT``: nothing)."""


@attrs.frozen
class Unsupported:
    """A driver's ``unsupported`` answer: to the whole request (``step`` is ``None``), or as
    the last result of a trace reply after which the driver stopped (``step``: its index).
    ``problem`` is the first difference in the steps before it: then the reply is a
    failure after all, since unsupported only stands for what the driver could not express."""

    reason: str
    step: int | None = None
    problem: str | None = None

    def describe(self, steps: Sequence[Mapping[str, Any]] = ()) -> str:
        if self.step is None:
            return f"unsupported: {self.reason}"
        call = steps[self.step].get("call") if self.step < len(steps) else None
        named = f" ({call})" if isinstance(call, str) else ""
        matched = f"; steps 1-{self.step} matched" if self.step else ""
        return f"unsupported at step {self.step + 1}{named}: {self.reason}{matched}"


@attrs.frozen
class Judgement:
    """One reply judged against one expectation (see the module docstring)."""

    expected: Mapping[str, Any]
    actual: dict[str, Any]
    """The reply as the JSON the expectation is written against (``reply_value``)."""
    differences: tuple[Found, ...]
    reasons: tuple[tuple[JsonPath, str], ...]
    """Where the walk stopped to name a difference, and the reason, in walk order."""
    unanswered: tuple[tuple[JsonPath, str], ...]
    cut: Unsupported | None = None
    """The driver's ``unsupported`` answer, if it gave one: then it, not ``problem``,
    decides (a difference before an unsupported step is in ``cut.problem``)."""

    @property
    def problem(self) -> str | None:
        """The one-line reason of the first difference (no payload bytes); ``None`` when the
        reply matches on every answered member."""
        return self.reasons[0][1] if self.reasons else None

    @property
    def unanswered_pointers(self) -> list[tuple[str, str]]:
        """Every unanswered member as (JSON pointer into ``expected``, the driver's reason)."""
        return [(pointer(path), reason) for path, reason in self.unanswered]

    def comparison(self, at: str = "") -> Comparison | None:
        """The report's bounded evidence; ``None`` when nothing differs and every member was
        answered. ``at`` says where ``expected`` sits in the vector's expectation."""
        if not self.differences and not self.unanswered:
            return None
        return bounded_comparison(
            at, self.expected, self.actual, self.differences, self.unanswered_pointers
        )


class _Walk:
    def __init__(self) -> None:
        self.differences: list[Found] = []
        self.reasons: list[tuple[JsonPath, str]] = []
        self.unanswered: list[tuple[JsonPath, str]] = []

    def differ(
        self, path: JsonPath, left: Any | Absent, right: Any | Absent, reason: str | None
    ) -> None:
        self.differences.append((path, left, right))
        if reason is not None:
            self.reasons.append((path, reason))

    def value(self, expected: Any, actual: Any, path: JsonPath) -> None:
        if is_matcher(expected):
            problem = violation(expected, actual)
            if problem is not None:
                self.differ(path, expected, actual, f"{pointer(path) or 'result'} {problem}")
        elif isinstance(expected, Mapping):
            self._object(expected, actual, path)
        elif isinstance(expected, list):
            self._array(expected, actual, path)
        elif expected != actual or type(expected) is not type(actual):
            self.differ(path, expected, actual, f"{pointer(path)} differs")

    def _object(self, expected: Mapping[str, Any], actual: Any, path: JsonPath) -> None:
        if not isinstance(actual, Mapping):
            self.differ(path, expected, actual, f"{pointer(path) or 'result'} is not an object")
            return
        if "error" in expected and "error" in actual and expected["error"] != actual["error"]:
            reason = f"{pointer(path)}: error {actual['error']} != {expected['error']}"
            self.differ((*path, "error"), expected["error"], actual["error"], reason)
            return
        for key, whole in expected.items():
            value = compared(expected, key, whole)
            if value is SKIP:
                continue
            if key not in actual:
                self.differ((*path, key), value, ABSENT, f"{pointer(path)}/{key} missing")
                continue
            marked = unanswered_member(value, actual[key])
            if marked is not None:
                self.unanswered.append(((*path, key), marked))
                continue
            self.value(value, actual[key], (*path, key))

    def _array(self, expected: list[Any], actual: Any, path: JsonPath) -> None:
        if not isinstance(actual, list):
            self.differ(path, expected, actual, f"{pointer(path)} has another length")
            return
        if len(actual) != len(expected):
            self.reasons.append((path, f"{pointer(path)} has another length"))
        for index, (left, right) in enumerate(zip(expected, actual, strict=False)):
            self.value(left, right, (*path, index))
        for index in range(len(actual), len(expected)):
            self.differ((*path, index), expected[index], ABSENT, None)
        for index in range(len(expected), len(actual)):
            self.differ((*path, index), ABSENT, actual[index], None)


def judge(expected: Mapping[str, Any], reply: Reply) -> Judgement:
    """Walk ``expected`` against ``reply`` once (see the module docstring)."""
    actual = reply_value(reply)
    walk = _Walk()
    if "error" in expected:
        code = expected["error"]
        if reply.kind != "error":
            walk.differ((), expected, actual, f"expected error {code}, got {reply.kind}")
        elif reply.error_code != code:
            reason = f"expected error {code}, got error {reply.error_code}"
            walk.differ(("error",), code, reply.error_code, reason)
    elif reply.kind != "ok":
        detail = reply.error_code or reply.unsupported or ""
        walk.differ((), expected, actual, f"expected a result, got {reply.kind} {detail}".rstrip())
    else:
        walk.value(expected, actual, ())
    return Judgement(
        expected,
        actual,
        tuple(walk.differences),
        tuple(walk.reasons),
        tuple(walk.unanswered),
        _cut(expected, reply, walk.reasons),
    )


def _cut(
    expected: Mapping[str, Any], reply: Reply, reasons: Sequence[tuple[JsonPath, str]]
) -> Unsupported | None:
    """The driver's ``unsupported`` answer in ``reply``: the whole reply, or a trace's last
    step result ``{"unsupported": reason}`` with no more steps than expected. The steps before
    such a step are judged as any steps are (their first reason becomes ``problem``);
    checkpoints are not (the trace never ended)."""
    if reply.kind == "unsupported":
        return Unsupported(str(reply.unsupported))
    if reply.ok is None:
        return None
    steps, wanted = reply.ok.get("steps"), expected.get("steps")
    if not isinstance(steps, list) or not isinstance(wanted, list) or not steps:
        return None
    last = steps[-1]
    if not isinstance(last, Mapping) or "unsupported" not in last or len(steps) > len(wanted):
        return None
    cut = Unsupported(str(last["unsupported"]), len(steps) - 1)
    for path, reason in reasons:
        index = path[1] if len(path) > 1 and path[0] == "steps" else None
        if isinstance(index, int) and index < len(steps) - 1:
            return attrs.evolve(cut, problem=f"step {index + 1}: {reason}")
    return cut
