"""Run the ``rescind`` command as a separate process, the way a user or CI runs it.

Tests that must see the real exit code, the real pipes and the real stdout (not ``main()``
called in-process) share this one way of starting it, so each test shows only its own
arguments.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# `check` with the wire checks alone: no model proof and no exploration.
WIRE_ONLY = ("--no-model", "--explore-steps", "0")


def run_rescind(
    *args: str,
    cwd: Path | None = ROOT,
    env: dict[str, str] | None = None,
    timeout: float | None = None,
) -> subprocess.CompletedProcess[str]:
    """``python -m rescind ARGS`` from the checkout's root; output captured as text."""
    return subprocess.run(
        [sys.executable, "-m", "rescind", *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=cwd,
        env=env,
        timeout=timeout,
    )
