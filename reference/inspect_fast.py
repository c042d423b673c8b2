"""``inspect`` for large JSON payloads: the same answer, in memory proportional to the input.

``inspect_payload.inspect`` builds two full value trees (one per number mode), one Python
object per number, and compares them: several hundred bytes per element, so a 20 MB array of
small numbers needs gigabytes. Most payloads have no hazard at all, and for those the answer
is fully determined by the canonical bytes: no hazard list, and no informative profile
(``informative`` is ``None`` exactly when both modes give the same bytes). This module proves
that case with one pass of the stdlib's C scanner, keeping nothing of the document, and then
takes the canonical bytes from ``canonical_fast``. Anything it cannot prove goes to
``inspect``, so every answer (result or error) is ``inspect``'s answer.

What the pass proves, and why it is enough:

* No duplicate key and no ``$serde_json::private::Number`` key: the only sources of
  ``duplicate_key`` and ``reserved_key`` hazards, and the reserved key is the only place
  where the two modes read the same text as different structures.
* Every number has the same canonical text in both modes (the only other difference between
  them): an integer unless it is ``-0`` or outside u64/i64 (then F64 makes it a float), and a
  fraction or exponent when ``ap_text`` equals the F64 text (checked per distinct lexeme).
  No number may be out of the F64 range (F64 would reject the payload).
* The root is an object or an array (otherwise the envelope error decides, in ``inspect``).

The C scanner accepts some texts the exact parser refuses (lone surrogate escapes, deep
nesting): those still reach ``canonical_fast``, whose own proof sends them to the exact path;
its error then sends the payload to ``inspect``, which reports it.
"""

from __future__ import annotations

import functools
import json
import json.scanner
from typing import Any, NoReturn

from blake3 import blake3

from rescind.reference.canonical_fast import fast_canonical_input
from rescind.reference.digests import WORKER_INPUT_DOMAIN, host_input_fingerprint_of_bytes
from rescind.reference.errors import RescindError
from rescind.reference.inspect_payload import Digests, Inspection, inspect
from rescind.reference.jsonparse import RESERVED_NUMBER_KEY
from rescind.reference.numbers import I64_MIN, U64_MAX, ap_text, f64_text, f64_value
from rescind.reference.payload_format import PayloadFormat

_PREFIX_BYTES = 4 + 8  # format tag and u64 length before the canonical body
_MAX_INTEGER_DIGITS = 20  # u64::MAX has 20 digits; longer integers are out of both ranges
_WHITESPACE = " \t\n\r"


class _Unproven(Exception):
    """The pass found a hazard, or something it does not prove; ``inspect`` decides."""


def _unproven(*_: object) -> NoReturn:
    raise _Unproven()


def _check_members(pairs: list[tuple[str, Any]]) -> None:
    keys = {key for key, _ in pairs}
    if len(keys) != len(pairs) or RESERVED_NUMBER_KEY in keys:
        raise _Unproven()
    return None  # nothing of the document is kept


def _check_integer(lexeme: str) -> None:
    digits = lexeme.lstrip("-")
    if lexeme == "-0" or len(digits) > _MAX_INTEGER_DIGITS:
        raise _Unproven()
    value = int(lexeme)
    if not I64_MIN <= value <= U64_MAX:
        raise _Unproven()
    return None


@functools.lru_cache(maxsize=4096)
def _same_in_both_modes(lexeme: str) -> bool:
    try:
        return ap_text(lexeme) == f64_text(f64_value(lexeme))
    except RescindError:  # out of the F64 range
        return False


def _check_fraction(lexeme: str) -> None:
    if not _same_in_both_modes(lexeme):
        raise _Unproven()
    return None


_C_SCANNER = getattr(json.scanner, "c_make_scanner", None) is not None
_DECODER = json.JSONDecoder(
    object_pairs_hook=_check_members,
    parse_int=_check_integer,
    parse_float=_check_fraction,
    parse_constant=_unproven,
)


def _no_hazard(data: bytes) -> bool:
    """True when the pass proves that ``inspect`` reports no hazard and no F64 difference."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    if text.lstrip(_WHITESPACE)[:1] not in ("{", "["):
        return False
    try:
        _DECODER.decode(text)
    except (_Unproven, ValueError, RecursionError):
        return False
    return True


def inspect_fast(data: bytes, payload_format: PayloadFormat) -> Inspection:
    """Equal to ``inspect(data, payload_format)`` for every input (result or error)."""
    if payload_format is not PayloadFormat.JSON or not _C_SCANNER or not _no_hazard(data):
        return inspect(data, payload_format)
    try:
        canonical = fast_canonical_input(data)
    except RescindError:
        return inspect(data, payload_format)  # raises the exact path's error
    worker = blake3(WORKER_INPUT_DOMAIN)
    worker.update(canonical)  # the worker input fingerprint recipe, without a 20 MB concat
    digests = Digests(canonical, worker.hexdigest(), host_input_fingerprint_of_bytes(canonical))
    return Inspection(PayloadFormat.JSON, canonical[_PREFIX_BYTES:], digests, (), None)
