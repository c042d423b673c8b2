""".ci/upstream-driver end to end, with a stand-in for drivers/splash: a build script that
"builds" a wrapper around a fake driver (tests.conformance.partial_drivers). It skips
without the upstream sources, passes when the driver passes and the committed observation
is current, and fails on a failing check or a stale observation."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / ".ci" / "upstream-driver"
QUICK = "--no-model --explore-steps 0"

BUILD = """#!/usr/bin/env bash
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
test -f "$1"
mkdir -p "$here/target/bin"
printf '#!/bin/sh\\nPYTHONPATH={root} exec {python} -m tests.conformance.partial_drivers {name}\\n' \\
    > "$here/target/bin/rescind-splash-driver"
chmod +x "$here/target/bin/rescind-splash-driver"
echo "$here/target/bin/rescind-splash-driver"
"""


def _checkout(tmp_path: Path, driver: str | None) -> Path:
    """A repository-shaped directory beside ../shared/upstream/vendor.tar.xz and
    vendor-workflow.tar.xz."""
    repo = tmp_path / "repo"
    (repo / ".ci").mkdir(parents=True)
    shutil.copy(SCRIPT, repo / ".ci" / "upstream-driver")
    (repo / "conformance" / "observations").mkdir(parents=True)
    upstream = tmp_path / "shared" / "upstream"
    upstream.mkdir(parents=True)
    (upstream / "vendor.tar.xz").write_bytes(b"not read by the stand-in build")
    (upstream / "vendor-workflow.tar.xz").write_bytes(b"not read by the stand-in build")
    if driver is not None:
        build = repo / "drivers" / "splash" / "build-offline.sh"
        build.parent.mkdir(parents=True)
        build.write_text(BUILD.format(root=ROOT, python=sys.executable, name=driver))
    return repo


def _run(repo: Path) -> subprocess.CompletedProcess[str]:
    bin_dir = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "CHECK_ARGS": QUICK}
    return subprocess.run(
        ["bash", str(repo / ".ci" / "upstream-driver")],
        cwd=repo.parent,  # the script finds the repository from its own path
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_it_skips_with_a_reason_without_the_driver_or_the_sources(tmp_path: Path) -> None:
    repo = _checkout(tmp_path, None)
    completed = _run(repo)
    assert completed.returncode == 0
    assert "SKIPPED: no drivers/splash/build-offline.sh" in completed.stdout
    (tmp_path / "shared" / "upstream" / "vendor.tar.xz").unlink()
    completed = _run(repo)
    assert completed.returncode == 0 and "SKIPPED: no upstream sources" in completed.stdout
    (tmp_path / "shared" / "upstream" / "vendor.tar.xz").write_bytes(b"back")
    (tmp_path / "shared" / "upstream" / "vendor-workflow.tar.xz").unlink()
    completed = _run(repo)
    assert completed.returncode == 0 and "SKIPPED: no splash-workflow sources" in completed.stdout


@pytest.fixture(scope="module")
def observed(tmp_path_factory: pytest.TempPathFactory) -> str:
    """What the fake driver answers, observed as the script does (from the checkout root)."""
    repo = _checkout(tmp_path_factory.mktemp("observe"), "restricted")
    first = _run(repo)
    assert first.returncode == 1 and "no committed observation of partial-fake" in first.stderr
    # The script says how to write it; do so, from the checkout's root.
    subprocess.run(
        ["bash", "drivers/splash/build-offline.sh", "../shared/upstream/vendor.tar.xz"],
        cwd=repo,
        check=True,
        capture_output=True,
    )
    instruction = re.search(
        r"write it with: rescind (.*?), then rescind vectors export", first.stderr
    )
    assert instruction is not None, first.stderr
    words = shlex.split(instruction[1])
    assert words[:3] == ["vectors", "observe", "--impl"] and words[-2] == "--out"
    words[3] = "./" + words[3]  # the same driver, however the path is spelt
    subprocess.run(
        [sys.executable, "-m", "rescind", *words], cwd=repo, check=True, capture_output=True
    )
    return (repo / words[-1]).read_text()


def test_it_passes_when_checks_pass_and_the_observation_is_current(
    tmp_path: Path, observed: str
) -> None:
    repo = _checkout(tmp_path, "restricted")
    (repo / "conformance" / "observations" / "partial-fake.json").write_text(observed)
    completed = _run(repo)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "is current" in completed.stdout and "unsupported" in completed.stdout


def test_it_fails_on_a_stale_observation(tmp_path: Path, observed: str) -> None:
    repo = _checkout(tmp_path, "restricted")
    stale = observed.replace('"answered": "matched"', '"answered": "unsupported"', 1)
    assert stale != observed
    (repo / "conformance" / "observations" / "partial-fake.json").write_text(stale)
    completed = _run(repo)
    assert completed.returncode == 1
    assert "partial-fake.json differs from what drivers/splash/target/bin/" in completed.stderr


def test_it_fails_on_a_failing_check(tmp_path: Path, observed: str) -> None:
    repo = _checkout(tmp_path, "forgets-duplicates")
    (repo / "conformance" / "observations" / "partial-fake.json").write_text(observed)
    completed = _run(repo)
    assert completed.returncode == 1
    assert "upstream-driver: FAIL " in completed.stdout
    assert "rescind vectors observe" not in completed.stdout  # stopped before re-observing
