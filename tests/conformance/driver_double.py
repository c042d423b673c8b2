"""What the test drivers (broken, partial, claim, report) share: a handler has the reference
driver's shape, and a test driver serves the protocol with its handler in the reference's
place."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import Any

import rescind.conformance.driver as driver_module

Handler = Callable[[Mapping[str, Any]], dict[str, Any]]


def serve_with(handler: Handler) -> int:
    """Serve the driver protocol on stdin and stdout, answering with ``handler`` (the serve
    loop calls ``driver.handle``, so that is where it goes)."""
    driver_module.handle = handler  # type: ignore[assignment]
    return driver_module.serve(sys.stdin, sys.stdout)
