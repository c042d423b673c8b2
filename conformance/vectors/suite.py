"""What one export writes and one check verifies: a ``Suite`` of topic declarations, the
retired ids, the observations provenance is derived from and the spec pages whose rule ids
the vectors may cite.

The shipped suite (``shipped()``) is every topic of ``sets.topics.TOPICS`` with the package's
retirements and observations. A suite is a value passed to ``vectors.tool``'s ``export``,
``check`` and ``generate``, never a global to change: a scratch topic is exported into a
scratch directory by a suite that names it (tests/conformance/test_contributing_paths.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path

import attrs

from rescind.conformance.vectors import observation
from rescind.conformance.vectors.observation import Observation
from rescind.conformance.vectors.retired import Retirement, retired_by_id
from rescind.conformance.vectors.sets.topics import TOPICS, Binding, Topic

RULE_DEFINITION = re.compile(r"\*\*([A-Z]{2,4}-[0-9]{1,3})\*\*")
"""How a docs/spec page defines a rule id (``**XX-n**``)."""


def checkout_spec() -> Path | None:
    """``docs/spec`` of the source checkout this package runs from; ``None`` in an
    installation, which ships no spec pages (its rule ids are then not checked)."""
    spec = Path(__file__).resolve().parents[2] / "docs" / "spec"
    return spec if spec.is_dir() else None


def spec_rules(spec: Path) -> frozenset[str]:
    """Every rule id the pages of ``spec`` define."""
    found: set[str] = set()
    for page in sorted(spec.glob("*.md")):
        found.update(RULE_DEFINITION.findall(page.read_text(encoding="utf-8")))
    return frozenset(found)


def _topics(value: Iterable[Topic]) -> tuple[Topic, ...]:
    return tuple(value)


@attrs.frozen
class Suite:
    topics: tuple[Topic, ...] = attrs.field(converter=_topics)
    retired: Mapping[str, Retirement] = attrs.field(factory=dict)
    observations: tuple[Observation, ...] | None = ()
    """``None``: the observation files shipped with the package."""
    spec: Path | None = attrs.field(factory=checkout_spec)
    """Where cited rule ids must be defined; ``None`` checks none."""

    def binding_of(self, topic: str) -> Binding:
        for declared in self.topics:
            if declared.name == topic:
                return declared.binding
        raise ValueError(f"topic {topic} is not declared in the suite (sets/topics.py TOPICS)")

    def observed(self) -> tuple[Observation, ...]:
        return observation.load() if self.observations is None else self.observations

    def rule_problems(self, rules: Mapping[str, str]) -> list[str]:
        """``rules``: test id -> the rule it cites; one sentence per rule the spec lacks."""
        if self.spec is None:
            return []
        defined = spec_rules(self.spec)
        return [
            f"test id {test_id} cites rule {rule}, which {self.spec.name}/ does not define"
            " (CONTRIBUTING.md, 'Adding a rule')"
            for test_id, rule in sorted(rules.items())
            if rule not in defined
        ]


def shipped(observations: Iterable[Observation] | None = None) -> Suite:
    """Every declared topic, the package's retirements, and ``observations`` (default: the
    package's observation files)."""
    chosen = None if observations is None else tuple(observations)
    return Suite(TOPICS, retired_by_id(), chosen)
