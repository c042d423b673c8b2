"""Checks from differential exploration (``explore.engine``): one check per explored area
(``explore.areas.AREAS``). In a sharded run each is that shard's slice of the budget,
explored from its own seed and named ``explore.<area>#shard-I/N``.

Traces the driver answers ``unsupported`` for are discarded and counted in the message
("N traces, M inexpressible"). A trace whose reply leaves members unanswered (the marker
``{"unsupported": reason}`` as a member's value) is compared on its answered members and
counted ("K answered in part") unless a declared restriction names every such member. An
area passes only when at least ``TO_THE_END`` of its traces were compared to their end;
otherwise the check is ``unsupported`` (unanswered: the claim is partial), never a pass."""

from __future__ import annotations

from rescind.conformance.explore.areas import AREAS
from rescind.conformance.explore.engine import Area, explore, save_replay
from rescind.conformance.explore.sharding import area_seed
from rescind.conformance.harness import Driver
from rescind.conformance.runner_check import Check, Outcome, Status
from rescind.conformance.sources.options import EXPLORATION, DriverFactory, SourceOptions

DEFAULT_EXAMPLES = 200
"""Traces per area (split across shards)."""
TO_THE_END = 0.9
"""The share of an area's traces that must be compared to their end (every step answered,
every member answered or excused by a declared restriction) for the area to pass; below it
the check is unanswered (``unsupported``) and the claim partial."""


def exploration_checks(_: DriverFactory, options: SourceOptions) -> list[Check]:
    budget = options.explore_examples
    total = DEFAULT_EXAMPLES if budget is None else budget
    if total <= 0:
        return []
    return [_check(area, total, options) for area in AREAS]


def _check(area: Area, total: int, options: SourceOptions) -> Check:
    shard = options.shard
    examples = total if shard is None else shard.budget(total)
    seed = area_seed(options.seed, area.name, shard)
    check_id = f"explore.{area.name}"

    def run(driver: Driver) -> Outcome:
        if examples <= 0:
            return Outcome("pass", f"0 traces in this shard's slice (run seed {options.seed})")
        result = explore(driver, area, examples, seed, database=options.example_db)
        if result.disagreement is None:
            rate = result.steps / result.seconds if result.seconds else 0.0
            inexpressible = (
                f", {result.inexpressible} inexpressible (discarded)"
                if result.inexpressible
                else ""
            )
            in_part = f", {result.in_part} answered in part" if result.in_part else ""
            # A pass is earned: most traces must be compared to their end, not discarded or
            # compared on a few answered members.
            earned = result.share_to_the_end >= TO_THE_END
            status: Status = "pass" if earned else "unsupported"
            shortfall = (
                ""
                if earned
                else f"only {result.to_the_end} of {result.examples} traces compared to their "
                f"end ({TO_THE_END:.0%} needed): "
            )
            return Outcome(
                status,
                f"{shortfall}{result.compared} traces{inexpressible}{in_part}, "
                f"{result.steps} steps, {rate:.0f} steps/s (run seed {options.seed})",
            )
        path = save_replay(result.disagreement, options.replay_directory, area.name)
        steps = len(area.steps_of(result.disagreement.trace))
        return Outcome(
            "fail",
            f"{result.disagreement.message}; minimal trace of {steps} steps saved to {path} "
            f"(rescind replay {path}; run seed {options.seed})",
        )

    return Check(
        id=check_id if shard is None else shard.slice_id(check_id),
        tier="must",
        rule=area.rule,
        capability=area.capability,
        source=EXPLORATION,
        run=run,
        profile=area.profile,
        description=area.description,
    )
