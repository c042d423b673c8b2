"""Driver text is data: the one place that bounds it and makes it safe to show.

Every string a driver sends (its implementation name and version, an error code, an
``unsupported`` reason, an actual value, its stderr) reaches the reports. It may hold a lone
surrogate (``"\\ud800"`` is valid JSON), terminal control sequences (``ESC[2J``, ``\\r``),
characters XML 1.0 forbids (C0 controls, U+FFFE, U+FFFF), Rich markup (``[/]``), Markdown or
HTML, and it may be 256 KiB long. So:

- ``short`` bounds one string the way the comparison bounds values: past ``MAX_STRING``
  characters it keeps the first ``STRING_PREFIX`` and its length (``"abc…(5000 chars)"``).
  ``bound`` does the same for messages and adds a digest of the whole text
  (``"abc…(5000 chars, sha256 0123456789ab)"``), so two cut messages can still be told apart
  or matched with the JSON report. Outcomes and run reports keep messages up to
  ``MAX_KEPT`` characters (the JSON report carries them whole); every view a person reads
  (terminal, Markdown, HTML, JUnit) shows at most ``MAX_SHOWN``: the cost of a report no
  longer grows with what a driver says.
- ``visible`` replaces every character that is not printable text with an escape that shows
  what it was: lone surrogates (``\\ud800``), C0 and C1 controls and DEL (``\\x1b``, ``\\r``,
  ``\\n``), Unicode noncharacters (``\\ufffe``) and the bidirectional overrides that reorder
  what a reader sees (``\\u202e``). The result encodes to UTF-8, is well-formed in XML 1.0 and
  moves no terminal cursor. Backslashes are left as they are (text that spells an escape reads
  like one).
- ``markdown`` and ``markdown_code`` make visible text inert in Markdown (no raw HTML, link,
  image, emphasis or table break); the HTML writer escapes visible text with ``html.escape``;
  the terminal prints it as ``rich.text.Text``, never as markup.
"""

from __future__ import annotations

import hashlib
import re
from typing import Final

MAX_STRING: Final = 120
"""Strings longer than this are shown as their first ``STRING_PREFIX`` characters + length."""
STRING_PREFIX: Final = 64
MAX_KEPT: Final = 16384
"""A check's message, a harness failure or a note keeps at most this many characters (the JSON
report shows them as kept)."""
MAX_MESSAGE: Final = MAX_KEPT
MAX_SHOWN: Final = 512
"""Terminal, Markdown, HTML and JUnit show at most this many characters of one message."""
MESSAGE_PREFIX: Final = 1024

_NONCHARACTER = "\ufdd0-\ufdef\ufffe\uffff"
_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_NOT_TEXT = re.compile(
    f"[\x00-\x1f\x7f-\x9f\ud800-\udfff{_NONCHARACTER}{_BIDI}\u2028\u2029]"
    "|[\U0001fffe\U0001ffff\U0010fffe\U0010ffff]"
)
_NOT_TEXT_KEEP_LINES = re.compile(
    f"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff{_NONCHARACTER}{_BIDI}\u2028\u2029]"
    "|[\U0001fffe\U0001ffff\U0010fffe\U0010ffff]"
)
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def short(text: str) -> tuple[str, bool]:
    """``text`` bounded to ``MAX_STRING`` characters, and whether it was cut."""
    if len(text) <= MAX_STRING:
        return text, False
    return f"{text[:STRING_PREFIX]}…({len(text)} chars)", True


def bound(text: str, limit: int = MAX_KEPT) -> str:
    """``text`` bounded to about ``limit`` characters: a prefix, then the length and a digest
    of the whole text."""
    if len(text) <= limit:
        return text
    whole = text.encode("utf-8", "surrogatepass")
    digest = hashlib.sha256(whole).hexdigest()[:12]
    return f"{text[: min(MESSAGE_PREFIX, limit // 2)]}…({len(text)} chars, sha256 {digest})"


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named is not None:
        return named
    point = ord(char)
    if point <= 0xFF:
        return f"\\x{point:02x}"
    if point <= 0xFFFF:
        return f"\\u{point:04x}"
    return f"\\U{point:08x}"


def visible(text: object, *, limit: int = MAX_SHOWN, keep_lines: bool = False) -> str:
    """``text`` bounded and with every non-text character escaped (see the module doc);
    ``keep_lines`` keeps newlines and tabs (for a ``<pre>`` block), never ``\\r``."""
    pattern = _NOT_TEXT_KEEP_LINES if keep_lines else _NOT_TEXT
    return pattern.sub(_escape, bound(str(text), limit))


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()!|~<>&:])")
_WWW = re.compile(r"(www)\.", re.IGNORECASE)


def markdown(text: object, *, limit: int = MAX_SHOWN) -> str:
    """Visible text that Markdown renders as itself, inside a line (never at its start):
    every character that could start a link, an image, emphasis, raw HTML, an entity, a
    table cell or an autolink (``:``, ``www.``) is backslash-escaped, and ``<``, ``>`` and
    ``&`` become entities (no HTML is ever passed through)."""
    escaped = _WWW.sub(r"\1\\.", _MARKDOWN_SPECIAL.sub(r"\\\1", visible(text, limit=limit)))
    return escaped.replace("\\<", "&lt;").replace("\\>", "&gt;").replace("\\&", "&amp;")


def markdown_code(text: object, *, limit: int = MAX_STRING) -> str:
    """Visible text as a Markdown code span (literal: no HTML, no link), safe in a table cell."""
    content = visible(text, limit=limit).replace("|", "\\|")
    longest = max((len(run) for run in re.findall("`+", content)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if longest or content.startswith(" ") or content.endswith(" ") else ""
    return f"{fence}{pad}{content}{pad}{fence}"
