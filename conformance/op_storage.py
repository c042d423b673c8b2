"""Operations of capability ``storage``: record tags, envelope opening, and CAS/fencing
traces (each trace is one request; its result holds one outcome per step)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from rescind.conformance.operations import operation
from rescind.conformance.vectorsets import _storage_harness as harness
from rescind.reference.errors import error_registry


def _raising(run: Callable[[Mapping[str, Any]], dict[str, Any]]) -> Callable[..., dict[str, Any]]:
    """The harness reports a failure as ``{"error": code}``; the protocol wants it raised."""

    def wrapped(args: Mapping[str, Any]) -> dict[str, Any]:
        result = run(args)
        if "error" in result:
            raise error_registry()[result["error"]](**result.get("details", {}))
        return result

    return wrapped


operation("storage.tag", capability="storage")(_raising(harness.run_tag))
operation("storage.open", capability="storage")(_raising(harness.run_open))
operation("storage.trace", capability="storage")(harness.run_trace)
