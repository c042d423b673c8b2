"""A canonical-only mistake with one cause: object keys sorted in reverse (by negated code
points). ``python -m tests.report.reversed_keys_driver``; ``handle`` for in-process use."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tests.conformance.broken_drivers import _canonical_variant, _encoder
from tests.conformance.driver_double import serve_with


def handle(message: Mapping[str, Any]) -> dict[str, Any]:
    reply = _canonical_variant(message, _encoder(lambda key: [-ord(c) for c in key], False))
    if message.get("op") == "hello":
        # It ignores the number mode, so it declares only the normative profile: one cause.
        reply["ok"] = {**reply["ok"], "profiles": ["splash-v5"]}
    return reply


if __name__ == "__main__":
    raise SystemExit(serve_with(handle))
