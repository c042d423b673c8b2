"""A seed explores the same traces whatever else the process imported.

Hypothesis draws now and then a literal from the source of any loaded module outside
site-packages (with Rescind installed editable, that is every Rescind module); exploration
turns that off (``explore.engine._without_local_constants``), else ``rescind check``, a worker
process and the pytest plugin would explore different traces for one seed."""

from __future__ import annotations

import subprocess
import sys

PROGRAM = """
import sys
for name in sys.argv[1:]:
    __import__(name)
from rescind.conformance.driver import handle
from rescind.conformance.explore.areas import AREAS
from rescind.conformance.explore.engine import explore
from rescind.conformance.harness import InProcessDriver
area = next(a for a in AREAS if a.name == "ledger")
result = explore(InProcessDriver(handle), area, 20, 3)
print(result.examples, result.steps)
"""


def _explored(*imports: str) -> str:
    completed = subprocess.run(
        [sys.executable, "-c", PROGRAM, *imports], capture_output=True, text=True, check=True
    )
    return completed.stdout.strip()


def test_a_seed_explores_the_same_traces_whatever_was_imported() -> None:
    # conformance.hazards carries many literals (and changed the traces before the fix).
    assert _explored() == _explored("rescind.conformance.hazards", "rescind.cli.diagnose")


def test_the_hook_restores_hypothesis() -> None:
    from hypothesis.internal.conjecture import providers

    from rescind.conformance.explore.engine import _without_local_constants

    original = providers._get_local_constants
    with _without_local_constants():
        assert providers._get_local_constants() == providers.Constants()
    assert providers._get_local_constants is original
