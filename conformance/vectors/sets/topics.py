"""Every vector topic, imported explicitly; ``discover`` builds them in export order."""

from __future__ import annotations

from collections.abc import Callable

from rescind.conformance.vectors.format import VectorFile
from rescind.conformance.vectors.sets import (
    authorizer_traces,
    canonical_input,
    compensation_reconcile,
    frames,
    grants,
    host_keys,
    journal_codec,
    journal_traces,
    ledger_codec,
    ledger_traces,
    saga_bindings,
    saga_lifecycles,
    saga_plans,
    saga_upstream_tests,
    session_scenarios,
    splash_upstream_tests,
    storage,
)

TOPICS: tuple[Callable[[], VectorFile], ...] = (
    authorizer_traces.build,
    canonical_input.build,
    compensation_reconcile.build,
    frames.build,
    grants.build,
    host_keys.build,
    journal_codec.build,
    journal_traces.build,
    ledger_codec.build,
    ledger_traces.build,
    saga_bindings.build,
    saga_lifecycles.build,
    saga_plans.build,
    saga_upstream_tests.build,
    session_scenarios.build,
    splash_upstream_tests.build,
    storage.build,
)
"""The ``build`` of every topic module (a test keeps it complete)."""


def discover() -> list[VectorFile]:
    """Build every topic, sorted by topic name (the export order)."""
    files = [build() for build in TOPICS]
    topics = [vector_file.topic for vector_file in files]
    if len(set(topics)) != len(topics):
        raise ValueError(f"two vector modules build the same topic: {topics}")
    return sorted(files, key=lambda vector_file: vector_file.topic)
