"""Every published vector topic is runnable through the driver protocol."""

from __future__ import annotations

import pytest

from rescind.conformance.ops import registry as operations
from rescind.conformance.vector_files import load_vector_files
from rescind.conformance.vectors.sets.topics import TOPICS, by_group, by_input


def test_every_vector_topic_is_declared() -> None:
    topics = {document["topic"] for document in load_vector_files()}
    assert topics == {topic.name for topic in TOPICS}


def test_every_bound_operation_exists_in_the_reference() -> None:
    for topic in TOPICS:
        routes = [*topic.binding.groups.values(), topic.binding.default]
        for route in filter(None, routes):
            if route.operation is not None:
                assert operations.capability_of(route.operation) == route.capability, topic.name


def test_every_published_group_names_an_operation_of_its_capability() -> None:
    for document in load_vector_files():
        for group in document["testGroups"]:
            if "operationFromInput" in group:
                for test in group["tests"]:
                    name = f"{group['capability']}.{test['input'][group['operationFromInput']]}"
                    assert operations.capability_of(name) == group["capability"], test["id"]
            else:
                capability = operations.capability_of(group["operation"])
                assert capability == group["capability"], group["type"]


def test_capabilities_are_declared() -> None:
    assert set(operations.capabilities()) >= {
        "canonical",
        "grants",
        "storage",
        "journal",
        "authorizer",
        "frames",
        "ledger",
        "host-keys",
        "saga",
    }


def test_protocol_document_lists_every_operation() -> None:
    from pathlib import Path

    document = (Path(__file__).resolve().parents[2] / "docs" / "driver-protocol.md").read_text()
    missing = [name for name in operations.operation_names() if f"`{name}`" not in document]
    assert not missing, f"docs/driver-protocol.md does not list {missing}"


def test_a_group_its_binding_does_not_route_is_refused() -> None:
    binding = by_group("saga", {"plan": "saga.plan"})
    assert binding.route("plan").fields() == {"capability": "saga", "operation": "saga.plan"}
    with pytest.raises(ValueError, match="no route for test group 'run'"):
        binding.route("run")
    assert by_input("grants", "operation").route("any").fields() == {
        "capability": "grants",
        "operationFromInput": "operation",
    }
