"""The Node.js driver in drivers/node passes every check of its capabilities, AP profile.

The driver was written from docs/ alone; these tests keep it honest against the vectors and
check its hand-written BLAKE3 against the ``blake3`` package. Both need ``node``."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from blake3 import blake3

from rescind.conformance.vectorchecks import load_vector_files

NODE = shutil.which("node")
DRIVER_DIR = Path(__file__).resolve().parents[2] / "drivers" / "node"
TOPICS = ("canonical-input", "host-keys", "grants")

pytestmark = pytest.mark.skipif(
    NODE is None, reason="node is not on PATH, so the Node.js driver in drivers/node cannot run"
)


def _vector_ids() -> tuple[set[str], set[str]]:
    """Every test id of the three topics, and those that also carry an f64 reading."""
    ids: set[str] = set()
    with_f64: set[str] = set()
    for document in load_vector_files():
        if document["topic"] not in TOPICS:
            continue
        for group in document["testGroups"]:
            for test in group["tests"]:
                ids.add(test["id"])
                if "f64" in test["expected"]:
                    with_f64.add(test["id"])
    return ids, with_f64


def _check_report() -> dict[str, Any]:
    selection = [arg for topic in TOPICS for arg in ("--select", topic)]
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
            f"{NODE} {DRIVER_DIR / 'driver.mjs'}",
            *selection,
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr[-2000:]
    report: dict[str, Any] = json.loads(completed.stdout)
    return report


def test_every_check_of_its_capabilities_passes() -> None:
    report = _check_report()
    ids, with_f64 = _vector_ids()
    assert sorted(report["capabilities"]) == ["canonical", "grants", "host-keys"]
    assert report["harnessFailures"] == []
    statuses = {check["id"]: check["status"] for check in report["checks"]}
    passed = {check_id for check_id, status in statuses.items() if status == "pass"}
    assert passed == ids
    # Only the informative splash-v5-f64 twin of a vector may be skipped: the driver
    # declares the normative profile alone.
    skipped = {check_id for check_id, status in statuses.items() if status != "pass"}
    assert skipped == {f"{check_id}.f64" for check_id in with_f64}
    assert all(statuses[check_id] == "not-applicable" for check_id in skipped)


@pytest.mark.parametrize("length", [0, 1, 63, 64, 65, 1023, 1024, 1025, 2048, 2049, 8193, 31744])
def test_blake3_matches_the_reference_implementation(length: int) -> None:
    message = bytes(i % 251 for i in range(length))  # the official test-vector input pattern
    script = (
        f"import {{ blake3Hex }} from {json.dumps((DRIVER_DIR / 'blake3.mjs').as_uri())};"
        "const bytes = Buffer.from(process.argv[1], 'hex');"
        "console.log(blake3Hex(bytes));"
    )
    completed = subprocess.run(
        [str(NODE), "--input-type=module", "-e", script, message.hex()],
        capture_output=True,
        text=True,
        check=True,
    )
    assert completed.stdout.strip() == blake3(message).hexdigest()
