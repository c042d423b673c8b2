"""Which vectors a driver declaring one restriction must still answer: the vector's request and
every step of it lie outside the shapes the restriction removes (members never remove a
vector: the other members are still compared)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from rescind.conformance.harness.restrictions import Gap, named
from rescind.conformance.vector_files import load_vector_files
from rescind.conformance.vectors.checks import operation_of


def vectors() -> Iterator[tuple[str, str, Mapping[str, Any]]]:
    """(capability, operation, test) for every vector sent as one request."""
    for document in load_vector_files():
        for group in document["testGroups"]:
            for test in group["tests"]:
                op = operation_of(group, test)
                if op is not None:
                    yield group["capability"], op, test


def removed(name: str, op: str, test: Mapping[str, Any]) -> bool:
    args = test["input"]
    whole = Gap("request", op, args, expected=test["expected"])
    gaps = [whole] + [
        Gap("step", op, args, step=step)
        for step in args.get("steps", ())
        if isinstance(step, Mapping)
    ]
    return any(r.excuses(gap) for r in named(name) for gap in gaps)
