"""Readable numbered traces from z3 models.

A trace line names the action and its parameters; indented lines below it show how the
variables being watched (those the violated invariant or the target reads) changed in that
step, at the indices the path mentions. Values of identifier sorts are renamed in order of
appearance (``k0``, ``k1`` for keys, ``t0`` for tools, ``c0`` for compensation keys and so
on), so two traces of the same shape read the same.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import z3

from rescind.model.core.logic import (
    CKEY,
    FINGERPRINT,
    GRANT,
    GRANT_FIELDS,
    IDENTITY,
    INPUT,
    KEY,
    MESSAGE,
    NONCE,
    PHASE,
    PHASES,
    RESOURCE,
    SCOPE,
    TOOL,
    Expr,
)
from rescind.model.core.prover import Path
from rescind.model.core.system import SCHEMA, State

PREFIXES = {
    KEY: "k",
    CKEY: "c",
    TOOL: "t",
    SCOPE: "scope",
    INPUT: "in",
    RESOURCE: "r",
    NONCE: "n",
    FINGERPRINT: "fp",
}
SET_LIMIT = 6
ASSIGNED_FIELDS = frozenset(
    {"tool", "cmp_key", "cmp_scope", "cmp_fp", "cmp_grant", "cmp_input", "cmp_tool"}
)
"""Per-key fields whose value before the record existed is meaningless: shown as ``:=``."""
_SHORT_FIELDS = {
    "max_calls": "calls",
    "max_input_bytes": "in",
    "max_output_bytes": "out",
    "max_compensations": "cmp",
}


class Namer:
    """Short names for the values of identifier sorts in one z3 model."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self._names: dict[tuple[str, str], str] = {}
        self._counts: dict[str, int] = {}

    def value(self, term: Expr) -> Expr:
        return self.model.eval(term, model_completion=True)

    def name(self, term: Expr) -> str:
        value = self.value(term)
        sort = value.sort()
        if sort in PREFIXES:
            key = (sort.name(), str(value))
            if key not in self._names:
                prefix = PREFIXES[sort]
                count = self._counts.get(prefix, 0)
                self._counts[prefix] = count + 1
                self._names[key] = f"{prefix}{count}"
            return self._names[key]
        if sort == GRANT:
            return self._grant(value)
        if sort == IDENTITY:
            fields = ("id_tool", "id_key", "id_ckey", "id_scope", "id_fp", "id_input")
            named = [self.name(getattr(IDENTITY, field)(value)) for field in fields]
            return "identity(" + ", ".join(named) + ")"
        if z3.is_int_value(value):
            return str(value.as_long())
        if z3.is_true(value) or z3.is_false(value):
            return "true" if z3.is_true(value) else "false"
        if z3.is_array(value):
            return self._set(value)
        return str(value)

    def _grant(self, grant: Expr) -> str:
        parts = [self.name(GRANT.tool(grant))]
        parts.append("json" if z3.is_true(self.value(GRANT.json_format(grant))) else "text")
        for field in GRANT_FIELDS[2:6]:
            parts.append(f"{_SHORT_FIELDS[field]}={self.name(getattr(GRANT, field)(grant))}")
        parts.append(f"resources={self.name(GRANT.resources(grant))}")
        return "grant(" + ", ".join(parts) + ")"

    def _set(self, value: Expr) -> str:
        element = value.sort().domain()
        if element == PHASE:
            candidates = list(PHASES.values())
        elif element == MESSAGE:
            keys = self.model.get_universe(CKEY) or []
            candidates = [MESSAGE.message(c, p) for c in keys for p in PHASES.values()]
        elif element in PREFIXES:
            candidates = list(self.model.get_universe(element) or [])
        else:
            return "{…}"
        members = [c for c in candidates if z3.is_true(self.value(z3.IsMember(c, value)))]
        shown = [self._element(m) for m in members[:SET_LIMIT]]
        if len(members) > SET_LIMIT:
            shown.append(f"… {len(members) - SET_LIMIT} more")
        return "{" + ", ".join(shown) + "}"

    def _element(self, member: Expr) -> str:
        if member.sort() == MESSAGE:
            ckey = self.name(MESSAGE.msg_ckey(member))
            return f"{ckey}:{self.value(MESSAGE.msg_phase(member))}"
        return self.name(member)


def render_path(path: Path, watched: Iterable[str], headline: str = "") -> tuple[str, ...]:
    """Numbered lines for ``path``: actions, parameters and changes of ``watched``."""
    namer = Namer(path.model)
    chosen = [path.chosen(position) for position in range(len(path))]
    mentioned = _mentioned_indices(namer, chosen, path.indices.values())
    watched_names = [name for name in SCHEMA if name in set(watched)]
    lines: list[str] = []
    for position, step in enumerate(chosen):
        shown = [
            f"{name}={namer.name(value)}"
            for name, value in step.params.items()
            if name not in step.action.hidden_params
        ]
        if step.action.hidden_params:
            shown.append("content=<any journal>")
        lines.append(f"{position + 1}. {step.action.name} {' '.join(shown)}".rstrip())
        before, after = path.states[position], path.states[position + 1]
        for name in watched_names:
            if name in step.written:
                lines.extend(_changes(namer, name, before, after, mentioned))
    if path.indices:
        where = " ".join(f"{n}={namer.name(v)}" for n, v in path.indices.items())
        lines.append(f"   at {where}")
    final = _final_values(namer, watched_names, path.states[-1], path.indices)
    if final:
        lines.append(f"   state: {', '.join(final)}")
    if headline:
        lines.append(headline)
    return tuple(lines)


def _final_values(
    namer: Namer, names: Sequence[str], state: State, indices: Mapping[str, Expr]
) -> list[str]:
    """The watched variables at the indices of the violation, as they are at the end."""
    shown = []
    for name in names:
        sort = SCHEMA[name]
        if isinstance(sort, z3.ArraySortRef):
            for index in indices.values():
                if index.sort() != sort.domain() or _unset(namer, name, state, index):
                    continue
                value = namer.name(state[name][index])
                shown.append(f"{name}[{namer.name(index)}]={value}")
        else:
            shown.append(f"{name}={namer.name(state[name])}")
    return shown


def _unset(namer: Namer, name: str, state: State, index: Expr) -> bool:
    """A per-key field of a record that does not exist (its slot is ``absent``)."""
    owner, _, field = name.partition(".")
    if field not in ASSIGNED_FIELDS:
        return False
    slot = f"{owner}.{'op' if field == 'tool' else 'cmp'}"
    return namer.name(state[slot][index]) == "absent"


def _mentioned_indices(
    namer: Namer, steps: Sequence[Any], extra: Iterable[Expr]
) -> dict[Any, list[Expr]]:
    found: dict[Any, dict[str, Expr]] = {}
    terms = [value for step in steps for value in step.params.values()]
    for term in [*terms, *extra]:
        sort = term.sort()
        if sort in PREFIXES:
            found.setdefault(sort, {})[namer.name(term)] = term
    return {sort: list(values.values()) for sort, values in found.items()}


def _changes(
    namer: Namer, name: str, before: State, after: State, mentioned: dict[Any, list[Expr]]
) -> list[str]:
    sort = SCHEMA[name]
    if isinstance(sort, z3.ArraySortRef) and sort.domain() in PREFIXES:
        lines = []
        assigned = name.split(".", 1)[1] in ASSIGNED_FIELDS
        for index in mentioned.get(sort.domain(), []):
            old, new = namer.name(before[name][index]), namer.name(after[name][index])
            if old == new:
                continue
            if assigned:
                lines.append(f"   {name}[{namer.name(index)}] := {new}")
            else:
                lines.append(f"   {name}[{namer.name(index)}]: {old} -> {new}")
        return lines
    old, new = namer.name(before[name]), namer.name(after[name])
    return [f"   {name}: {old} -> {new}"] if old != new else []
