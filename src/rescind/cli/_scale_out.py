"""The scale-out options of ``rescind check``: ``--seed``, ``--shard I/N`` and
``--example-db`` (see ``rescind.conformance.explore.sharding`` and ``example_db``)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

import attrs
from hypothesis.database import ExampleDatabase

from rescind.cli import UsageError
from rescind.conformance.explore import example_db
from rescind.conformance.explore.sharding import Shard, choose_seed


@attrs.frozen
class ScaleOut:
    seed: int
    shard: Shard | None
    example_db: ExampleDatabase | None
    where: str
    """The database as given, any Redis password masked."""


def add_arguments(parser: Any) -> None:
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        metavar="N",
        help="exploration seed (printed by every run; default: a fresh one, or 0 under "
        "HYPOTHESIS_PROFILE=ci)",
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
        default=str(example_db.DEFAULT_DIRECTORY),
        help="where exploration keeps the disagreements it found and replays them first "
        f"(default: {example_db.DEFAULT_DIRECTORY}; Redis needs hypothesis[redis])",
    )


def options(args: argparse.Namespace) -> ScaleOut:
    try:
        shard = Shard.parse(args.shard) if args.shard is not None else None
    except ValueError as error:
        raise UsageError(f"--shard: {error}") from error
    try:
        database = example_db.open_database(args.example_db)
    except ValueError as error:
        raise UsageError(f"--example-db: {error}") from error
    return ScaleOut(choose_seed(args.seed), shard, database, example_db.redacted(args.example_db))


def announce(scale: ScaleOut) -> None:
    """The seed goes to stderr so a --json report on stdout stays one JSON object."""
    shard = f", shard {scale.shard}" if scale.shard else ""
    print(
        f"rescind: exploration seed {scale.seed}{shard} (--seed {scale.seed} reproduces)",
        file=sys.stderr,
    )
