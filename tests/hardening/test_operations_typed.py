"""In process, every operation answers unreadable args with a typed error, as the driver does.

The pytest plugin and in-process adapters call ``ops.registry.run`` directly, so a missing or
mistyped argument must come back as ``bad_request`` there too, not as a KeyError or TypeError.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import random
from collections.abc import Iterator
from typing import Any

import pytest

from rescind.conformance.driver import serve
from rescind.conformance.ops import registry as operations
from rescind.conformance.vector_files import load_vector_files
from rescind.conformance.vectors.checks import operation_of
from rescind.reference.errors import RescindError

WRONG: tuple[Any, ...] = (None, 1, -1, "x", "", [], {}, True, 1.5, [1], {"a": 1}, 2**70)


def _sample_inputs() -> dict[str, list[dict[str, Any]]]:
    """One valid-shaped input per single-operation vector, by operation name."""
    samples: dict[str, list[dict[str, Any]]] = {}
    for document in load_vector_files():
        for group in document["testGroups"]:
            for test in group["tests"]:
                op = operation_of(group, test)
                if len(json.dumps(test["input"])) < 4000:
                    samples.setdefault(op, []).append(test["input"])
    return samples


SAMPLES = _sample_inputs()


def _mutated(value: Any, rng: random.Random) -> Any:
    """``value`` with one member somewhere deleted or replaced by a value of another type."""
    if isinstance(value, dict) and value and rng.random() < 0.8:
        changed = dict(value)
        key = rng.choice(sorted(changed))
        if rng.random() < 0.2:
            del changed[key]
        else:
            changed[key] = _mutated(changed[key], rng)
        return changed
    if isinstance(value, list) and value and rng.random() < 0.8:
        changed_list = list(value)
        index = rng.randrange(len(changed_list))
        changed_list[index] = _mutated(changed_list[index], rng)
        return changed_list
    return rng.choice(WRONG)


def _cases(op: str, count: int) -> Iterator[dict[str, Any]]:
    rng = random.Random(op)
    bases = SAMPLES.get(op, [{}])
    yield {}
    for _ in range(count):
        args = _mutated(copy.deepcopy(rng.choice(bases)), rng)
        yield args if isinstance(args, dict) else {"value": args}


@pytest.mark.parametrize("op", operations.operation_names())
def test_unreadable_args_are_a_typed_error(op: str) -> None:
    # Anything but a RescindError (bad_request, or the operation's own refusal of a readable
    # request) escapes the suppression and fails the test.
    for args in _cases(op, 40):
        with contextlib.suppress(RescindError):
            operations.run(op, args)


def test_a_missing_argument_is_bad_request() -> None:
    with pytest.raises(operations.BadRequest) as caught:
        operations.run("journal.load", {})
    assert caught.value.code == "bad_request"
    assert caught.value.details["cause_kind"] == "keyerror"


def test_a_mistyped_argument_is_bad_request() -> None:
    with pytest.raises(operations.BadRequest):
        operations.run("ledger.load", {"text": ["not", "a", "string"]})


def test_vectors_never_expect_bad_request() -> None:
    with pytest.raises(operations.BadRequest):
        operations.expected("canonical.input", {"format": "json"})


def test_saga_order_reports_a_refused_binding_set_by_its_code() -> None:
    refused = next(
        test
        for document in load_vector_files()
        if document["topic"] == "saga-bindings"
        for group in document["testGroups"]
        for test in group["tests"]
        if "error" in test["expected"]
    )
    with pytest.raises(RescindError) as caught:
        operations.run("saga.order", refused["input"])
    assert caught.value.code == refused["expected"]["error"]


def test_the_reference_driver_survives_a_deeply_nested_line() -> None:
    lines = ["[" * 100_000 + "\n", json.dumps({"id": 1, "op": "bye", "args": {}}) + "\n"]
    sink = io.StringIO()
    assert serve(io.StringIO("".join(lines)), sink) == 0
    replies = [json.loads(line) for line in sink.getvalue().splitlines()]
    assert replies[0]["error"]["code"] == "bad_request"
    assert replies[1] == {"id": 1, "ok": {}}
