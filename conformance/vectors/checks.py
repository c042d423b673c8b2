"""Turn golden vector files into runner checks.

Every test group of a published file names its ``capability`` and its operation
(``operation``, or ``operationFromInput``: the input key naming it). A check sends the test's
``input`` as the ``args`` of that one request and judges the reply against ``expected`` once
(``verdict.judge``; keys listed as informative are not compared: they describe upstream, not
the protocol). The judgement gives the outcome and the report's comparison alike.

A reply member whose value is the marker ``{"unsupported": "<reason>"}`` (where the
expectation has anything else) is unanswered, not a difference. A check with unanswered
members and no difference was answered in part: status ``unsupported``, message ``answered in
part: unanswered /path (reason), ...``, and a comparison listing them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import attrs

from rescind.conformance.comparison import Comparison
from rescind.conformance.harness import Driver
from rescind.conformance.harness.restrictions import Gap
from rescind.conformance.runner_check import Check, Outcome, Tier
from rescind.conformance.vector_files import load_vector_files
from rescind.conformance.verdict import Judgement, judge

MESSAGE_UNANSWERED = 5
"""Unanswered members a check's message names; its comparison lists more, and counts all."""


def _listed(members: Sequence[tuple[str, str]], total: int | None = None) -> str:
    shown = [f"{path} ({reason})" for path, reason in members[:MESSAGE_UNANSWERED]]
    more = (len(members) if total is None else total) - len(shown)
    return ", ".join(shown) + (f", +{more} more" if more > 0 else "")


def in_part_message(comparison: Comparison) -> str:
    """``answered in part: unanswered /path (reason), ...`` (pointers into the vector's
    ``expected``: ``at`` + path)."""
    members = [(comparison.at + m.path, m.reason) for m in comparison.unanswered]
    return f"answered in part: unanswered {_listed(members, comparison.unanswered_count)}"


@attrs.frozen
class Sent:
    """What a vector check sent: the operation and its ``args`` (the vector's input)."""

    op: str
    args: Mapping[str, Any]

    def member_gaps(self, members: Sequence[tuple[str, str]]) -> tuple[Gap, ...]:
        return tuple(
            Gap("member", self.op, self.args, pointer=path, reason=reason)
            for path, reason in members
        )


def _unsupported(judged: Judgement, sent: Sent) -> Outcome:
    cut = judged.cut
    assert cut is not None
    if cut.problem is not None:
        return _failed(cut.problem, judged)
    steps = sent.args.get("steps", ())
    message = cut.describe(steps)
    members = judged.unanswered_pointers
    if members:
        message += f"; answered in part before it: unanswered {_listed(members)}"
    if cut.step is None:
        gap = Gap("request", sent.op, sent.args, expected=judged.expected, reason=cut.reason)
    else:
        gap = Gap("step", sent.op, sent.args, step=steps[cut.step], reason=cut.reason)
    return Outcome("unsupported", message, gaps=(gap, *sent.member_gaps(members)))


def _failed(problem: str, judged: Judgement, at: str = "") -> Outcome:
    comparison = judged.comparison(at)
    if comparison is not None and comparison.unanswered_count:
        count = comparison.unanswered_count
        problem += f" ({count} member{'' if count == 1 else 's'} unanswered)"
    return Outcome("fail", problem, comparison=comparison)


def _outcome(expected: Mapping[str, Any], sent: Sent, driver: Driver, at: str = "") -> Outcome:
    """Send, judge once: ``unsupported`` when the driver said so (a difference before its
    unsupported step fails); ``fail`` on a difference; ``unsupported`` when answered in part
    (every answered member matches, some are unanswered: each is a gap); else ``pass``."""
    judged = judge(expected, driver.request(sent.op, sent.args))
    if judged.cut is not None:
        return _unsupported(judged, sent)
    if judged.problem is not None:
        return _failed(judged.problem, judged, at)
    comparison = judged.comparison(at)
    if comparison is None:
        return Outcome("pass")
    gaps = sent.member_gaps(judged.unanswered_pointers)
    return Outcome("unsupported", in_part_message(comparison), comparison=comparison, gaps=gaps)


def _single(op: str, test: Mapping[str, Any]) -> Callable[[Driver], Outcome]:
    sent = Sent(op, test["input"])
    return lambda driver: _outcome(test["expected"], sent, driver)


def _tier(test: Mapping[str, Any]) -> Tier:
    return "should" if test["result"] == "acceptable" else "must"


def profile_of(
    document: Mapping[str, Any], group: Mapping[str, Any], test: Mapping[str, Any]
) -> str:
    """The number profile a test belongs to: its own, else its group's, else its file's.
    The runner reports the check not-applicable to a driver that does not declare it."""
    for holder in (test, group, document):
        profile = holder.get("profile")
        if isinstance(profile, str):
            return profile
    raise ValueError(f"{test.get('id')}: no profile in the test, its group or its file")


def operation_of(group: Mapping[str, Any], test: Mapping[str, Any]) -> str:
    """The operation a test is sent as, read from its file: the group's ``operation``, or
    ``<capability>.<input[operationFromInput]>``."""
    field = group.get("operationFromInput")
    if field is not None:
        return f"{group['capability']}.{test['input'][field]}"
    operation = group.get("operation")
    if not isinstance(operation, str):
        raise ValueError(f"{test.get('id')}: its group names no operation")
    return operation


def vector_checks(documents: Iterable[Mapping[str, Any]] | None = None) -> list[Check]:
    """One check per vector (and per informative f64 expectation), built from the files alone
    (default: the published ones): each group names its capability and operation
    (``vectortool.self_describing``)."""
    checks: list[Check] = []
    for document in load_vector_files() if documents is None else documents:
        for group in document["testGroups"]:
            for test in group["tests"]:
                checks.append(
                    Check(
                        id=test["id"],
                        tier=_tier(test),
                        rule=test["rule"],
                        capability=group["capability"],
                        source=document["topic"],
                        run=_single(operation_of(group, test), test),
                        profile=profile_of(document, group, test),
                        description=test["comment"],
                        provenance=test["provenance"]["kind"],
                    )
                )
                informative = test["expected"].get("f64")
                if "operation" in group and isinstance(informative, dict):
                    checks.append(_profile_check(document, group, test, informative))
    return checks


def _profile_check(
    document: Mapping[str, Any],
    group: Mapping[str, Any],
    test: Mapping[str, Any],
    informative: Mapping[str, Any],
) -> Check:
    """The informative splash-v5-f64 expectation, run only for drivers declaring it."""
    sent = Sent(group["operation"], {**test["input"], "profile": "splash-v5-f64"})
    return Check(
        id=f"{test['id']}.f64",
        tier="profile",
        rule=test["rule"],
        capability=group["capability"],
        source=document["topic"],
        run=lambda driver: _outcome(informative, sent, driver, "/f64"),
        profile="splash-v5-f64",
        description=f"{test['comment']} (splash-v5-f64)",
        provenance=test["provenance"]["kind"],
    )
