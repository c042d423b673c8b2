"""Checks that the built-in reference's saga planner and orders refine the model's
rules (see ``saga_refinement``): one check per rule, run in process, not through a driver.

They test Rescind's own reference code, so they need the capability only the reference driver
declares (``REFERENCE_CAPABILITY``): for any other implementation they are not-applicable.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from rescind.conformance.checks import Check, Outcome
from rescind.conformance.driver import REFERENCE_CAPABILITY
from rescind.conformance.harness import Driver
from rescind.conformance.sources.spec import DriverFactory, SourceOptions
from rescind.model.checks import CheckResult

# The refinement module loads z3 (through the model); each check imports it when it runs, so
# listing these checks (every ``rescind`` start-up) stays cheap.


def _planner() -> CheckResult:
    from rescind.conformance.sources.saga_model import check_planner

    return check_planner()


def _order() -> CheckResult:
    from rescind.conformance.sources.saga_model import check_order

    return check_order()


def _any_order() -> CheckResult:
    from rescind.conformance.sources.saga_model import check_any_order

    return check_any_order()


_CHECKS: tuple[tuple[str, str, Callable[[], CheckResult], str], ...] = (
    (
        "plan-excludes-unsettled",
        "SG-77",
        _planner,
        "on every one-effect world the reference planner lists only effectively applied "
        "effects and re-plans a task only when its earlier inverse certainly did not act",
    ),
    (
        "order-reverse-compiled",
        "SG-78",
        _order,
        "on every DAG of up to 4 tasks the reference compensation order satisfies the model's "
        "reversed compiled-order rule",
    ),
    (
        "order-any-linear-extension",
        "SG-102",
        _any_order,
        "on every DAG of up to 4 tasks the reference's DFS order, over every walk order, "
        "yields exactly the orders the model's one-at-a-time rule admits",
    ),
)


def _runner(check: Callable[[], CheckResult]) -> Callable[[Driver], Outcome]:
    def run(_: Driver) -> Outcome:
        begin = time.monotonic()
        result = check()
        if result.status == "proven":
            return Outcome("pass", result.detail, time.monotonic() - begin)
        lines = result.counterexample or ((result.detail,) if result.detail else ())
        return Outcome("fail", " | ".join((result.status, *lines)), time.monotonic() - begin)

    return run


def saga_refinement_checks(_: DriverFactory, __: SourceOptions) -> list[Check]:
    return [
        Check(
            id=f"refinement.saga.{name}",
            tier="must",
            rule=rule,
            capability=REFERENCE_CAPABILITY,
            source="refinement-saga",
            run=_runner(check),
            description=statement,
        )
        for name, rule, check, statement in _CHECKS
    ]
