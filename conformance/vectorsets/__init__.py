"""One module per vector topic; each exposes ``build() -> VectorFile``.

Modules are discovered, so adding a topic never edits a shared list.
"""

from __future__ import annotations

import importlib
import pkgutil

from rescind.conformance.vectorformat import VectorFile


def discover() -> list[VectorFile]:
    """Build every topic, sorted by topic name (the export order)."""
    files: list[VectorFile] = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda module: module.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        build = getattr(module, "build", None)
        if callable(build):
            built = build()
            if not isinstance(built, VectorFile):
                raise TypeError(f"{info.name}.build() must return a VectorFile")
            files.append(built)
    topics = [vector_file.topic for vector_file in files]
    if len(set(topics)) != len(topics):
        raise ValueError(f"two vector modules build the same topic: {topics}")
    return sorted(files, key=lambda vector_file: vector_file.topic)
