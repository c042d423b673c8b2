"""Argument definitions that ``rescind check`` shares with ``prove``, and the defaults they
show, in a module that imports nothing heavy: ``rescind check --help`` builds its parser
from here without loading the suite, attrs, Rich or Hypothesis.

The constants repeat values owned by the suite (the harness timeout, the provenance kinds,
the example database directory); tests/cli/test_startup.py keeps them equal.
"""

from __future__ import annotations

from typing import Any

DEFAULT_TIMEOUT = 30.0
"""``rescind.conformance.harness.DEFAULT_TIMEOUT``: seconds to wait for each reply."""

PROVENANCE_LABELS: tuple[str, ...] = (
    "upstream-observed",
    "upstream-test",
    "upstream-code",
    "design-doc",
    "derived",
    "assumed",
    "model",
)
"""``rescind.conformance.report.run.PROVENANCE_LABELS``: the vector kinds, then ``model``."""

DEFAULT_EXPLORE_STEPS = 200
"""``rescind.conformance.sources.exploration.DEFAULT_EXAMPLES``: traces per vocabulary."""

CLAIM_CLASSES: tuple[str, ...] = (
    "canonical",
    "worker",
    "host",
    "storage",
    "session",
    "saga",
    "f64",
    "compensation-reconcile",
)
"""``rescind.conformance.report.claim.CLASSES``, by name."""

DEFAULT_EXAMPLE_DB = ".hypothesis/rescind-examples"
"""``rescind.conformance.explore.example_db.DEFAULT_DIRECTORY``."""


def add_cache_arguments(parser: Any) -> None:
    """``--no-cache`` and ``--jobs``, shared by ``rescind prove`` and ``rescind check``."""
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="prove every check again instead of reading results stored for this exact model, "
        "tables, z3 and Python (cache: $RESCIND_CACHE_DIR, else $XDG_CACHE_HOME/rescind, "
        "else ~/.cache/rescind)",
    )
    parser.add_argument(
        "--cache",
        action="store_true",
        help="read the cache even when CI is set in the environment (under CI it is written "
        "but not read by default: a restored cache is a file anyone could have written)",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="worker processes for the proofs (default: the cores available; 1: in this process)",
    )


def add_scale_out_arguments(parser: Any) -> None:
    """``--seed``, ``--shard`` and ``--example-db`` of ``rescind check``."""
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        metavar="N",
        help="exploration seed (printed by every run; default: a fresh one, or 0 when CI is "
        "set or under HYPOTHESIS_PROFILE=ci)",
    )
    parser.add_argument(
        "--shard",
        metavar="I/N",
        help="run shard I of N: the checks whose id hashes to I and an N-th of every "
        "exploration budget; join the --json reports with rescind report merge",
    )
    parser.add_argument(
        "--example-db",
        metavar="DIR|redis://HOST:PORT[/DB]|none",
        default=DEFAULT_EXAMPLE_DB,
        help="where exploration keeps the disagreements it found and replays them first "
        f"(default: {DEFAULT_EXAMPLE_DB}; Redis needs hypothesis[redis])",
    )
