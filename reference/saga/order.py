"""Compensation order over a dependency graph ("X needs Y": Y happened before X).

Three orders, one per upstream behaviour:

* ``stable_topological_order``: agentctl's compiled order. Kahn's algorithm where the ready task
  declared first always goes next (newly ready tasks re-enter by declaration position), which is
  the lexicographically smallest topological order by declaration index. agentctl compensates in
  exactly the *reverse* of it, one task at a time.
* ``dfs_reverse_postorder``: what CaseHub's coordinator code computes: a depth-first post-order
  in plan-item order, reversed. Dependents come first; independent items in reverse item order.
* ``compensation_batches``: the CaseHub design's parallel schedule. A step whose dependents are
  all compensated may go; every step that may go in the same round shares a batch. Batch of X is
  0 when nothing depends on X, else one more than the largest batch of its dependents. A linear
  chain gives one step per batch in strict reverse order.
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


def compensation_batches(nodes: Sequence[str], needs: Graph) -> tuple[tuple[str, ...], ...]:
    """Maximal parallel rounds; inside a round, reverse declaration order (the code's tie)."""
    order = stable_topological_order(nodes, needs)  # also rejects cycles
    users = dependents_of(nodes, needs)
    batch: dict[str, int] = {}
    for node in reversed(order):  # every dependent is assigned before the node it needs
        batch[node] = 1 + max((batch[user] for user in users[node]), default=-1)
    rounds = max(batch.values(), default=-1) + 1
    return tuple(
        tuple(node for node in reversed(nodes) if batch[node] == level) for level in range(rounds)
    )
