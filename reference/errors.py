"""One exception hierarchy for every failure Rescind reports.

Each concrete error carries a stable snake_case ``code`` (the upstream error variant's name in
snake_case: ``OperationIdentityMismatch`` is ``operation_identity_mismatch``) and says whether
it is *definite* (the effect certainly did not happen) or *indefinite* (it may have happened).
Vectors and the driver protocol compare codes only.

Details never carry payload bytes: a string detail that is not identifier-shaped is replaced
by its length, so a payload, a failure message or a key that failed validation cannot leak
into logs through an error's text. Only the descriptive details that the code itself writes
(``reason``, ``field``, ``expected``, ...) may contain spaces.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import ClassVar

Detail = str | int | bool | None

_IDENTIFIER = re.compile(r"[a-z0-9._:\-]{0,160}\Z")
_DESCRIPTION = re.compile(r"[a-z0-9._:\-, ()]{0,160}\Z")
# Details whose text comes from Rescind's own code, never from a request or payload.
_DESCRIPTIVE = frozenset({"reason", "field", "expected", "cause", "cause_kind", "layer"})
_CODE = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*\Z")

_REGISTRY: dict[str, type[RescindError]] = {}


def _safe(name: str, value: Detail) -> Detail:
    if not isinstance(value, str):
        return value
    pattern = _DESCRIPTION if name in _DESCRIPTIVE else _IDENTIFIER
    if pattern.match(value):
        return value
    return f"<redacted {len(value.encode('utf-8', 'surrogatepass'))} bytes>"


class RescindError(Exception):
    """Base class; concrete subclasses set ``code`` and, where it applies, ``definite``."""

    code: ClassVar[str] = ""
    definite: ClassVar[bool] = True
    upstream: ClassVar[str] = ""

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        code = cls.__dict__.get("code")
        if not code:
            return  # an abstract grouping class
        if not _CODE.match(code):
            raise TypeError(f"error code {code!r} is not snake_case")
        if code in _REGISTRY:
            raise TypeError(f"error code {code!r} is defined twice")
        _REGISTRY[code] = cls

    def __init__(self, **details: Detail) -> None:
        self.details: Mapping[str, Detail] = MappingProxyType(
            {name: _safe(name, value) for name, value in details.items()}
        )
        super().__init__(self._render())

    def _render(self) -> str:
        if not self.details:
            return self.code
        parts = ", ".join(f"{name}={value!r}" for name, value in self.details.items())
        return f"{self.code} ({parts})"

    def to_wire(self) -> dict[str, object]:
        """The form used in vectors, reports and the driver protocol."""
        return {"code": self.code, "definite": self.definite, "details": dict(self.details)}


def error_registry() -> Mapping[str, type[RescindError]]:
    """Every concrete error class by code (only modules already imported are included)."""
    return MappingProxyType(_REGISTRY)
