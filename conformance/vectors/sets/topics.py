"""Every vector topic, declared once: its name, the module that builds its file, and its
binding, how a driver is asked the tests of each group (the export writes it into every group
of the published file: ``capability`` and ``operation`` or ``operationFromInput``, so a runner
in any language reads it from the file). ``discover`` builds the topics in export order.

To add a topic, add one ``Topic`` below (CONTRIBUTING.md, "Adding a topic"). A topic whose
cases are all rows of its table needs no module of its own: ``tabled`` builds it, each
expectation being the reference's answer to the operation its binding routes the row to."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from rescind.conformance import cases
from rescind.conformance.cases import CaseRow, CaseTable, Family
from rescind.conformance.ops import registry as operations
from rescind.conformance.vectors.format import Flag, VectorFile, VectorGroup, VectorTest
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


@attrs.frozen
class Route:
    """How the tests of one group are sent: the driver capability, and either the one
    ``operation`` every test uses or the input key naming each test's operation
    (``<capability>.<input[from_input]>``)."""

    capability: str
    operation: str | None = None
    from_input: str | None = None

    def fields(self) -> dict[str, str]:
        """What the export writes into the group."""
        if self.from_input is not None:
            return {"capability": self.capability, "operationFromInput": self.from_input}
        if self.operation is None:
            raise ValueError(f"a route of capability {self.capability} names no operation")
        return {"capability": self.capability, "operation": self.operation}

    def operation_for(self, case_input: Mapping[str, Any]) -> str:
        """The operation a test of this route with ``case_input`` is sent as."""
        if self.from_input is not None:
            return f"{self.capability}.{case_input[self.from_input]}"
        if self.operation is None:
            raise ValueError(f"a route of capability {self.capability} names no operation")
        return self.operation


@attrs.frozen
class Binding:
    """A topic's routes: per group type, else ``default``."""

    default: Route | None = None
    groups: Mapping[str, Route] = attrs.field(factory=dict)

    def route(self, group_type: str) -> Route:
        route = self.groups.get(group_type, self.default)
        if route is None:
            raise ValueError(f"no route for test group {group_type!r}")
        return route


def one(capability: str, operation: str) -> Binding:
    """Every test of the topic is one request of ``operation``."""
    return Binding(Route(capability, operation))


def by_input(capability: str, key: str) -> Binding:
    """Each test names its operation in ``input[key]``."""
    return Binding(Route(capability, from_input=key))


def by_group(capability: str, operations: Mapping[str, str]) -> Binding:
    """Each group type has its own operation."""
    return Binding(groups={kind: Route(capability, op) for kind, op in operations.items()})


@attrs.frozen
class Topic:
    name: str
    build: Callable[[], VectorFile]
    binding: Binding


def tabled(
    name: str,
    binding: Binding,
    header: Sequence[str],
    notes: Sequence[Flag] = (),
    test_schema: Mapping[str, Any] | None = None,
    table: Callable[[], CaseTable] | None = None,
    families: Mapping[str, Family] | None = None,
) -> Topic:
    """A topic that is its case table (default: ``conformance/cases/<name>.toml``) and nothing
    else: each row's expectation is what the reference answers to the operation the binding
    routes it to (``ops.registry.expected``, the answer the reference driver gives), and a
    row's stated ``result`` must agree with it. ``notes`` explain the flags the rows use;
    ``test_schema`` may give the ``input`` and ``expected`` shapes; ``families`` generate
    the rows a table names by ``family = "<name>"``; ``table`` reads another table (a
    scratch copy) instead of the shipped one."""

    def build() -> VectorFile:
        source = cases.load(name, families) if table is None else table()
        if source.topic != name:
            raise cases.CaseTableError(f"topic {name} is given the table of {source.topic}")
        groups = []
        for group in source.groups:
            try:
                route = binding.route(group.name)
            except ValueError:
                raise cases.CaseTableError(
                    f"{name}.toml group {group.name}: the topic's binding routes no operation"
                ) from None
            tests = tuple(_answered(name, row, route) for row in group.rows)
            groups.append(VectorGroup(group.name, tests, dict(group.extra.get("attributes", {}))))
        return VectorFile(name, tuple(header), tuple(notes), tuple(groups), dict(test_schema or {}))

    return Topic(name, build, binding)


def _answered(topic: str, row: CaseRow, route: Route) -> VectorTest:
    try:
        operation = route.operation_for(row.input)
        expected = operations.expected(operation, row.input)
    except (LookupError, operations.BadRequest) as error:
        # a row whose input the operation cannot read would expect bad_request: never a vector
        raise cases.CaseTableError(
            f"{topic}.toml row {row.id}: its input is not a request of the topic's operation"
            f" ({type(error).__name__})"
        ) from None
    computed = "invalid" if "error" in expected else "valid"
    return VectorTest(
        row.id,
        row.rule,
        row.comment,
        dict(row.input),
        expected,
        cases.intended(row, computed),
        row.flags,
        provenance=row.provenance,
    )


_SAGA_STEPS = ("reconcile", "case", "work-item")

_OWN: tuple[Topic, ...] = (
    Topic("authorizer-traces", authorizer_traces.build, one("authorizer", "authorizer.trace")),
    Topic("canonical-input", canonical_input.build, one("canonical", "canonical.input")),
    Topic(
        "compensation-reconcile",
        compensation_reconcile.build,
        one("session", "session.compensation-reconcile"),
    ),
    Topic(
        "frames",
        frames.build,
        by_group(
            "frames",
            {
                "message-line": "frames.message",
                "frame-tag": "frames.tag",
                "frame-trace": "frames.trace",
                "bootstrap": "frames.bootstrap",
                "bootstrap-precedence": "frames.bootstrap",
                "frame-precedence": "frames.trace",
            },
        ),
    ),
    Topic("grants", grants.build, by_input("grants", "operation")),
    Topic("host-keys", host_keys.build, by_input("host-keys", "operation")),
    Topic("journal-codec", journal_codec.build, one("journal", "journal.load")),
    Topic("journal-traces", journal_traces.build, one("journal", "journal.trace")),
    Topic("ledger-codec", ledger_codec.build, one("ledger", "ledger.load")),
    Topic("ledger-traces", ledger_traces.build, one("ledger", "ledger.trace")),
    Topic(
        "saga-bindings",
        saga_bindings.build,
        by_group(
            "saga",
            {
                "validate": "saga.validate",
                "order": "saga.order",
                "validate-precedence": "saga.validate",
            },
        ),
    ),
    Topic(
        "saga-lifecycles",
        saga_lifecycles.build,
        by_group(
            "saga",
            {kind: f"saga.{kind}" for kind in ("transition", "classify", *_SAGA_STEPS)}
            | {"work-item-precedence": "saga.work-item"},
        ),
    ),
    Topic(
        "saga-plans",
        saga_plans.build,
        by_group(
            "saga",
            {
                "plan": "saga.plan",
                "run": "saga.run",
                "declare": "saga.declare",
                "plan-precedence": "saga.plan",
                "reconcile-precedence": "saga.run",
            },
        ),
    ),
    Topic(
        "saga-upstream-tests",
        saga_upstream_tests.build,
        by_group("saga", {kind: f"saga.{kind}" for kind in ("run", "validate", *_SAGA_STEPS)}),
    ),
    Topic("session-scenarios", session_scenarios.build, by_input("session", "kind")),
    Topic(
        "storage",
        storage.build,
        by_group(
            "storage",
            {
                "storage-record-tag": "storage.tag",
                "storage-envelope-open": "storage.open",
                "storage-cas-trace": "storage.trace",
                "storage-open-precedence": "storage.open",
            },
        ),
    ),
)


def _ported(group_topics: Mapping[str, str]) -> Binding:
    """Ported upstream tests: each group is sent as its own topic sends that group type."""
    own = {topic.name: topic.binding for topic in _OWN}
    return Binding(groups={kind: own[topic].route(kind) for kind, topic in group_topics.items()})


TOPICS: tuple[Topic, ...] = (
    *_OWN,
    Topic(
        "splash-upstream-tests",
        splash_upstream_tests.build,
        _ported(splash_upstream_tests.GROUP_TOPICS),
    ),
)
"""Every topic (a test keeps it complete: one per topic module)."""

_BY_NAME = {topic.name: topic for topic in TOPICS}


def binding_of(topic: str) -> Binding:
    """The binding of a declared topic (``KeyError`` for any other)."""
    return _BY_NAME[topic].binding


def discover(topics: Sequence[Topic] = TOPICS) -> list[VectorFile]:
    """Build every topic (default: every declared one), sorted by topic name (the export
    order)."""
    if len({topic.name for topic in topics}) != len(topics):
        raise ValueError("two topics are declared with one name")
    files = []
    for topic in topics:
        vector_file = topic.build()
        if vector_file.topic != topic.name:
            raise ValueError(f"topic {topic.name} builds a file of topic {vector_file.topic}")
        files.append(vector_file)
    return sorted(files, key=lambda vector_file: vector_file.topic)
