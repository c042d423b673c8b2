"""Restrictions cannot hide a rule (issue 27, item 3).

A driver that declares a restriction is excused for the requests and trace steps it names,
so those checks never count for it. If every check of some rule had such a shape, that rule
would go unchecked for the driver while its claim still said it conforms. These tests keep,
for every restriction of the catalogue and every capability it concerns, at least one check
of every rule of that capability that the restriction does not remove. When one fails, add
a vector that reaches the rule without the removed shape (CONTRIBUTING.md, "Adding a vector")
rather than widening the restriction.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pytest

from rescind.conformance.harness.restrictions import NAMES, named
from tests.conformance.restriction_reach import removed, vectors

VECTORS = tuple(vectors())


def _capabilities(name: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(c for r in named(name) for c in r.capabilities))


CONCERNED = [(name, capability) for name in NAMES for capability in _capabilities(name)]
ALL_CAPABILITIES = sorted({capability for _, capability in CONCERNED})


UNREACHABLE: Mapping[tuple[str, str], str] = {
    ("authorized-by-authorizer", "EP-16"): (
        "the session authorizer refuses a compensation for an operation it has not seen "
        "succeed (unknown_operation, AU rules) before the journal runs any check of "
        "admit_compensation, so the journal's own order among scope, known, tool and "
        "succeeded (EP-16) can only be seen on raw request and grant pairs; the authorizer's "
        "order is checked for such a driver by the authorizer-traces precedence vectors"
    ),
}
"""Reviewed: (restriction, rule) pairs no vector can keep, because what the restriction
leaves expressible refuses before the rule's checks run. Each entry must stay true: a test
fails when a vector starts to keep the rule."""


def lost_rules(names: Iterable[str], capability: str) -> list[str]:
    """The rules of ``capability`` whose every vector one of ``names`` removes (less the
    reviewed ``UNREACHABLE`` pairs)."""
    declared = tuple(names)
    kept: dict[str, bool] = {}
    for cap, op, test in VECTORS:
        if cap != capability:
            continue
        answerable = not any(removed(name, op, test) for name in declared)
        kept[test["rule"]] = kept.get(test["rule"], False) or answerable
    return sorted(
        rule
        for rule, answerable in kept.items()
        if not answerable and not any((name, rule) in UNREACHABLE for name in declared)
    )


@pytest.mark.parametrize(("name", "rule"), sorted(UNREACHABLE))
def test_each_reviewed_unreachable_rule_is_still_unreachable(name: str, rule: str) -> None:
    kept = [
        test["id"]
        for _, op, test in VECTORS
        if test["rule"] == rule and not removed(name, op, test)
    ]
    assert not kept, f"{rule} is kept under {name} by {kept[:3]}: drop its UNREACHABLE entry"


@pytest.mark.parametrize(("name", "capability"), CONCERNED)
def test_every_rule_keeps_a_check_under_each_restriction(name: str, capability: str) -> None:
    assert any(cap == capability for cap, _, _ in VECTORS), f"no vector of {capability}"
    lost = lost_rules([name], capability)
    assert not lost, (
        f"a driver declaring {name} can answer no check of {capability} rules "
        f"{', '.join(lost)}: add vectors outside the shapes it removes"
    )


@pytest.mark.parametrize("capability", ALL_CAPABILITIES)
def test_every_rule_keeps_a_check_under_every_restriction_at_once(capability: str) -> None:
    # Drivers declare several names together (drivers/splash declares most of the catalogue).
    lost = lost_rules(NAMES, capability)
    assert not lost, (
        f"a driver declaring every restriction can answer no check of {capability} rules "
        f"{', '.join(lost)}"
    )


def _trace(*steps: Mapping[str, Any]) -> dict[str, Any]:
    return {"rule": "X-1", "input": {"setup": {}, "steps": list(steps)}, "expected": {}}


def test_reach_counts_what_a_restriction_removes() -> None:
    """The helper itself: a raw journal step, a refused tag and an injection step are
    removed; the same behaviour reached through public calls is not."""
    raw = _trace({"call": "admit", "args": {"request": "add", "grant": "math"}})
    authorized = _trace(
        {"call": "authorize_operation", "args": {"request": "add", "as": "d1"}},
        {"call": "admit", "args": {"authorized": "d1"}},
    )
    assert removed("authorized-by-authorizer", "journal.trace", raw)
    assert not removed("authorized-by-authorizer", "journal.trace", authorized)
    refused_tag = {"rule": "FR-4", "input": {"key": "00"}, "expected": {"error": "weak"}}
    computed_tag = {"rule": "FR-4", "input": {"key": "01"}, "expected": {"tag": "ab"}}
    assert removed("tag-needs-sealable-frame", "frames.tag", refused_tag)
    assert not removed("tag-needs-sealable-frame", "frames.tag", computed_tag)
    planted = _trace({"op": "create"}, {"op": "plant", "revision": 3})
    public = _trace({"op": "create"}, {"op": "replace", "expected": 1})
    assert removed("no-backend-state-injection", "storage.trace", planted)
    assert not removed("no-backend-state-injection", "storage.trace", public)


def test_the_suite_has_checks_a_restriction_removes() -> None:
    # Without removed vectors the reach tests above would hold vacuously.
    assert sum(removed("authorized-by-authorizer", op, t) for _, op, t in VECTORS) > 0
    assert sum(removed("no-backend-state-injection", op, t) for _, op, t in VECTORS) > 0
