"""Tally this driver's vector checks under the member-level `unsupported` contract.

Runs `rescind check` in process with the runner's comparison widened to the contract
(README, "Unsupported answers"): an actual `{"unsupported": reason}` in place of one expected
member counts as unanswered, not as a difference; a trace whose step list stops at a step
`{"unsupported": reason}` counts as stopped there (its steps before are compared, its
checkpoints are not: the trace never ended). Everything else is compared by the
runner's own rules (informative keys skipped, an expected error matched by its code).

    /work/main/.venv/bin/python drivers/splash/tally.py [--select PREFIX] [--list STATUS]

prints, per capability, the checks that pass, fail, are unsupported as a whole operation
(`whole`), stop at an unsupported trace step (`step`), or are answered except for members
marked unsupported (`part`), then the unanswered member paths of `part` checks, grouped.
The runner is only imported and patched in this process; no file of it is changed.
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import sys
import tempfile
from collections.abc import Mapping
from typing import Any

from rescind.cli import main as rescind_main
from rescind.conformance import vectorchecks
from rescind.conformance.comparison import INFORMATIVE_KEYS

DRIVER = "drivers/splash/target/bin/rescind-splash-driver"


def _unsupported(value: Any) -> bool:
    return isinstance(value, Mapping) and set(value) == {"unsupported"} and isinstance(value["unsupported"], str)


def _walk(expected: Any, actual: Any, path: str, found: dict[str, list[str]]) -> None:
    if _unsupported(actual) and not _unsupported(expected):
        found["part"].append(path)
        return
    if isinstance(expected, Mapping):
        if not isinstance(actual, Mapping):
            found["fail"].append(f"{path or 'result'} is not an object")
            return
        if "error" in expected and "error" in actual and expected["error"] != actual["error"]:
            found["fail"].append(f"{path}: error {actual['error']} != {expected['error']}")
            return
        for key, value in expected.items():
            if key in INFORMATIVE_KEYS:
                continue
            if key not in actual:
                found["fail"].append(f"{path}/{key} missing")
                continue
            _walk(value, actual[key], f"{path}/{key}", found)
        return
    if isinstance(expected, list):
        if not isinstance(actual, list):
            found["fail"].append(f"{path} is not a list")
            return
        stopped = bool(actual) and len(actual) <= len(expected) and _unsupported(actual[-1])
        if len(actual) != len(expected) and not stopped:
            found["fail"].append(f"{path} has another length")
            return
        for index, (left, right) in enumerate(zip(expected, actual)):
            if stopped and index == len(actual) - 1 and not _unsupported(left):
                found["step"].append(f"{path}/{index}")
                continue
            _walk(left, right, f"{path}/{index}", found)
        return
    if not (expected == actual and type(expected) is type(actual)):
        found["fail"].append(f"{path} differs")


def compare(expected: Mapping[str, Any], reply: Any) -> str | None:
    if "error" in expected or reply.kind != "ok":
        return ORIGINAL(expected, reply)
    found: dict[str, list[str]] = {"fail": [], "step": [], "part": []}
    steps = reply.ok.get("steps")
    if isinstance(steps, list) and steps and _unsupported(steps[-1]) and "steps" in expected:
        # A trace cut at an unsupported step: its steps are compared, its checkpoints are not
        # (the trace never ended).
        _walk({"steps": expected["steps"]}, {"steps": steps}, "", found)
    else:
        _walk(expected, reply.ok, "", found)
    for kind in ("fail", "step", "part"):
        if found[kind]:
            return f"{kind.upper()}: " + " ".join(found[kind] if kind != "fail" else found[kind][:1])
    return None


ORIGINAL = vectorchecks.compare


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--impl", default=DRIVER)
    parser.add_argument("--select")
    parser.add_argument("--list", help="print the ids of checks of this status (pass/fail/whole/step/part)")
    options = parser.parse_args()
    vectorchecks.compare = compare
    with tempfile.NamedTemporaryFile(suffix=".json") as report:
        argv = ["check", "--impl", options.impl, "--no-model", "--explore-steps", "0", "--json", report.name]
        if options.select:
            argv += ["--select", options.select]
        import contextlib
        import io

        with contextlib.redirect_stdout(io.StringIO()):
            rescind_main(argv)
        checks = json.load(open(report.name, encoding="utf-8"))["checks"]
    tally: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    members: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    listed = []
    for check in checks:
        status, message = check["status"], check.get("message") or ""
        if status == "not-applicable":
            continue
        if status == "pass":
            kind = "pass"
        elif message.startswith(("PART: ", "STEP: ")):
            kind = message[:4].lower()
            shapes = set()
            for path in message[6:].split():
                shape = re.sub(r"/\d+(?=/|$)", "/N", path)
                shape = re.sub(r"/checkpoints/[^/]+/authorizers/[^/]+", "/checkpoints/*/authorizers/*", shape)
                shape = re.sub(r"/checkpoints/[^/]+/(?!authorizers)[^/]+", "/checkpoints/*/*", shape)
                shapes.add(f"{kind} {shape}")
            members[check["capability"]].update(shapes)
        elif "got unsupported" in message or re.search(r"declared \S+ but not", message):
            kind = "whole"
        else:
            kind = "fail"
        tally[check["capability"]][kind] += 1
        if options.list == kind:
            listed.append(f"{check['id']}  {message[:200]}")
    kinds = ("pass", "fail", "whole", "step", "part")
    print(f"{'capability':12}" + "".join(f"{kind:>7}" for kind in kinds))
    for capability in sorted(tally):
        print(f"{capability:12}" + "".join(f"{tally[capability][kind]:>7}" for kind in kinds))
    total = collections.Counter()
    for counter in tally.values():
        total.update(counter)
    print(f"{'total':12}" + "".join(f"{total[kind]:>7}" for kind in kinds))
    for capability in sorted(members):
        print(f"\n{capability}: checks with an unanswered member or step, by path shape")
        for shape, count in members[capability].most_common():
            print(f"  {count:5}  {shape}")
    if listed:
        print()
        print("\n".join(listed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
