"""A hostile driver: the reference, but every string it chooses is one hostile payload.

``python -m tests.report.hostile_driver CLASS`` puts the payload of ``CLASS`` (or the benign
``clean`` text) in its implementation name and version, in the error code of every odd
``canonical.input`` request, in the ``canonicalJson`` of every even one, and on stderr. The
verdicts depend only on the request order, never on the payload: a run with ``clean`` has
the same verdicts as a run with any hostile class.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from typing import Any

from rescind.conformance.driver import handle as reference

PAYLOADS: dict[str, str] = {
    "clean": "plain_text",
    "surrogate": "lone \ud800 and \udfff surrogates",
    "markup": "[/] [bold red]PASS[/bold red] [link=https://evil.example]x[/link] [/",
    "escapes": "FAIL\r\x1b[K PASS \x1b[2J\x1b]0;title\x07\x1b]8;;https://evil.example\x1b\\x"
    "\x9b31m",
    "controls": "nul\x00 bel\x07 bs\x08 vt\x0b ff\x0c del\x7f nel\x85 rlo\u202e",
    "nonchars": "U+FFFE \ufffe U+FFFF \uffff",
    "markdown": "<script>alert(1)</script> [x](javascript:alert(1)) ![i](https://evil.example/i.png)"
    " <img src=x onerror=alert(1)> | cell |\n| new row |\n# heading https://evil.example",
    "huge": "x" * (256 * 1024),
}


def hostile(payload: str) -> Any:
    counter = {"canonical": 0}

    def handle(message: Mapping[str, Any]) -> dict[str, Any]:
        reply = reference(message)
        op = message.get("op")
        if op == "hello":
            reply["ok"]["implementation"] = {"name": payload, "version": payload}
            print(payload, file=sys.stderr, flush=True)
        elif op == "canonical.input":
            counter["canonical"] += 1
            if counter["canonical"] % 2:
                return {"id": message["id"], "error": {"code": payload, "definite": True}}
            if "ok" in reply:
                reply["ok"] = {**reply["ok"], "canonicalJson": payload}
        return reply

    return handle


def main(argv: list[str]) -> int:
    handle = hostile(PAYLOADS[argv[0]])
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        # ensure_ascii: a lone surrogate travels as its JSON escape, as valid JSON allows.
        sys.stdout.write(json.dumps(handle(message), ensure_ascii=True) + "\n")
        sys.stdout.flush()
        if message.get("op") == "bye":
            break
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
