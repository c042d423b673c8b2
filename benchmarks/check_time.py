"""How long the main job takes end to end: ``rescind check`` and ``rescind prove``, with a cold
and a warm proof cache (goals: check <= 8 s wall with the model on, prove <= 10 s median).

Each run is the real command in a fresh interpreter (imports, z3 start-up and worker
processes included). ``cold``: a new, empty ``RESCIND_CACHE_DIR`` for every run, so every
proof is proven; ``warm``: one cache directory filled by an untimed run first. Runs of the
commands and modes alternate, so a change in the machine's load hits all of them alike. The
machine may be shared: every run prints the 1-minute load average before and after it, and
the summary gives the medians with the mean load.

``--baseline REV`` times another revision in the same rounds (``before``), so that before
and after see the same load and the summary gives their ratio: the revision is unpacked with
``git archive`` into a temporary directory and put on ``PYTHONPATH`` as the ``rescind``
package (using that revision's own package-dir mapping, or its src layout, from its
pyproject.toml). The baseline is timed once per round with a fresh cache (``before``, as
``cold``) and, when ``warm`` is among the modes, once with a cache of its own filled first
(``before-warm``; a revision without a proof cache simply proves again); extra arguments are
not passed to it.

    python benchmarks/check_time.py --runs 5
    python benchmarks/check_time.py --runs 3 --baseline c888b59
    python benchmarks/check_time.py --runs 3 --commands check --modes cold --jobs 1
    python benchmarks/check_time.py --runs 5 --commands check --modes warm --baseline a824e3f

Not a test: timing belongs here, never in tests/.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import tomllib
from pathlib import Path

import attrs

COMMANDS = {
    "check": ["check", "--seed", "0", "--example-db", "none"],
    "prove": ["prove", "--json"],
}
GOALS = {"check": 8.0, "prove": 10.0}


@attrs.frozen
class Run:
    command: str
    mode: str
    wall: float
    load_before: float
    load_after: float


REPOSITORY = Path(__file__).resolve().parents[1]


def baseline_tree(revision: str, scratch: Path) -> Path:
    """A directory to put on PYTHONPATH that holds revision's ``rescind`` package."""
    archive = subprocess.run(
        ["git", "-C", str(REPOSITORY), "archive", revision], capture_output=True, check=True
    ).stdout
    source = scratch / "source"
    with tarfile.open(fileobj=io.BytesIO(archive)) as unpacked:
        unpacked.extractall(source, filter="data")
    project = tomllib.loads((source / "pyproject.toml").read_text(encoding="utf-8"))
    mapping: dict[str, str] = project["tool"]["setuptools"]["package-dir"]
    if "" in mapping:
        # A plain src layout: its rescind package already links the other layers.
        return source / mapping[""]
    root = scratch / "path"
    package = root / "rescind"
    package.mkdir(parents=True)
    for child in (source / mapping["rescind"]).iterdir():
        (package / child.name).symlink_to(child)
    for name, folder in mapping.items():
        if name != "rescind":
            (root / name.replace(".", "/")).symlink_to(source / folder)
    return root


def timed(command: str, mode: str, cache: Path, extra: list[str], path: Path | None = None) -> Run:
    environment = {**os.environ, "RESCIND_CACHE_DIR": str(cache)}
    if path is not None:
        environment["PYTHONPATH"] = str(path)
    before = os.getloadavg()[0]
    started = time.perf_counter()
    completed = subprocess.run(
        [sys.executable, "-m", "rescind", *COMMANDS[command], *extra],
        capture_output=True,
        text=True,
        env=environment,
        check=False,
    )
    wall = time.perf_counter() - started
    if completed.returncode != 0:
        sys.stderr.write(completed.stdout[-2000:] + completed.stderr[-2000:])
        raise SystemExit(f"rescind {command} exited {completed.returncode}")
    return Run(command, mode, wall, before, os.getloadavg()[0])


def summary(runs: list[Run]) -> list[str]:
    lines = []
    medians = {
        (run.command, run.mode): statistics.median(
            r.wall for r in runs if (r.command, r.mode) == (run.command, run.mode)
        )
        for run in runs
    }
    for key in dict.fromkeys((run.command, run.mode) for run in runs):
        chosen = [run for run in runs if (run.command, run.mode) == key]
        median = statistics.median(run.wall for run in chosen)
        load = statistics.mean((run.load_before + run.load_after) / 2 for run in chosen)
        goal = GOALS[key[0]]
        verdict = "within" if median <= goal else "OVER"
        lines.append(
            f"{key[0]:<6} {key[1]:<6} median {median:6.2f} s over {len(chosen)} runs "
            f"(min {min(r.wall for r in chosen):.2f}, max {max(r.wall for r in chosen):.2f}); "
            f"mean load {load:.2f}; {verdict} the {goal:.0f} s goal"
        )
    for (command, mode), median in medians.items():
        label = "before-warm" if mode == "warm" else "before"
        before = medians.get((command, label))
        if before and not mode.startswith("before"):
            lines.append(f"{command:<6} {mode:<5} / {label}: {median / before:.2f}x")
    return lines


def report(number: int, run: Run) -> None:
    print(
        f"run {number}: {run.command:<6} {run.mode:<6} {run.wall:6.2f} s wall, "
        f"load {run.load_before:.2f} -> {run.load_after:.2f}",
        flush=True,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--commands", default="check,prove", help="check, prove or both")
    parser.add_argument("--modes", default="cold,warm", help="cold, warm or both")
    parser.add_argument("--jobs", type=int, default=None, help="passed on as --jobs N")
    parser.add_argument("--baseline", metavar="REV", help="also time this git revision")
    args = parser.parse_args()
    commands = [c for c in args.commands.split(",") if c]
    modes = [m for m in args.modes.split(",") if m]
    extra = [] if args.jobs is None else ["--jobs", str(args.jobs)]
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"cores available: {cores}; python {sys.version.split()[0]}; extra args {extra}")
    runs: list[Run] = []
    with tempfile.TemporaryDirectory(prefix="rescind-bench-") as scratch:
        baseline = baseline_tree(args.baseline, Path(scratch)) if args.baseline else None
        if baseline is not None:
            print(f"baseline: {args.baseline} from {baseline}")
        warm = Path(scratch) / "warm"
        warm_before = Path(scratch) / "warm-before"
        if "warm" in modes:
            for command in commands:
                timed(command, "fill", warm, extra)  # untimed: fills the warm cache
                if baseline is not None:
                    timed(command, "fill", warm_before, [], baseline)
        for number in range(1, args.runs + 1):
            for command in commands:
                for mode in modes:
                    cache = warm if mode == "warm" else Path(scratch) / f"cold-{number}-{command}"
                    runs.append(timed(command, mode, cache, extra))
                    report(number, runs[-1])
                if baseline is not None and "cold" in modes:
                    cache = Path(scratch) / f"before-{number}-{command}"
                    runs.append(timed(command, "before", cache, [], baseline))
                    report(number, runs[-1])
                if baseline is not None and "warm" in modes:
                    runs.append(timed(command, "before-warm", warm_before, [], baseline))
                    report(number, runs[-1])
    print()
    for line in summary(runs):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
