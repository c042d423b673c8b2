"""The coverage section of a run's reports: for each spec rule the run's checks cite, how many
of them passed, failed, were left unanswered, were excused by a restriction or did not apply,
and the provenance kinds of their expectations. (``rescind coverage`` maps the whole
specification, rules no check cites included; this is what one run reached.)"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from rescind.conformance.report.claim import Tally, tally
from rescind.conformance.runner_check import Check, Result

NOT_A_VECTOR = "model"
"""The provenance label of checks that are not golden vectors (model proofs, saga refinement,
differential exploration): their oracle is Rescind's own model or reference, run live."""


def provenance_of(check: Check) -> str:
    return check.provenance if check.provenance is not None else NOT_A_VECTOR


_RULE = re.compile(r"([A-Z]{2,3})-(\d+)([a-z]?)")


def _order(rule: str) -> tuple[str, int, str]:
    matched = _RULE.fullmatch(rule)
    return (matched[1], int(matched[2]), matched[3]) if matched else (rule, 0, "")


def by_rule(results: Iterable[Result]) -> list[tuple[str, Tally, tuple[str, ...]]]:
    """(rule, tally of its checks, provenance kinds), in rule order."""
    grouped: dict[str, list[Result]] = {}
    for result in results:
        grouped.setdefault(result.check.rule, []).append(result)
    return [
        (rule, tally(grouped[rule]), tuple(sorted({provenance_of(r.check) for r in grouped[rule]})))
        for rule in sorted(grouped, key=_order)
    ]


def to_json(results: Iterable[Result]) -> dict[str, Any]:
    return {
        rule: {**counted.to_json(), "provenance": list(kinds)}
        for rule, counted, kinds in by_rule(results)
    }


def reached(counted: Tally) -> str:
    """How a rule fared in the run, in one word."""
    if counted.failed:
        return "fails"
    if counted.unanswered:
        return "partial"
    if counted.passed or counted.restricted:
        return "passed"
    return "not run"
