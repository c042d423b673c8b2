"""The operations a driver answers, as one registry shared by the reference driver and the
vector generators (a vector's expected value *is* the reference's answer to its input).

An operation takes the request's ``args`` object and returns a result object, or raises a
``RescindError`` (reported as ``{"error": {"code", "definite"}}``). Each operation module
declares its operations (``OPERATIONS``, see ``ops.declaration``) under one capability name.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rescind.conformance.ops import canonical as op_canonical
from rescind.conformance.ops import extension as op_extension
from rescind.conformance.ops import grants as op_grants
from rescind.conformance.ops import host as op_host
from rescind.conformance.ops import saga as op_saga
from rescind.conformance.ops import session as op_session
from rescind.conformance.ops import storage as op_storage
from rescind.conformance.ops import worker as op_worker
from rescind.conformance.ops.declaration import BadRequest, Declared, Operation, arg, raising
from rescind.reference.errors import RescindError

OPERATION_MODULES = (
    op_canonical,
    op_grants,
    op_worker,
    op_host,
    op_storage,
    op_session,
    op_saga,
    op_extension,
)
"""Every module that declares operations (``OPERATIONS``), imported explicitly."""


def _index() -> dict[str, Declared]:
    table: dict[str, Declared] = {}
    for module in OPERATION_MODULES:
        for declared in module.OPERATIONS:
            if declared.name in table:
                raise ValueError(f"operation {declared.name} declared twice")
            table[declared.name] = declared
    return table


_OPERATIONS = _index()


def capabilities() -> list[str]:
    return sorted({declared.capability for declared in _OPERATIONS.values()})


def operation_names() -> list[str]:
    return sorted(_OPERATIONS)


def capability_of(name: str) -> str | None:
    entry = _OPERATIONS.get(name)
    return entry.capability if entry else None


UNREADABLE_ARGS: tuple[type[Exception], ...] = (
    LookupError,
    TypeError,
    ValueError,
    AttributeError,
    ArithmeticError,
    RecursionError,
)
"""What an operation raises when its ``args`` are missing, mistyped or out of the shapes it
reads (a missing key, a string where a list was expected, ``int()`` of a non-number, a
nesting deeper than the interpreter follows). Each becomes ``bad_request``."""


def run(name: str, args: Mapping[str, Any]) -> dict[str, Any]:
    """Run one operation in process; raises ``RescindError`` exactly as the driver reports,
    so in-process adapters and the pytest plugin get ``bad_request`` for unreadable args."""
    entry = _OPERATIONS.get(name)
    if entry is None:
        raise BadRequest(reason="unknown operation")
    if not isinstance(args, Mapping):
        raise BadRequest(reason="args must be an object")
    try:
        return entry.function(args)
    except RescindError:
        raise
    except UNREADABLE_ARGS as error:
        raise BadRequest(reason="unreadable arguments", cause_kind=_kind(error)) from error


def _kind(error: Exception) -> str:
    return type(error).__name__.lower()


def expected(name: str, args: Mapping[str, Any]) -> dict[str, Any]:
    """The vector form of the reference's answer: the result, or ``{"error": code}`` with
    an informative ``reason`` when the error has one. A vector never expects
    ``bad_request``: that would be a generator bug, so it is raised instead."""
    try:
        return run(name, args)
    except BadRequest:
        raise
    except RescindError as error:
        failure: dict[str, Any] = {"error": error.code}
        reason = error.details.get("reason")
        if isinstance(reason, str):
            failure["reason"] = reason
        return failure


__all__ = ["BadRequest", "Operation", "arg", "capabilities", "expected", "raising", "run"]
