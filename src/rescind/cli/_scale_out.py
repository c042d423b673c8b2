"""The scale-out options of ``rescind check``: ``--seed``, ``--shard I/N`` and
``--example-db`` (see ``rescind.conformance.explore.sharding`` and ``example_db``)."""

from __future__ import annotations

import argparse
import sys

import attrs
from hypothesis.database import ExampleDatabase

from rescind.cli import UsageError
from rescind.cli._options import add_scale_out_arguments
from rescind.conformance.explore import example_db
from rescind.conformance.explore.sharding import Shard, choose_seed


@attrs.frozen
class ScaleOut:
    seed: int
    shard: Shard | None
    example_db: ExampleDatabase | None
    where: str
    """The database as given, any Redis password masked."""


add_arguments = add_scale_out_arguments
"""Defined with the other light argument definitions (``rescind check --help``)."""


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
