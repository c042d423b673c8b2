"""How fast the runner reads a driver's pipes: one long reply line, and a flood of stderr.

Two measurements, each against a real subprocess driver written to a temporary folder:

* ``reply``: after the handshake the driver answers one request with a single reply line of
  ``--reply-mb`` MB (a JSON object holding one long string). Reported: seconds until
  ``SubprocessDriver.request`` returns or fails, and the outcome (``ok`` or the failure kind).
* ``stderr``: the driver writes ``--stderr-mb`` MB to stderr as fast as it can, then
  answers. Reported: seconds until the reply, the stderr throughput (MB/s) and the length of
  the tail the runner kept.

Run: ``python benchmarks/driver_pipes.py`` (``--help`` for options). The reply timeout is
``--timeout`` seconds (default 120, so that a slow reader shows its real time rather than a
timeout); ``--max-reply-mb`` raises the runner's reply limit when the harness has one.
"""

from __future__ import annotations

import argparse
import inspect
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from rescind.conformance.harness import HarnessFailure, SubprocessDriver

DRIVER = textwrap.dedent(
    """
    import json, sys
    mode, size = sys.argv[1], int(sys.argv[2])
    HELLO = {"protocol": "rescind-driver/1", "capabilities": ["canonical"]}
    def reply(request, body):
        sys.stdout.write(json.dumps({"id": request["id"], **body}) + "\\n")
        sys.stdout.flush()
    for line in sys.stdin:
        request = json.loads(line)
        if request["op"] == "hello":
            reply(request, {"ok": HELLO})
        elif request["op"] == "bye":
            reply(request, {"ok": {}})
            break
        elif mode == "reply":
            reply(request, {"ok": {"text": "x" * size}})
        else:
            chunk = "log line of a busy driver " * 40 + "\\n"
            for _ in range(size // len(chunk)):
                sys.stderr.write(chunk)
            sys.stderr.flush()
            reply(request, {"ok": {}})
    """
)


def _driver(
    folder: Path, mode: str, size: int, timeout: float, max_reply: int | None
) -> SubprocessDriver:
    script = folder / "driver.py"
    script.write_text(DRIVER)
    command = [sys.executable, str(script), mode, str(size)]
    options: dict[str, object] = {"timeout": timeout}
    # Older harnesses have no reply limit; the benchmark runs against them too.
    has_limit = "max_reply_bytes" in inspect.signature(SubprocessDriver).parameters
    if max_reply is not None and has_limit:
        options["max_reply_bytes"] = max_reply
    return SubprocessDriver(command, **options)  # type: ignore[arg-type]


def _timed_request(driver: SubprocessDriver) -> tuple[float, str]:
    started = time.perf_counter()
    try:
        driver.request("canonical.input", {"format": "json", "text": "{}"})
        outcome = "ok"
    except HarnessFailure as failure:
        outcome = failure.kind
    return time.perf_counter() - started, outcome


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reply-mb", type=float, nargs="+", default=[20.0, 50.0])
    parser.add_argument("--stderr-mb", type=float, default=50.0)
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--max-reply-mb", type=float, default=None)
    args = parser.parse_args()
    max_reply = None if args.max_reply_mb is None else int(args.max_reply_mb * 1_000_000)
    with tempfile.TemporaryDirectory() as folder:
        for megabytes in args.reply_mb:
            size = int(megabytes * 1_000_000)
            driver = _driver(Path(folder), "reply", size, args.timeout, max_reply)
            seconds, outcome = _timed_request(driver)
            driver.close()
            print(f"reply  {megabytes:6.1f} MB line: {seconds:7.2f} s  outcome {outcome}")
        size = int(args.stderr_mb * 1_000_000)
        driver = _driver(Path(folder), "stderr", size, args.timeout, None)
        seconds, outcome = _timed_request(driver)
        tail = sum(len(line) for line in driver.stderr_tail)
        driver.close()
        rate = args.stderr_mb / seconds if seconds else float("inf")
        print(
            f"stderr {args.stderr_mb:6.1f} MB: {seconds:7.2f} s  {rate:7.1f} MB/s  "
            f"outcome {outcome}  tail kept {tail} chars"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
