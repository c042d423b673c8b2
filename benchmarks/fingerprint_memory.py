"""Peak memory and time of ``rescind fingerprint`` on large payloads, as a multiple of the input.

Each case writes one payload file and runs the command in a fresh child process
(``python benchmarks/fingerprint_memory.py --child FILE``), which records its resident set
size after the imports (the baseline) and its peak at the end (``resource.getrusage``,
``ru_maxrss``), with the report sent to ``/dev/null``. Reported per case: input size, seconds,
peak RSS, baseline, and two ratios: peak / input, and (peak - baseline) / input.

Cases: ``array``, an array of N one-digit integers (``[0,0,...]``, the worst case per byte
for a payload without hazards: one value per two bytes); ``object``, N small members;
``floats`` (only when asked for: minutes and gigabytes), N decimals whose text differs
between the number modes, so every one is a reported hazard. N is ``--elements`` (default
10 million: a 20 MB array).

Run: ``python benchmarks/fingerprint_memory.py`` (``--help`` for options). The input cap is
raised to fit each payload when the command has one.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _write_case(kind: str, elements: int, path: Path) -> None:
    with path.open("w", encoding="ascii") as file:
        if kind == "array":
            file.write("[" + ",".join(["0"] * elements) + "]")
        elif kind == "floats":
            file.write("[" + ",".join(["1.50"] * elements) + "]")
        else:
            file.write("{" + ",".join(f'"k{index}":{index % 10}' for index in range(elements)))
            file.write("}")


def _peak_bytes() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux reports KiB


def _child(path: str) -> int:
    from rescind.cli import build_parser, main

    baseline = _peak_bytes()
    size = Path(path).stat().st_size
    argv = ["fingerprint", path]
    options = build_parser()._subparsers._group_actions[0].choices["fingerprint"]  # type: ignore[union-attr]
    if any("--max-input-bytes" in action.option_strings for action in options._actions):
        argv += ["--max-input-bytes", str(size)]
    started = time.perf_counter()
    with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
        code = main(argv)
    seconds = time.perf_counter() - started
    print(json.dumps({"code": code, "seconds": seconds, "peak": _peak_bytes(), "base": baseline}))
    return 0


def _measure(kind: str, elements: int, folder: Path) -> dict[str, float]:
    path = folder / f"{kind}.json"
    # Written by another child: Linux carries a process's peak RSS across fork and exec, so
    # this parent must stay small for the measuring child's baseline to mean anything.
    subprocess.run(
        [sys.executable, __file__, "--write", kind, str(elements), str(path)], check=True
    )
    completed = subprocess.run(
        [sys.executable, __file__, "--child", str(path)],
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, float] = json.loads(completed.stdout.splitlines()[-1])
    result["size"] = path.stat().st_size
    path.unlink()
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elements", type=int, default=10_000_000)
    parser.add_argument(
        "--cases", nargs="+", choices=["array", "floats", "object"], default=["array", "object"]
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--write", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return _child(args.child)
    if args.write:
        kind, elements, path = args.write
        _write_case(kind, int(elements), Path(path))
        return 0
    mb = 1_000_000
    with tempfile.TemporaryDirectory() as folder:
        for kind in args.cases:
            row = _measure(kind, args.elements, Path(folder))
            size, peak, base = row["size"], row["peak"], row["base"]
            print(
                f"{kind:7} {size / mb:7.1f} MB  exit {row['code']:.0f}  {row['seconds']:7.1f} s  "
                f"peak {peak / mb:7.0f} MB  baseline {base / mb:4.0f} MB  "
                f"peak/input {peak / size:6.1f}x  "
                f"(peak-baseline)/input {(peak - base) / size:6.1f}x"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
