"""The worked example driver in docs/driver-protocol.md really passes the canonical checks."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "driver-protocol.md"

# The document leaves the implementation under test to the reader; here it is the reference.
PRELUDE = """
from rescind.conformance.ops import registry as operations
from rescind.reference.errors import RescindError as MyError

def my_canonical_input(args):
    return operations.run("canonical.input", args)
"""


def test_worked_example_passes(tmp_path: Path) -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    assert len(blocks) == 1
    driver = tmp_path / "example_driver.py"
    driver.write_text(PRELUDE + blocks[0])
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "rescind",
            "check",
            "--no-model",
            "--explore-steps",
            "0",
            "--json",
            "--impl",
            f"{sys.executable} {driver}",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr[-2000:]
    report = json.loads(completed.stdout)
    counts = report["counts"]
    # Only canonical is declared: every canonical-input vector passes, the rest do not apply.
    canonical = json.loads((DOC.parents[1] / "vectors" / "canonical-input.json").read_text())
    published = sum(len(group["tests"]) for group in canonical["testGroups"])
    assert counts["pass"] == published and counts["not-applicable"] > 1000
