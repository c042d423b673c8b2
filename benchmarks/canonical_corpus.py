"""A deterministic corpus of realistic tool payloads for the canonical throughput benchmark.

Payloads are written as JSON text here, token by token, so number spellings and escapes are
chosen on purpose (a Python float could not say ``12.50`` or ``6.02E23``): nested objects and
arrays, ASCII and non-ASCII strings (raw or ``\\uXXXX``-escaped, surrogate pairs included),
integers, decimals with trailing zeros, exponents in every spelling, a few escapes, and three
layouts (compact, spaced, indented). Keys are shuffled, so canonicalisation must sort them.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


class Num(str):
    """A number lexeme, written into the JSON text verbatim."""


_WORD_LIST = (
    "release publish rollback tenant invoice refund shipment order customer account ledger "
    "region quota backup snapshot deploy canary approve reject pending settled archive "
    "payment charge credit debit transfer schedule retry window budget owner reviewer"
)
WORDS = tuple(_WORD_LIST.split())
NON_ASCII = (
    "Café crème",
    "naïve résumé",
    "Größe über",
    "東京タワー",
    "数据仓库",
    "Ελληνικά",
    "Привет мир",
    "مرحبا",
    "emoji 🚀 launch",
    "ok ✅ done",
    "€ 1 234,50",
)
ESCAPE_TEXTS = (
    "line one\nline two",
    'say "hello"',
    "C:\\temp\\out.log",
    "tab\tseparated",
    "path/to/object",
)


@dataclass(frozen=True)
class Style:
    ascii_only: bool  # escape all non-ASCII as \uXXXX (what json.dumps does by default)
    separators: tuple[str, str]
    indent: int | None
    slash_escapes: bool


def write(value: Any, style: Style, level: int = 0) -> str:
    if isinstance(value, Num):
        return str(value)
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    if isinstance(value, str):
        return write_string(value, style)
    item_sep, key_sep = style.separators
    if style.indent is None:
        open_pad = close_pad = ""
    else:
        open_pad = "\n" + " " * (style.indent * (level + 1))
        close_pad = "\n" + " " * (style.indent * level)
        item_sep = item_sep.rstrip() + open_pad
    if isinstance(value, list):
        if not value:
            return "[]"
        inner = item_sep.join(write(item, style, level + 1) for item in value)
        return f"[{open_pad}{inner}{close_pad}]"
    if not value:
        return "{}"
    members = (
        write_string(key, style) + key_sep + write(item, style, level + 1)
        for key, item in value.items()
    )
    return "{" + open_pad + item_sep.join(members) + close_pad + "}"


def write_string(text: str, style: Style) -> str:
    out = ['"']
    for char in text:
        code = ord(char)
        if char == '"':
            out.append('\\"')
        elif char == "\\":
            out.append("\\\\")
        elif char == "/" and style.slash_escapes:
            out.append("\\/")
        elif char in "\n\t\r\b\f":
            out.append({"\n": "\\n", "\t": "\\t", "\r": "\\r", "\b": "\\b", "\f": "\\f"}[char])
        elif code < 0x20:
            out.append(f"\\u{code:04x}")
        elif code > 0x7E and style.ascii_only:
            if code > 0xFFFF:
                high, low = divmod(code - 0x10000, 0x400)
                out.append(f"\\u{0xD800 + high:04x}\\u{0xDC00 + low:04x}")
            else:
                out.append(f"\\u{code:04x}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


class CorpusBuilder:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def words(self, low: int, high: int) -> str:
        return " ".join(self.rng.choice(WORDS) for _ in range(self.rng.randint(low, high)))

    def text(self) -> str:
        roll = self.rng.random()
        if roll < 0.15:
            return self.rng.choice(NON_ASCII)
        if roll < 0.22:
            return self.rng.choice(ESCAPE_TEXTS)
        return self.words(1, 6)

    def decimal(self) -> Num:
        places = self.rng.choice((1, 2, 2, 2, 3, 4))
        whole = self.rng.randint(-500, 99_999)
        return Num(f"{whole}.{self.rng.randrange(10**places):0{places}d}")

    def exponent(self) -> Num:
        mantissa = f"{self.rng.randint(1, 9)}.{self.rng.randint(0, 999):03d}"
        marker = self.rng.choice(("e", "E", "e+", "E-", "e-"))
        return Num(f"{mantissa}{marker}{self.rng.randint(0, 30)}")

    def integer(self) -> Num:
        if self.rng.random() < 0.1:
            return Num(str(self.rng.randint(-(2**53) + 1, 2**53 - 1)))
        return Num(str(self.rng.randint(-1000, 1_000_000)))

    def event(self) -> dict[str, Any]:
        return {
            "at": f"2024-{self.rng.randint(1, 12):02d}-{self.rng.randint(1, 28):02d}T"
            f"{self.rng.randint(0, 23):02d}:{self.rng.randint(0, 59):02d}:00Z",
            "by": self.text(),
            "delta": self.integer(),
            "amount": self.decimal(),
        }

    def record(self) -> dict[str, Any]:
        fields: dict[str, Any] = {
            "id": self.integer(),
            "sku": f"SKU-{self.rng.randint(10000, 99999)}",
            "name": self.text(),
            "price": self.decimal(),
            "qty": Num(str(self.rng.randint(0, 500))),
            "active": self.rng.random() < 0.7,
        }
        optional: dict[str, Callable[[], Any]] = {
            "ratio": self.exponent,
            "tags": lambda: [self.rng.choice(WORDS) for _ in range(self.rng.randint(0, 5))],
            "notes": self.text,
            "location": lambda: {"lat": self.decimal(), "lon": self.decimal()},
            "history": lambda: [self.event() for _ in range(self.rng.randint(1, 3))],
            "meta": lambda: None,
            "limits": lambda: {"max": self.integer(), "window": {"unit": "s", "n": self.integer()}},
        }
        for key, make in optional.items():
            if self.rng.random() < 0.45:
                fields[key] = make()
        keys = list(fields)
        self.rng.shuffle(keys)  # canonicalisation must sort them
        return {key: fields[key] for key in keys}

    def style(self) -> Style:
        layout = self.rng.random()
        if layout < 0.6:
            separators, indent = (",", ":"), None
        elif layout < 0.85:
            separators, indent = (", ", ": "), None
        else:
            separators, indent = (",", ": "), 2
        return Style(
            ascii_only=self.rng.random() < 0.3,
            separators=separators,
            indent=indent,
            slash_escapes=self.rng.random() < 0.1,
        )

    def payload(self, target: int) -> bytes:
        """One payload of roughly ``target`` bytes (compact estimate; layout adds some)."""
        style = self.style()
        doc: dict[str, Any] = {
            "operation": self.rng.choice(("release.publish", "invoice.refund", "quota.raise")),
            "request_id": f"req-{self.rng.getrandbits(48):012x}",
        }
        size = len(write(doc, style))
        if target <= 256:
            record = self.record()
            for key, value in record.items():
                piece = len(write({key: value}, style))
                if size + piece > target * 1.3:
                    continue
                doc[key] = value
                size += piece
                if size >= target:
                    break
            return write(doc, style).encode("utf-8")
        doc["dry_run"] = self.rng.random() < 0.2
        doc["params"] = {"tenant": self.text(), "limits": {"retries": Num("3"), "ttl": Num("30")}}
        records: list[dict[str, Any]] = []
        doc["records"] = records
        size = len(write(doc, style))
        while size < target:
            record = self.record()
            records.append(record)
            size += len(write(record, style)) + 1
        return write(doc, style).encode("utf-8")


@dataclass(frozen=True)
class SizeClass:
    name: str
    target: int  # approximate bytes per payload
    count: int  # payloads at scale 1


SIZE_CLASSES = (
    SizeClass("~100 B", 100, 3000),
    SizeClass("~1 KiB", 1024, 400),
    SizeClass("~8 KiB", 8 * 1024, 60),
    SizeClass("~64 KiB", 64 * 1024, 8),
)


def build_corpus(seed: int, scale: float) -> dict[str, list[bytes]]:
    builder = CorpusBuilder(seed)
    return {
        size.name: [builder.payload(size.target) for _ in range(max(2, round(size.count * scale)))]
        for size in SIZE_CLASSES
    }
