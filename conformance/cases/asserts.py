"""Expected-value fragments: what a case's author asserts about a trace's results, as data.

A row lists its assertions under ``with.asserts``; each picks a value out of the step results
and states one property of it. The builder computes the expectation through the reference and
then checks every assertion against it, so a row whose reference answer breaks what it asserts
(for an upstream-test port: what the upstream test asserts) is refused, never exported::

    { what = "revision 1", step = 4, equals = 1 }
    { what = "the key", step = 1, path = ["operation_key"], equals = { "$step" = 0 } }
    { what = "checks 1, 3", step = [10, 14], path = ["action_calls"], equals = [1, 3] }

Picking a value: ``step`` is a step's index (or a list of indexes: the list of their values;
a builder may name further parts, such as a scenario's ``final`` state); ``path`` walks into it
by member name or list index (negative counts from the end), reading a JSON text on the way as
its document; ``"*"`` applies the rest of the path to every element of a list, and a table
picks the first element of a list that has its members (``{ operation_key = "k" }``). A value
that the path does not reach is a broken assertion, unless the assertion states ``absent``
(the value to use then, as upstream's counters count an absent tool 0).

A literal may name another result as ``{ "$step" = n, "$path" = [...] }``, and write a value
TOML has not (null, an integer past 64 bits) as ``{ "$json" = "<JSON text>" }``. The properties, one
per assertion: ``equals``, ``differs_from`` (a list of values), ``has`` (these members with
these values), ``each_has`` (every element of a list has them), ``distinct`` (the number of
different elements), ``length``, ``keys`` (the sorted member names), ``lacks`` (substrings a
text does not contain), ``matches`` (a regular expression the whole text matches) and
``null = true``. Values compare as JSON documents: ``1`` is not ``true`` and member order does
not matter.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from rescind.conformance.cases import CaseTableError

_SELECT = ("what", "step", "path", "absent")


class _Missing(LookupError):
    """The path does not reach a value."""


def _document(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _walk(value: Any, path: Sequence[Any]) -> Any:
    for index, part in enumerate(path):
        value = _document(value)
        if part == "*":
            if not isinstance(value, list):
                raise _Missing
            return [_walk(element, path[index + 1 :]) for element in value]
        if isinstance(part, dict):
            value = _first_having(value, part)
            continue
        try:
            value = value[part]
        except (KeyError, IndexError, TypeError):
            raise _Missing from None
    return value


def _first_having(value: Any, members: Mapping[str, Any]) -> Any:
    if isinstance(value, list):
        for element in value:
            if _has(element, members):
                return element
    raise _Missing


Results = Sequence[Any] | Mapping[Any, Any]
"""Step results by index; a builder may add named parts (e.g. ``final``)."""


def _pick(results: Results, step: Any, path: Sequence[Any]) -> Any:
    try:
        if isinstance(step, list):
            return [_walk(results[index], path) for index in step]
        return _walk(results[step], path)
    except (IndexError, KeyError):
        raise _Missing from None


def _resolve(literal: Any, results: Results) -> Any:
    if isinstance(literal, dict):
        if set(literal) == {"$json"}:
            return json.loads(literal["$json"])
        if "$step" in literal:
            return _pick(results, literal["$step"], literal.get("$path", ()))
        return {key: _resolve(value, results) for key, value in literal.items()}
    if isinstance(literal, list):
        return [_resolve(value, results) for value in literal]
    return literal


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _same(left: Any, right: Any) -> bool:
    return _canonical(left) == _canonical(right)


def _has(value: Any, members: Mapping[str, Any]) -> bool:
    value = _document(value)
    return isinstance(value, dict) and all(
        name in value and _same(value[name], wanted) for name, wanted in members.items()
    )


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise _Missing
    return value


_Property = Callable[[Any, Any], bool]

PROPERTIES: dict[str, _Property] = {
    "equals": _same,
    "differs_from": lambda value, others: not any(_same(value, other) for other in others),
    "has": _has,
    "each_has": lambda value, members: (
        isinstance(_document(value), list)
        and all(_has(element, members) for element in _document(value))
    ),
    "distinct": lambda value, count: (
        isinstance(value, list) and len({_canonical(element) for element in value}) == count
    ),
    "length": lambda value, count: len(_document(value)) == count,
    "keys": lambda value, names: (
        isinstance(_document(value), dict) and sorted(_document(value)) == list(names)
    ),
    "lacks": lambda value, words: not any(word in _text(value) for word in words),
    "matches": lambda value, pattern: re.fullmatch(pattern, _text(value)) is not None,
    "null": lambda value, wanted: (value is None) is bool(wanted),
}


def _property(assertion: Mapping[str, Any]) -> str:
    stated = [key for key in assertion if key not in _SELECT]
    if len(stated) != 1 or stated[0] not in PROPERTIES or "step" not in assertion:
        raise CaseTableError(
            f"assertion {assertion.get('what', '?')!r} needs a step and exactly one of"
            f" {', '.join(PROPERTIES)}"
        )
    return stated[0]


def broken(asserts: Sequence[Mapping[str, Any]], results: Results) -> list[str]:
    """The descriptions (``what``) of the assertions the results break, in order."""
    failed = []
    for assertion in asserts:
        name = _property(assertion)
        try:
            try:
                value = _pick(results, assertion["step"], assertion.get("path", ()))
            except _Missing:
                if "absent" not in assertion:
                    raise
                value = assertion["absent"]
            holds = PROPERTIES[name](value, _resolve(assertion[name], results))
        except _Missing:
            holds = False
        if not holds:
            failed.append(str(assertion.get("what", name)))
    return failed
