"""Turn golden vector files into runner checks.

A topic binds to the driver through a ``TopicBinding``: the capability it needs and how one
test becomes requests. Single-operation topics send the test's ``input`` as the request
``args`` of one operation and compare the reply with ``expected`` (keys listed as
informative are not compared: they describe upstream, not the protocol). Trace topics send
a ``setup`` and then each step, comparing step by step.
"""

from __future__ import annotations

import importlib.resources
import json
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import attrs
from rescind.conformance.checks import Check, Outcome, Tier
from rescind.conformance.harness import Driver, Reply

INFORMATIVE_KEYS = frozenset({"reason", "f64", "note", "upstreamMessage"})


@attrs.frozen
class TopicBinding:
    topic: str
    capability: str
    op: str | None = None
    """The operation for single-operation topics; ``None`` for trace topics."""
    op_field: str | None = None
    """When set, each test names its operation: ``<capability>.<input[op_field]>``."""
    trace_kind: str | None = None
    """For trace topics: the ``kind`` argument of ``trace.open``."""


BINDINGS: dict[str, TopicBinding] = {
    binding.topic: binding
    for binding in (
        TopicBinding("canonical-input", "canonical", op="canonical.input"),
        TopicBinding("grants", "grants", op_field="operation"),
    )
}


def register_binding(binding: TopicBinding) -> None:
    BINDINGS[binding.topic] = binding


def load_vector_files() -> Iterator[dict[str, Any]]:
    root = importlib.resources.files("rescind.vectors")
    for entry in sorted(root.iterdir(), key=lambda item: item.name):
        if entry.name.endswith(".json") and entry.name != "registry.json":
            yield json.loads(entry.read_text(encoding="utf-8"))


def compare(expected: Mapping[str, Any], reply: Reply) -> str | None:
    """``None`` when ``reply`` matches; otherwise a one-line reason (no payload bytes)."""
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
    for key, value in expected.items():
        if key in INFORMATIVE_KEYS:
            continue
        if key not in reply.ok:
            return f"result lacks {key}"
        if reply.ok[key] != value:
            return f"{key} differs"
    return None


def _single(binding: TopicBinding, test: Mapping[str, Any]) -> Callable[[Driver], Outcome]:
    op = binding.op or f"{binding.capability}.{test['input'][binding.op_field or '']}"

    def run(driver: Driver) -> Outcome:
        reply = driver.request(op, test["input"])
        if reply.kind == "unsupported":
            return Outcome("fail", f"driver declared {binding.capability} but not {op}")
        problem = compare(test["expected"], reply)
        return Outcome("fail", problem) if problem else Outcome("pass")

    return run


def _trace(binding: TopicBinding, test: Mapping[str, Any]) -> Callable[[Driver], Outcome]:
    def run(driver: Driver) -> Outcome:
        opened = driver.request(
            "trace.open", {"kind": binding.trace_kind, "setup": test["input"].get("setup", {})}
        )
        if opened.kind != "ok" or opened.ok is None or "handle" not in opened.ok:
            return Outcome("fail", f"trace.open failed: {opened.error_code or opened.kind}")
        handle = opened.ok["handle"]
        try:
            for index, (step, expected) in enumerate(
                zip(test["input"]["steps"], test["expected"]["steps"], strict=True), start=1
            ):
                reply = driver.request("trace.step", {"handle": handle, **step})
                problem = compare(expected, reply)
                if problem:
                    return Outcome("fail", f"step {index} ({step.get('call')}): {problem}")
            return Outcome("pass")
        finally:
            driver.request("trace.close", {"handle": handle})

    return run


def _tier(test: Mapping[str, Any]) -> Tier:
    return "should" if test["result"] == "acceptable" else "must"


def vector_checks() -> list[Check]:
    checks: list[Check] = []
    for document in load_vector_files():
        binding = BINDINGS.get(document["topic"])
        if binding is None:
            continue
        for group in document["testGroups"]:
            for test in group["tests"]:
                single = binding.op or binding.op_field
                runner = _single(binding, test) if single else _trace(binding, test)
                checks.append(
                    Check(
                        id=test["id"],
                        tier=_tier(test),
                        rule=test["rule"],
                        capability=binding.capability,
                        source=document["topic"],
                        run=runner,
                        description=test["comment"],
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

    def run(driver: Driver) -> Outcome:
        reply = driver.request(op, {**test["input"], "profile": "splash-v5-f64"})
        problem = compare(informative, reply)
        return Outcome("fail", problem) if problem else Outcome("pass")

    return Check(
        id=f"{test['id']}.f64",
        tier="profile",
        rule=test["rule"],
        capability=binding.capability,
        source=binding.topic,
        run=run,
        profile="splash-v5-f64",
        description=f"{test['comment']} (splash-v5-f64)",
    )
