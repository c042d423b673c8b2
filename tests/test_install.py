"""A regular (non-editable) `pip install .` works and ships the vectors as package data."""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_wheel_install_ships_vectors_and_cli(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(wheels),
            str(ROOT),
        ],
        check=True,
    )
    (wheel,) = wheels.glob("rescind-*.whl")
    environment = tmp_path / "venv"
    venv.EnvBuilder(system_site_packages=True, with_pip=False).create(environment)
    python = environment / "bin" / "python"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--no-deps",
            "-q",
            str(wheel),
        ],
        check=True,
    )
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    check = subprocess.run(
        [str(python), "-m", "rescind", "vectors", "check"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert check.returncode == 0, check.stdout + check.stderr
    assert str(environment) in check.stdout  # the installed copy was checked, not the checkout
    where = subprocess.run(
        [str(python), "-c", "import rescind.reference.payload as m; print(m.__file__)"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert str(environment) in where.stdout
