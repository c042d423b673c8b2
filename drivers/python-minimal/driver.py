#!/usr/bin/env python3
"""A complete Rescind driver for the `canonical` capability, in one file, standard library only.

Copy it, run it, then replace its canonical code with calls into your implementation:

    rescind check --impl "python driver.py" --select canonical-input

It speaks `rescind-driver/1` (docs/driver-protocol.md): one JSON request per line on stdin,
one reply per line on stdout. It answers `hello`, `bye` and `canonical.input` for the
normative number profile `splash-v5`, and `unsupported` for anything else. Everything it
computes is specified in docs/driver-protocol.md, "The bytes of the canonical capability"
(rules CJ-n in docs/spec/canonical.md). It imports nothing from Rescind: BLAKE3, which the
standard library lacks, is written out below after the BLAKE3 specification.
"""

from __future__ import annotations

import json
import struct
import sys
from collections.abc import Callable

# --- canonical JSON ---------------------------------------------------------------------

RESERVED_NUMBER_KEY = "$serde_json::private::Number"
RECURSION_LIMIT = 128  # the parser refuses the 128th nested container (serde_json's limit)
MAX_DEPTH = 32  # the root is depth 1; every child, scalars included, one deeper
WHITESPACE = " \t\n\r"
ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
U64_MAX = 2**64 - 1
I64_MIN = -(2**63)


class Refused(Exception):
    """A typed failure of canonical.input; ``code`` is the stable error code."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


class Number:
    """A JSON number kept as its canonical text (never converted to a float)."""

    def __init__(self, text: str) -> None:
        self.text = text


class Literal:
    def __init__(self, text: str) -> None:
        self.text = text


TRUE, FALSE, NULL = Literal("true"), Literal("false"), Literal("null")


def canonical_number(text: str) -> str:
    """``text`` matches the JSON number grammar. Integers that fit u64 (or i64 when negative)
    are written in plain decimal (``-0`` is ``0``); larger ones keep their digits; numbers
    with a fraction or exponent keep their text, with ``e`` and a signed exponent."""
    if "." not in text and "e" not in text and "E" not in text:
        digits = text.lstrip("-")
        # Decide the range by length first: int() refuses very long texts (and is slow).
        if len(digits) <= 20:
            value = int(text)
            if I64_MIN <= value <= U64_MAX:
                return str(value)
        return text
    mantissa, marker, exponent = text.replace("E", "e").partition("e")
    if marker and exponent[0] not in "+-":
        exponent = "+" + exponent
    return mantissa + marker + exponent


class Parser:
    """A strict JSON parser over a ``str`` that keeps number text and object member order."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0
        self.nesting = 0

    def fail(self) -> Refused:
        return Refused("serialization")

    def skip_whitespace(self) -> None:
        while self.at < len(self.text) and self.text[self.at] in WHITESPACE:
            self.at += 1

    def peek(self) -> str:
        if self.at >= len(self.text):
            raise self.fail()  # end of input while parsing
        return self.text[self.at]

    def document(self) -> object:
        value = self.value()
        self.skip_whitespace()
        if self.at != len(self.text):
            raise self.fail()  # trailing characters
        return value

    def value(self) -> object:
        self.skip_whitespace()
        char = self.peek()
        if char == "{":
            return self.container(self.object_members)
        if char == "[":
            return self.container(self.array_items)
        if char == '"':
            return self.string()
        for literal in (TRUE, FALSE, NULL):
            if self.text.startswith(literal.text, self.at):
                self.at += len(literal.text)
                return literal
        return Number(canonical_number(self.number_text()))

    def container(self, body: Callable[[], object]) -> object:
        self.nesting += 1
        if self.nesting >= RECURSION_LIMIT:
            raise self.fail()
        self.at += 1
        result = body()
        self.nesting -= 1
        return result

    def array_items(self) -> list[object]:
        items: list[object] = []
        self.skip_whitespace()
        if self.peek() == "]":
            self.at += 1
            return items
        while True:
            items.append(self.value())
            self.skip_whitespace()
            char = self.peek()
            self.at += 1
            if char == "]":
                return items
            if char != ",":
                raise self.fail()

    def object_members(self) -> object:
        members: list[tuple[str, object]] = []
        self.skip_whitespace()
        if self.peek() == "}":
            self.at += 1
            return dict(members)
        while True:
            self.skip_whitespace()
            if self.peek() != '"':
                raise self.fail()  # a key must be a string (also: a comma before '}')
            key = self.string()
            self.skip_whitespace()
            if self.peek() != ":":
                raise self.fail()
            self.at += 1
            if not members and key == RESERVED_NUMBER_KEY:
                return self.reserved_number()
            members.append((key, self.value()))
            self.skip_whitespace()
            char = self.peek()
            self.at += 1
            if char == "}":
                return dict(members)  # a repeated key keeps its last value
            if char != ",":
                raise self.fail()

    def reserved_number(self) -> Number:
        """The member value after the reserved first key: a string spelling exactly one JSON
        number, and then the end of the object."""
        self.skip_whitespace()
        if self.peek() != '"':
            raise self.fail()
        spelled = Parser(self.string())
        text = spelled.number_text()
        if spelled.at != len(spelled.text):
            raise self.fail()
        self.skip_whitespace()
        if self.peek() != "}":
            raise self.fail()
        self.at += 1
        return Number(canonical_number(text))

    def number_text(self) -> str:
        start = self.at
        text = self.text
        if self.at < len(text) and text[self.at] == "-":
            self.at += 1
        if self.at < len(text) and text[self.at] == "0":
            self.at += 1
        elif not self.digits():
            raise self.fail()
        if self.at < len(text) and text[self.at] == ".":
            self.at += 1
            if not self.digits():
                raise self.fail()
        if self.at < len(text) and text[self.at] in "eE":
            self.at += 1
            if self.at < len(text) and text[self.at] in "+-":
                self.at += 1
            if not self.digits():
                raise self.fail()
        return text[start : self.at]

    def digits(self) -> bool:
        start = self.at
        while self.at < len(self.text) and "0" <= self.text[self.at] <= "9":
            self.at += 1
        return self.at > start

    def string(self) -> str:
        self.at += 1  # the opening quote
        parts: list[str] = []
        text = self.text
        while True:
            if self.at >= len(text):
                raise self.fail()
            char = text[self.at]
            self.at += 1
            if char == '"':
                return "".join(parts)
            if char < " ":
                raise self.fail()  # a raw control character
            if char != "\\":
                parts.append(char)
                continue
            if self.at >= len(text):
                raise self.fail()
            escape = text[self.at]
            self.at += 1
            if escape in ESCAPES:
                parts.append(ESCAPES[escape])
            elif escape == "u":
                parts.append(self.unicode_escape())
            else:
                raise self.fail()

    def hex4(self) -> int:
        digits = self.text[self.at : self.at + 4]
        if len(digits) != 4 or any(c not in "0123456789abcdefABCDEF" for c in digits):
            raise self.fail()
        self.at += 4
        return int(digits, 16)

    def unicode_escape(self) -> str:
        unit = self.hex4()
        if 0xDC00 <= unit <= 0xDFFF:
            raise self.fail()  # a low surrogate alone
        if 0xD800 <= unit <= 0xDBFF:
            if self.text[self.at : self.at + 2] != "\\u":
                raise self.fail()  # a high surrogate not followed by an escape
            self.at += 2
            low = self.hex4()
            if not 0xDC00 <= low <= 0xDFFF:
                raise self.fail()
            return chr(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
        return chr(unit)


def write_string(text: str) -> str:
    out = ['"']
    for char in text:
        if char == '"':
            out.append('\\"')
        elif char == "\\":
            out.append("\\\\")
        elif char < " ":
            short = {"\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}
            out.append(short.get(char, f"\\u{ord(char):04x}"))
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def write(value: object) -> str:
    if isinstance(value, dict):
        members = sorted(value.items())  # code point order is UTF-8 byte order
        return "{" + ",".join(write_string(k) + ":" + write(v) for k, v in members) + "}"
    if isinstance(value, list):
        return "[" + ",".join(write(item) for item in value) + "]"
    if isinstance(value, str):
        return write_string(value)
    assert isinstance(value, Number | Literal)
    return value.text


def deepest(value: object, depth: int = 1) -> int:
    """The depth of the deepest value, the root at 1 (a container's children one deeper)."""
    stack = [(value, depth)]
    most = depth
    while stack:
        item, level = stack.pop()
        most = max(most, level)
        if isinstance(item, dict):
            stack.extend((child, level + 1) for child in item.values())
        elif isinstance(item, list):
            stack.extend((child, level + 1) for child in item)
    return most


def canonical_input(args: dict[str, object]) -> dict[str, object]:
    """The ``canonical.input`` result for ``args``, or ``Refused`` with the error code."""
    payload = bytes.fromhex(str(args["hex"])) if "hex" in args else None
    if payload is None:
        try:
            payload = str(args.get("text", "")).encode("utf-8")
        except UnicodeEncodeError as error:  # a lone surrogate in the request's text
            raise Refused("serialization") from error
    try:
        decoded = payload.decode("utf-8")
    except UnicodeDecodeError as error:
        raise Refused("serialization") from error
    limit = args.get("maxInputBytes")
    result: dict[str, object] = {}
    if args["format"] == "json":
        tree = Parser(decoded).document()
        if not isinstance(tree, dict | list):
            raise Refused("invalid_json_envelope")
        if deepest(tree) > MAX_DEPTH:
            raise Refused("json_payload_too_deep")
        canonical_json = write(tree)
        body, tag = canonical_json.encode("utf-8"), b"json"
        result["canonicalJson"] = canonical_json
    else:
        body, tag = payload, b"text"
    if isinstance(limit, int) and len(body) > limit:
        raise Refused("input_too_large")
    framed = tag + struct.pack(">Q", len(body)) + body
    result["size"] = len(body)
    result["canonicalInputHex"] = framed.hex()
    result["workerInputFingerprint"] = blake3(b"splash-worker-operation-input-v1" + framed).hex()
    host = b"splash-workflow-operation-input-v1" + struct.pack(">Q", len(framed)) + framed
    result["hostInputFingerprint"] = blake3(host).hex()
    return result


# --- BLAKE3 (unkeyed hash, 32-byte output), after the BLAKE3 specification ----------------

IV = (
    0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A,
    0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19,
)  # fmt: skip
PERMUTATION = (2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8)
CHUNK_START, CHUNK_END, PARENT, ROOT = 1, 2, 4, 8
BLOCK_LEN, CHUNK_LEN = 64, 1024
MASK = 0xFFFFFFFF


def _g(s: list[int], a: int, b: int, c: int, d: int, x: int, y: int) -> None:
    s[a] = (s[a] + s[b] + x) & MASK
    s[d] = ((s[d] ^ s[a]) >> 16) | (((s[d] ^ s[a]) << 16) & MASK)
    s[c] = (s[c] + s[d]) & MASK
    s[b] = ((s[b] ^ s[c]) >> 12) | (((s[b] ^ s[c]) << 20) & MASK)
    s[a] = (s[a] + s[b] + y) & MASK
    s[d] = ((s[d] ^ s[a]) >> 8) | (((s[d] ^ s[a]) << 24) & MASK)
    s[c] = (s[c] + s[d]) & MASK
    s[b] = ((s[b] ^ s[c]) >> 7) | (((s[b] ^ s[c]) << 25) & MASK)


def _compress(cv: list[int], block: bytes, counter: int, length: int, flags: int) -> list[int]:
    """The 16 output words of one compression (the first 8 are the next chaining value)."""
    m = list(struct.unpack("<16I", block.ljust(BLOCK_LEN, b"\0")))
    s = [*cv, *IV[:4], counter & MASK, (counter >> 32) & MASK, length, flags]
    for round_number in range(7):
        _g(s, 0, 4, 8, 12, m[0], m[1])
        _g(s, 1, 5, 9, 13, m[2], m[3])
        _g(s, 2, 6, 10, 14, m[4], m[5])
        _g(s, 3, 7, 11, 15, m[6], m[7])
        _g(s, 0, 5, 10, 15, m[8], m[9])
        _g(s, 1, 6, 11, 12, m[10], m[11])
        _g(s, 2, 7, 8, 13, m[12], m[13])
        _g(s, 3, 4, 9, 14, m[14], m[15])
        if round_number < 6:
            m = [m[i] for i in PERMUTATION]
    return [s[i] ^ s[i + 8] for i in range(8)] + [s[i + 8] ^ cv[i] for i in range(8)]


def _chunk_output(data: bytes, counter: int) -> tuple[list[int], bytes, int, int, int]:
    """A chunk's last block, not yet compressed: (cv, block, counter, length, flags)."""
    cv = list(IV)
    blocks = [data[i : i + BLOCK_LEN] for i in range(0, len(data), BLOCK_LEN)] or [b""]
    for number, block in enumerate(blocks[:-1]):
        start = CHUNK_START if number == 0 else 0
        cv = _compress(cv, block, counter, BLOCK_LEN, start)[:8]
    start = CHUNK_START if len(blocks) == 1 else 0
    return cv, blocks[-1], counter, len(blocks[-1]), start | CHUNK_END


def _parent_output(left: list[int], right: list[int]) -> tuple[list[int], bytes, int, int, int]:
    return list(IV), struct.pack("<16I", *left, *right), 0, BLOCK_LEN, PARENT


def blake3(data: bytes) -> bytes:
    """BLAKE3 of ``data``: chunks of 1,024 bytes, merged pairwise into a tree whose root is
    compressed with the ROOT flag."""
    chunks = [data[i : i + CHUNK_LEN] for i in range(0, len(data), CHUNK_LEN)] or [b""]
    stack: list[list[int]] = []
    for counter, chunk in enumerate(chunks[:-1]):
        cv = _compress(*_chunk_output(chunk, counter))[:8]
        total = counter + 1
        while total & 1 == 0:  # merge completed subtrees
            cv = _compress(*_parent_output(stack.pop(), cv))[:8]
            total >>= 1
        stack.append(cv)
    output = _chunk_output(chunks[-1], len(chunks) - 1)
    while stack:
        output = _parent_output(stack.pop(), _compress(*output)[:8])
    cv, block, _, length, flags = output
    return struct.pack("<8I", *_compress(cv, block, 0, length, flags | ROOT)[:8])


# --- the driver loop --------------------------------------------------------------------

HELLO = {
    "protocol": "rescind-driver/1",
    "implementation": {"name": "python-minimal", "version": "1"},
    "capabilities": ["canonical"],
    "profiles": ["splash-v5"],
}


def reply_to(request: dict[str, object]) -> dict[str, object]:
    op, args = request.get("op"), request.get("args") or {}
    if op == "hello":
        return {"ok": HELLO}
    if op == "bye":
        return {"ok": {}}
    if op == "canonical.input" and isinstance(args, dict):
        if args.get("profile", "splash-v5") != "splash-v5":
            return {"unsupported": "only the splash-v5 number profile"}
        try:
            return {"ok": canonical_input(args)}
        except Refused as refusal:
            return {"error": {"code": refusal.code, "definite": True}}
    return {"unsupported": f"no operation {op!r} in this driver"}


def main() -> int:
    for line in sys.stdin.buffer:
        request = json.loads(line)
        reply = {"id": request["id"], **reply_to(request)}  # {"ok"|"error"|"unsupported": ...}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
        if request.get("op") == "bye":
            break
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
