"""Every check the runner knows, in run order: model proofs, vectors, scenarios, exploration.

``SOURCES`` lists every other source of checks, so ``rescind check`` and the pytest plugin
see one list.
"""

from __future__ import annotations

import time
from pathlib import Path

from hypothesis.database import ExampleDatabase

from rescind.conformance.explore.sharding import Shard, choose_seed
from rescind.conformance.harness import Driver
from rescind.conformance.runner_check import Check, Outcome, Status
from rescind.conformance.sources import canonical_fast as source_canonical_fast
from rescind.conformance.sources import exploration as source_explore
from rescind.conformance.sources import saga_refinement as source_saga_refinement
from rescind.conformance.sources.options import (
    EXPLORATION,
    CheckSource,
    DriverFactory,
    SourceOptions,
)
from rescind.conformance.sources.proofs import ProofRunner
from rescind.conformance.vectors.checks import vector_checks


def model_checks(proofs: ProofRunner | None = None) -> list[Check]:
    """The model proofs as checks; ``proofs`` runs them (default: each in this process when it
    runs, no cache)."""
    # imported here, not at the top: the proof modules load z3, which a run without the
    # model (--no-model, the pytest plugin's vector items) never needs
    from rescind.model.catalog import discover_checks
    from rescind.model.core.proof_check import PASSING
    from rescind.model.core.proof_check import Check as ModelCheck

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
    cache = proofs.cache if proofs is not None else None
    options = SourceOptions(
        explore_steps, replay_directory, choose_seed(seed), shard, example_db, cache
    )
    checks: list[Check] = model_checks(proofs) if include_model else []
    checks += vector_checks()
    for source in SOURCES:
        checks += source(start_driver, options)
    if shard is not None:
        checks = [c for c in checks if c.source == EXPLORATION or shard.owns(c.id)]
    return checks


SOURCES: tuple[CheckSource, ...] = (
    source_saga_refinement.saga_refinement_checks,
    source_canonical_fast.canonical_fast_checks,
    source_explore.exploration_checks,
)
"""Every source of checks beyond the model and the vectors, in run order."""
