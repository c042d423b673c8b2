"""One module per vector topic; each exposes ``build() -> VectorFile``.

``TOPIC_MODULES`` lists them; a listed module that is missing fails the export loudly.
"""

from __future__ import annotations

import importlib

from rescind.conformance.vectorformat import VectorFile

TOPIC_MODULES: tuple[str, ...] = (
    "authorizer_traces",
    "canonical_input",
    "compensation_reconcile",
    "frames",
    "grants",
    "host_keys",
    "journal_codec",
    "journal_traces",
    "ledger_codec",
    "ledger_traces",
    "saga_bindings",
    "saga_lifecycles",
    "saga_plans",
    "saga_upstream_tests",
    "session_scenarios",
    "splash_upstream_tests",
    "storage",
)


def discover() -> list[VectorFile]:
    """Build every topic, sorted by topic name (the export order)."""
    files: list[VectorFile] = []
    for name in TOPIC_MODULES:
        built = importlib.import_module(f"{__name__}.{name}").build()
        if not isinstance(built, VectorFile):
            raise TypeError(f"{name}.build() must return a VectorFile")
        files.append(built)
    topics = [vector_file.topic for vector_file in files]
    if len(set(topics)) != len(topics):
        raise ValueError(f"two vector modules build the same topic: {topics}")
    return sorted(files, key=lambda vector_file: vector_file.topic)
