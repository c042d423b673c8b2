"""Mermaid state diagrams drawn from the lifecycle tables themselves.

The tables come from the explicit registry ``rescind.tables.registry.LIFECYCLES``. Two table
shapes are drawn:

* ``table``: a mapping ``(current, observed) -> verdict`` (the operation ``Lifecycle`` shape:
  verdict values ``advance``, ``stay``, ``stay_if_same``; anything else is a rejection), or
* ``transitions``: rows with ``source`` and ``target`` and optionally ``trigger``.

``initial`` may be one state or a set of states. Optional ``final`` (states with no exit) and
``exceptions`` (rows with ``name``, ``source``, ``target``: edges that leave a terminal state
on purpose) are drawn when present. Nothing here knows any particular table.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from rescind.tables.registry import LIFECYCLES, Registered

Found = Registered


def _label(state: object) -> str:
    value = getattr(state, "value", state)
    return str(value)


def _node(state: object) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", _label(state)) or "state"


def _as_set(value: object) -> list[object]:
    if isinstance(value, frozenset | set | tuple | list):
        return list(value)
    return [value]


def _ordered(states: Iterable[object], order: list[object]) -> list[object]:
    return sorted(states, key=lambda s: order.index(s) if s in order else len(order))


def edges(lifecycle: Any) -> dict[tuple[object, object], list[str]]:
    """``(source, target) -> labels`` in table order."""
    result: dict[tuple[object, object], list[str]] = {}
    table = getattr(lifecycle, "table", None)
    if isinstance(table, Mapping):
        for (current, observed), verdict in table.items():
            kind = str(getattr(verdict, "value", verdict))
            if kind == "advance":
                result.setdefault((current, observed), []).append(f"observe {_label(observed)}")
            elif kind == "stay":
                result.setdefault((current, current), []).append(f"{_label(observed)} (no-op)")
            elif kind == "stay_if_same":
                label = f"{_label(observed)} (no-op if same result)"
                result.setdefault((current, current), []).append(label)
        return result
    for row in lifecycle.transitions:
        label = str(getattr(row, "trigger", "") or "")
        result.setdefault((row.source, row.target), []).append(label)
    return result


def mermaid(lifecycle: Any) -> str:
    order = list(lifecycle.states)
    lines = ["stateDiagram-v2", "    direction LR"]
    for state in order:
        if _node(state) != _label(state):
            lines.append(f'    state "{_label(state)}" as {_node(state)}')
    for state in _ordered(_as_set(lifecycle.initial), order):
        lines.append(f"    [*] --> {_node(state)}")
    exceptions = {
        (row.source, row.target): str(row.name) for row in getattr(lifecycle, "exceptions", ())
    }
    for (source, target), labels in edges(lifecycle).items():
        text = ", ".join(label for label in labels if label)
        if (source, target) in exceptions:
            text = f"{text} (documented exception {exceptions[(source, target)]})".strip()
        suffix = f": {text}" if text else ""
        lines.append(f"    {_node(source)} --> {_node(target)}{suffix}")
    final = getattr(lifecycle, "final", None)
    ends = _as_set(final) if final is not None else _as_set(lifecycle.terminal)
    for state in _ordered(ends, order):
        lines.append(f"    {_node(state)} --> [*]")
    terminal = _ordered(_as_set(lifecycle.terminal), order)
    if terminal:
        lines.append("    classDef terminal font-weight:bold,stroke-width:3px")
        lines.append(f"    class {','.join(_node(s) for s in terminal)} terminal")
    return "\n".join(lines) + "\n"


def document(found: Found) -> str:
    lifecycle = found.lifecycle
    order = list(lifecycle.states)
    terminal = ", ".join(
        _label(s) for s in _ordered(_as_set(lifecycle.terminal), list(lifecycle.states))
    )
    final = getattr(lifecycle, "final", None)
    lines = [
        f"# Lifecycle: {found.name}",
        "",
        f"{MARKER} from `{found.source}`. Do not edit;",
        "change the table and run the command again.",
        "",
        f"- states: {', '.join(_label(s) for s in lifecycle.states)}",
        f"- initial: {', '.join(_label(s) for s in _ordered(_as_set(lifecycle.initial), order))}",
        f"- terminal (bold): {terminal or 'none'}",
    ]
    if final is not None:
        names = ", ".join(_label(s) for s in _ordered(_as_set(final), order)) or "none"
        lines.append(f"- final (arrow to the end marker): {names}")
    else:
        lines.append("- the end marker follows each terminal state")
    if isinstance(getattr(lifecycle, "table", None), Mapping):
        lines.append("- a pair missing from the table is a rejection and is not drawn")
    lines.extend(["", "```mermaid", mermaid(lifecycle).rstrip("\n"), "```", ""])
    return "\n".join(lines)


def file_name(found: Found) -> str:
    return re.sub(r"[^a-z0-9]+", "-", found.name.lower()).strip("-") + ".md"


MARKER = "Generated by `rescind diagram`"


def render_all() -> dict[str, str]:
    """File name -> content for every lifecycle, plus an ``index.md``."""
    found = LIFECYCLES
    files: dict[str, str] = {}
    index = [
        "# Lifecycle diagrams",
        "",
        f"{MARKER} from the lifecycle tables the reference executes.",
        "",
    ]
    for entry in found:
        name = file_name(entry)
        if name in files:
            raise ValueError(f"two lifecycles draw to {name}")
        files[name] = document(entry)
        index.append(f"- [{entry.name}]({name}): `{entry.source}`")
    files["index.md"] = "\n".join(index) + "\n"
    return files
