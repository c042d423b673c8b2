"""Run checks against a driver; survive a misbehaving driver and say what it did.

When the driver breaks the protocol during a check (garbage on stdout, a crash, a timeout,
a duplicated reply), that check is an ``error`` naming the failure kind, the driver is
restarted, and the run continues; after ``max_restarts`` restarts the remaining checks are
``error`` too and the run is a harness failure (exit code 2). An exception from Rescind's
own check code (not the driver's fault) makes that check an ``error`` and the run a harness
failure too, but never ends the run without a report.

With a ``deadline`` (seconds from the start), the driver is told the moment it passes
(``Driver.stop_at``): nothing more is sent, a reply still awaited is given up, the check that
was running and every check after it are ``not-run`` (message ``deadline``), and the run
exits 4 unless something failed (docs/bounds.md).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from typing import Final

import attrs

from rescind.conformance.harness import DeadlineReached, Driver, HarnessFailure
from rescind.conformance.harness.restrictions import all_excused, excused_by
from rescind.conformance.harness.text import bound, short
from rescind.conformance.runner_check import Check, Outcome, Result

DriverFactory = Callable[[], Driver]
EXIT_PARTIAL = 3
"""Nothing failed, but some required check was not answered (docs/driver-protocol.md,
"Claims, classes and exit codes")."""
EXIT_INCOMPLETE = 4
"""The ``--deadline`` passed before every check ran."""
NOT_RUN: Final = "not-run"
DEADLINE_MESSAGE = "deadline"
Progress = Callable[[Check, Outcome], None]


def _short(text: str) -> str:
    return short(text)[0]


def _shorts(texts: Iterable[str]) -> tuple[str, ...]:
    return tuple(short(text)[0] for text in texts)


def _bounds(texts: Iterable[str]) -> tuple[str, ...]:
    return tuple(bound(text) for text in texts)


@attrs.frozen
class RunReport:
    """A run's results. Every string the driver chose (its name, version, capability and
    profile names, failure messages) is bounded here (``harness.text``), whatever its source."""

    implementation: str = attrs.field(converter=_short)
    version: str = attrs.field(converter=_short)
    capabilities: tuple[str, ...] = attrs.field(converter=_shorts)
    profiles: tuple[str, ...] = attrs.field(converter=_shorts)
    results: tuple[Result, ...]
    harness_failures: tuple[str, ...] = attrs.field(converter=_bounds)
    seconds: float
    notes: tuple[str, ...] = attrs.field(default=(), converter=_bounds)
    """What the run lost or changed on the way without failing a check (e.g. an example
    database that stopped answering): shown by every report."""
    restrictions: tuple[str, ...] = ()
    """What the driver declared it cannot express (``rescind.conformance.harness.restrictions``)."""
    upstream: str | None = attrs.field(default=None, converter=attrs.converters.optional(_short))
    """The upstream source the driver says it is built from, ``repository@commit``."""
    held_to: int | None = None
    """The exit code once the run is held to the classes asked for (``report.claim``)."""
    accepted_partial: bool = False
    """``--accept-partial`` turned a partial run's exit code 3 into 0."""
    deadline: float | None = None
    """The ``--deadline`` the run had, in seconds (``None``: none)."""

    @property
    def failed(self) -> bool:
        return any(result.failed for result in self.results)

    @property
    def harness_broken(self) -> bool:
        return bool(self.harness_failures)

    @property
    def unanswered(self) -> bool:
        """A required check the driver left (partly) unanswered outside its restrictions."""
        return any(result.unanswered for result in self.results)

    @property
    def not_run(self) -> int:
        """Checks the deadline left without an answer."""
        return sum(1 for result in self.results if result.outcome.status == NOT_RUN)

    def exit_code(self) -> int:
        """2 harness, 1 a required failure, 3 partial (``EXIT_PARTIAL``), else 0; or the code
        the run was held to (``held_to``: ``--claim``, ``--accept-partial``)."""
        if self.held_to is not None:
            return self.held_to
        return self.own_exit_code()

    def own_exit_code(self) -> int:
        if self.harness_broken:
            return 2
        if self.failed:
            return 1
        if self.not_run:
            return EXIT_INCOMPLETE
        return EXIT_PARTIAL if self.unanswered else 0

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
    deadline: float | None = None,
) -> RunReport:
    started = time.monotonic()
    stop_at = None if deadline is None else started + deadline

    def start() -> Driver:
        started_driver = start_driver()
        started_driver.stop_at = stop_at
        return started_driver

    expected = set(expected_failures)
    failures: list[str] = []
    restarts = 0
    driver: Driver | None = None
    try:
        driver = start()
    except HarnessFailure as failure:
        failures.append(str(failure))
    # The first hello names the implementation, even if the driver is dead by the end.
    hello = driver.hello if driver else None
    capabilities = driver.hello.capabilities if driver else frozenset()
    declared_profiles = set(driver.hello.profiles) if driver else set()
    driver_restrictions = driver.hello.restrictions if driver else frozenset()
    results: list[Result] = []
    for check in checks:
        if check.capability != "model" and check.capability not in capabilities:
            outcome = Outcome("not-applicable", f"capability {check.capability} not declared")
        elif check.profile is not None and check.profile not in declared_profiles:
            outcome = Outcome("not-applicable", f"profile {check.profile} not declared")
        elif stop_at is not None and time.monotonic() >= stop_at:
            outcome = Outcome(NOT_RUN, DEADLINE_MESSAGE)
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
                if restarts < max_restarts and (stop_at is None or time.monotonic() < stop_at):
                    restarts += 1
                    try:
                        driver = start()
                        hello = hello or driver.hello
                    except HarnessFailure as again:
                        failures.append(f"restart: {again}")
            except Exception as internal:
                if _caused_by_deadline(internal):
                    # Directly, or wrapped by Hypothesis (exploration) in a FlakyFailure group.
                    outcome = Outcome(NOT_RUN, DEADLINE_MESSAGE)
                    driver.abandon()  # it may be half way through a request: not asked again
                    driver = None
                else:
                    # A bug in Rescind's own check code (a generator, an interpreter): the run
                    # still ends with a report, this check is an error and the run a harness
                    # failure (exit 2); the driver did nothing wrong and is kept.
                    problem = f"internal error in Rescind: {type(internal).__name__}: {internal}"
                    failures.append(f"{check.id}: {problem}")
                    outcome = Outcome("error", problem)
            outcome = attrs.evolve(outcome, seconds=time.monotonic() - begin)
        outcome = _excused(outcome, driver_restrictions)
        outcome = _apply_expectation(check, outcome, expected)
        results.append(Result(check, outcome))
        if progress is not None:
            progress(check, outcome)
    if driver is not None:
        hello = hello or driver.hello
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
        upstream=(
            f"{hello.upstream.repository}@{hello.upstream.commit}"
            if hello and hello.upstream
            else None
        ),
        deadline=deadline,
    )


def _excused(outcome: Outcome, declared: frozenset[str]) -> Outcome:
    """An ``unsupported`` outcome whose every gap a declared restriction names is
    ``restricted``; any other stays unanswered."""
    if outcome.status != "unsupported" or not all_excused(outcome.gaps, declared):
        return outcome
    names = tuple(sorted({excused_by(gap, declared) or "" for gap in outcome.gaps}))
    return attrs.evolve(
        outcome,
        status="restricted",
        message=f"restricted ({', '.join(names)}): {outcome.message}",
        restricted_by=names,
    )


def _caused_by_deadline(error: BaseException) -> bool:
    """Whether ``error`` is, wraps or groups a ``DeadlineReached`` (bounded walk)."""
    pending: list[BaseException] = [error]
    seen = 0
    while pending and seen < 256:
        current = pending.pop()
        seen += 1
        if isinstance(current, DeadlineReached):
            return True
        if isinstance(current, BaseExceptionGroup):
            pending.extend(current.exceptions)
        pending.extend(e for e in (current.__cause__, current.__context__) if e is not None)
    return False


def _apply_expectation(check: Check, outcome: Outcome, expected: set[str]) -> Outcome:
    if check.id not in expected:
        return outcome
    if outcome.status in ("fail", "error"):
        return attrs.evolve(outcome, status="xfail")
    if outcome.status == "pass":
        return attrs.evolve(outcome, status="xpass", message="listed as an expected failure")
    return outcome
