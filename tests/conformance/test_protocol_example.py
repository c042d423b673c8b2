"""The worked example in docs/driver-protocol.md is the shipped minimal driver
(drivers/python-minimal/driver.py), quoted as it is, and that driver really passes the
canonical checks in a whole run (every other capability not applicable)."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

from tests.cli_process import WIRE_ONLY, run_rescind

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "driver-protocol.md"
DRIVER = ROOT / "drivers" / "python-minimal" / "driver.py"


def test_the_quoted_loop_is_the_driver_s() -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    assert len(blocks) == 1
    imports, _, loop = blocks[0].partition("\n\n\n")
    driver = DRIVER.read_text()
    assert loop.startswith("def main()") and loop in driver
    assert all(line in driver.splitlines() for line in imports.splitlines())


def test_worked_example_passes(tmp_path: Path) -> None:
    driver = tmp_path / "driver.py"
    shutil.copy(DRIVER, driver)
    completed = run_rescind("check", *WIRE_ONLY, "--json", "--impl", f"{sys.executable} {driver}")
    assert completed.returncode == 0, completed.stderr[-2000:]
    report = json.loads(completed.stdout)
    counts = report["counts"]
    # Only canonical is declared: every canonical-input vector passes, the rest do not apply.
    canonical = json.loads((ROOT / "vectors" / "canonical-input.json").read_text())
    published = sum(len(group["tests"]) for group in canonical["testGroups"])
    assert counts["pass"] == published and counts["not-applicable"] > 1000
    assert counts.get("unsupported", 0) == counts.get("fail", 0) == 0
