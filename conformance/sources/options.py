"""What a check source is given: a way to start the driver under test, and the run's options.
Sources (the modules of ``sources``) depend on this, never on the catalogue that lists them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import attrs
from hypothesis.database import ExampleDatabase

from rescind.conformance.explore.sharding import Shard
from rescind.conformance.harness import Driver
from rescind.conformance.runner_check import Check

if TYPE_CHECKING:
    from rescind.conformance.sources.proofs import ProofCache

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
    proof_cache: ProofCache | None = None
    """The run's proof cache, also for the saga refinement checks; ``None`` for none."""


CheckSource = Callable[[DriverFactory, SourceOptions], list[Check]]
