"""An exact fast path for splash-v5 canonical input bytes and the worker input fingerprint.

The exact path (``jsonparse`` + ``jsonencode`` via ``ToolPayload``) is pure Python. This module
gets the same bytes from C code (the stdlib JSON scanner; the stdlib JSON encoder or, when it
is installed and passes a self-check, orjson's) and proves with whole-text checks that the C
result cannot differ from the exact one. When a check cannot prove that, the input goes to the
exact path, so every answer (bytes or error) is the exact path's answer. What is proven, how:

* Number text (CJ-16, CJ-17): ``parse_float`` keeps each fraction/exponent lexeme as text,
  normalised by ``numbers.ap_text`` and wrapped in DEL markers; the encoder's quotes around
  it are cut out afterwards. Integers stay Python ints: for every valid integer lexeme
  ``str(int(lexeme))`` is its AP text (only ``-0`` changes, to ``0``).
* The markers cannot be confused with data: input holding a raw DEL or a ``\\u007X`` escape
  goes to the exact path.
* What the C scanner accepts and upstream does not: ``NaN``/``Infinity`` (``parse_constant``
  refuses them), lone surrogate escapes (the strict UTF-8 encode of the output fails), nesting
  of 128 or more (covered by the depth proof), other encodings (bytes are decoded here as
  strict UTF-8, never by ``json.loads``' encoding sniffing).
* Duplicate keys: the scanner keeps the last one too, but a dropped member could hide an
  error the exact parser reports (a lone surrogate, the reserved key, deep nesting). Each
  member writes one ``:`` outside strings and string colons survive canonicalisation, so the
  output has as many ``:`` as the input plus its ``\\u003a`` escapes exactly when no member
  was dropped; any other count goes to the exact path.
* The reserved key ``$serde_json::private::Number`` (CJ-11): with no member dropped every key
  reaches the output, where it is searched for; a hit goes to the exact path.
* Envelope and depth (CJ-22, CJ-23): a non-container root goes to the exact path; a nesting of
  at most 31 containers (so a depth of at most 32) is proven on the output's structure, and
  anything deeper goes to the exact path.
"""

from __future__ import annotations

import functools
import importlib
import json
import json.scanner
import re
import struct
from collections.abc import Callable, Mapping
from itertools import repeat
from types import MappingProxyType
from typing import Any, Literal

from blake3 import blake3

from rescind.reference.digests import WORKER_INPUT_DOMAIN, worker_input_fingerprint
from rescind.reference.jsonencode import canonical_json
from rescind.reference.jsonvalue import from_python
from rescind.reference.numbers import NumberMode, ap_text
from rescind.reference.payload import MAX_JSON_DEPTH, ToolPayload
from rescind.reference.payload_format import PayloadFormat
from rescind.reference.protocol_errors import Serialization

__all__ = [
    "ENCODERS",
    "EncoderName",
    "exact_canonical_input",
    "exact_worker_fingerprint",
    "fast_canonical_input",
    "fast_worker_fingerprint",
]

EncoderName = Literal["auto", "json", "orjson"]

_MARK = "\x7f"
_MARK_BYTE = b"\x7f"
_QUOTE = b'"'
_JSON_PREFIX = PayloadFormat.JSON.value.encode("ascii")
_WORKER_JSON_PREFIX = WORKER_INPUT_DOMAIN + _JSON_PREFIX
_U64 = struct.Struct(">Q")
_RESERVED_KEY = b'"$serde_json::private::Number"'
_WHITESPACE = " \t\n\r"
# A nesting of at most this many containers keeps the depth (scalars count) within 32.
_MAX_NESTING = MAX_JSON_DEPTH - 1
_COUNT_BELOW = 4096

_MARK_OR_COLON_ESCAPE = re.compile(rb"\\u00[37]")
_ESCAPE_PAIR = re.compile(rb"\\.", re.DOTALL)
_UNIFY_BRACKETS = bytes.maketrans(b"{}", b"[]")
_NOT_STRUCTURE = bytes(sorted(set(range(256)) - set(b'[]{}"')))


class _Unsure(Exception):
    """The fast path cannot prove its answer; the exact path decides."""


def _keep_number_text(lexeme: str) -> str:
    if "e" in lexeme or "E" in lexeme:
        lexeme = ap_text(lexeme)
    return _MARK + lexeme + _MARK


def _refuse_constant(_: str) -> object:
    raise _Unsure()


# The pure-Python scanner's number pattern matches non-ASCII digits; only the C one is used.
_C_SCANNER = getattr(json.scanner, "c_make_scanner", None) is not None
_DECODER: Any = json.JSONDecoder(parse_float=_keep_number_text, parse_constant=_refuse_constant)
_SCAN: Callable[[str, int], tuple[object, int]] = _DECODER.scan_once  # absent from the stubs
_STDLIB_ENCODE = json.JSONEncoder(
    ensure_ascii=False, check_circular=False, sort_keys=True, separators=(",", ":")
).encode


def _encode_with_json(value: object) -> bytes:
    return _STDLIB_ENCODE(value).encode("utf-8")  # a lone surrogate raises here


def _orjson_encoder() -> Callable[[object], bytes] | None:
    """orjson's sorted compact output, if installed and byte-identical on a probe that
    covers every escape class and the code-point key order; otherwise None."""
    try:
        orjson = importlib.import_module("orjson")
    except ImportError:
        return None
    encode: Callable[[object], bytes] = functools.partial(orjson.dumps, option=orjson.OPT_SORT_KEYS)
    # One string per internal str width (ASCII, Latin-1, UCS-2, UCS-4), each with every
    # character that needs an escape, used as keys and as values.
    ascii_text = "".join(map(chr, range(0x80)))
    texts = [ascii_text, ascii_text + "\x80\xe9\xff", ascii_text + "\u2028\u2029\ufeff\uffff"]
    texts.append(ascii_text + "\U0001f600\U0010ffff")
    probe: dict[str, object] = {
        text: [text, 0, -1, 2**64 - 1, -(2**63), True, False, None, [], {}] for text in texts
    }
    probe |= {"\uffff": 1, "\U0001f600": 2, "\u00e9": 3, "": 4, "A": {"b": "\x7f1.50\x7f", "a": 5}}
    if encode(probe) != canonical_json(from_python(probe)):
        return None
    return encode


_ORJSON = _orjson_encoder()

ENCODERS: Mapping[str, Callable[[object], bytes]] = MappingProxyType(
    {"json": _encode_with_json} | ({} if _ORJSON is None else {"orjson": _ORJSON})
)
"""The canonical encoders available here, by name (``orjson`` only when installed)."""
_AUTO = "orjson" if "orjson" in ENCODERS else "json"


def _splice_numbers(body: bytes) -> bytes:
    """Drop each number marker with the quote beside it: ``"\\x7f1.50\\x7f"`` -> ``1.50``."""
    parts = body.split(_MARK_BYTE)
    # parts: [... "], [lexeme], ["  ...  "], [lexeme], ..., [" ...]. A piece between two
    # numbers starts with a closing quote before , ] } and ends with an opening quote after
    # : , [ so stripping quotes removes exactly one at each end.
    parts[0] = parts[0][:-1]
    parts[-1] = parts[-1][1:]
    between = len(parts) // 2 - 1
    if between:
        parts[2:-1:2] = map(bytes.strip, parts[2:-1:2], repeat(_QUOTE, between))
    return b"".join(parts)


def _nesting_within(body: bytes, limit: int) -> bool:
    """True when canonical JSON ``body`` nests at most ``limit`` containers deep."""
    if len(body) <= 2 * limit:
        return True
    if len(body) <= _COUNT_BELOW and body.count(b"[") + body.count(b"{") <= limit:
        return True  # a cheap bound, worth trying only on short texts
    if b"\\" in body:
        body = _ESCAPE_PAIR.sub(b"", body)  # now every quote delimits a string
    # Keep quotes and brackets. Two adjacent quotes are an empty string or two strings that
    # touch, so dropping them never drops a bracket outside a string.
    structure = body.translate(_UNIFY_BRACKETS, _NOT_STRUCTURE).replace(b'""', b"")
    if _QUOTE in structure:
        structure = b"".join(structure.split(_QUOTE)[::2])
    # Each pass removes every innermost container: the pass count is the nesting.
    for done in range(limit):
        if len(structure) <= 2 * (limit - done):
            return True
        structure = structure.replace(b"[]", b"")
    return not structure


def _fast_body(data: str | bytes, encode: Callable[[object], bytes]) -> bytes:
    if isinstance(data, str):
        text = data
        raw = data.encode("utf-8")  # a lone surrogate raises: the exact path decides
    else:
        raw = data if type(data) is bytes else bytes(data)
        text = raw.decode("utf-8")
    escaped_colons = 0
    if b"\\" in raw and _MARK_OR_COLON_ESCAPE.search(raw):
        if b"\\u007" in raw:
            raise _Unsure()
        escaped_colons = raw.count(b"\\u003a") + raw.count(b"\\u003A")
    if _MARK_BYTE in raw:
        raise _Unsure()
    if text[:1] in _WHITESPACE or text[-1:] in _WHITESPACE:
        text = text.strip(_WHITESPACE)
    value, end = _SCAN(text, 0)
    if end != len(text) or (type(value) is not dict and type(value) is not list):
        raise _Unsure()
    try:
        body = encode(value)
    except TypeError:  # orjson: an integer beyond 64 bits, a lone surrogate, deep nesting
        body = _encode_with_json(value)
    if _MARK_BYTE in body:
        body = _splice_numbers(body)
    if b"$" in body and _RESERVED_KEY in body:
        raise _Unsure()
    if body.count(b":") != raw.count(b":") + escaped_colons:
        raise _Unsure()  # a member was dropped (duplicate key)
    if not _nesting_within(body, _MAX_NESTING):
        raise _Unsure()
    return body


def _try_fast_body(data: str | bytes, encoder: EncoderName) -> bytes | None:
    if not _C_SCANNER:
        return None
    try:
        return _fast_body(data, ENCODERS[_AUTO if encoder == "auto" else encoder])
    except (ValueError, RecursionError, StopIteration, _Unsure):
        # ValueError covers JSONDecodeError, UnicodeError and int's digit limit;
        # StopIteration is the scanner's "no value here".
        return None


def _exact_payload(
    data: str | bytes, payload_format: PayloadFormat, mode: NumberMode
) -> ToolPayload:
    if payload_format is PayloadFormat.TEXT:
        if not isinstance(data, str):
            try:
                data = bytes(data).decode("utf-8")
            except UnicodeDecodeError:
                raise Serialization(reason="invalid_utf8") from None
        return ToolPayload.text(data)
    return ToolPayload.json_text(data, mode)


def exact_canonical_input(
    data: str | bytes,
    payload_format: PayloadFormat = PayloadFormat.JSON,
    mode: NumberMode = NumberMode.AP,
) -> bytes:
    """Canonical input bytes through the pure-Python reference (raises what it raises)."""
    return _exact_payload(data, payload_format, mode).canonical_input_bytes()


def exact_worker_fingerprint(
    data: str | bytes,
    payload_format: PayloadFormat = PayloadFormat.JSON,
    mode: NumberMode = NumberMode.AP,
) -> str:
    """Worker input fingerprint through the pure-Python reference (``digests``)."""
    return worker_input_fingerprint(_exact_payload(data, payload_format, mode))


def fast_canonical_input(
    data: str | bytes,
    payload_format: PayloadFormat = PayloadFormat.JSON,
    mode: NumberMode = NumberMode.AP,
    *,
    encoder: EncoderName = "auto",
) -> bytes:
    """Canonical input bytes, equal to ``exact_canonical_input`` for every input.

    JSON payloads in splash-v5 take the fast path; text payloads and the informative
    splash-v5-f64 profile go to the exact path directly. ``encoder`` picks the C encoder
    (``auto``: orjson when available, else the stdlib's); the result never depends on it."""
    if payload_format is PayloadFormat.JSON and mode is NumberMode.AP:
        body = _try_fast_body(data, encoder)
        if body is not None:
            return _JSON_PREFIX + _U64.pack(len(body)) + body
    return exact_canonical_input(data, payload_format, mode)


def fast_worker_fingerprint(
    data: str | bytes,
    payload_format: PayloadFormat = PayloadFormat.JSON,
    mode: NumberMode = NumberMode.AP,
    *,
    encoder: EncoderName = "auto",
) -> str:
    """Worker input fingerprint (CJ-27) of a payload text, via ``fast_canonical_input``."""
    if payload_format is PayloadFormat.JSON and mode is NumberMode.AP:
        body = _try_fast_body(data, encoder)
        if body is not None:
            return blake3(_WORKER_JSON_PREFIX + _U64.pack(len(body)) + body).hexdigest()
    return exact_worker_fingerprint(data, payload_format, mode)
