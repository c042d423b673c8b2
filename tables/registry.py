"""Every lifecycle table, listed once: what ``rescind diagram`` draws and the docs show."""

from __future__ import annotations

from typing import Any

import attrs

from rescind.tables import operation, saga


@attrs.frozen
class Registered:
    """A lifecycle table and the qualified name it is defined under."""

    source: str
    lifecycle: Any = attrs.field(eq=False, repr=False)

    @property
    def name(self) -> str:
        return str(self.lifecycle.name)


def _entry(module: Any, attribute: str) -> Registered:
    return Registered(f"{module.__name__}.{attribute}", getattr(module, attribute))


LIFECYCLES: tuple[Registered, ...] = (
    _entry(operation, "OPERATION_LIFECYCLE"),
    _entry(saga, "RUN_TABLE"),
    _entry(saga, "TASK_TABLE"),
    _entry(saga, "EFFECT_TABLE"),
    _entry(saga, "CASE_TABLE"),
    _entry(saga, "WORK_ITEM_TABLE"),
    _entry(saga, "COMPENSATION_STATUS_TABLE"),
)
