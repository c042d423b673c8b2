"""Compensate ``with`` templates: Rescind's small, explicit stand-in for agentctl's renderer.

The facts name what a compensate template may see (inputs, recorded task outputs, the task's
vars, working memory) and what can go wrong (an invalid expression, an unknown task, a value
that is unavailable at planning time), not agentctl's expression syntax. Rescind's grammar:

* a string that contains no ``{{`` is a literal;
* a string that is exactly ``{{ path }}`` renders to the JSON value at ``path``, where ``path``
  is ``inputs.NAME``, ``vars.NAME``, ``memory.KEY`` or ``tasks.ID.output``, each optionally
  followed by ``.FIELD`` steps into objects;
* anything else containing ``{{`` is an invalid template.

Objects and arrays render member by member; the whole ``with`` may itself be one template.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

import attrs

_EXPRESSION = re.compile(r"\{\{\s*([^{}]*?)\s*\}\}\Z")
_SEGMENT = re.compile(r"[A-Za-z0-9_\-]+\Z")
_TASK_ID = re.compile(r"[a-z0-9._\-]+\Z")
ROOTS = ("inputs", "vars", "memory", "tasks")


class Unavailable(Exception):
    """A referenced value does not exist in the source context (planning turns it into a
    ``compensation_input_unavailable`` block, never a crash)."""


@attrs.frozen
class Reference:
    root: str
    task_id: str | None
    fields: tuple[str, ...]


def parse_expression(text: str) -> Reference | None:
    """The reference a template string names, or None when the string is not valid."""
    match = _EXPRESSION.match(text)
    if match is None:
        return None
    parts = match.group(1).split(".")
    root, rest = parts[0], parts[1:]
    if root == "tasks":
        # tasks.ID.output[.FIELD...]; task ids may contain dots, so split on ".output".
        inner = match.group(1)[len("tasks.") :]
        task_id, marker, tail = inner.partition(".output")
        if not marker or not _TASK_ID.match(task_id) or (tail and not tail.startswith(".")):
            return None
        fields = tuple(tail[1:].split(".")) if tail else ()
        if not all(_SEGMENT.match(field) for field in fields):
            return None
        return Reference("tasks", task_id, fields)
    if root not in ROOTS or not rest or not all(_SEGMENT.match(field) for field in rest):
        return None
    return Reference(root, None, tuple(rest))


def strings_in(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [text for item in value for text in strings_in(item)]
    if isinstance(value, dict):
        return [text for item in value.values() for text in strings_in(item)]
    return []


def invalid_templates(value: Any) -> list[str]:
    return [text for text in strings_in(value) if "{{" in text and parse_expression(text) is None]


def referenced_tasks(value: Any) -> list[str]:
    found = []
    for text in strings_in(value):
        reference = parse_expression(text) if "{{" in text else None
        if reference is not None and reference.task_id is not None:
            found.append(reference.task_id)
    return list(dict.fromkeys(found))


@attrs.frozen
class Context:
    """What a compensate template may read, as canonical JSON text."""

    inputs_json: str = "{}"
    vars_json: str = "{}"
    memory_json: str = "{}"
    outputs: Mapping[str, str | None] = attrs.field(factory=dict)


def _step(value: Any, fields: tuple[str, ...]) -> Any:
    for field in fields:
        if not isinstance(value, dict) or field not in value:
            raise Unavailable(field)
        value = value[field]
    return value


def _resolve(reference: Reference, context: Context) -> Any:
    if reference.task_id is not None:
        recorded = context.outputs.get(reference.task_id)
        if recorded is None:
            raise Unavailable(reference.task_id)
        return _step(json.loads(recorded), reference.fields)
    text = {"inputs": context.inputs_json, "vars": context.vars_json}.get(
        reference.root, context.memory_json
    )
    return _step(json.loads(text), reference.fields)


def render(value: Any, context: Context) -> Any:
    """Render ``value``; raises Unavailable for a missing value, ValueError for bad syntax."""
    if isinstance(value, str):
        if "{{" not in value:
            return value
        reference = parse_expression(value)
        if reference is None:
            raise ValueError("invalid template")
        return _resolve(reference, context)
    if isinstance(value, list):
        return [render(item, context) for item in value]
    if isinstance(value, dict):
        return {key: render(item, context) for key, item in value.items()}
    return value
