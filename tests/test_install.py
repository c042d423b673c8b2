"""A regular (non-editable) install works on its own, from anywhere, the repo root included.

The wheel is installed *with* its dependencies into an isolated venv (no system
site-packages), so a dependency missing from pyproject fails here and not on a user's machine.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _run(command: list[str], cwd: Path, **kwargs: object) -> subprocess.CompletedProcess[str]:
    env = {
        key: value for key, value in os.environ.items() if key not in {"PYTHONPATH", "VIRTUAL_ENV"}
    }
    return subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, check=False, **kwargs
    )  # type: ignore[call-overload, no-any-return]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv with only the wheel and what its metadata asks for; returns its python."""
    work = tmp_path_factory.mktemp("install")
    wheels = work / "wheels"
    built = _run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(ROOT)],
        work,
    )
    assert built.returncode == 0, built.stderr
    (wheel,) = wheels.glob("rescind-*.whl")
    environment = work / "venv"
    venv.EnvBuilder(system_site_packages=False, with_pip=True).create(environment)
    python = environment / "bin" / "python"
    done = _run([str(python), "-m", "pip", "install", "-q", str(wheel)], work)
    assert done.returncode == 0, done.stderr
    return python


def _where(python: Path, module: str, cwd: Path) -> str:
    found = _run([str(python), "-c", f"import {module} as m; print(m.__file__)"], cwd)
    assert found.returncode == 0, found.stderr
    return found.stdout.strip()


@pytest.mark.parametrize("place", ["repo-root", "elsewhere"])
def test_installed_cli_runs_from_anywhere(installed: Path, place: str, tmp_path: Path) -> None:
    cwd = ROOT if place == "repo-root" else tmp_path
    environment = installed.parent.parent
    for module in (
        "rescind",
        "rescind.cli",
        "rescind.tables.operation",
        "rescind.reference.payload",
    ):
        assert _where(installed, module, cwd).startswith(str(environment)), module
    check = _run([str(installed), "-m", "rescind", "vectors", "check"], cwd)
    assert check.returncode == 0, check.stdout + check.stderr
    assert str(environment) in check.stdout  # the installed copy was checked, not the checkout
    script = _run([str(environment / "bin" / "rescind"), "--version"], cwd)
    assert script.returncode == 0 and script.stdout.startswith("rescind "), script.stderr


def test_installed_driver_answers_from_the_repo_root(installed: Path) -> None:
    requests = [{"id": 1, "op": "hello", "args": {}}, {"id": 2, "op": "bye", "args": {}}]
    talk = _run(
        [str(installed), "-m", "rescind.conformance.driver"],
        ROOT,
        input="".join(json.dumps(request) + "\n" for request in requests),
    )
    assert talk.returncode == 0, talk.stderr
    replies = [json.loads(line) for line in talk.stdout.splitlines()]
    assert replies[0]["ok"]["implementation"]["name"] == "rescind-reference"
    assert replies[1] == {"id": 2, "ok": {}}


def test_installed_check_passes_against_the_reference(installed: Path, tmp_path: Path) -> None:
    run = _run(
        [str(installed), "-m", "rescind", "check", "--explore-steps", "10", "--json"], tmp_path
    )
    assert run.returncode == 0, run.stderr[-2000:]


def test_export_refuses_to_write_into_an_installation(installed: Path, tmp_path: Path) -> None:
    export = _run([str(installed), "-m", "rescind", "vectors", "export"], tmp_path)
    assert export.returncode == 2, export.stdout + export.stderr
    assert export.stderr.count("\n") == 1 and "source" in export.stderr
