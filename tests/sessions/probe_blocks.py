"""Readers for the WorkerSession blocks ("== 1" .. "== 7") of tests/upstream/out_other.txt.

Each block is a list of probe lines: ``<label>: OK -> <reply JSON>`` or ``<label>: ERR <Rust
Debug of the error>``, each followed by indented ``key=value`` lines (state after it). The
Rust Debug text is parsed here and turned into the code and details Rescind promises for it
(docs/spec/session.md WS-4, WS-8, WS-10, WS-11), independently of the reference code.
"""

from __future__ import annotations

import re
from typing import Any

import attrs

from tests.worker.probe_lines import lines


@attrs.frozen
class ProbeLine:
    label: str
    ok: bool
    text: str
    after: dict[str, str]


def blocks() -> dict[int, list[ProbeLine]]:
    found: dict[int, list[ProbeLine]] = {}
    current: list[ProbeLine] | None = None
    for line in lines("out_other.txt"):
        header = re.match(r"== (\d+): ", line)
        if header:
            current = found.setdefault(int(header.group(1)), [])
            continue
        if current is None or not line.strip():
            if not line.strip():
                current = None
            continue
        if line.startswith("  "):
            last = current[-1]
            last.after.update(dict(re.findall(r"([a-z][a-z ]*?)=(\S+)", line.strip())))
            continue
        match = re.match(r"(.*?): (OK -> |ERR )(.*)$", line)
        if match is None:
            current = None  # the probe's other sections (parser, numbers) follow block 7
            continue
        label, kind, text = match.groups()
        current.append(ProbeLine(label, kind.startswith("OK"), text, {}))
    return found


# -- Rust Debug ------------------------------------------------------------------------------

_TOKEN = re.compile(
    r'\s*(?:(?P<str>"(?:[^"\\]|\\.)*")|(?P<num>-?\d+)|(?P<id>[A-Za-z_]\w*)|(?P<p>[(){},:]))'
)


def _tokens(text: str) -> list[tuple[str, str]]:
    out, position = [], 0
    while position < len(text.rstrip()):
        match = _TOKEN.match(text, position)
        assert match is not None, f"cannot read {text[position:]!r}"
        kind = match.lastgroup
        assert kind is not None
        out.append((kind, match.group(kind)))
        position = match.end()
    return out


@attrs.frozen
class Node:
    name: str
    args: tuple[Any, ...] = ()
    fields: tuple[tuple[str, Any], ...] = ()


def parse_debug(text: str) -> Any:
    tokens = _tokens(text)
    value, rest = _value(tokens)
    assert not rest, f"trailing tokens in {text!r}"
    return value


def _value(tokens: list[tuple[str, str]]) -> tuple[Any, list[tuple[str, str]]]:
    kind, token = tokens[0]
    rest = tokens[1:]
    if kind == "str":
        return token[1:-1], rest
    if kind == "num":
        return int(token), rest
    assert kind == "id", token
    if rest and rest[0] == ("p", "("):
        args: list[Any] = []
        rest = rest[1:]
        while rest[0] != ("p", ")"):
            item, rest = _value(rest)
            args.append(item)
            if rest[0] == ("p", ","):
                rest = rest[1:]
        return Node(token, args=tuple(args)), rest[1:]
    if rest and rest[0] == ("p", "{"):
        fields: list[tuple[str, Any]] = []
        rest = rest[1:]
        while rest[0] != ("p", "}"):
            name = rest[0][1]
            assert rest[1] == ("p", ":")
            item, rest = _value(rest[2:])
            fields.append((name, item))
            if rest[0] == ("p", ","):
                rest = rest[1:]
        return Node(token, fields=tuple(fields)), rest[1:]
    return Node(token), rest


def snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


# The probe's test store fails with StoreErr("unavailable"); Rescind's scenarios inject the
# same failure as the ``unavailable`` fault, reported with the storage code below.
STORE_ERRORS = {"unavailable": "store_unavailable"}
POSITIONAL = {
    "PendingOperation": "operation_key",
    "PendingCompensation": "operation_key",
    "UnknownOperation": "operation_key",
    "UnexpectedMessage": "kind",
}


def _plain(value: Any) -> Any:
    return snake(value.name) if isinstance(value, Node) else value


def _cause(node: Node) -> tuple[str, str]:
    inner = node.args[0]
    if node.name == "Adapter":
        return "adapter", "adapter_" + snake(inner.name)
    if node.name == "Protocol":
        return "protocol", snake(inner.name)
    assert node.name == "Journal" and inner.name == "StoreErr", node
    return "journal", STORE_ERRORS[inner.args[0]]


def expected_error(node: Node) -> tuple[str, dict[str, Any]]:
    """The code and (some of) the details Rescind reports for an upstream session error."""
    if node.name == "Protocol":
        code, details = expected_error(node.args[0])
        return code, {**details, "layer": "protocol"}
    if node.name == "Journal":
        store = node.args[0]
        return "journal_persistence_failed", {"cause": STORE_ERRORS[store.args[0]]}
    fields = dict(node.fields)
    if node.name == "Adapter":
        return "adapter_failed", {"tool": fields["tool"], "error": snake(fields["error"].name)}
    if node.name in ("IndeterminateOperation", "IndeterminateCompensation"):
        kind, cause = _cause(fields.pop("cause"))
        return snake(node.name), {**fields, "cause_kind": kind, "cause": cause}
    if node.args:
        return snake(node.name), {POSITIONAL[node.name]: node.args[0]}
    return snake(node.name), {name: _plain(value) for name, value in fields.items()}
