"""Lifecycle diagrams as inline SVG, for the HTML report: the same edges ``rescind diagram``
draws as Mermaid (``rescind.tables.diagrams.edges``), laid out here so the page needs no
script or network to show them.

Layout: a state's column is its distance from an initial state along the edges; states of
a column stack in table order. Edges are curves bowed to their left, so the two directions
between a pair never overlap; each carries a number that the legend under the figure
expands into its labels (long labels would not fit on the drawing).
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Mapping

from rescind.tables import diagrams
from rescind.tables.registry import Registered

NODE_W, NODE_H = 150.0, 30.0
COLUMN, ROW, MARGIN = 200.0, 64.0, 40.0


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _label(state: object) -> str:
    return str(getattr(state, "value", state))


def _states(value: object) -> list[object]:
    return list(value) if isinstance(value, frozenset | set | tuple | list) else [value]


def columns(
    states: list[object], initial: Iterable[object], edges: Iterable[tuple[object, object]]
) -> dict[object, int]:
    """Breadth-first distance from the initial states; unreachable states go last."""
    following: dict[object, list[object]] = {}
    for source, target in edges:
        if source != target:
            following.setdefault(source, []).append(target)
    depth = {state: 0 for state in initial}
    frontier = list(depth)
    while frontier:
        reached = []
        for state in frontier:
            for target in following.get(state, []):
                if target not in depth:
                    depth[target] = depth[state] + 1
                    reached.append(target)
        frontier = reached
    last = max(depth.values(), default=-1) + 1
    return {state: depth.get(state, last) for state in states}


def _border(center: tuple[float, float], toward: tuple[float, float]) -> tuple[float, float]:
    """Where the line from a node's centre towards ``toward`` leaves its rectangle."""
    dx, dy = toward[0] - center[0], toward[1] - center[1]
    if dx == 0 and dy == 0:
        return center
    scale = min(
        (NODE_W / 2) / abs(dx) if dx else math.inf, (NODE_H / 2) / abs(dy) if dy else math.inf
    )
    return center[0] + dx * scale, center[1] + dy * scale


def _curve(
    start: tuple[float, float], end: tuple[float, float], same_column: bool
) -> tuple[str, tuple[float, float]]:
    (x1, y1), (x2, y2) = start, end
    length = math.hypot(x2 - x1, y2 - y1) or 1.0
    bow = 0.45 * length if same_column else min(28.0, 0.2 * length)
    control = ((x1 + x2) / 2 + bow * (y2 - y1) / length, (y1 + y2) / 2 - bow * (x2 - x1) / length)
    a, b = _border(start, control), _border(end, control)
    middle = (
        0.25 * a[0] + 0.5 * control[0] + 0.25 * b[0],
        0.25 * a[1] + 0.5 * control[1] + 0.25 * b[1],
    )
    path = f"M{a[0]:.1f},{a[1]:.1f} Q{control[0]:.1f},{control[1]:.1f} {b[0]:.1f},{b[1]:.1f}"
    return path, middle


def _loop(center: tuple[float, float]) -> tuple[str, tuple[float, float]]:
    x, y = center
    top = y - NODE_H / 2
    path = f"M{x - 12:.1f},{top:.1f} C{x - 30:.1f},{top - 30:.1f} {x + 30:.1f},{top - 30:.1f} "
    path += f"{x + 12:.1f},{top:.1f}"
    return path, (x, top - 22)


def lifecycle_svg(
    states: list[object],
    initial: list[object],
    terminal: set[object],
    edges: Mapping[tuple[object, object], list[str]],
    prefix: str,
) -> str:
    """The SVG element; ``prefix`` keeps its marker id unique within the page."""
    column = columns(states, initial, edges)
    rows: dict[int, int] = {}
    centers: dict[object, tuple[float, float]] = {}
    for state in states:
        row = rows.get(column[state], 0)
        rows[column[state]] = row + 1
        centers[state] = (
            MARGIN + 20 + column[state] * COLUMN + NODE_W / 2,
            MARGIN + row * ROW + NODE_H / 2,
        )
    width = MARGIN * 2 + 20 + (max(column.values(), default=0) + 1) * COLUMN
    height = MARGIN * 2 + max(rows.values(), default=1) * ROW
    arrow = f"{prefix}-arrow"
    parts = [
        f'<svg class="lifecycle" role="img" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}">',
        f'<defs><marker id="{arrow}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" '
        'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" '
        'fill="#44546a"/></marker></defs>',
    ]
    for state in initial:
        x, y = centers[state]
        start = x - NODE_W / 2 - 26
        parts.append(
            f'<g class="initial"><circle cx="{start:.1f}" cy="{y:.1f}" r="5" fill="#1d232a"/>'
            f'<path d="M{start + 5:.1f},{y:.1f} L{x - NODE_W / 2:.1f},{y:.1f}" '
            f'stroke="#1d232a" marker-end="url(#{arrow})"/></g>'
        )
    for number, ((source, target), labels) in enumerate(edges.items(), start=1):
        if source == target:
            path, middle = _loop(centers[source])
        else:
            same = column[source] == column[target]
            path, middle = _curve(centers[source], centers[target], same)
        text = ", ".join(label for label in labels if label) or "(no label)"
        parts.append(
            f'<g class="edge" data-edge="{number}"><title>{number}: {_e(_label(source))} → '
            f"{_e(_label(target))}: {_e(text)}</title>"
            f'<path d="{path}" marker-end="url(#{arrow})"/>'
            f'<circle cx="{middle[0]:.1f}" cy="{middle[1]:.1f}" r="8"/>'
            f'<text x="{middle[0]:.1f}" y="{middle[1] + 3.5:.1f}" text-anchor="middle">'
            f"{number}</text></g>"
        )
    for state in states:
        x, y = centers[state]
        css = "node terminal" if state in terminal else "node"
        parts.append(
            f'<g class="{css}" data-state="{_e(_label(state))}">'
            f'<rect x="{x - NODE_W / 2:.1f}" y="{y - NODE_H / 2:.1f}" width="{NODE_W:.0f}" '
            f'height="{NODE_H:.0f}" rx="6"/>'
            f'<text x="{x:.1f}" y="{y + 4:.1f}" text-anchor="middle">{_e(_label(state))}</text>'
            "</g>"
        )
    parts.append("</svg>")
    return "".join(parts)


def lifecycle_figure(entry: Registered, prefix: str) -> str:
    """A figure: the SVG, a legend of numbered edges, and the Mermaid text it matches."""
    lifecycle = entry.lifecycle
    states = list(lifecycle.states)
    edges = diagrams.edges(lifecycle)
    exceptions = {
        (row.source, row.target): str(row.name) for row in getattr(lifecycle, "exceptions", ())
    }
    svg = lifecycle_svg(
        states,
        [state for state in states if state in _states(lifecycle.initial)],
        set(_states(lifecycle.terminal)),
        edges,
        prefix,
    )
    legend = []
    for number, ((source, target), labels) in enumerate(edges.items(), start=1):
        text = ", ".join(label for label in labels if label)
        if (source, target) in exceptions:
            text = f"{text} (documented exception {exceptions[(source, target)]})".strip()
        legend.append(
            f"<tr><td>{number}</td><td>{_e(_label(source))}</td><td>{_e(_label(target))}</td>"
            f"<td>{_e(text)}</td></tr>"
        )
    return (
        f'<figure class="lifecycle" data-lifecycle="{_e(entry.name)}">'
        f"<figcaption><h3>{_e(entry.name)}</h3><code>{_e(entry.source)}</code></figcaption>"
        f"{svg}"
        '<table class="legend"><thead><tr><th>#</th><th>from</th><th>to</th><th>on</th>'
        f"</tr></thead><tbody>{''.join(legend)}</tbody></table>"
        "<details><summary>Mermaid source (as in docs/diagrams)</summary>"
        f"<pre>{_e(diagrams.mermaid(lifecycle))}</pre></details></figure>"
    )
