"""Decoder fuzzing campaign: every decoder, the driver and the CLI fed mutated vector texts.

    python benchmarks/fuzz_campaign.py                      # 1,000,000 inputs, 2 workers
    python benchmarks/fuzz_campaign.py --inputs 20000 --json

Inputs come from benchmarks/hardening/fuzzing.py: valid vector texts mutated (bit flips,
truncation, splicing, deep nesting, huge numbers, bad UTF-8, whitespace around structural
tokens, string escapes, repeated or unknown members) plus random bytes; saga documents are
mutated as parsed JSON. Each input is seeded (``--seed``), so a finding can be replayed with
``--only TARGET`` and the same seed (findings name their chunk). The campaign passes when
no input raised anything but a typed ``RescindError`` with a code, no definite refusal
changed a stateful object or store, the
fast canonical path agreed with the exact one, the driver answered one well-formed line
and the CLI exited 0, 1 or 2 with one line on stderr. Exit code 1 otherwise.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import multiprocessing
import random
import sys
import time
from pathlib import Path
from typing import Any

import attrs

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CHUNK = 2_000
MAX_FINDINGS_PER_CHUNK = 5

_TARGETS: list[Any] = []


def _init() -> None:
    from benchmarks.hardening import fuzzing

    _TARGETS[:] = fuzzing.targets()
    for target in _TARGETS:  # build seed pools once per process, outside the timing
        target.generate(random.Random(0))


def chunk_seed(seed: int, target: str, chunk: int) -> int:
    digest = hashlib.sha256(f"{seed}:{target}:{chunk}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def run_chunk(job: tuple[int, int, int, int]) -> dict[str, Any]:
    index, chunk, count, seed = job
    target = _TARGETS[index]
    rng = random.Random(chunk_seed(seed, target.name, chunk))
    outcomes: collections.Counter[str] = collections.Counter()
    findings: list[dict[str, Any]] = []
    started = time.process_time()
    for _ in range(count):
        outcome, found = target.run(target.generate(rng))
        outcomes[outcome] += 1
        for finding in found:
            outcomes[f"finding:{finding.kind}"] += 1
            if len(findings) < MAX_FINDINGS_PER_CHUNK:
                findings.append({"chunk": chunk, **attrs.asdict(finding)})
    return {
        "target": target.name,
        "inputs": count,
        "cpu_seconds": time.process_time() - started,
        "outcomes": dict(outcomes),
        "findings": findings,
    }


def schedule(
    total: int, seed: int, names: list[str], shares: list[float]
) -> list[tuple[int, int, int, int]]:
    weight = sum(shares)
    jobs = []
    for index, share in enumerate(shares):
        remaining = round(total * share / weight)
        chunk = 0
        while remaining > 0:
            count = min(CHUNK, remaining)
            jobs.append((index, chunk, count, seed))
            remaining -= count
            chunk += 1
    # Interleave targets so both workers stay busy until the end.
    jobs.sort(key=lambda job: (job[1], job[0]))
    return jobs


def summarise(
    results: list[dict[str, Any]], names: list[str], wall: float, seed: int, workers: int
) -> dict[str, Any]:
    rows: dict[str, dict[str, Any]] = {
        name: {
            "inputs": 0,
            "accepted": 0,
            "refused": 0,
            "codes": set(),
            "untyped": 0,
            "state_change": 0,
            "divergence": 0,
            "bad_reply": 0,
            "forged": 0,
            "cpu_seconds": 0.0,
        }
        for name in names
    }
    findings: list[dict[str, Any]] = []
    for result in results:
        row = rows[result["target"]]
        row["inputs"] += result["inputs"]
        row["cpu_seconds"] += result["cpu_seconds"]
        for outcome, count in result["outcomes"].items():
            if outcome.startswith("finding:"):
                kind = outcome.split(":", 1)[1]
                key = kind if kind in row else "untyped"
                row[key] += count
            elif outcome == "accepted" or outcome.startswith("exit:"):
                row["accepted"] += count
            elif outcome.startswith("refused"):
                row["refused"] += count
                if ":" in outcome:
                    row["codes"].add(outcome.split(":", 1)[1])
        findings += result["findings"]
    table = []
    for name, row in rows.items():
        table.append(
            {
                **row,
                "target": name,
                "codes": len(row["codes"]),
                "inputs_per_cpu_second": round(row["inputs"] / row["cpu_seconds"])
                if row["cpu_seconds"]
                else 0,
                "cpu_seconds": round(row["cpu_seconds"], 2),
            }
        )
    total = sum(row["inputs"] for row in table)
    bad = {
        kind: sum(row[kind] for row in table)
        for kind in ("untyped", "state_change", "divergence", "bad_reply", "forged")
    }
    return {
        "seed": seed,
        "workers": workers,
        "inputs": total,
        "wall_seconds": round(wall, 1),
        "inputs_per_second": round(total / wall) if wall else 0,
        **bad,
        "passed": not any(bad.values()),
        "targets": table,
        "findings": findings[:50],
    }


COLUMNS = (
    ("target", 30),
    ("inputs", 9),
    ("accepted", 9),
    ("refused", 9),
    ("codes", 6),
    ("untyped", 8),
    ("state", 6),
    ("other", 6),
    ("in/cpu-s", 9),
)


def _line(values: list[object]) -> str:
    cells: list[str] = []
    for (_, width), value in zip(COLUMNS, values, strict=True):
        text = f"{value:,}" if isinstance(value, int) else str(value)
        cells.append(text.ljust(width) if not cells else text.rjust(width))
    return " ".join(cells)


def print_table(report: dict[str, Any]) -> None:
    header = _line([name for name, _ in COLUMNS])
    print(header)
    print("-" * len(header))
    for row in report["targets"]:
        other = row["divergence"] + row["bad_reply"] + row["forged"]
        print(
            _line(
                [
                    row["target"],
                    row["inputs"],
                    row["accepted"],
                    row["refused"],
                    row["codes"],
                    row["untyped"],
                    row["state_change"],
                    other,
                    row["inputs_per_cpu_second"],
                ]
            )
        )
    print("-" * len(header))
    print(
        f"{report['inputs']:,} inputs in {report['wall_seconds']} s with {report['workers']} "
        f"workers: {report['inputs_per_second']:,} inputs/s (seed {report['seed']})"
    )
    print(
        f"untyped exceptions: {report['untyped']}; state changes on a refused call: "
        f"{report['state_change']}; fast/exact divergences: {report['divergence']}; "
        f"bad driver replies: {report['bad_reply']}; forged frames accepted: {report['forged']}"
    )
    for finding in report["findings"][:20]:
        print(f"  {finding['target']} chunk {finding['chunk']}: {finding['kind']}: ")
        print(f"    {finding['detail']}\n    input {finding['data'][:160]}")
    print("PASS" if report["passed"] else "FAIL")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--inputs", type=int, default=1_000_000, help="total inputs (default 1,000,000)"
    )
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--only", nargs="*", help="run only these targets")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)

    _init()
    names = [target.name for target in _TARGETS]
    shares = [
        target.share if not args.only or target.name in args.only else 0.0 for target in _TARGETS
    ]
    jobs = schedule(args.inputs, args.seed, names, shares)
    started = time.perf_counter()
    if args.workers <= 1:
        results = [run_chunk(job) for job in jobs]
    else:
        with multiprocessing.get_context("fork").Pool(args.workers, initializer=_init) as pool:
            results = list(pool.imap_unordered(run_chunk, jobs))
    report = summarise(results, names, time.perf_counter() - started, args.seed, args.workers)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print_table(report)
    return 0 if report["passed"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
