"""``rescind check --list``: the checks of a run, grouped by source, without running any.

Each group gives its count and, per check, the id, capability, profile and provenance kind
(``model`` for checks that are not vectors, as in every report). The ids are those
``--select`` takes: a listed id selects exactly that check (and the checks whose ids it
prefixes).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from rescind.conformance.report.run import provenance_of
from rescind.conformance.runner_check import Check

NO_PROFILE = "-"
"""Shown for checks that belong to no number profile (the model, the reference's own)."""


def _groups(checks: Sequence[Check]) -> dict[str, list[Check]]:
    groups: dict[str, list[Check]] = {}
    for check in checks:
        groups.setdefault(check.source, []).append(check)
    return groups


def _tally(values: Sequence[str]) -> str:
    return ", ".join(f"{value} {count}" for value, count in Counter(values).most_common())


def as_text(checks: Sequence[Check]) -> str:
    """One header per source (count, then capabilities, profiles and provenance kinds with
    their counts), then one line per check: id, capability, profile, provenance."""
    lines: list[str] = []
    groups = _groups(checks)
    for source, members in groups.items():
        lines.append(
            f"{source}: {len(members)} checks; capability "
            f"{_tally([c.capability for c in members])}; profile "
            f"{_tally([c.profile or NO_PROFILE for c in members])}; provenance "
            f"{_tally([provenance_of(c) for c in members])}"
        )
        width = max(len(c.id) for c in members)
        lines.extend(
            f"  {c.id:<{width}}  {c.capability}  {c.profile or NO_PROFILE}  {provenance_of(c)}"
            for c in members
        )
    lines.append(f"{len(checks)} checks in {len(groups)} sources")
    return "\n".join(lines) + "\n"


def as_json(checks: Sequence[Check]) -> dict[str, Any]:
    """``{"checks": N, "sources": [{"source", "count", "checks": [{id, capability, profile,
    provenance, tier, rule}]}]}``, sources in run order."""
    return {
        "checks": len(checks),
        "sources": [
            {
                "source": source,
                "count": len(members),
                "checks": [
                    {
                        "id": c.id,
                        "capability": c.capability,
                        "profile": c.profile,
                        "provenance": provenance_of(c),
                        "tier": c.tier,
                        "rule": c.rule,
                    }
                    for c in members
                ],
            }
            for source, members in _groups(checks).items()
        ],
    }
