"""What an operation module declares: each lists its operations as an ``OPERATIONS`` tuple of
``Declared(name, capability, function)``; ``rescind.conformance.ops.registry`` imports every
module by name and indexes them. Nothing here imports an operation module, so the
dependency runs one way (operations -> op_* -> opspec, interpreters)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs

from rescind.reference.errors import RescindError, error_registry

Operation = Callable[[Mapping[str, Any]], dict[str, Any]]


@attrs.frozen
class Declared:
    name: str
    capability: str
    function: Operation


class BadRequest(RescindError):
    """The request itself is malformed (missing or mistyped argument)."""

    code = "bad_request"
    upstream = ""


def arg(args: Mapping[str, Any], key: str, kind: type | tuple[type, ...]) -> Any:
    """A required argument of the given JSON type, or ``bad_request``."""
    value = args.get(key)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise BadRequest(reason=f"argument {key} is missing or has the wrong type")
    return value


def raising(function: Operation) -> Operation:
    """Adapt a function that reports failure as ``{"error": code, "details"?}`` (the vector
    form) to an operation that raises the registered error class instead."""

    def wrapped(args: Mapping[str, Any]) -> dict[str, Any]:
        result = function(args)
        if "error" in result:
            details = result.get("details", {})
            raise error_registry()[result["error"]](**details)
        return result

    return wrapped
