"""Every published vector topic is runnable through the driver protocol."""

from __future__ import annotations

from rescind.conformance.ops import registry as operations
from rescind.conformance.vector_files import load_vector_files
from rescind.conformance.vectors.checks import BINDINGS


def test_every_vector_topic_has_a_binding() -> None:
    topics = {document["topic"] for document in load_vector_files()}
    unbound = topics - set(BINDINGS)
    assert not unbound, f"vector topics without a driver binding: {sorted(unbound)}"


def test_every_bound_operation_exists_in_the_reference() -> None:
    for binding in BINDINGS.values():
        names = set(binding.group_ops.values()) | ({binding.op} if binding.op else set())
        for name in names:
            assert operations.capability_of(name) == binding.capability, name


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
