"""pytest plugin: run Rescind's conformance checks inside a Python implementation's own tests.

Installed with Rescind (entry point ``pytest11``) and idle unless asked for. Point it at an
in-process adapter, a callable that takes one driver-protocol request object and returns
one reply object (see docs/driver-protocol.md), in ``pyproject.toml``/``pytest.ini``::

    [tool.pytest.ini_options]
    rescind_adapter = "my_impl.rescind_adapter:handle"

or on the command line: ``pytest --rescind-adapter my_impl.rescind_adapter:handle``. Each
check becomes one test item named by its stable check id; ``--rescind-select PREFIX``
narrows the set, and checks for undeclared capabilities are skipped (never passed).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, cast

import pytest

from rescind.conformance.harness import InProcessDriver
from rescind.conformance.harness.text import visible
from rescind.conformance.runner_check import REQUIRED_TIERS, Check, Outcome, Result

Adapter = Callable[[Mapping[str, Any]], Mapping[str, Any]]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("rescind", "Rescind conformance checks")
    group.addoption("--rescind-adapter", default=None, help="module:callable driver adapter")
    group.addoption(
        "--rescind-select", action="append", default=[], help="only check ids with this prefix"
    )
    parser.addini("rescind_adapter", "module:callable driver adapter for Rescind checks")


def _adapter_spec(config: pytest.Config) -> str | None:
    spec = config.getoption("rescind_adapter") or config.getini("rescind_adapter")
    return str(spec) if spec else None


def load_adapter(spec: str) -> Adapter:
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise pytest.UsageError(f"rescind adapter {spec!r} must be 'module:callable'")
    adapter = getattr(importlib.import_module(module_name), attribute, None)
    if not callable(adapter):
        raise pytest.UsageError(f"rescind adapter {spec!r} is not callable")
    # Only callability can be checked here; the request/reply shapes are the adapter's promise.
    return cast(Adapter, adapter)


class RescindItem(pytest.Item):
    def __init__(self, *, check: Check, driver: InProcessDriver, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.check = check
        self.driver = driver

    def runtest(self) -> None:
        capabilities = self.driver.hello.capabilities
        if self.check.capability != "model" and self.check.capability not in capabilities:
            pytest.skip(f"not-applicable: capability {self.check.capability} not declared")
        if self.check.profile and self.check.profile not in self.driver.hello.profiles:
            pytest.skip(f"not-applicable: profile {self.check.profile} not declared")
        outcome = self.check.run(self.driver)
        if outcome.status == "pass":
            return
        if outcome.status == "unsupported":
            pytest.skip(outcome.message)
        if self.check.tier not in REQUIRED_TIERS:
            pytest.xfail(f"{self.check.tier} check: {outcome.message}")
        raise RescindCheckFailure(self.check, outcome.message, _details(self.check, outcome))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, RescindCheckFailure):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[str, int, str]:
        return (self.check.source, 0, f"rescind {self.check.id} ({self.check.rule})")


class RescindCheckFailure(Exception):
    """A failing check: its message, then its vector file, the input sent and the bounded
    expected/actual values (``report.failure_details``), one per line, driver text visible."""

    def __init__(self, check: Check, message: str, details: Sequence[str] = ()) -> None:
        lines = [f"{check.id} ({check.rule}, {check.source}): {message}", *details]
        super().__init__("\n    ".join(visible(line) for line in lines))


_VECTORS: dict[str, Mapping[str, Any]] = {}


def _details(check: Check, outcome: Outcome) -> list[str]:
    from rescind.conformance.report import run as report

    if check.provenance is not None and not _VECTORS:
        _VECTORS.update(report.vector_tests())
    return report.failure_details(Result(check, outcome), _VECTORS)


def _items(session: pytest.Session, adapter: Adapter) -> Iterator[RescindItem]:
    from rescind.conformance.catalogue import all_checks

    driver = InProcessDriver(adapter)
    prefixes = session.config.getoption("rescind_select")
    for check in all_checks(lambda: InProcessDriver(adapter), include_model=False):
        if prefixes and not any(check.id.startswith(prefix) for prefix in prefixes):
            continue
        yield RescindItem.from_parent(session, name=check.id, check=check, driver=driver)


def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    spec = _adapter_spec(config)
    if spec is None:
        return
    items.extend(_items(session, load_adapter(spec)))
