"""Identifier grammars shared by every layer: tokens, compensation keys and hex digests."""

from __future__ import annotations

import re

from rescind.reference.protocol_errors import (
    InvalidCompensationKey,
    InvalidToken,
)

MAX_TOKEN_BYTES = 128
COMPENSATION_KEY_PREFIX = "cmp-"

# Byte-level grammar: the character class is ASCII, so a str match is also a byte match.
_TOKEN = re.compile(r"[a-z0-9._\-]{1,128}\Z")
_HEX64 = re.compile(r"[0-9a-f]{64}\Z")


def is_token(value: str, max_bytes: int = MAX_TOKEN_BYTES) -> bool:
    """True for 1..max_bytes bytes of ``a-z 0-9 . _ -`` (upstream's token rule)."""
    return len(value) <= max_bytes and _TOKEN.match(value) is not None


def require_token(field: str, value: str) -> str:
    """Return ``value`` or raise ``invalid_token`` naming the upstream field label."""
    if not is_token(value):
        raise InvalidToken(field=field, value=value)
    return value


def require_compensation_key(value: str) -> str:
    """Token rule first (field ``compensation key``), then the ``cmp-`` prefix."""
    require_token("compensation key", value)
    if not value.startswith(COMPENSATION_KEY_PREFIX):
        raise InvalidCompensationKey()
    return value


def is_hex64(value: str) -> bool:
    """Exactly 64 lowercase hex digits: the text form of every BLAKE3 digest and tag."""
    return _HEX64.match(value) is not None
