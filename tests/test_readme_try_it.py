"""The README's "Try it" block works as written, from a scratch directory that holds only
what the block copies (drivers/python-minimal/driver.py). Its first line, the virtual
environment and install, is checked for its shape and stood in for by this test's own
installed ``rescind`` (first on PATH); every other line runs exactly as the README has it."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MARKER = "<!-- try-it:"
INSTALL = "python -m venv .venv && . .venv/bin/activate && pip install -e ."


def try_it_block() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    after = text.split(MARKER, 1)[1].split("\n", 1)[1]
    assert after.startswith("```sh\n"), "the marker must sit right above the fenced block"
    return after.removeprefix("```sh\n").split("\n```", 1)[0].splitlines()


def test_the_block_is_short_and_starts_with_the_install() -> None:
    lines = try_it_block()
    assert lines[0] == INSTALL
    assert len(lines) <= 10


def test_the_try_it_block_runs_from_a_scratch_directory(tmp_path: Path) -> None:
    commands = try_it_block()[1:]
    (tmp_path / "drivers" / "python-minimal").mkdir(parents=True)
    shutil.copy(
        ROOT / "drivers" / "python-minimal" / "driver.py", tmp_path / "drivers" / "python-minimal"
    )
    bin_dir = Path(sys.executable).parent  # this environment's python and rescind
    environment = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    completed = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", "\n".join(commands)],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )
    out = completed.stdout
    assert completed.returncode == 0, (out + completed.stderr)[-3000:]
    # both checks passed: the built-in reference, then the copied driver
    # each run's last line is its verdict and count: "PASS  N checks: ..."
    verdicts = re.findall(r"^(\S+)  \d+ checks: ", out, re.MULTILINE)
    assert verdicts == ["PASS", "PASS"], out[-3000:]
    assert re.search(r"^PASS python-minimal \S+: canonical conforms;", out, re.MULTILINE)
    assert "561bf4fd4bd31485a316b9fc96ba3994b010a6734a65fbe5913aaa5b9fa1d239" in out
    assert re.search(r"^canonical-input: \d+ checks; capability canonical", out, re.MULTILINE)
    assert (tmp_path / "my_driver.py").is_file()
