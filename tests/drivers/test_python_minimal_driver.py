"""drivers/python-minimal/driver.py, the copy-and-run driver: copied alone into a scratch
directory and run by an interpreter without site-packages (so standard library only, no
Rescind), it answers every canonical-input check of its profile and leaves none unsupported.
Its hand-written BLAKE3 agrees with the ``blake3`` package across chunk and tree sizes."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from blake3 import blake3

DRIVER = Path(__file__).resolve().parents[2] / "drivers" / "python-minimal" / "driver.py"


def _driver_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("python_minimal_driver", DRIVER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    "length", [0, 1, 63, 64, 65, 1023, 1024, 1025, 2048, 2049, 3072, 4097, 8192, 9217, 33_000]
)
def test_its_blake3_is_blake3(length: int) -> None:
    data = bytes((index * 251 + length) % 256 for index in range(length))
    assert _driver_module().blake3(data) == blake3(data).digest()


def test_it_imports_nothing_but_the_standard_library() -> None:
    """Run without site-packages: importing it must not need Rescind or any package."""
    probe = f"import runpy; runpy.run_path({str(DRIVER)!r}, run_name='probe')"
    subprocess.run([sys.executable, "-I", "-S", "-c", probe], check=True)


def _check(scratch: Path, *selection: str) -> tuple[int, dict[str, Any]]:
    shutil.copy(DRIVER, scratch / "driver.py")
    command = f"{sys.executable} -I -S driver.py"
    completed = subprocess.run(
        [sys.executable, "-m", "rescind", "check", "--impl", command, "--json", *selection],
        cwd=scratch,
        capture_output=True,
        text=True,
        env={**os.environ, "RESCIND_CACHE_DIR": str(scratch / "cache")},
        check=False,
    )
    assert completed.stdout.strip(), completed.stderr[-2000:]
    return completed.returncode, json.loads(completed.stdout)


def test_it_conforms_for_canonical_input_from_a_scratch_directory(tmp_path: Path) -> None:
    code, report = _check(tmp_path, "--claim", "canonical")
    classes = {part["name"]: part["status"] for part in report["claim"]["classes"]}
    assert classes["canonical"] == "conforms"
    assert report["claim"]["verdict"] == "PASS"
    counts = report["counts"]
    failing = [c["id"] for c in report["checks"] if c["status"] in ("fail", "error")]
    assert code == 0, failing[:10]
    assert report["implementation"]["name"] == "python-minimal"
    assert counts.get("fail", 0) == counts.get("error", 0) == counts.get("unsupported", 0) == 0
    # every normative canonical-input vector answered; only the f64 profile is not applicable
    assert counts["pass"] >= 290
    skipped = {c["message"] for c in report["checks"] if c["status"] == "not-applicable"}
    assert skipped <= {"profile splash-v5-f64 not declared"}
