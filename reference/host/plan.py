"""Workflow plans and the identifiers that tie plans and approvals to one engine instance.

A plan is an ordered list of steps (id and source). Its *fingerprint* depends on the steps
only, so rebuilding the same steps after a restart gives the same fingerprint and an old
ledger validates again (HL-12). Its *identity* is (engine id, plan id): engine-local and
process-local, never persisted, never part of any digest.

Engine ids come from one process-wide counter that starts at 1 (``PROCESS_ENGINE_IDS``).
An engine may be given its own ``IdCounter`` instead, which tests and traces do so that the
ids they see do not depend on how many engines the process made before. Plan ids and
approval nonces come from per-engine counters that start at 1 and saturate at 2**64-1
(upstream uses saturating adds, so ids never wrap to 0).
"""

from __future__ import annotations

import threading

import attrs

from rescind.reference.digests import PlanStep

MAX_ID = 2**64 - 1


class IdCounter:
    """A thread-safe counter yielding 1, 2, 3, ... and then ``MAX_ID`` forever."""

    def __init__(self, start: int = 1) -> None:
        if not 1 <= start <= MAX_ID:
            raise ValueError("an id counter starts between 1 and 2**64-1")
        self._next = start
        self._lock = threading.Lock()

    def take(self) -> int:
        with self._lock:
            value = self._next
            self._next = min(self._next + 1, MAX_ID)
            return value


PROCESS_ENGINE_IDS = IdCounter()
"""The process-wide engine id source (upstream: a static atomic counter starting at 1)."""


@attrs.frozen
class WorkflowPlan:
    """An ordered plan made by one engine. Build plans with ``WorkflowEngine.plan``."""

    engine_id: int
    plan_id: int
    steps: tuple[PlanStep, ...] = attrs.field(repr=False)
    fingerprint: str

    @property
    def step_ids(self) -> tuple[str, ...]:
        return tuple(step.step_id for step in self.steps)

    def has_step(self, step_id: str) -> bool:
        return any(step.step_id == step_id for step in self.steps)
