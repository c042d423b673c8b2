"""Canonical bytes as other readings of JSON would compute them (for ``rescind diagnose``).

Upstream's canonical JSON is one point in a space of choices that JSON libraries make
differently: how numbers are kept and written, how object keys are ordered, which duplicate
key wins, which characters are escaped, whether text is Unicode-normalized. ``Style`` is one
point in that space, and ``canonical_body`` computes the bytes a payload gets under it from
the reference parser's tree (every member and every number lexeme as written). ``Style()`` is
upstream's own reading.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Mapping
from typing import Any, Literal

import attrs

from rescind.reference.errors import RescindError
from rescind.reference.jsonparse import JsonPairs, Node, parse_document
from rescind.reference.jsonvalue import JsonNumber
from rescind.reference.numbers import NumberMode, ap_text, f64_value, is_lexeme, zmij_text

U64_MAX = 2**64 - 1
I64_MIN = -(2**63)


class Refused(Exception):
    """This reading refuses the payload (a number it cannot hold, a repeated key, bad JSON)."""


# ---- numbers -------------------------------------------------------------------------------


def _correctly_rounded(lexeme: str) -> int | float:
    """serde_json's integer rule (exact u64/i64, ``-0`` a float) with a correctly rounded
    float parse instead of upstream's truncating one."""
    digits = lexeme.lstrip("-")
    # Only up to 20 digits can fit a u64 (and deciding by length avoids Python's limit on
    # converting long digit strings).
    if digits.isdigit() and len(digits) <= 20:
        value = int(lexeme)
        if (lexeme[0] != "-" and value <= U64_MAX) or (lexeme[0] == "-" and I64_MIN <= value < 0):
            return value
    result = float(lexeme)
    if result in (float("inf"), float("-inf")):
        raise Refused("number out of range")
    return result


def _truncating(lexeme: str) -> int | float:
    try:
        return f64_value(lexeme)
    except RescindError:
        raise Refused("number out of range") from None


def _ryu_text(value: float) -> str:
    # ryu and zmij pick fixed or scientific notation at the same exponents (-5..15) and write
    # the same shortest digits; ryu writes no sign on a positive exponent.
    return zmij_text(value).replace("e+", "e")


def _shortest_digits(value: float) -> tuple[str, int]:
    """Digits d1..dn and E with value = d1.d2..dn x 10^E (value > 0, shortest round trip)."""
    mantissa, _, exponent_text = repr(value).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0")
    leading_zeros = len(whole + fraction) - len(digits)
    exponent = (int(exponent_text) if exponent_text else 0) + len(whole) - 1 - leading_zeros
    return digits.rstrip("0") or "0", exponent


def _ecmascript_text(lexeme: str) -> str:
    """``JSON.stringify(JSON.parse(lexeme))``: every number a double, ECMAScript layout."""
    value = float(lexeme)
    if value in (float("inf"), float("-inf")):
        return "null"
    if value == 0.0:
        return "0"
    sign = "-" if value < 0 else ""
    digits, exponent = _shortest_digits(abs(value))
    point = exponent + 1  # ECMAScript's n: value = 0.d1d2..dk x 10^n
    count = len(digits)
    if count <= point <= 21:
        return sign + digits + "0" * (point - count)
    if 0 < point <= 21:
        return f"{sign}{digits[:point]}.{digits[point:]}"
    if -6 < point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    mantissa = digits[0] + (f".{digits[1:]}" if count > 1 else "")
    return f"{sign}{mantissa}e{'+' if exponent >= 0 else '-'}{abs(exponent)}"


def _serde_float(
    parse: Callable[[str], int | float], layout: Callable[[float], str]
) -> Callable[[str], str]:
    def render(lexeme: str) -> str:
        value = parse(lexeme)
        return str(value) if isinstance(value, int) else layout(value)

    return render


NUMBER_READINGS: Mapping[str, Callable[[str], str]] = {
    "serde-normalized": ap_text,
    "as-written": lambda lexeme: lexeme,
    "f64-truncating-zmij": _serde_float(_truncating, zmij_text),
    "f64-truncating-ryu": _serde_float(_truncating, _ryu_text),
    "f64-rounded-zmij": _serde_float(_correctly_rounded, zmij_text),
    "f64-rounded-ryu": _serde_float(_correctly_rounded, _ryu_text),
    "f64-ecmascript": _ecmascript_text,
}
"""Number reading -> the text a number lexeme is written as (``Refused`` when it cannot be)."""


# ---- strings -------------------------------------------------------------------------------

_SHORT = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def _escape_minimal(char: str) -> str | None:
    if char in _SHORT:
        return _SHORT[char]
    return f"\\u{ord(char):04x}" if ord(char) < 0x20 else None


def _escape_ascii_only(char: str) -> str | None:
    if ord(char) < 0x80:
        return _escape_minimal(char)
    units = char.encode("utf-16-be")
    return "".join(f"\\u{units[i] << 8 | units[i + 1]:04x}" for i in range(0, len(units), 2))


def _escape_solidus(char: str) -> str | None:
    return "\\/" if char == "/" else _escape_minimal(char)


def _escape_uppercase_hex(char: str) -> str | None:
    escaped = _escape_minimal(char)
    return escaped.upper().replace("\\U", "\\u") if escaped and escaped[1] == "u" else escaped


def _escape_html_safe(char: str) -> str | None:
    if char in "<>&\u2028\u2029":
        return f"\\u{ord(char):04x}"
    return _escape_minimal(char)


def _escape_no_short_forms(char: str) -> str | None:
    if char in '"\\':
        return _SHORT[char]
    return f"\\u{ord(char):04x}" if ord(char) < 0x20 else None


ESCAPE_READINGS: Mapping[str, Callable[[str], str | None]] = {
    "minimal": _escape_minimal,
    "ascii-only": _escape_ascii_only,
    "solidus": _escape_solidus,
    "uppercase-hex": _escape_uppercase_hex,
    "html-safe": _escape_html_safe,
    "no-short-forms": _escape_no_short_forms,
}
"""Escape reading -> a character's escape, or ``None`` to write it raw."""


# ---- the canonicalizer ---------------------------------------------------------------------


@attrs.frozen
class Style:
    """One reading of every choice; the defaults are upstream's."""

    numbers: str = "serde-normalized"
    key_order: str = "code-points"
    """``code-points`` (= UTF-8 byte order), ``utf-16`` (code units) or ``insertion``."""
    duplicates: str = "last-wins"
    """``last-wins``, ``first-wins`` or ``refused``."""
    escapes: str = "minimal"
    normalization: str = "none"
    """Applied to JSON strings and keys: ``none``, ``nfc`` or ``nfd``."""
    text: str = "exact"
    """Applied to text payloads: ``exact``, ``nfc``, ``nfd`` or ``lf-line-endings``."""
    reserved_number_key: bool = True
    """CJ-11: an object whose first key is ``$serde_json::private::Number`` is a number."""


_SORT_KEYS: Mapping[str, Callable[[str], Any] | None] = {
    "code-points": lambda key: key,
    "utf-16": lambda key: key.encode("utf-16-be", "surrogatepass"),
    "insertion": None,
}


_NORMAL_FORMS: Mapping[str, Literal["NFC", "NFD"]] = {"nfc": "NFC", "nfd": "NFD"}


def _normalize(text: str, form: str) -> str:
    normal_form = _NORMAL_FORMS.get(form)
    return text if normal_form is None else unicodedata.normalize(normal_form, text)


def _string(text: str, style: Style) -> str:
    escape = ESCAPE_READINGS[style.escapes]
    parts = []
    for char in _normalize(text, style.normalization):
        escaped = escape(char)
        parts.append(char if escaped is None else escaped)
    return '"' + "".join(parts) + '"'


def _members(node: JsonPairs, style: Style) -> list[tuple[str, Node]]:
    members: dict[str, Node] = {}
    for raw_key, value in node.pairs:
        key = _normalize(raw_key, style.normalization)
        if key in members:
            if style.duplicates == "refused":
                raise Refused("repeated key")
            if style.duplicates == "first-wins":
                continue
        members[key] = value
    order = _SORT_KEYS[style.key_order]
    items = list(members.items())
    return items if order is None else sorted(items, key=lambda item: order(item[0]))


RESERVED_NUMBER_KEY = "$serde_json::private::Number"


def _reserved_number(node: JsonPairs) -> str | None:
    """CJ-11: the lexeme an object stands for, or ``None`` when it is an ordinary object."""
    if not node.pairs or node.pairs[0][0] != RESERVED_NUMBER_KEY:
        return None
    spelled = node.pairs[0][1]
    if len(node.pairs) > 1 or not isinstance(spelled, str) or not is_lexeme(spelled):
        raise Refused("reserved number key without exactly one number string")
    return spelled


def _write(node: Node, style: Style) -> str:
    if isinstance(node, JsonPairs):
        lexeme = _reserved_number(node) if style.reserved_number_key else None
        if lexeme is not None:
            return NUMBER_READINGS[style.numbers](lexeme)
        inner = ",".join(
            f"{_string(k, style)}:{_write(v, style)}" for k, v in _members(node, style)
        )
        return "{" + inner + "}"
    if isinstance(node, tuple):
        return "[" + ",".join(_write(item, style) for item in node) + "]"
    if isinstance(node, JsonNumber):
        return NUMBER_READINGS[style.numbers](node.lexeme or node.text)
    if isinstance(node, str):
        return _string(node, style)
    return {True: "true", False: "false", None: "null"}[node]


def payload_bytes(payload: Mapping[str, Any]) -> bytes:
    """The payload of a ``canonical.input`` request (its ``text`` or ``hex``) as bytes."""
    if "hex" in payload:
        return bytes.fromhex(str(payload["hex"]))
    return str(payload["text"]).encode("utf-8")


def canonical_body(payload: Mapping[str, Any], style: Style) -> bytes:
    """The canonical JSON (or text) bytes of a ``canonical.input`` request under ``style``.

    Parsing is upstream's strict parse (the readings here differ in what they write, not in
    what they accept); a payload upstream refuses is refused here too."""
    data = payload_bytes(payload)
    if payload["format"] == "text":
        text = data.decode("utf-8")
        if style.text == "lf-line-endings":
            return text.replace("\r\n", "\n").encode("utf-8")
        return _normalize(text, style.text).encode("utf-8")
    try:
        node = parse_document(data, NumberMode.AP)
    except RescindError:
        raise Refused("upstream refuses this payload") from None
    return _write(node, style).encode("utf-8")
