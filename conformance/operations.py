"""The operations a driver answers, as one registry shared by the reference driver and the
vector generators (a vector's expected value *is* the reference's answer to its input).

An operation takes the request's ``args`` object and returns a result object, or raises a
``RescindError`` (reported as ``{"error": {"code", "definite"}}``). The operation modules are
listed in ``OPERATION_MODULES``; each registers its operations under one capability name.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

from rescind.reference.errors import RescindError

Operation = Callable[[Mapping[str, Any]], dict[str, Any]]

_OPERATIONS: dict[str, tuple[str, Operation]] = {}
_loaded = False


class BadRequest(RescindError):
    """The request itself is malformed (missing or mistyped argument)."""

    code = "bad_request"
    upstream = ""


def operation(name: str, capability: str) -> Callable[[Operation], Operation]:
    def register(function: Operation) -> Operation:
        if name in _OPERATIONS:
            raise ValueError(f"operation {name} registered twice")
        _OPERATIONS[name] = (capability, function)
        return function

    return register


OPERATION_MODULES: tuple[str, ...] = (
    "op_canonical",
    "op_grants",
    "op_worker",
    "op_host",
    "op_storage",
    "op_session",
    "op_saga",
    "op_extension",
)
"""Every module that registers operations; a missing one fails the first lookup loudly."""


def _load() -> None:
    global _loaded
    if _loaded:
        return
    for name in OPERATION_MODULES:
        importlib.import_module(f"rescind.conformance.{name}")
    _loaded = True


def capabilities() -> list[str]:
    _load()
    return sorted({capability for capability, _ in _OPERATIONS.values()})


def operation_names() -> list[str]:
    _load()
    return sorted(_OPERATIONS)


def capability_of(name: str) -> str | None:
    _load()
    entry = _OPERATIONS.get(name)
    return entry[0] if entry else None


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
    _load()
    entry = _OPERATIONS.get(name)
    if entry is None:
        raise BadRequest(reason="unknown operation")
    if not isinstance(args, Mapping):
        raise BadRequest(reason="args must be an object")
    try:
        return entry[1](args)
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


def raising(function: Operation) -> Operation:
    """Adapt a function that reports failure as ``{"error": code, "details"?}`` (the vector
    form) to an operation that raises the registered error class instead."""
    from rescind.reference.errors import error_registry

    def wrapped(args: Mapping[str, Any]) -> dict[str, Any]:
        result = function(args)
        if "error" in result:
            details = result.get("details", {})
            raise error_registry()[result["error"]](**details)
        return result

    return wrapped


def arg(args: Mapping[str, Any], key: str, kind: type | tuple[type, ...]) -> Any:
    """A required argument of the given JSON type, or ``bad_request``."""
    value = args.get(key)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise BadRequest(reason=f"argument {key} is missing or has the wrong type")
    return value
