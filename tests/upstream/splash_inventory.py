"""Write splash_tests.txt: every unit test of the Splash files Rescind ports tests from.

Reads a bare clone of ymote/Splash at the pinned commit (git only, no network) and lists one
``<path> <test function>`` per line: a test is the first ``fn`` after a ``#[test]`` or
``#[tokio::test...]`` attribute, skipping further attribute lines. The list is committed so
tests can check every cited upstream test without the clone.

    python tests/upstream/splash_inventory.py /path/to/Splash.git > tests/upstream/splash_tests.txt
"""

from __future__ import annotations

import re
import subprocess
import sys

COMMIT = "623d57c5c524f062ed5ddf8995cbed5b7b98e380"
PATHS = (
    "crates/splash-protocol/src/lib.rs",
    "crates/splash-worker/src/lib.rs",
    "crates/splash-worker/src/cancellable.rs",
    "crates/splash-workflow/src/lib.rs",
    "crates/splash-storage/src/lib.rs",
    "crates/splash-storage/src/sqlite.rs",
)
_TEST_ATTRIBUTE = re.compile(r"\s*#\[(tokio::)?test\b")
_ATTRIBUTE = re.compile(r"\s*#\[")
_FUNCTION = re.compile(r"\s*(?:pub\s+)?(?:async\s+)?fn\s+([A-Za-z0-9_]+)")


def tests_in(source: str) -> list[str]:
    names: list[str] = []
    waiting = False
    for line in source.splitlines():
        if _TEST_ATTRIBUTE.match(line):
            waiting = True
            continue
        if waiting and _ATTRIBUTE.match(line):
            continue
        if waiting:
            match = _FUNCTION.match(line)
            if match is None:
                raise ValueError(f"a test attribute is not followed by a function: {line!r}")
            names.append(match.group(1))
            waiting = False
    return names


def main(git_dir: str) -> None:
    for path in PATHS:
        source = subprocess.run(
            ["git", f"--git-dir={git_dir}", "show", f"{COMMIT}:{path}"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        for name in tests_in(source):
            print(f"{path} {name}")


if __name__ == "__main__":
    main(sys.argv[1])
