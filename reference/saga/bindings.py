"""CaseHub bindings as far as compensation is concerned, and their build-time validation.

A binding may name the binding that undoes it (``compensate``, upstream ``compensateRef``) and
may be a compensation-only binding (``compensation: true``), which never runs in forward flow.
``produces``/``consumes`` channel names give the dependency edges used for ordering.

Validation (CaseHub's CV1..CV5, docs/spec/saga.md SG-50..SG-54):

* errors: the ``compensate`` target does not exist; a binding names itself; the ``compensate``
  references form a cycle (reported once, with the cycle's members in order);
* error: a compensation-only binding that no ``compensate`` names (an orphan); CaseHub's
  validator returns it in the same list as the other errors and its loader refuses the set;
* information: "gaps", ordinary bindings with no ``compensate`` at all.
"""

from __future__ import annotations

import enum
from typing import Any

import attrs

from rescind.reference.saga.errors import (
    BindingInvalid,
    CompensationCycle,
    MissingCompensationTarget,
    OrphanCompensationBinding,
    SelfCompensatingBinding,
)
from rescind.reference.saga.identifiers import check_identifier, check_identifiers
from rescind.reference.saga.order import dfs_reverse_postorder, reaches


class TargetKind(enum.Enum):
    CAPABILITY = "capability"
    JUDGMENT = "judgment"
    SUB_CASE = "sub_case"


@attrs.frozen
class Binding:
    name: str = attrs.field(validator=check_identifier)
    target: TargetKind = TargetKind.CAPABILITY
    capability: str = ""
    worker: str = ""
    compensate: str | None = None
    compensation: bool = False
    produces: tuple[str, ...] = attrs.field(default=(), validator=check_identifiers)
    consumes: tuple[str, ...] = attrs.field(default=(), validator=check_identifiers)


@attrs.frozen
class CaseDefinition:
    bindings: tuple[Binding, ...]
    workers: tuple[str, ...] = ()

    def binding(self, name: str) -> Binding | None:
        for binding in self.bindings:
            if binding.name == name:
                return binding
        return None


class Severity(enum.Enum):
    ERROR = "error"
    INFO = "info"


class FindingRule(enum.Enum):
    MISSING_TARGET = "saga_binding_missing_target"
    SELF_REFERENCE = "saga_binding_self_reference"
    CYCLE = "saga_binding_cycle"
    ORPHAN_COMPENSATION = "saga_binding_orphan"
    GAP = "compensation_gap"


SEVERITY = {
    FindingRule.MISSING_TARGET: Severity.ERROR,
    FindingRule.SELF_REFERENCE: Severity.ERROR,
    FindingRule.CYCLE: Severity.ERROR,
    FindingRule.ORPHAN_COMPENSATION: Severity.ERROR,
    FindingRule.GAP: Severity.INFO,
}

_ERRORS: dict[FindingRule, type[BindingInvalid]] = {
    FindingRule.MISSING_TARGET: MissingCompensationTarget,
    FindingRule.SELF_REFERENCE: SelfCompensatingBinding,
    FindingRule.CYCLE: CompensationCycle,
    FindingRule.ORPHAN_COMPENSATION: OrphanCompensationBinding,
}


@attrs.frozen
class Finding:
    rule: FindingRule
    binding: str
    names: tuple[str, ...] = ()
    """The missing target, or the cycle's members in reference order."""

    @property
    def severity(self) -> Severity:
        return SEVERITY[self.rule]

    def to_json(self) -> dict[str, Any]:
        return {
            "severity": self.severity.value,
            "rule": self.rule.value,
            "binding": self.binding,
            "names": list(self.names),
        }


@attrs.frozen
class BindingReport:
    findings: tuple[Finding, ...]

    def of(self, severity: Severity) -> tuple[Finding, ...]:
        return tuple(finding for finding in self.findings if finding.severity is severity)

    @property
    def valid(self) -> bool:
        return not self.of(Severity.ERROR)

    def raise_first_error(self) -> None:
        """What CaseHub's loader does: refuse the definition on the first error."""
        for finding in self.of(Severity.ERROR):
            detail = " ".join(finding.names)
            raise _ERRORS[finding.rule](binding=finding.binding, names=detail)


def _cycles(definition: CaseDefinition) -> list[tuple[str, ...]]:
    """Each ``compensate`` cycle of length >= 2 once, rotated to start at its smallest name."""
    target = {b.name: b.compensate for b in definition.bindings if b.compensate is not None}
    found: dict[tuple[str, ...], None] = {}
    for start in target:
        path = [start]
        while True:
            following = target.get(path[-1])
            if following is None or following == path[-1]:
                break
            if following in path:
                cycle = path[path.index(following) :]
                if len(cycle) >= 2:
                    pivot = cycle.index(min(cycle))
                    found.setdefault(tuple(cycle[pivot:] + cycle[:pivot]), None)
                break
            path.append(following)
    return list(found)


def validate_bindings(definition: CaseDefinition) -> BindingReport:
    findings: list[Finding] = []
    names = [binding.name for binding in definition.bindings]
    referenced = {b.compensate for b in definition.bindings if b.compensate is not None}
    for binding in definition.bindings:
        if binding.compensate is None:
            continue
        if binding.compensate == binding.name:
            findings.append(Finding(FindingRule.SELF_REFERENCE, binding.name, (binding.name,)))
        elif binding.compensate not in names:
            findings.append(
                Finding(FindingRule.MISSING_TARGET, binding.name, (binding.compensate,))
            )
    for cycle in _cycles(definition):
        findings.append(Finding(FindingRule.CYCLE, cycle[0], cycle))
    for binding in definition.bindings:
        if binding.compensation and binding.name not in referenced:
            findings.append(Finding(FindingRule.ORPHAN_COMPENSATION, binding.name))
        if not binding.compensation and binding.compensate is None:
            findings.append(Finding(FindingRule.GAP, binding.name))
    return BindingReport(tuple(findings))


def load_definition(definition: CaseDefinition) -> CaseDefinition:
    """Validate like CaseHub's loader: errors raise, gaps do not."""
    validate_bindings(definition).raise_first_error()
    return definition


def dependency_graph(bindings: tuple[Binding, ...]) -> dict[str, tuple[str, ...]]:
    """binding -> the bindings it needs: X needs Y when a channel X consumes is one Y produces.
    Channel names compare by exact string equality."""
    graph: dict[str, tuple[str, ...]] = {}
    for consumer in bindings:
        graph[consumer.name] = tuple(
            producer.name
            for producer in bindings
            if producer.name != consumer.name
            and any(channel in producer.produces for channel in consumer.consumes)
        )
    return graph


@attrs.frozen
class CompensationOrder:
    """How the compensable bindings would be undone if all had completed, in file order."""

    undo: tuple[str, ...]
    """One order CaseHub's coordinator may take (the DFS in file order)."""
    before: tuple[tuple[str, str], ...]
    """(x, y): every order CaseHub may take undoes x before y (SG-100); any order respecting
    these pairs is one it may take."""

    def to_json(self) -> dict[str, Any]:
        return {"undo": list(self.undo), "before": [list(pair) for pair in self.before]}


def compensation_order(definition: CaseDefinition) -> CompensationOrder:
    steps = tuple(b for b in definition.bindings if b.compensate is not None and not b.compensation)
    names = [binding.name for binding in steps]
    graph = dependency_graph(steps)
    before = sorted(
        (consumer, producer)
        for consumer, producers in graph.items()
        for producer in producers
        if not reaches(graph, producer, consumer)
    )
    return CompensationOrder(dfs_reverse_postorder(names, graph), tuple(before))
