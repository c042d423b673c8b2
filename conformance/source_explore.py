"""Checks from differential exploration (see ``explore``): one check per explored area."""

from __future__ import annotations

from rescind.conformance.catalogue import DriverFactory, SourceOptions, register_source
from rescind.conformance.checks import Check, Outcome
from rescind.conformance.explore import explore, save_replay
from rescind.conformance.harness import Driver

DEFAULT_EXAMPLES = 200


@register_source
def exploration_checks(_: DriverFactory, options: SourceOptions) -> list[Check]:
    budget = options.explore_examples
    examples = DEFAULT_EXAMPLES if budget is None else budget
    if examples <= 0:
        return []

    def run(driver: Driver) -> Outcome:
        result = explore(driver, examples)
        if result.disagreement is None:
            rate = result.steps / result.seconds if result.seconds else 0.0
            return Outcome(
                "pass", f"{result.examples} traces, {result.steps} steps, {rate:.0f} steps/s"
            )
        path = save_replay(result.disagreement, options.replay_directory)
        steps = len(result.disagreement.trace["steps"])
        return Outcome(
            "fail",
            f"{result.disagreement.message}; minimal trace of {steps} steps saved to {path} "
            f"(rescind replay {path})",
        )

    return [
        Check(
            id="explore.journal-authorizer",
            tier="must",
            rule="WJ-16",
            capability="journal",
            source="exploration",
            run=run,
            description="random journal and authorizer call sequences agree with the reference",
        )
    ]
