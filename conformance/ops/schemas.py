"""The JSON Schemas of every driver operation's arguments and result, and the operation table
of docs/driver-protocol.md generated from them.

One file per operation, ``schemas/ops/<op>.json`` (installed as
``rescind/conformance/schemas/ops/``): a Draft 2020-12 schema whose ``$defs/args`` is the
request's ``args`` object and ``$defs/result`` the reply's ``ok`` object. ``x-rescind`` says
which capability the operation belongs to, which vector topics exercise it, where its rules
are (``spec``) and which error codes the vectors exercise (``errors``). A reply's ``error``
object is the same for every operation (``driver-protocol.schema.json``).

Regenerate the table after editing a schema::

    python -m rescind.conformance.ops.schemas docs/driver-protocol.md
"""

from __future__ import annotations

import importlib.resources
import json
import sys
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

BEGIN = (
    "<!-- BEGIN operation table, generated from conformance/schemas/ops/ by "
    "`python -m rescind.conformance.ops.schemas docs/driver-protocol.md` -->"
)
END = "<!-- END generated operation table -->"


@cache
def schemas() -> dict[str, dict[str, Any]]:
    """Every operation's schema document, by operation name."""
    folder = importlib.resources.files("rescind.conformance").joinpath("schemas", "ops")
    found: dict[str, dict[str, Any]] = {}
    for entry in sorted(folder.iterdir(), key=lambda item: item.name):
        if entry.name.endswith(".json"):
            document = json.loads(entry.read_text(encoding="utf-8"))
            found[document["title"]] = document
    return found


@cache
def validator(op: str, part: str) -> Draft202012Validator:
    """A validator of ``part`` (``args`` or ``result``) of operation ``op``."""
    document = schemas()[op]
    return Draft202012Validator({**document, "$ref": f"#/$defs/{part}"})


def problems(op: str, part: str, value: Mapping[str, Any]) -> list[str]:
    """Where ``value`` breaks the schema, one line each (empty when it is valid)."""
    errors = validator(op, part).iter_errors(value)
    return [f"/{'/'.join(map(str, e.absolute_path))}: {e.message[:200]}" for e in errors]


def _keys(schema: Mapping[str, Any]) -> str:
    required = set(schema.get("required", ()))
    properties: Mapping[str, Any] = schema.get("properties", {})
    names = [f"`{n}`" if n in required else f"`{n}`?" for n in properties]
    return ", ".join(names) or "none"


def table(documents: Mapping[str, Mapping[str, Any]] | None = None) -> str:
    """The Markdown operation table (one row per operation)."""
    chosen = schemas() if documents is None else documents
    lines = [
        "| operation | capability | arguments (`?`: optional) | result (`?`: optional) "
        "| error codes in the vectors | spec |",
        "|---|---|---|---|---|---|",
    ]
    for op, document in sorted(chosen.items(), key=lambda item: _order(item[1], item[0])):
        meta = document["x-rescind"]
        definitions = document["$defs"]
        errors = ", ".join(f"`{code}`" for code in meta["errors"]) or "none"
        spec = ", ".join(meta["spec"])
        lines.append(
            f"| `{op}` | `{meta['capability']}` | {_keys(definitions['args'])} "
            f"| {_keys(definitions['result'])} | {errors} | {spec} |"
        )
    return "\n".join(lines) + "\n"


CAPABILITY_ORDER: Sequence[str] = (
    "canonical",
    "host-keys",
    "grants",
    "journal",
    "authorizer",
    "frames",
    "ledger",
    "storage",
    "session",
    "saga",
)


def _order(document: Mapping[str, Any], op: str) -> tuple[int, str]:
    capability = document["x-rescind"]["capability"]
    return CAPABILITY_ORDER.index(capability), op


def with_table(text: str) -> str:
    """``text`` with the block between the markers replaced by the current table."""
    head, found, rest = text.partition(BEGIN)
    if not found or END not in rest:
        raise ValueError("the generated-table markers are missing")
    _, _, tail = rest.partition(END)
    return f"{head}{BEGIN}\n\n{table()}\n{END}{tail}"


def main(argv: Sequence[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m rescind.conformance.ops.schemas DOC.md", file=sys.stderr)
        return 2
    path = Path(argv[0])
    path.write_text(with_table(path.read_text(encoding="utf-8")), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
