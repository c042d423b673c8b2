"""The coverage map of the specification: which checks reach each spec rule, each error code
and each (state, event) pair of every lifecycle table.

- Rules: the ids ``docs/spec`` defines (``**XX-n**``), each with the vectors, exploration
  areas and model proofs that cite it, and the provenance kinds of those vectors.
- Error codes: every code of the reference's error registry, each with the vectors that
  expect it (a top-level refusal, or an ``{"error": code}`` anywhere in the expectation).
- Table pairs: for every lifecycle table, every (state, event) pair the table can be asked
  about, allowed or refused; a pair is exercised by a vector when the reference, answering
  that vector, asks the table about it. This is observed, not declared: each vector is run
  through the built-in reference with the tables' lookups recorded.
- Precedence pairs: for every operation of ``rescind.conformance.precedence``, each pair of
  adjacent checks (and each loop's wrap-around pair), with the vectors that break both (the
  generated ``…precedence.<first>.<second>`` vector of the operation's rule). A pair the
  operation excuses (no input can break both) is listed with its reason, not as a gap.

Gaps are allowed only when ``conformance/coverage-exceptions.toml`` lists them with a reason;
an exception for something a check now reaches is stale and is refused too, so the file
only shrinks as checks are added.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import tomllib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import attrs

from rescind.conformance.driver import handle
from rescind.conformance.error_catalogue import NORMATIVE, compared_details
from rescind.conformance.explore.areas import AREAS
from rescind.conformance.precedence import OPERATIONS as PRECEDENCE
from rescind.conformance.vector_files import load_vector_files
from rescind.conformance.vectors.checks import operation_of
from rescind.reference.errors import error_registry
from rescind.tables import operation as operation_tables
from rescind.tables import saga as saga_tables
from rescind.tables.registry import LIFECYCLES

RULE_DEFINITION = re.compile(r"\*\*([A-Z]{2,3}-\d+[a-z]?)\*\*")
EXCEPTIONS = Path(__file__).with_name("coverage-exceptions.toml")


@attrs.frozen
class Reach:
    """What reaches one item: check ids, and the provenance kinds of the vectors among them."""

    checks: tuple[str, ...] = ()
    provenance: tuple[str, ...] = ()


@attrs.frozen
class CoverageMap:
    rules: Mapping[str, Reach]
    """Every rule docs/spec defines (page stem in ``rule_pages``)."""
    rule_pages: Mapping[str, str]
    codes: Mapping[str, Reach]
    pairs: Mapping[tuple[str, str, str], Reach]
    """(table, state, event) -> the vectors whose reference answer asked the table."""
    precedence: Mapping[str, Reach] = attrs.field(factory=dict)
    """Precedence pair name (``Pair.name``) -> the vectors that break both its checks."""
    excused_precedence: Mapping[str, str] = attrs.field(factory=dict)
    """Pairs no input can break together (from the precedence data) -> the reason."""
    details: Mapping[str, Reach] = attrs.field(factory=dict)
    """Normative details member (``code/member``, ``error_catalogue``) -> the vectors that
    compare it (a refusal inside a result whose details carry it)."""

    def gaps(self) -> dict[str, list[str]]:
        return {
            "rule": sorted(rule for rule, reach in self.rules.items() if not reach.checks),
            "code": sorted(code for code, reach in self.codes.items() if not reach.checks),
            "pair": sorted(
                pair_name(pair) for pair, reach in self.pairs.items() if not reach.checks
            ),
            "precedence": sorted(
                name for name, reach in self.precedence.items() if not reach.checks
            ),
            "detail": sorted(name for name, reach in self.details.items() if not reach.checks),
        }


def pair_name(pair: tuple[str, str, str]) -> str:
    table, state, event = pair
    return f"{table}: {state} × {event}"


def spec_rules(spec: Path) -> dict[str, str]:
    """Rule id -> the docs/spec page (stem) that defines it."""
    found: dict[str, str] = {}
    for page in sorted(spec.glob("*.md")):
        for rule in RULE_DEFINITION.findall(page.read_text(encoding="utf-8")):
            found.setdefault(rule, page.stem)
    return found


CODE_PACKAGES = ("rescind.reference", "rescind.conformance", "rescind.stores", "rescind.cli")
"""Where error classes are defined: every module is imported, so the registry does not depend
on which ones this process happened to load (the CLI imports a subcommand only when it runs)."""
NOT_IMPORTED = frozenset({"rescind.conformance.pytest_plugin"})
"""Needs pytest, which a plain install does not have; it defines no error code."""


def error_codes() -> set[str]:
    for name in CODE_PACKAGES:
        package = importlib.import_module(name)
        for info in pkgutil.walk_packages(package.__path__, prefix=f"{name}."):
            if info.name not in NOT_IMPORTED and not info.name.endswith("__main__"):
                importlib.import_module(info.name)
    return set(error_registry())


def _expected_codes(value: Any) -> Iterator[str]:
    """Codes an expectation compares: every refusal's code, and the codes its normative
    details name (an indeterminate operation's ``cause``, ER-1)."""
    if isinstance(value, Mapping):
        code = value.get("error")
        if isinstance(code, str):
            yield code
            details = value.get("details")
            if isinstance(details, Mapping):
                yield from (
                    item
                    for item in compared_details(code, details).values()
                    if isinstance(item, str)
                )
        for key, item in value.items():
            if key not in ("details", "f64"):
                yield from _expected_codes(item)
    elif isinstance(value, list):
        for item in value:
            yield from _expected_codes(item)


def _table_pairs() -> dict[tuple[str, str, str], list[str]]:
    pairs: dict[tuple[str, str, str], list[str]] = {}
    for registered in LIFECYCLES:
        table = registered.lifecycle
        if isinstance(table, operation_tables.Lifecycle):
            for state in table.states:
                for observed in table.observable:
                    pairs[(table.name, state.value, observed.value)] = []
        else:
            triggers = sorted({row.trigger for row in table.transitions})
            for state in table.states:
                for trigger in triggers:
                    pairs[(table.name, _value(state), trigger)] = []
    return pairs


def _value(state: Any) -> str:
    return str(getattr(state, "value", state))


@contextmanager
def _recording(into: list[tuple[str, str, str]]) -> Iterator[None]:
    """Record every question the reference asks a lifecycle table (operation verdicts, saga
    targets) while the block runs."""
    lifecycle, table = operation_tables.Lifecycle, saga_tables.StateTable
    verdict, targets = lifecycle.verdict, table.targets

    def asked_verdict(self: Any, current: Any, observed: Any) -> Any:
        into.append((self.name, current.value, observed.value))
        return verdict(self, current, observed)

    def asked_targets(self: Any, source: Any, trigger: str) -> Any:
        into.append((self.name, _value(source), trigger))
        return targets(self, source, trigger)

    lifecycle.verdict = asked_verdict  # type: ignore[method-assign]
    table.targets = asked_targets  # type: ignore[method-assign]
    try:
        yield
    finally:
        lifecycle.verdict = verdict  # type: ignore[method-assign]
        table.targets = targets  # type: ignore[method-assign]


def coverage_map(spec: Path) -> CoverageMap:
    rule_pages = spec_rules(spec)
    rule_checks: dict[str, list[str]] = {rule: [] for rule in rule_pages}
    rule_kinds: dict[str, set[str]] = {rule: set() for rule in rule_pages}
    codes: dict[str, list[str]] = {code: [] for code in error_codes()}
    pairs = _table_pairs()
    precedence, excused = _precedence_pairs()
    details: dict[str, list[str]] = {
        f"{code}/{member}": [] for code, source in NORMATIVE.items() for member in source.members
    }
    for document in load_vector_files():
        for group in document["testGroups"]:
            for test in group["tests"]:
                rule_checks.setdefault(test["rule"], []).append(test["id"])
                rule_kinds.setdefault(test["rule"], set()).add(test["provenance"]["kind"])
                for code in set(_expected_codes(test["expected"])):
                    codes.setdefault(code, []).append(test["id"])
                for pair in _asked(group, test):
                    if pair in pairs:
                        pairs[pair].append(test["id"])
                for name in _precedence_of(test, precedence):
                    precedence[name].append(test["id"])
                for name in _compared_members(test["expected"]):
                    details.setdefault(name, []).append(test["id"])
    for area in AREAS:
        rule_checks.setdefault(area.rule, []).append(f"explore.{area.name}")
    for rule, check_id in _model_rules():
        rule_checks.setdefault(rule, []).append(check_id)
    return CoverageMap(
        rules={
            rule: Reach(tuple(ids), tuple(sorted(rule_kinds.get(rule, ()))))
            for rule, ids in rule_checks.items()
            if rule in rule_pages
        },
        rule_pages=rule_pages,
        codes={code: Reach(tuple(sorted(set(ids)))) for code, ids in codes.items()},
        pairs={pair: Reach(tuple(sorted(set(ids)))) for pair, ids in pairs.items()},
        precedence={name: Reach(tuple(sorted(set(ids)))) for name, ids in precedence.items()},
        excused_precedence=excused,
        details={name: Reach(tuple(sorted(set(ids)))) for name, ids in details.items()},
    )


def _compared_members(expected: Mapping[str, Any]) -> Iterator[str]:
    """``code/member`` of every normative details member the expectation compares (refusals
    inside a result: a top-level refusal carries only its code)."""

    def walk(value: Any) -> Iterator[str]:
        if isinstance(value, Mapping):
            code, found = value.get("error"), value.get("details")
            if isinstance(code, str) and isinstance(found, Mapping):
                yield from (f"{code}/{member}" for member in compared_details(code, found))
            for key, item in value.items():
                if key not in ("details", "f64"):
                    yield from walk(item)
        elif isinstance(value, list):
            for item in value:
                yield from walk(item)

    for key, item in expected.items():
        if key not in ("error", "details", "f64"):
            yield from walk(item)


_SLUGS = {
    (operation.rule, f".precedence.{pair.slug}"): pair.name
    for operation in PRECEDENCE
    for pair in operation.covered_pairs()
}


def _precedence_pairs() -> tuple[dict[str, list[str]], dict[str, str]]:
    covered: dict[str, list[str]] = {}
    excused: dict[str, str] = {}
    for operation in PRECEDENCE:
        for pair in operation.pairs():
            reason = operation.excused.get((pair.first.name, pair.second.name))
            if reason is None:
                covered[pair.name] = []
            else:
                excused[pair.name] = reason
    return covered, excused


def _precedence_of(test: Mapping[str, Any], names: Mapping[str, list[str]]) -> Iterator[str]:
    """The precedence pair a vector covers: its rule is the operation's and its id ends in the
    pair's generated suffix."""
    test_id = str(test["id"])
    for (rule, suffix), name in _SLUGS.items():
        if test["rule"] == rule and test_id.endswith(suffix) and name in names:
            yield name


def _asked(group: Mapping[str, Any], test: Mapping[str, Any]) -> set[tuple[str, str, str]]:
    op = operation_of(group, test)
    asked: list[tuple[str, str, str]] = []
    with _recording(asked):
        handle({"id": 1, "op": op, "args": test["input"]})
    return set(asked)


def _model_rules() -> Iterator[tuple[str, str]]:
    # imported here: the proof modules load z3
    from rescind.model.catalog import discover_checks

    for check in discover_checks():
        for rule in re.findall(r"[A-Z]{2,3}-\d+[a-z]?", check.rule):
            yield rule, f"model.{check.name}"


@attrs.frozen
class Exceptions:
    """Reviewed gaps: kind -> item -> reason."""

    items: Mapping[str, Mapping[str, str]]

    @classmethod
    def load(cls, path: Path = EXCEPTIONS) -> Exceptions:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
        items: dict[str, dict[str, str]] = {
            "rule": {},
            "code": {},
            "pair": {},
            "precedence": {},
            "detail": {},
        }
        for kind in items:
            for entry in document.get(kind, ()):
                if not isinstance(entry.get("reason"), str) or not entry["reason"].strip():
                    raise ValueError(f"{path.name}: a {kind} exception without a reason")
                items[kind][str(entry["item"])] = entry["reason"]
        return cls(items)


def verdict(found: CoverageMap, exceptions: Exceptions) -> dict[str, dict[str, list[str]]]:
    """Per kind: gaps nobody excused (``unexcused``) and exceptions for items a check now
    reaches or that no longer exist (``stale``)."""
    gaps = found.gaps()
    known = {
        "rule": set(found.rules),
        "code": set(found.codes),
        "pair": {pair_name(pair) for pair in found.pairs},
        "precedence": set(found.precedence),
        "detail": set(found.details),
    }
    result: dict[str, dict[str, list[str]]] = {}
    for kind, missing in gaps.items():
        excused = exceptions.items.get(kind, {})
        result[kind] = {
            "unexcused": [item for item in missing if item not in excused],
            "stale": sorted(
                item for item in excused if item not in missing or item not in known[kind]
            ),
        }
    return result
