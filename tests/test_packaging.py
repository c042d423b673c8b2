"""Packaging invariants: one namespace, every package listed, codes unique."""

from __future__ import annotations

import importlib
import pkgutil
import tomllib
from pathlib import Path

from rescind.reference.errors import RescindError, error_registry

import rescind

ROOT = Path(__file__).resolve().parent.parent
MAPPING = {
    "rescind": "rescind",
    "rescind.reference": "reference",
    "rescind.model": "model",
    "rescind.conformance": "conformance",
    "rescind.vectors": "vectors",
}


def _pyproject() -> dict:  # type: ignore[type-arg]
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_package_dir_mapping_is_the_documented_one() -> None:
    assert _pyproject()["tool"]["setuptools"]["package-dir"] == MAPPING


def test_every_package_directory_is_listed() -> None:
    listed = set(_pyproject()["tool"]["setuptools"]["packages"])
    found = set()
    for namespace, folder in MAPPING.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            relative = init.parent.relative_to(ROOT / folder)
            found.add(".".join([namespace, *relative.parts]))
    assert found == listed


def _import_everything() -> None:
    for package in ("rescind.reference", "rescind.model", "rescind.conformance", "rescind.cli"):
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
    for generic in ("model", "reference", "conformance", "vectors"):
        spec = importlib.util.find_spec(generic)
        assert spec is None or "rescind" not in str(spec.origin), generic
