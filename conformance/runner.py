"""Run checks against a driver; survive a misbehaving driver and say what it did.

When the driver breaks the protocol during a check (garbage on stdout, a crash, a timeout,
a duplicated reply), that check is an ``error`` naming the failure kind, the driver is
restarted, and the run continues; after ``max_restarts`` restarts the remaining checks are
``error`` too and the run is a harness failure (exit code 2).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence

import attrs

from rescind.conformance.checks import Check, Outcome, Result
from rescind.conformance.harness import Driver, HarnessFailure

DriverFactory = Callable[[], Driver]
Progress = Callable[[Check, Outcome], None]


@attrs.frozen
class RunReport:
    implementation: str
    version: str
    capabilities: tuple[str, ...]
    profiles: tuple[str, ...]
    results: tuple[Result, ...]
    harness_failures: tuple[str, ...]
    seconds: float
    restrictions: tuple[str, ...] = ()
    """What the driver declared it cannot express (``rescind.conformance.restrictions``)."""

    @property
    def failed(self) -> bool:
        return any(result.failed for result in self.results)

    @property
    def harness_broken(self) -> bool:
        return bool(self.harness_failures)

    def exit_code(self) -> int:
        if self.harness_broken:
            return 2
        return 1 if self.failed else 0

    def counts(self) -> dict[str, int]:
        tally: dict[str, int] = {}
        for result in self.results:
            tally[result.outcome.status] = tally.get(result.outcome.status, 0) + 1
        return tally


def run_checks(
    checks: Sequence[Check],
    start_driver: DriverFactory,
    *,
    expected_failures: Iterable[str] = (),
    max_restarts: int = 3,
    progress: Progress | None = None,
) -> RunReport:
    started = time.monotonic()
    expected = set(expected_failures)
    failures: list[str] = []
    restarts = 0
    driver: Driver | None = None
    try:
        driver = start_driver()
    except HarnessFailure as failure:
        failures.append(str(failure))
    capabilities = driver.hello.capabilities if driver else frozenset()
    declared_profiles = set(driver.hello.profiles) if driver else set()
    driver_restrictions = driver.hello.restrictions if driver else frozenset()
    results: list[Result] = []
    for check in checks:
        if check.capability != "model" and check.capability not in capabilities:
            outcome = Outcome("not-applicable", f"capability {check.capability} not declared")
        elif check.profile is not None and check.profile not in declared_profiles:
            outcome = Outcome("not-applicable", f"profile {check.profile} not declared")
        elif driver is None:
            outcome = Outcome("error", "no working driver")
        else:
            begin = time.monotonic()
            try:
                outcome = check.run(driver)
            except HarnessFailure as failure:
                failures.append(f"{check.id}: {failure}")
                outcome = Outcome("error", str(failure))
                driver.close()
                driver = None
                if restarts < max_restarts:
                    restarts += 1
                    try:
                        driver = start_driver()
                    except HarnessFailure as again:
                        failures.append(f"restart: {again}")
            outcome = attrs.evolve(outcome, seconds=time.monotonic() - begin)
        outcome = _apply_expectation(check, outcome, expected)
        results.append(Result(check, outcome))
        if progress is not None:
            progress(check, outcome)
    hello = driver.hello if driver else None
    if driver is not None:
        driver.close()
    return RunReport(
        implementation=hello.implementation if hello else "unknown",
        version=hello.version if hello else "unknown",
        capabilities=tuple(sorted(capabilities)),
        profiles=tuple(sorted(declared_profiles)),
        results=tuple(results),
        harness_failures=tuple(failures),
        seconds=time.monotonic() - started,
        restrictions=tuple(sorted(driver_restrictions)),
    )


def _apply_expectation(check: Check, outcome: Outcome, expected: set[str]) -> Outcome:
    if check.id not in expected:
        return outcome
    if outcome.status in ("fail", "error"):
        return attrs.evolve(outcome, status="xfail")
    if outcome.status == "pass":
        return attrs.evolve(outcome, status="xpass", message="listed as an expected failure")
    return outcome
