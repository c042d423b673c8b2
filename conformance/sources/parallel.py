"""Differential exploration of the built-in reference in worker processes.

Against the reference (no ``--impl``) each exploration area is independent of every other
check: a worker process builds the same area check from the same options (seed, shard,
budget, replay folder, example database), runs it on its own in-process reference driver and
returns the outcome; the traces are the ones the runner's process would explore (a seed's
traces do not depend on what a process imported, see ``explore.engine``). ``rescind check``
starts the areas when the run starts, so they run while this process works through the
vectors and scenarios; the run order and the report do not change. An area whose worker
fails is explored here instead. Against an implementation's driver exploration stays in the
runner's process, on the one driver the runner manages (restarts, harness failures).
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path

import attrs

from rescind.conformance.harness import Driver
from rescind.conformance.runner_check import Check, Outcome
from rescind.conformance.sources.options import EXPLORATION, SourceOptions


@attrs.frozen
class ExploreOptions:
    """What a worker needs to build the exploration checks again (all picklable)."""

    explore_steps: int | None
    replay_directory: str
    seed: int
    shard: str | None
    example_db: str


def run_area(check_id: str, options: ExploreOptions) -> Outcome:
    """In a worker: the outcome of exploration check ``check_id`` on the reference."""
    from rescind.conformance.driver import handle
    from rescind.conformance.explore import example_db
    from rescind.conformance.explore.sharding import Shard
    from rescind.conformance.harness import InProcessDriver
    from rescind.conformance.sources.exploration import exploration_checks

    source = SourceOptions(
        options.explore_steps,
        Path(options.replay_directory),
        options.seed,
        Shard.parse(options.shard) if options.shard else None,
        example_db.open_database(options.example_db),
    )

    def start() -> InProcessDriver:
        return InProcessDriver(handle)

    check = next(c for c in exploration_checks(start, source) if c.id == check_id)
    driver = start()
    try:
        return check.run(driver)
    finally:
        driver.close()


class ParallelExploration:
    """Runs the exploration checks of one run in ``jobs`` worker processes (0: none)."""

    def __init__(self, options: ExploreOptions, jobs: int) -> None:
        self._options = options
        self._jobs = jobs
        self._pool: ProcessPoolExecutor | None = None

    def wrap(self, checks: Sequence[Check]) -> list[Check]:
        """``checks``, each exploration check started in a worker: its ``run`` waits for the
        worker's outcome (or explores here when the worker failed)."""
        areas = [check for check in checks if check.source == EXPLORATION]
        if not areas or self._jobs < 1:
            return list(checks)
        context = multiprocessing.get_context("forkserver")
        workers = min(self._jobs, len(areas))
        self._pool = ProcessPoolExecutor(max_workers=workers, mp_context=context)
        started = {id(c): self._pool.submit(run_area, c.id, self._options) for c in areas}
        return [
            attrs.evolve(check, run=_waiting(check, started[id(check)]))
            if id(check) in started
            else check
            for check in checks
        ]

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


def _waiting(check: Check, future: Future[Outcome]) -> Callable[[Driver], Outcome]:
    def run(driver: Driver) -> Outcome:
        try:
            return future.result()
        except Exception:  # a worker that died: explore here instead
            return check.run(driver)

    return run
