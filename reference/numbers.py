"""JSON number text in the two upstream number modes.

Upstream keeps a parsed JSON number in one of two ways, chosen by how it is built:

* ``AP`` (profile ``splash-v5``, normative): serde_json's ``arbitrary_precision``. The text
  is kept; an exponent marker becomes ``e`` and gets an explicit ``+`` when unsigned;
  an integer that fits u64 (or, negative, i64) is re-rendered, which only changes ``-0`` to
  ``0``. There is no range check.
* ``F64`` (profile ``splash-v5-f64``, informative): integers that fit u64/i64 stay exact;
  everything else becomes an f64 through serde_json's *non* correctly rounded parse (a u64
  significand times one correctly rounded power of ten), and is printed in zmij's layout.

Copying the F64 parse matters: ``9007199254740993.0`` parses to ``...994.0`` there, while
Python's correctly rounded ``float()`` gives ``...992.0``.
"""

from __future__ import annotations

import enum
import re

from rescind.reference.protocol_errors import Serialization

U64_MAX = 2**64 - 1
I64_MIN = -(2**63)
I32_MAX = 2**31 - 1
_MAX_POW10 = 308
_POW10 = tuple(float(f"1e{k}") for k in range(_MAX_POW10 + 1))

LEXEME = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?\Z")


class NumberMode(enum.Enum):
    AP = "splash-v5"
    F64 = "splash-v5-f64"

    @property
    def profile(self) -> str:
        return self.value


def is_lexeme(text: str) -> bool:
    """True when ``text`` is exactly one JSON number (RFC 8259 grammar)."""
    return LEXEME.match(text) is not None


def _is_integer_lexeme(lexeme: str) -> bool:
    return "." not in lexeme and "e" not in lexeme and "E" not in lexeme


# More digits than any u64/i64 has; such integers are never re-rendered, and Python's
# int() refuses texts past sys.get_int_max_str_digits() anyway.
_MAX_INTEGER_DIGITS = 20


def ap_text(lexeme: str) -> str:
    """Canonical text of a valid lexeme in AP mode."""
    if _is_integer_lexeme(lexeme):
        if len(lexeme.lstrip("-")) > _MAX_INTEGER_DIGITS:
            return lexeme
        value = int(lexeme)
        if (lexeme[0] == "-" and value >= I64_MIN) or (lexeme[0] != "-" and value <= U64_MAX):
            return str(value)
        return lexeme
    mantissa, marker, exponent = lexeme.replace("E", "e").partition("e")
    if not marker:
        return mantissa
    if exponent[0] not in "+-":
        exponent = "+" + exponent
    return f"{mantissa}e{exponent}"


def f64_value(lexeme: str) -> int | float:
    """The value serde_json (no float_roundtrip) gives a valid lexeme: an int or an f64."""
    negative = lexeme[0] == "-"
    body = lexeme[1:] if negative else lexeme
    mantissa, _, exponent_text = body.replace("E", "e").partition("e")
    integer_digits, _, fraction_digits = mantissa.partition(".")
    is_integer = not exponent_text and "." not in mantissa
    if is_integer and len(integer_digits) <= _MAX_INTEGER_DIGITS:
        value = int(integer_digits)
        if not negative and value <= U64_MAX:
            return value
        if negative and value != 0 and -value >= I64_MIN:
            return -value
        # -0, or out of the integer range: serde turns these into floats.
    significand = 0
    exponent = 0
    overflowed = False
    for digit in integer_digits:
        # Once an integer digit does not fit a u64, it and every later integer digit only
        # scale by ten (upstream switches to its long-integer loop for good).
        if overflowed or significand > (U64_MAX - int(digit)) // 10:
            overflowed = True
            exponent += 1
        else:
            significand = significand * 10 + int(digit)
    for digit in fraction_digits:
        if significand > (U64_MAX - int(digit)) // 10:
            break  # further fraction digits are truncated, not rounded
        significand = significand * 10 + int(digit)
        exponent -= 1
    if exponent_text:
        sign = -1 if exponent_text[0] == "-" else 1
        digits = exponent_text.lstrip("+-").lstrip("0") or "0"
        explicit = int(digits) if len(digits) <= 10 else I32_MAX + 1
        if explicit > I32_MAX:
            if significand != 0 and sign > 0:
                raise Serialization(reason="number_out_of_range")
            return -0.0 if negative else 0.0
        exponent = _saturate(exponent + sign * explicit)
    return _f64_from_parts(negative, significand, exponent)


def _saturate(value: int) -> int:
    return max(-(2**31), min(I32_MAX, value))


def _f64_from_parts(negative: bool, significand: int, exponent: int) -> float:
    result = float(significand)
    while True:
        if abs(exponent) <= _MAX_POW10:
            if exponent >= 0:
                result *= _POW10[exponent]
                if result == float("inf"):
                    raise Serialization(reason="number_out_of_range")
            else:
                result /= _POW10[-exponent]
            break
        if result == 0.0:
            break
        if exponent >= 0:
            raise Serialization(reason="number_out_of_range")
        result /= 1e308
        exponent += 308
    return -result if negative else result


def zmij_text(value: float) -> str:
    """zmij's ``format_finite`` layout of an f64 (shortest round-trip digits)."""
    if value == 0.0:
        return "-0.0" if str(value).startswith("-") else "0.0"
    sign = "-" if value < 0 else ""
    digits, exponent = _shortest_digits(abs(value))
    if -5 <= exponent <= 15:
        if exponent >= 0:
            whole = digits[: exponent + 1].ljust(exponent + 1, "0")
            fraction = digits[exponent + 1 :] or "0"
            return f"{sign}{whole}.{fraction}"
        return f"{sign}0.{'0' * (-exponent - 1)}{digits}"
    mantissa = digits[0] + (f".{digits[1:]}" if len(digits) > 1 else "")
    return f"{sign}{mantissa}e{'+' if exponent >= 0 else '-'}{abs(exponent)}"


def _shortest_digits(value: float) -> tuple[str, int]:
    """Digits d1..dn (no leading/trailing zeros) and E so that value = d1.d2..dn x 10^E."""
    text = repr(value)
    mantissa, _, exponent_text = text.partition("e")
    exponent = int(exponent_text) if exponent_text else 0
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0")
    leading_zeros = len(whole + fraction) - len(digits)
    exponent += len(whole) - 1 - leading_zeros
    return digits.rstrip("0") or "0", exponent


def f64_text(value: int | float) -> str:
    if isinstance(value, int):
        return str(value)
    return zmij_text(value)


def canonical_text(lexeme: str, mode: NumberMode) -> str:
    """Canonical text of a valid lexeme in ``mode`` (raises ``serialization`` out of range)."""
    if mode is NumberMode.AP:
        return ap_text(lexeme)
    return f64_text(f64_value(lexeme))
