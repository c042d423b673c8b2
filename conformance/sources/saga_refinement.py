"""Checks that the built-in reference's saga planner and orders refine the model's
rules (see ``saga_refinement``): one check per rule, run in process, not through a driver.

They test Rescind's own reference code, so they need the capability only the reference driver
declares (``REFERENCE_CAPABILITY``): for any other implementation they are not-applicable.

A passing result is kept in the proof cache (``proofs.ProofCache``, the run's unless
``--no-cache``) like a model proof. The cache directory already stands for one model, tables,
z3 and Python; these checks also run the reference and the small-world enumeration, so each
entry's name carries a digest of those sources too (``code_digest``): an edit of the
reference's code is never answered from the cache.
"""

from __future__ import annotations

import functools
import hashlib
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from rescind.conformance.driver import REFERENCE_CAPABILITY
from rescind.conformance.harness import Driver
from rescind.conformance.runner_check import Check, Outcome
from rescind.conformance.sources.options import DriverFactory, SourceOptions
from rescind.model.core.proof_check import CheckResult

if TYPE_CHECKING:
    from rescind.conformance.sources.proofs import ProofCache

# The refinement module loads z3 (through the model); each check imports it when it runs, so
# listing these checks (every ``rescind`` start-up) stays cheap, and a cached result needs
# neither.


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


@functools.cache
def code_digest() -> str:
    """A digest of the code these checks run besides the model: every module of
    ``rescind.reference``, this source's ``saga_model`` and the small worlds it enumerates
    (read as files: importing ``saga_model`` would load z3)."""
    import rescind.reference

    conformance = Path(__file__).resolve().parents[1]
    reference = Path(rescind.reference.__file__ or "").resolve().parent
    files = [
        *sorted(reference.rglob("*.py")),
        conformance / "sources" / "saga_model.py",
        conformance / "interpreters" / "saga_smallworld.py",
    ]
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.name.encode() + b"\n" + path.read_bytes())
    return digest.hexdigest()[:16]


def _runner(
    check: Callable[[], CheckResult], cache: ProofCache | None = None, name: str = ""
) -> Callable[[Driver], Outcome]:
    def run(_: Driver) -> Outcome:
        begin = time.monotonic()
        key = f"refinement.saga.{name}@{code_digest()}"
        result = cache.load(key) if cache is not None else None
        if result is None:
            result = check()
            if cache is not None:
                cache.store(key, result)  # stores only a passing result
        if result.status == "proven":
            return Outcome("pass", result.detail, time.monotonic() - begin)
        lines = result.counterexample or ((result.detail,) if result.detail else ())
        return Outcome("fail", " | ".join((result.status, *lines)), time.monotonic() - begin)

    return run


def saga_refinement_checks(_: DriverFactory, options: SourceOptions) -> list[Check]:
    return [
        Check(
            id=f"refinement.saga.{name}",
            tier="must",
            rule=rule,
            capability=REFERENCE_CAPABILITY,
            source="refinement-saga",
            run=_runner(check, options.proof_cache, name),
            description=statement,
        )
        for name, rule, check, statement in _CHECKS
    ]
