"""Packaging invariants: one namespace, every package listed, codes unique."""

from __future__ import annotations

import importlib
import pkgutil
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import rescind
from rescind.reference.errors import RescindError, error_registry

ROOT = Path(__file__).resolve().parent.parent
MAPPING = {  # namespace -> the folder that holds it (layers reached through src/rescind links)
    "rescind": "src/rescind",
    "rescind.tables": "tables",
    "rescind.reference": "reference",
    "rescind.model": "model",
    "rescind.conformance": "conformance",
    "rescind.vectors": "vectors",
}


def _pyproject() -> dict:  # type: ignore[type-arg]
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_the_package_is_a_src_layout_whose_layers_are_links_to_the_top_level_folders() -> None:
    assert _pyproject()["tool"]["setuptools"]["package-dir"] == {"": "src"}
    for namespace, folder in MAPPING.items():
        if namespace == "rescind":
            continue
        link = ROOT / "src" / Path(*namespace.split("."))
        assert link.is_symlink(), link
        assert link.readlink() == Path("..", "..", folder)  # relative: any checkout location
        assert link.resolve() == ROOT / folder


def test_every_package_directory_is_listed() -> None:
    listed = set(_pyproject()["tool"]["setuptools"]["packages"])
    found = set()
    for namespace, folder in MAPPING.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            relative = init.parent.relative_to(ROOT / folder)
            found.add(".".join([namespace, *relative.parts]))
    assert found == listed


def _import_everything() -> None:
    for package in (
        "rescind.tables",
        "rescind.reference",
        "rescind.model",
        "rescind.conformance",
        "rescind.cli",
    ):
        module = importlib.import_module(package)
        for info in pkgutil.walk_packages(module.__path__, prefix=f"{package}."):
            importlib.import_module(info.name)


def test_error_codes_are_unique_snake_case_and_registered() -> None:
    _import_everything()
    registry = error_registry()
    assert len(registry) > 50
    for code, cls in registry.items():
        assert cls.code == code and issubclass(cls, RescindError)
        assert isinstance(cls.definite, bool)


def test_nothing_generic_lands_at_top_level() -> None:
    assert rescind.__name__ == "rescind"
    for generic in ("model", "reference", "conformance", "vectors", "tables"):
        spec = importlib.util.find_spec(generic)
        assert spec is None or "rescind" not in str(spec.origin), generic


def test_nothing_at_the_root_shadows_the_installed_package() -> None:
    assert not (ROOT / "rescind").exists()
    assert not (ROOT / "rescind.py").exists()


def test_one_version_source() -> None:
    from importlib.metadata import version

    project = _pyproject()["project"]
    assert "version" not in project and "version" in project["dynamic"]
    assert version("rescind") == rescind.__version__


def test_registries_name_every_module_of_their_kind() -> None:
    """Registries are explicit; this keeps them complete (a file nobody lists is dead)."""
    from rescind.cli import commands
    from rescind.conformance.catalogue import SOURCES
    from rescind.conformance.ops import registry as operations
    from rescind.conformance.vectors.sets.topics import TOPICS
    from rescind.model.catalog import PROOF_MODULES

    def stems(items: Iterable[Any]) -> set[str]:
        return {
            str(getattr(item, "__module__", None) or item.__name__).rsplit(".", 1)[1]
            for item in items
        }

    def modules(folder: str, prefix: str = "") -> set[str]:
        return {
            path.stem
            for path in (ROOT / folder).glob(f"{prefix}*.py")
            if not path.stem.startswith("_")
        }

    # each folder's modules, less the ones that hold the registry or what its entries share
    assert stems(operations.OPERATION_MODULES) == modules("conformance/ops") - {
        "registry",
        "declaration",
        "schemas",
    }
    assert stems(SOURCES) == modules("conformance/sources") - {
        "options",
        "proofs",
        "saga_model",
        "parallel",
    }
    assert stems(topic.build for topic in TOPICS) == modules("conformance/vectors/sets") - {
        "topics"
    }
    assert stems(commands()) == modules("src/rescind/cli")
    providers = {
        "rescind.model." + ".".join(path.relative_to(ROOT / "model").with_suffix("").parts)
        for path in (ROOT / "model").rglob("*.py")
        if "\ndef checks()" in path.read_text()
    }
    assert {module.__name__ for module in PROOF_MODULES} == providers


def test_benchmarks_never_import_the_test_suite() -> None:
    """Campaigns own their generators (benchmarks/hardening); tests may drive them, never the
    other way round, so a benchmark runs from a checkout without tests/ on the path."""
    import ast

    offenders = []
    for path in sorted((ROOT / "benchmarks").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [f"{path.name}: {n}" for n in names if n.split(".")[0] == "tests"]
    assert offenders == []
