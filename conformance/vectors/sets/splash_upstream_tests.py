"""Splash's own unit tests, transcribed as vectors (provenance ``upstream-test``).

One group per area; each group uses the input format and driver operation of the topic that
owns the area (journal-traces, authorizer-traces, grants, ...): ``GROUP_TOPICS`` names it,
and the topic declaration (``topics.TOPICS``) sends each group as that topic sends it. Every
vector cites the upstream test it replays (``ymote/Splash`` at the pinned commit, path and
test name); a test with several independent assertions may give several vectors, told apart
by a suffix. Each comment says what the upstream test asserts and what of it the vector does
not pin. The expected values are the reference's; a port whose answer differs from the
upstream assertion is not exported (``_splash_port_support.PortDisagrees`` stops the build).
docs/upstream-readings.md ("Port inventory", Splash) lists every upstream test of these
areas, ported or not, and why.
"""

from __future__ import annotations

from typing import Any

from rescind.conformance import cases
from rescind.conformance.cases import CaseTable
from rescind.conformance.interpreters import host_trace
from rescind.conformance.interpreters.frame_lines import run_bootstrap, run_message
from rescind.conformance.interpreters.frame_trace import run_frame_trace
from rescind.conformance.interpreters.grant_ops import expected_of
from rescind.conformance.vectors.format import VectorFile
from rescind.conformance.vectors.sets._splash_port_support import (
    raising,
    single_port,
    storage_port,
    trace_port,
    worker_port,
)
from rescind.conformance.vectors.sets._tabled import RowToVector, tabled_groups
from rescind.conformance.vectors.sets._trace_cases import trace_builder, trace_vector

TOPIC = "splash-upstream-tests"

GROUP_TOPICS: dict[str, str] = {
    "journal": "journal-traces",
    "authorizer": "authorizer-traces",
    "grants": "grants",
    "storage-cas-trace": "storage",
    "worker-session": "session-scenarios",
    "ledger-trace": "ledger-traces",
    "message-line": "frames",
    "bootstrap": "frames",
    "frame-trace": "frames",
}
"""Each group's type and the topic whose input format and driver operation it uses."""

_SCHEMA: dict[str, Any] = {
    "input": {"type": "object", "description": "the input format of the group's own topic"},
    "expected": {"type": "object"},
}


HOST_SETUP_KEYS = ("engines", "plans", "sessions", "grants", "verifiers", "ledgers")
"""A ledger trace's setup parts, in the order a vector lists them."""

TABLED: dict[str, RowToVector] = {
    "journal": trace_port(trace_vector),
    "authorizer": trace_port(trace_vector),
    "grants": single_port(expected_of),
    "storage-cas-trace": storage_port,
    "worker-session": worker_port,
    "message-line": single_port(raising(run_message)),
    "bootstrap": single_port(raising(run_bootstrap)),
    "frame-trace": trace_port(trace_builder(run_frame_trace, ("authenticators",))),
    "ledger-trace": trace_port(trace_builder(host_trace.run_trace, HOST_SETUP_KEYS)),
}
"""The groups whose ports are rows of ``conformance/cases/splash-upstream-tests.toml``."""


def build(source: CaseTable | None = None) -> VectorFile:
    tabled = {group.type: group for group in tabled_groups(source or cases.load(TOPIC), TABLED)}
    groups = (
        tabled["journal"],
        tabled["authorizer"],
        tabled["grants"],
        tabled["storage-cas-trace"],
        tabled["worker-session"],
        tabled["ledger-trace"],
        tabled["message-line"],
        tabled["bootstrap"],
        tabled["frame-trace"],
    )
    return VectorFile(
        topic=TOPIC,
        header=(
            "Splash's own unit tests transcribed as vectors, each citing its upstream test.",
            "Each group uses the input format and driver operation of another topic:",
            *(f"  {group}: as topic {topic}" for group, topic in GROUP_TOPICS.items()),
            "docs/upstream-readings.md lists every upstream test of these areas and why some",
            "were not ported.",
        ),
        notes=(),
        groups=groups,
        test_schema=_SCHEMA,
    )
