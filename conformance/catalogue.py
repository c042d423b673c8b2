"""Every check the runner knows, in run order: model proofs, vectors, scenarios, exploration.

Sources register themselves here so ``rescind check`` and the pytest plugin see one list.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import attrs
from hypothesis.database import ExampleDatabase

from rescind.conformance.checks import Check, Outcome, Status
from rescind.conformance.harness import Driver
from rescind.conformance.proofs import ProofRunner
from rescind.conformance.sharding import Shard, choose_seed
from rescind.conformance.vectorchecks import vector_checks

DriverFactory = Callable[[], Driver]
EXPLORATION = "exploration"
"""The source of exploration checks: in a sharded run each is a slice named for its shard."""


@attrs.frozen
class SourceOptions:
    explore_examples: int | None = None
    """Differential exploration budget in traces; ``None`` for the default, 0 for none."""
    replay_directory: Path = Path("rescind-replays")
    """Where minimal disagreements are saved (created only when there is one)."""
    seed: int = 0
    """The run's exploration seed (``sharding.choose_seed``)."""
    shard: Shard | None = None
    """This run's shard: it explores its slice of each budget (``sharding``)."""
    example_db: ExampleDatabase | None = None
    """Hypothesis' example database for exploration (``example_db``); ``None`` for none."""


CheckSource = Callable[[DriverFactory, SourceOptions], list[Check]]

_EXTRA_SOURCES: list[CheckSource] = []


def register_source(source: CheckSource) -> CheckSource:
    """Add a source of checks (scenarios, exploration); called at import by that module."""
    _EXTRA_SOURCES.append(source)
    return source


def model_checks(proofs: ProofRunner | None = None) -> list[Check]:
    """The model proofs as checks; ``proofs`` runs them (default: each in this process when it
    runs, no cache)."""
    from rescind.model.checks import PASSING, discover_checks
    from rescind.model.checks import Check as ModelCheck

    runner = ProofRunner() if proofs is None else proofs

    def wrap(model_check: ModelCheck) -> Check:
        runner.register(f"model.{model_check.name}", model_check)

        def run(_: Driver) -> Outcome:
            begin = time.monotonic()
            result = runner.result(model_check).result
            # A finding (a documented upstream hazard, its lasso reproduced) passes with a note.
            status: Status = "pass" if result.status in PASSING else "fail"
            # Widened to str: the proof status literal gains the counterexample text below.
            message: str = result.status if status == "fail" else ""
            if result.status == "finding":
                message = f"finding {result.finding} (docs/findings.md)"
            elif result.counterexample:
                message += ": " + " | ".join(result.counterexample[:6])
            return Outcome(status, message, time.monotonic() - begin)

        return Check(
            id=f"model.{model_check.name}",
            tier="must",
            rule=model_check.rule,
            capability="model",
            source=f"model-{model_check.group}",
            run=run,
            description=model_check.statement,
        )

    return [wrap(check) for check in discover_checks()]


def all_checks(
    start_driver: DriverFactory,
    *,
    include_model: bool = True,
    explore_steps: int | None = None,
    replay_directory: Path = Path("rescind-replays"),
    seed: int | None = None,
    shard: Shard | None = None,
    example_db: ExampleDatabase | None = None,
    proofs: ProofRunner | None = None,
) -> list[Check]:
    """Every check; with ``shard``, only the checks that shard owns (its exploration slices
    included). ``seed`` ``None`` chooses one (``sharding.choose_seed``). ``proofs`` runs the
    model checks (cache, worker processes; ``model_checks``)."""
    _load_sources()
    options = SourceOptions(explore_steps, replay_directory, choose_seed(seed), shard, example_db)
    checks: list[Check] = model_checks(proofs) if include_model else []
    checks += vector_checks()
    for source in _EXTRA_SOURCES:
        checks += source(start_driver, options)
    if shard is not None:
        checks = [c for c in checks if c.source == EXPLORATION or shard.owns(c.id)]
    return checks


SOURCE_MODULES: tuple[str, ...] = (
    "source_saga_refinement",
    "source_canonical_fast",
    "source_explore",
)
"""Every module that registers a check source, in run order."""


def _load_sources() -> None:
    import importlib

    for name in SOURCE_MODULES:
        importlib.import_module(f"rescind.conformance.{name}")
