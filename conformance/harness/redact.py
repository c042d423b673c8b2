"""The one way the suite shows a URL: on stderr, in reports, in logs and in the names of
files and directories it makes (``url_shown``).

A URL may carry a secret in its user info (``redis://user:pw@host``) or in any query
parameter (``?password=…``, ``?token=…``), and a malformed one may carry it anywhere: in
``redis://user:pa/S@host/0`` no parser agrees where the password ends. So:

- a URL that parses unambiguously is shown as ``scheme://host[:port]/path``, with its user
  info replaced by ``***@``, its query by ``?***`` and its fragment by ``#***``;
- a URL that does not (no host, a port that is not a number, an ``@`` after the host, a
  character that is not printable ASCII) is shown as its scheme alone: ``redis://…``;
- text that is not a URL at all (no ``scheme://``) is a local path and shown as it is.

``scrub`` takes an error message that may quote the URL (a client library's exception) and
cuts every secret-bearing part of it out of the message.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]{0,31})://")
_PRINTABLE_ASCII = re.compile(r"[!-~]*")
HIDDEN = "***"


def is_url(text: str) -> bool:
    return _SCHEME.match(text) is not None


def url_shown(text: str) -> str:
    """``text`` as the suite may show it (see the module doc)."""
    scheme = _SCHEME.match(text)
    if scheme is None:
        return text
    only_scheme = f"{scheme.group(1).lower()}://…"
    if not _PRINTABLE_ASCII.fullmatch(text):
        return only_scheme
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        return only_scheme
    after_host = text[scheme.end() + len(parts.netloc) :]
    if not parts.hostname or "@" in after_host:
        return only_scheme
    host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
    shown = f"{parts.scheme}://"
    if "@" in parts.netloc:
        shown += f"{HIDDEN}@"
    shown += host + (f":{port}" if port is not None else "") + parts.path
    if "?" in after_host:
        shown += f"?{HIDDEN}"
    if "#" in after_host:
        shown += f"#{HIDDEN}"
    return shown


def _secrets(url: str) -> list[str]:
    """Every piece of ``url`` that may be secret, longest first: everything after the scheme
    for a URL that does not parse, else its user info, query and fragment and their pieces."""
    scheme = _SCHEME.match(url)
    if scheme is None:
        return []
    rest = url[scheme.end() :]
    if url_shown(url).endswith("://…"):
        pieces = [rest]
    else:
        parts = urlsplit(url)
        user_info = parts.netloc.rpartition("@")[0]
        pieces = [user_info, parts.query, parts.fragment]
    found = set()
    for piece in pieces:
        if piece:
            found.add(piece)
            found.update(p for p in re.split(r"[:@/?#&=;]", piece) if len(p) >= 3)
    return sorted(found, key=len, reverse=True)


def scrub(text: str, url: str) -> str:
    """``text`` (an error message that may quote ``url`` or its parts) with the URL shown as
    ``url_shown`` gives and every secret-bearing part replaced by ``***``."""
    text = text.replace(url, url_shown(url))
    for secret in _secrets(url):
        text = text.replace(secret, HIDDEN)
    return text
