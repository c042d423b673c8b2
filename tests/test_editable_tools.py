"""The everyday tools work on the editable tree the README installs: import-linter walks the
``rescind`` package and mypy finds ``rescind.*`` by name, from the repository root, with no
wheel. (Both need the package to be a plain folder on the path: ``src/rescind`` with links to
the top-level layers.)"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import rescind

ROOT = Path(__file__).resolve().parents[1]
EDITABLE = Path(rescind.__file__).resolve().is_relative_to(ROOT)

pytestmark = pytest.mark.skipif(not EDITABLE, reason="rescind is not installed from this checkout")


def _tool(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent))
    if found is None:
        pytest.skip(f"{name} is not installed next to this interpreter")
    return found


def test_the_package_on_the_path_is_a_plain_folder_that_reaches_every_layer() -> None:
    package = Path(rescind.__file__).parent
    assert package == ROOT / "src" / "rescind"
    for layer in ("tables", "reference", "model", "conformance", "vectors"):
        assert (package / layer).resolve() == ROOT / layer, layer


def test_the_import_graph_holds_every_layer() -> None:
    grimp = pytest.importorskip("grimp")
    graph = grimp.build_graph("rescind", cache_dir=None)
    layers = {module.split(".")[1] for module in graph.modules if module.count(".") >= 1}
    assert {"tables", "reference", "model", "conformance", "vectors", "cli"} <= layers
    assert graph.direct_import_exists(
        importer="rescind.conformance.vectors.sets.canonical_input",
        imported="rescind.conformance.cases",
    )


def test_import_linter_keeps_every_contract_on_the_editable_tree() -> None:
    run = subprocess.run(
        [_tool("lint-imports"), "pyproject.toml", "--no-cache"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert " kept, 0 broken." in run.stdout


def test_mypy_finds_the_layers_by_package_name() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "-p", "rescind.tables"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if "No module named mypy" in run.stderr:
        pytest.skip("mypy is not installed next to this interpreter")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Success: no issues found in" in run.stdout
    assert "source file" in run.stdout and " 0 source files" not in run.stdout
