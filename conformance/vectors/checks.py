"""Turn golden vector files into runner checks.

A topic binds to the driver through a ``TopicBinding``: the capability it needs and how one
test becomes requests. Single-operation topics send the test's ``input`` as the request
``args`` of one operation and compare the reply with ``expected`` (keys listed as
informative are not compared: they describe upstream, not the protocol). Trace topics send
a ``setup`` and then each step, comparing step by step.

A reply member whose value is the marker ``{"unsupported": "<reason>"}`` (where the
expectation has anything else) is unanswered, not a difference
(``comparison.unanswered_member``). A check with unanswered members and no difference was
answered in part: status ``unsupported``, message ``answered in part: unanswered /path
(reason), ...``, and a comparison listing them.
"""

from __future__ import annotations

import importlib.resources
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import attrs

from rescind.conformance.checks import Check, Outcome, Tier
from rescind.conformance.comparison import (
    SKIP,
    Comparison,
    answered_in_part,
    compared,
    comparison_of,
    pointer,
    reply_value,
    unanswered_member,
    unanswered_members,
)
from rescind.conformance.harness import Driver, Reply
from rescind.conformance.harness.orders import is_matcher, violation
from rescind.conformance.harness.restrictions import Gap


@attrs.frozen
class TopicBinding:
    topic: str
    capability: str
    op: str | None = None
    """The operation for single-operation topics; ``None`` for trace topics."""
    op_field: str | None = None
    """When set, each test names its operation: ``<capability>.<input[op_field]>``."""
    group_ops: Mapping[str, str] = attrs.field(factory=dict)
    """Per test-group type, the operation its tests use."""
    trace_kind: str | None = None
    """For trace topics: the ``kind`` argument of ``trace.open``."""
    group_bindings: Mapping[str, TopicBinding] = attrs.field(factory=dict)
    """For topics spanning capabilities: per test-group type, the binding (capability and
    operation) its tests use; other groups use this binding."""

    def for_group(self, group_type: str) -> TopicBinding:
        return self.group_bindings.get(group_type, self)


BINDINGS: dict[str, TopicBinding] = {
    binding.topic: binding
    for binding in (
        TopicBinding("canonical-input", "canonical", op="canonical.input"),
        TopicBinding("compensation-reconcile", "session", op="session.compensation-reconcile"),
        TopicBinding("grants", "grants", op_field="operation"),
        TopicBinding(
            "storage",
            "storage",
            group_ops={
                "storage-record-tag": "storage.tag",
                "storage-envelope-open": "storage.open",
                "storage-cas-trace": "storage.trace",
                "storage-open-precedence": "storage.open",
            },
        ),
        TopicBinding(
            "saga-plans",
            "saga",
            group_ops={
                "plan": "saga.plan",
                "run": "saga.run",
                "declare": "saga.declare",
                "plan-precedence": "saga.plan",
                "reconcile-precedence": "saga.run",
            },
        ),
        TopicBinding(
            "saga-bindings",
            "saga",
            group_ops={
                "validate": "saga.validate",
                "order": "saga.order",
                "validate-precedence": "saga.validate",
            },
        ),
        TopicBinding(
            "saga-upstream-tests",
            "saga",
            group_ops={
                name: f"saga.{name}"
                for name in ("run", "reconcile", "case", "validate", "work-item")
            },
        ),
        TopicBinding(
            "splash-upstream-tests",
            "journal",
            op="journal.trace",
            group_bindings={
                "journal": TopicBinding("splash-upstream-tests", "journal", op="journal.trace"),
                "authorizer": TopicBinding(
                    "splash-upstream-tests", "authorizer", op="authorizer.trace"
                ),
                "grants": TopicBinding("splash-upstream-tests", "grants", op_field="operation"),
                "storage-cas-trace": TopicBinding(
                    "splash-upstream-tests", "storage", op="storage.trace"
                ),
                "worker-session": TopicBinding("splash-upstream-tests", "session", op_field="kind"),
                "ledger-trace": TopicBinding("splash-upstream-tests", "ledger", op="ledger.trace"),
                "message-line": TopicBinding(
                    "splash-upstream-tests", "frames", op="frames.message"
                ),
                "bootstrap": TopicBinding("splash-upstream-tests", "frames", op="frames.bootstrap"),
                "frame-trace": TopicBinding("splash-upstream-tests", "frames", op="frames.trace"),
            },
        ),
        TopicBinding(
            "saga-lifecycles",
            "saga",
            group_ops={
                name: f"saga.{name}"
                for name in ("transition", "classify", "reconcile", "case", "work-item")
            }
            | {"work-item-precedence": "saga.work-item"},
        ),
        TopicBinding("host-keys", "host-keys", op_field="operation"),
        TopicBinding("ledger-codec", "ledger", op="ledger.load"),
        TopicBinding("ledger-traces", "ledger", op="ledger.trace"),
        TopicBinding("session-scenarios", "session", op_field="kind"),
        TopicBinding("journal-traces", "journal", op="journal.trace"),
        TopicBinding("journal-codec", "journal", op="journal.load"),
        TopicBinding("authorizer-traces", "authorizer", op="authorizer.trace"),
        TopicBinding(
            "frames",
            "frames",
            group_ops={
                "message-line": "frames.message",
                "frame-tag": "frames.tag",
                "frame-trace": "frames.trace",
                "bootstrap": "frames.bootstrap",
                "bootstrap-precedence": "frames.bootstrap",
                "frame-precedence": "frames.trace",
            },
        ),
    )
}


def load_vector_files() -> Iterator[dict[str, Any]]:
    root = importlib.resources.files("rescind.vectors")
    for entry in sorted(root.iterdir(), key=lambda item: item.name):
        if entry.name.endswith(".json") and entry.name != "registry.json":
            yield json.loads(entry.read_text(encoding="utf-8"))


def compare(
    expected: Mapping[str, Any], reply: Reply, unanswered: list[str] | None = None
) -> str | None:
    """``None`` when ``reply`` matches; otherwise a one-line reason (no payload bytes). An
    unanswered member is no difference: its pointer is appended to ``unanswered`` when given
    (up to the first difference)."""
    if "error" in expected:
        if reply.kind != "error":
            return f"expected error {expected['error']}, got {reply.kind}"
        if reply.error_code != expected["error"]:
            return f"expected error {expected['error']}, got error {reply.error_code}"
        return None
    if reply.kind != "ok":
        detail = reply.error_code or reply.unsupported or ""
        return f"expected a result, got {reply.kind} {detail}".rstrip()
    assert reply.ok is not None
    return _difference(expected, reply.ok, "", unanswered)


def _difference(
    expected: Any, actual: Any, path: str, unanswered: list[str] | None = None
) -> str | None:
    """Structural comparison: informative keys are skipped; an expected error object
    (``{"error": code, ...}``) is compared by its code first, then by every other
    non-informative key beside it (a ``state`` or ``after`` next to the code); a member
    answered with the unanswered marker is no difference (its pointer goes to ``unanswered``)."""
    if is_matcher(expected):
        problem = violation(expected, actual)
        return f"{path or 'result'} {problem}" if problem else None
    if isinstance(expected, Mapping):
        if not isinstance(actual, Mapping):
            return f"{path or 'result'} is not an object"
        if "error" in expected and "error" in actual and expected["error"] != actual["error"]:
            return f"{path}: error {actual['error']} != {expected['error']}"
        for key, whole in expected.items():
            value = compared(expected, key, whole)
            if value is SKIP:
                continue
            if key not in actual:
                return f"{path}/{key} missing"
            if unanswered_member(value, actual[key]) is not None:
                if unanswered is not None:
                    unanswered.append(path + pointer((key,)))
                continue
            problem = _difference(value, actual[key], path + pointer((key,)), unanswered)
            if problem:
                return problem
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return f"{path} has another length"
        for index, (left, right) in enumerate(zip(expected, actual, strict=True)):
            problem = _difference(left, right, f"{path}/{index}", unanswered)
            if problem:
                return problem
        return None
    return None if expected == actual and type(expected) is type(actual) else f"{path} differs"


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


def unsupported_of(expected: Mapping[str, Any], reply: Reply) -> Unsupported | None:
    """The driver's ``unsupported`` answer in ``reply``, if it gave one (see ``Unsupported``);
    ``None`` for any other reply, which ``compare`` judges. Steps before an unsupported step
    are compared as ``compare`` compares steps; checkpoints are not (the trace never ended)."""
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
    for index, (left, right) in enumerate(zip(wanted, steps[:-1], strict=False)):
        problem = _difference(left, right, f"/steps/{index}")
        if problem:
            return attrs.evolve(cut, problem=f"step {index + 1}: {problem}")
    return cut


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


def _unsupported(
    cut: Unsupported, expected: Mapping[str, Any], reply: Reply, sent: Sent
) -> Outcome:
    if cut.problem is not None:
        return _failed(cut.problem, expected, reply)
    steps = sent.args.get("steps", ())
    message = cut.describe(steps)
    members = unanswered_members(expected, reply.ok) if reply.ok is not None else []
    if members:
        message += f"; answered in part before it: unanswered {_listed(members)}"
    if cut.step is None:
        gap = Gap("request", sent.op, sent.args, expected=expected, reason=cut.reason)
    else:
        gap = Gap("step", sent.op, sent.args, step=steps[cut.step], reason=cut.reason)
    return Outcome("unsupported", message, gaps=(gap, *sent.member_gaps(members)))


def _failed(problem: str, expected: Mapping[str, Any], reply: Reply, at: str = "") -> Outcome:
    comparison = comparison_of(expected, reply, at)
    if comparison is not None and comparison.unanswered_count:
        count = comparison.unanswered_count
        problem += f" ({count} member{'' if count == 1 else 's'} unanswered)"
    return Outcome("fail", problem, comparison=comparison)


def _judged(expected: Mapping[str, Any], reply: Reply, sent: Sent, at: str = "") -> Outcome:
    """``pass``; ``fail`` on a difference; ``unsupported`` when answered in part (every
    answered member matches, some are unanswered: each is a gap)."""
    problem = compare(expected, reply)
    if problem:
        return _failed(problem, expected, reply, at)
    comparison = comparison_of(expected, reply, at)
    if comparison is None:
        return Outcome("pass")
    if comparison.differences:
        return Outcome("fail", in_part_message(comparison), comparison=comparison)
    gaps = sent.member_gaps(unanswered_members(expected, reply.ok if reply.ok is not None else {}))
    return Outcome("unsupported", in_part_message(comparison), comparison=comparison, gaps=gaps)


def _single(op: str, binding: TopicBinding, test: Mapping[str, Any]) -> Callable[[Driver], Outcome]:

    sent = Sent(op, test["input"])

    def run(driver: Driver) -> Outcome:
        reply = driver.request(op, test["input"])
        cut = unsupported_of(test["expected"], reply)
        if cut is not None:
            return _unsupported(cut, test["expected"], reply, sent)
        return _judged(test["expected"], reply, sent)

    return run


def _trace(binding: TopicBinding, test: Mapping[str, Any]) -> Callable[[Driver], Outcome]:
    def run(driver: Driver) -> Outcome:
        opened = driver.request(
            "trace.open", {"kind": binding.trace_kind, "setup": test["input"].get("setup", {})}
        )
        if opened.kind != "ok" or opened.ok is None or "handle" not in opened.ok:
            return Outcome("fail", f"trace.open failed: {opened.error_code or opened.kind}")
        handle = opened.ok["handle"]
        unanswered: list[tuple[str, str]] = []
        replies: list[dict[str, Any]] = []
        try:
            for index, (step, expected) in enumerate(
                zip(test["input"]["steps"], test["expected"]["steps"], strict=True), start=1
            ):
                reply = driver.request("trace.step", {"handle": handle, **step})
                if reply.kind == "unsupported":
                    message = Unsupported(str(reply.unsupported), index - 1).describe(
                        test["input"]["steps"]
                    )
                    if unanswered:
                        message += f"; answered in part before it: unanswered {_listed(unanswered)}"
                    return Outcome("unsupported", message)
                problem = compare(expected, reply)
                if problem:
                    message = f"step {index} ({step.get('call')}): {problem}"
                    return _failed(message, expected, reply, f"/steps/{index - 1}")
                if reply.ok is not None:
                    unanswered += [
                        (f"/steps/{index - 1}{path}", reason)
                        for path, reason in unanswered_members(expected, reply.ok)
                    ]
                replies.append(reply_value(reply))
            if not unanswered:
                return Outcome("pass")
            comparison = answered_in_part(test["expected"], {"steps": replies}, unanswered)
            return Outcome("unsupported", in_part_message(comparison), comparison=comparison)
        finally:
            driver.request("trace.close", {"handle": handle})

    return run


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


def operation_of(group: Mapping[str, Any], test: Mapping[str, Any]) -> str | None:
    """The operation a test is sent as, read from its file: the group's ``operation``, or
    ``<capability>.<input[operationFromInput]>``; ``None`` for a trace group."""
    field = group.get("operationFromInput")
    if field is not None:
        return f"{group['capability']}.{test['input'][field]}"
    operation = group.get("operation")
    return None if operation is None else str(operation)


def vector_checks() -> list[Check]:
    """One check per vector (and per informative f64 expectation), built from the files alone:
    each group names its capability and operation (``vectortool.self_describing``)."""
    checks: list[Check] = []
    for document in load_vector_files():
        for group in document["testGroups"]:
            binding = TopicBinding(
                document["topic"],
                group["capability"],
                op=group.get("operation"),
                trace_kind=group.get("traceKind"),
            )
            for test in group["tests"]:
                op = operation_of(group, test)
                runner = _single(op, binding, test) if op else _trace(binding, test)
                checks.append(
                    Check(
                        id=test["id"],
                        tier=_tier(test),
                        rule=test["rule"],
                        capability=binding.capability,
                        source=document["topic"],
                        run=runner,
                        profile=profile_of(document, group, test),
                        description=test["comment"],
                        provenance=test["provenance"]["kind"],
                    )
                )
                informative = test["expected"].get("f64")
                if binding.op and isinstance(informative, dict):
                    checks.append(_profile_check(binding, test, informative))
    return checks


def _profile_check(
    binding: TopicBinding, test: Mapping[str, Any], informative: Mapping[str, Any]
) -> Check:
    """The informative splash-v5-f64 expectation, run only for drivers declaring it."""
    assert binding.op is not None
    op = binding.op

    sent = Sent(op, {**test["input"], "profile": "splash-v5-f64"})

    def run(driver: Driver) -> Outcome:
        reply = driver.request(op, sent.args)
        cut = unsupported_of(informative, reply)
        if cut is not None:
            return _unsupported(cut, informative, reply, sent)
        return _judged(informative, reply, sent, "/f64")

    return Check(
        id=f"{test['id']}.f64",
        tier="profile",
        rule=test["rule"],
        capability=binding.capability,
        source=binding.topic,
        run=run,
        profile="splash-v5-f64",
        description=f"{test['comment']} (splash-v5-f64)",
        provenance=test["provenance"]["kind"],
    )
