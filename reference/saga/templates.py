"""Compensate ``with`` templates in agentctl's expression syntax (``${{ ... }}``).

What Rescind reproduces (agentctl-core ``template.rs``, docs/spec/saga.md SG-81):

* an expression is the text between ``${{`` and the next ``}}``, trimmed; a ``${{`` with no
  ``}}`` after it is ``unclosed``, an expression that trims to nothing is ``empty``; text
  outside expressions (``{{`` without ``$`` included) is literal;
* a path is ``inputs.NAME``, ``vars.NAME``, ``memory.KEY`` or ``tasks.ID.output``, each
  followed by optional ``.FIELD`` steps into objects; every segment is ASCII letters, digits,
  ``_`` or ``-`` (so a task id with a dot cannot be named); anything else is ``unsupported``;
* a comparison splits at the first operator found, trying ``==``, ``!=``, ``<=``, ``>=``,
  ``<`` and ``>`` in that order (SG-94); its right side may not be empty, and ``<``, ``<=``,
  ``>``, ``>=`` need a JSON number there (compile time) and a number on the left (render time);
* a string that is exactly one expression renders to the value at the path (any JSON type),
  or, when the expression is a comparison or starts with ``not ``, to a boolean: ``path OP
  literal`` (the literal read as JSON, else as text with surrounding quotes removed; ``==``
  and ``!=`` are JSON value equality, the others compare both sides as f64) or the path's
  truthiness, negated by ``not`` (which applies to the whole comparison);
* any other string with expressions is text: each expression is replaced by its scalar value
  (``null``, ``true``/``false``, the number, the string itself); an object or array there is
  ``non_scalar``;
* a missing value is ``undefined``.

Left out: upstream renders a task's ``vars`` with the same context before the ``with``
(a failure there is a hard planning error); Rescind takes ``vars`` as already rendered. Numbers
interpolated into text use serde_json's integer and f64 text; integers beyond 64 bits, which
serde_json would read as floats, are written as integers.
"""

from __future__ import annotations

import enum
import json
import math
import re
from collections.abc import Mapping
from typing import Any

import attrs

from rescind.reference.numbers import f64_text

OPEN = "${{"
CLOSE = "}}"
ROOTS = ("inputs", "vars", "memory")
_SEGMENT = re.compile(r"[A-Za-z0-9_\-]+\Z")


class TemplateProblem(enum.Enum):
    UNCLOSED = "unclosed"
    EMPTY = "empty"
    UNSUPPORTED = "unsupported"
    UNDEFINED = "undefined"
    NON_SCALAR = "non_scalar"


class TemplateError(ValueError):
    """A template that cannot be rendered; planning turns any of them into a
    ``compensation_input_unavailable`` block, never a crash."""

    def __init__(self, problem: TemplateProblem) -> None:
        super().__init__(problem.value)
        self.problem = problem


def expressions(text: str) -> list[tuple[int, int, str]]:
    """(start, end, trimmed expression) of every ``${{ ... }}`` in ``text``, left to right."""
    found = []
    cursor = 0
    while (start := text.find(OPEN, cursor)) >= 0:
        inner = start + len(OPEN)
        close = text.find(CLOSE, inner)
        if close < 0:
            raise TemplateError(TemplateProblem.UNCLOSED)
        expression = text[inner:close].strip()
        if not expression:
            raise TemplateError(TemplateProblem.EMPTY)
        end = close + len(CLOSE)
        found.append((start, end, expression))
        cursor = end
    return found


OPERATORS = ("==", "!=", "<=", ">=", "<", ">")
"""agentctl's ``split_comparison`` tries the operators in this order, each at its first
occurrence, so ``a <= 1`` is ``<=`` and ``a == b < c`` is ``==`` (SG-94)."""
ORDERING = frozenset({"<", "<=", ">", ">="})


def split_comparison(expression: str) -> tuple[str, str, str] | None:
    """(left, operator, right) at the first operator found, in ``OPERATORS`` order."""
    for operator in OPERATORS:
        left, found, right = expression.partition(operator)
        if found:
            return left, operator, right
    return None


def _strip_not(expression: str) -> str:
    stripped = expression.strip()
    return stripped[len("not ") :] if stripped.startswith("not ") else stripped


def _left(expression: str) -> str:
    candidate = _strip_not(expression)
    comparison = split_comparison(candidate)
    return (candidate if comparison is None else comparison[0]).strip()


def _json_number(text: str) -> bool:
    try:
        value = json.loads(text, parse_constant=_no_constants)
    except ValueError:
        return False
    if isinstance(value, float):
        return math.isfinite(value)  # serde_json refuses a number beyond f64
    return isinstance(value, int) and not isinstance(value, bool)


def _check_path(expression: str) -> None:
    """The path of a path or comparison expression must be one agentctl can resolve, and a
    comparison needs a right side (a JSON number for the ordering operators)."""
    comparison = split_comparison(_strip_not(expression))
    if comparison is not None:
        _, operator, right = comparison
        if not right.strip():
            raise TemplateError(TemplateProblem.UNSUPPORTED)
        if operator in ORDERING and not _json_number(right.strip()):
            raise TemplateError(TemplateProblem.UNSUPPORTED)
    path = _left(expression)
    parts = path.split(".")
    root_ok = (parts[0] in ROOTS and len(parts) >= 2) or (
        parts[0] == "tasks" and len(parts) >= 3 and parts[2] == "output"
    )
    if not root_ok or not all(_SEGMENT.match(part) for part in parts):
        raise TemplateError(TemplateProblem.UNSUPPORTED)


def validate(text: str) -> None:
    """Compile-time check of one string: raises TemplateError for bad syntax or paths."""
    for _, _, expression in expressions(text):
        _check_path(expression)


def strings_in(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [text for item in value for text in strings_in(item)]
    if isinstance(value, dict):
        return [text for item in value.values() for text in strings_in(item)]
    return []


def invalid_templates(value: Any) -> list[str]:
    """The strings of ``value`` that fail compile-time validation."""
    invalid = []
    for text in strings_in(value):
        try:
            validate(text)
        except TemplateError:
            invalid.append(text)
    return invalid


def tasks_named_by(text: str) -> list[str]:
    """agentctl's ``referenced_tasks`` of one string: the sorted set of ``ID`` in
    ``tasks.ID...`` (the left side of a comparison), whether or not the expression is
    otherwise valid; a string whose expressions do not parse names none."""
    try:
        parsed = expressions(text)
    except TemplateError:
        return []
    found = set()
    for _, _, expression in parsed:
        parts = _left(expression).split(".")
        if parts[0] == "tasks" and len(parts) >= 2:
            found.add(parts[1])
    return sorted(found)


def referenced_tasks(value: Any) -> list[str]:
    """Task ids named by ``tasks.ID...`` expressions anywhere in ``value``, first mention
    first."""
    found = [name for text in strings_in(value) for name in tasks_named_by(text)]
    return list(dict.fromkeys(found))


@attrs.frozen
class Context:
    """What a compensate template may read, as canonical JSON text."""

    inputs_json: str = "{}"
    vars_json: str = "{}"
    memory_json: str = "{}"
    outputs: Mapping[str, str | None] = attrs.field(factory=dict)


def _descend(value: Any, steps: list[str]) -> Any:
    for step in steps:
        if not isinstance(value, dict) or step not in value:
            raise TemplateError(TemplateProblem.UNDEFINED)
        value = value[step]
    return value


def _resolve(path: str, context: Context) -> Any:
    _check_path(path)
    parts = path.strip().split(".")
    if parts[0] == "tasks":
        recorded = context.outputs.get(parts[1])
        if recorded is None:
            raise TemplateError(TemplateProblem.UNDEFINED)
        return _descend(json.loads(recorded), parts[3:])
    if parts[0] not in ROOTS:
        raise TemplateError(TemplateProblem.UNSUPPORTED)
    text = {"inputs": context.inputs_json, "vars": context.vars_json}.get(
        parts[0], context.memory_json
    )
    return _descend(json.loads(text), parts[1:])


def _no_constants(name: str) -> Any:
    raise ValueError(name)


def _literal(text: str) -> Any:
    """The right side of ``==``: JSON if it parses as JSON (no NaN or Infinity), else text."""
    try:
        value = json.loads(text, parse_constant=_no_constants)
    except ValueError:
        return text.strip("'\"")
    if isinstance(value, float) and not math.isfinite(value):
        return text.strip("'\"")  # serde_json refuses a number beyond f64: read as text
    return value


def json_equal(left: Any, right: Any) -> bool:
    """serde_json ``Value`` equality: integers and floats never compare equal, nor do
    booleans and numbers."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if isinstance(left, int) or isinstance(right, int):
        return isinstance(left, int) and isinstance(right, int) and left == right
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(map(json_equal, left, right))
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(json_equal(left[k], right[k]) for k in left)
    return type(left) is type(right) and bool(left == right)


def truthy(value: Any) -> bool:
    if isinstance(value, float):
        return value != 0.0
    return bool(value)  # null, false, 0, "", [] and {} are false; everything else true


def evaluate(expression: str, context: Context) -> bool:
    """A comparison or truthiness expression (``${{ }}`` around it is allowed)."""
    inner = expression.strip()
    if inner.startswith(OPEN) and inner.endswith(CLOSE):
        inner = inner[len(OPEN) : -len(CLOSE)].strip()
    negated = inner.startswith("not ")
    candidate = _strip_not(inner)
    comparison = split_comparison(candidate)
    if comparison is None:
        result = truthy(_resolve(candidate, context))
    else:
        left, operator, right = comparison
        value, literal = _resolve(left.strip(), context), _literal(right.strip())
        if operator == "==":
            result = json_equal(value, literal)
        elif operator == "!=":
            result = not json_equal(value, literal)
        else:
            result = _ordered(operator, _as_f64(value), _as_f64(literal))
    return not result if negated else result


def _as_f64(value: Any) -> float:
    """serde_json's ``as_f64``: any number, an integer rounded to the nearest f64; anything
    else cannot be ordered."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TemplateError(TemplateProblem.UNSUPPORTED)
    try:
        return float(value)
    except OverflowError:  # an integer beyond f64: serde_json would have read it as a float
        return math.copysign(math.inf, value)


def _ordered(operator: str, left: float, right: float) -> bool:
    if operator == "<":
        return left < right
    if operator == "<=":
        return left <= right
    if operator == ">":
        return left > right
    return left >= right


def _scalar_text(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return f64_text(value)
    if isinstance(value, str):
        return value
    raise TemplateError(TemplateProblem.NON_SCALAR)


def _render_string(text: str, context: Context) -> Any:
    found = expressions(text)
    if not found:
        return text
    if len(found) == 1 and found[0][0] == 0 and found[0][1] == len(text):
        expression = found[0][2]
        if split_comparison(expression) is not None or expression.lstrip().startswith("not "):
            return evaluate(expression, context)
        return _resolve(expression, context)
    pieces = []
    cursor = 0
    for start, end, expression in found:
        pieces.append(text[cursor:start])
        pieces.append(_scalar_text(_resolve(expression, context)))
        cursor = end
    pieces.append(text[cursor:])
    return "".join(pieces)


def render(value: Any, context: Context) -> Any:
    """Render ``value`` member by member; raises TemplateError."""
    if isinstance(value, str):
        return _render_string(value, context)
    if isinstance(value, list):
        return [render(item, context) for item in value]
    if isinstance(value, dict):
        return {key: render(item, context) for key, item in value.items()}
    return value
