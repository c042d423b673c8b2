"""Compensation order over a dependency graph ("X needs Y": Y happened before X).

Two orders, one per upstream system, and the dependency pairs CaseHub's order respects:

* ``stable_topological_order``: agentctl's compiled order. Kahn's algorithm where the ready task
  declared first always goes next (newly ready tasks re-enter by declaration position), which is
  the lexicographically smallest topological order by declaration index. agentctl compensates in
  exactly the *reverse* of it, one task at a time.
* ``dfs_reverse_postorder``: what CaseHub's coordinator code computes: a depth-first post-order,
  reversed. Dependents come first. CaseHub walks its plan items (and each item's dependencies)
  in hash order, so the order among independent items is not fixed: over every walk order the
  DFS yields exactly the linear extensions of the dependency order (SG-100; on a DAG, visiting
  the roots in the reverse of a wanted extension yields it). Here the walk is in item order.
* ``reaches``: whether one node depends on another, directly or not; CaseHub's order respects
  a dependency only when it is not part of a cycle (the DFS skips back edges).

(The CaseHub design's parallel batches are gone: the coordinator dispatches one step at a
time, SG-100.)
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence

from rescind.reference.saga.errors import SagaDependencyCycle, SagaInvalidInput

Graph = Mapping[str, Sequence[str]]
"""node -> the nodes it needs (its dependencies). Nodes missing from the map need nothing."""


def _index(nodes: Sequence[str], needs: Graph) -> dict[str, int]:
    position = {node: index for index, node in enumerate(nodes)}
    if len(position) != len(nodes):
        raise SagaInvalidInput(field="tasks", reason="duplicate id")
    for node, required in needs.items():
        if node not in position:
            raise SagaInvalidInput(field="needs", reason="unknown task")
        for dependency in required:
            if dependency not in position:
                raise SagaInvalidInput(field="needs", reason="unknown task")
            if dependency == node:
                raise SagaDependencyCycle(tasks=node)
    return position


def dependents_of(nodes: Sequence[str], needs: Graph) -> dict[str, tuple[str, ...]]:
    """node -> the nodes that need it, in declaration order."""
    found: dict[str, list[str]] = {node: [] for node in nodes}
    for node in nodes:
        for dependency in dict.fromkeys(needs.get(node, ())):
            found[dependency].append(node)
    return {node: tuple(users) for node, users in found.items()}


def stable_topological_order(nodes: Sequence[str], needs: Graph) -> tuple[str, ...]:
    position = _index(nodes, needs)
    users = dependents_of(nodes, needs)
    waiting = {node: len(set(needs.get(node, ()))) for node in nodes}
    ready = [position[node] for node in nodes if waiting[node] == 0]
    heapq.heapify(ready)
    order: list[str] = []
    while ready:
        node = nodes[heapq.heappop(ready)]
        order.append(node)
        for user in users[node]:
            waiting[user] -= 1
            if waiting[user] == 0:
                heapq.heappush(ready, position[user])
    if len(order) != len(nodes):
        stuck = sorted(node for node in nodes if waiting[node] > 0)
        raise SagaDependencyCycle(tasks=" ".join(stuck))
    return tuple(order)


def reverse_compiled_order(nodes: Sequence[str], needs: Graph) -> tuple[str, ...]:
    return tuple(reversed(stable_topological_order(nodes, needs)))


def dfs_reverse_postorder(nodes: Sequence[str], needs: Graph) -> tuple[str, ...]:
    """CaseHub's coordinator order. A visited set makes it total even on a cyclic graph,
    where (like upstream) the back edge is simply not followed."""
    _index(nodes, needs)
    visited: set[str] = set()
    post: list[str] = []
    for root in nodes:
        if root in visited:
            continue
        visited.add(root)
        # Iterative DFS so deep chains cannot hit Python's recursion limit.
        stack: list[tuple[str, int]] = [(root, 0)]
        while stack:
            node, next_child = stack[-1]
            children = [child for child in nodes if child in set(needs.get(node, ()))]
            if next_child < len(children):
                stack[-1] = (node, next_child + 1)
                child = children[next_child]
                if child not in visited:
                    visited.add(child)
                    stack.append((child, 0))
                continue
            stack.pop()
            post.append(node)
    return tuple(reversed(post))


def reaches(needs: Graph, start: str, goal: str) -> bool:
    """True when ``start`` needs ``goal``, directly or through other nodes."""
    seen: set[str] = set()
    pending = list(needs.get(start, ()))
    while pending:
        node = pending.pop()
        if node == goal:
            return True
        if node not in seen:
            seen.add(node)
            pending.extend(needs.get(node, ()))
    return False
