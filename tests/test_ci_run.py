""".ci/run never counts a skipped upstream env as a pass: the skip is its last line, and it
fails the run where upstream was expected to run. tox is replaced by a stand-in ``python``
that prints what the upstream env prints, so this runs in a second."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SKIP_LINE = "upstream-driver: SKIPPED: no upstream sources at /nowhere/vendor.tar.xz"


def _run(tmp_path: Path, tox_output: str, tox_status: int, **extra: str) -> tuple[int, str]:
    shim = tmp_path / "bin"
    shim.mkdir(exist_ok=True)
    fake = shim / "python"
    # `python -m pip ...` does nothing; `python -m tox` prints the env output and exits.
    fake.write_text(
        "#!/usr/bin/env bash\n"
        'if [ "$2" = tox ]; then printf "%s\\n" "$TOX_OUTPUT"; exit "$TOX_STATUS"; fi\n'
    )
    fake.chmod(0o755)
    environment = {
        "PATH": f"{shim}:/usr/bin:/bin",
        "TOX_OUTPUT": tox_output,
        "TOX_STATUS": str(tox_status),
        "UPSTREAM_ARCHIVE": str(tmp_path / "absent.tar.xz"),
        **extra,
    }
    completed = subprocess.run(
        ["bash", str(ROOT / ".ci" / "run")],
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )
    return completed.returncode, completed.stdout + completed.stderr


def test_a_skip_is_said_last_and_not_called_a_pass(tmp_path: Path) -> None:
    code, output = _run(tmp_path, f"{SKIP_LINE}\n  upstream: OK", 0)
    assert code == 0
    last = output.strip().splitlines()[-1]
    assert last.startswith("upstream: SKIPPED (no upstream sources at /nowhere/vendor.tar.xz)")
    assert "not passed" in last


def test_a_skip_fails_where_upstream_is_required(tmp_path: Path) -> None:
    code, output = _run(tmp_path, SKIP_LINE, 0, RESCIND_REQUIRE_UPSTREAM="1")
    assert code == 1 and "expected to run: FAIL" in output


def test_a_skip_fails_where_the_sources_and_cargo_are_there(tmp_path: Path) -> None:
    archive = tmp_path / "vendor.tar.xz"
    archive.write_bytes(b"")
    cargo = tmp_path / "bin" / "cargo"
    cargo.parent.mkdir()
    cargo.write_text("#!/bin/sh\n")
    cargo.chmod(0o755)
    code, output = _run(tmp_path, SKIP_LINE, 0, UPSTREAM_ARCHIVE=str(archive))
    assert code == 1 and "expected to run: FAIL" in output


@pytest.mark.parametrize("status", [0, 1])
def test_without_a_skip_tox_decides(tmp_path: Path, status: int) -> None:
    code, output = _run(tmp_path, "  upstream: OK", status)
    assert code == status and "SKIPPED" not in output


def test_it_runs_the_readme_test_command() -> None:
    text = (ROOT / ".ci" / "run").read_text()
    assert "python -m pip install -q 'tox>=4.11,<5'" in text and "python -m tox" in text
    assert os.access(ROOT / ".ci" / "run", os.X_OK)
