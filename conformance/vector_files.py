"""The published golden vector files (package data ``rescind.vectors``), read in file-name
order; the registry is not a vector file. Below every reader: the vector checks, exploration's
fast canonical source, coverage, diagnosis and the report."""

from __future__ import annotations

import importlib.resources
import json
from collections.abc import Iterator
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any


def load_vector_files(directory: Path | None = None) -> Iterator[dict[str, Any]]:
    """The vector files of ``directory`` (default: the published ones)."""
    root: Traversable = (
        importlib.resources.files("rescind.vectors") if directory is None else directory
    )
    for entry in sorted(root.iterdir(), key=lambda item: item.name):
        if entry.name.endswith(".json") and entry.name != "registry.json":
            yield json.loads(entry.read_text(encoding="utf-8"))
