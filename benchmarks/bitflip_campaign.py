"""Every single-bit flip of every authenticated object, and of a SQLite file holding a journal.

    python benchmarks/bitflip_campaign.py            # all flips, 2 workers
    python benchmarks/bitflip_campaign.py --json

Objects (benchmarks/hardening/bitflips.py): one sealed frame per message kind of the frames
vectors (the ``open_session`` frame carries the grants), storage envelopes holding a journal
with records, a ledger, a manifest, binary bytes, and a journal sealed under an older read
key. A flip must be refused with a typed error or read with the original meaning; accepted
with another meaning is a forgery. For the SQLite backend the stored file of one journal is
flipped bit by bit and loaded by a fresh backend: the report counts flips that make the
journal silently read as absent (a new, empty journal at revision 0) and where they are.
Exit code 1 on any forgery or untyped exception; silent absence is reported, not failed.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import attrs

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.hardening import bitflips  # noqa: E402


def _frame_job(index: int) -> tuple[str, bitflips.Tally]:
    name, frame, role = bitflips.frame_objects()[index]
    return name, bitflips.frame_flips(name, frame, role)


def _envelope_job(index: int) -> tuple[str, bitflips.Tally]:
    name, key, revision, envelope = bitflips.envelope_objects()[index]
    return name, bitflips.envelope_flips(name, key, revision, envelope)


def _sqlite_job(job: tuple[str, str, int, int]) -> tuple[bitflips.Tally, list[int]]:
    path, scope, start, stop = job
    return bitflips.sqlite_flips(Path(path), scope, iter(range(start, stop)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--sqlite-step", type=int, default=1, help="flip every Nth bit of the SQLite file (1: all)"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    started = time.perf_counter()
    rows: list[dict[str, Any]] = []
    with (
        multiprocessing.get_context("fork").Pool(args.workers) as pool,
        tempfile.TemporaryDirectory() as scratch,
    ):
        frames = pool.map(_frame_job, range(len(bitflips.frame_objects())))
        envelopes = pool.map(_envelope_job, range(len(bitflips.envelope_objects())))
        for name, tally in [*frames, *envelopes]:
            rows.append({"object": name, **attrs.asdict(tally)})
        path, scope = bitflips.sqlite_journal(Path(scratch))
        total_bits = path.stat().st_size * 8
        pieces = 16
        jobs = [
            (str(path), scope, start, min(total_bits, start + total_bits // pieces + 1))
            for start in range(0, total_bits, total_bits // pieces + 1)
        ]
        if args.sqlite_step > 1:
            results = [
                pool.apply_async(
                    bitflips.sqlite_flips,
                    (path, scope, iter(range(0, total_bits, args.sqlite_step))),
                )
            ]
            sqlite_results = [result.get() for result in results]
        else:
            sqlite_results = pool.map(_sqlite_job, jobs)
        sqlite_tally = bitflips.Tally()
        absent: list[int] = []
        for tally, bits in sqlite_results:
            sqlite_tally = sqlite_tally.merge(tally)
            absent += bits
        pages = bitflips.describe_pages(path)
        regions = bitflips.sqlite_regions(path, absent)
        size = path.stat().st_size
    wall = time.perf_counter() - started
    objects_forged = sum(row["forged"] for row in rows)
    objects_untyped = sum(row["untyped"] for row in rows)
    report = {
        "wall_seconds": round(wall, 1),
        "objects": rows,
        "object_flips": sum(row["flips"] for row in rows),
        "object_forged": objects_forged,
        "object_untyped": objects_untyped,
        "sqlite": {
            "file_bytes": size,
            "page_size": size // max(1, len(pages)),
            "pages": {str(number): kind for number, kind in pages.items()},
            **attrs.asdict(sqlite_tally),
            "absent_by_page": {str(page): count for page, count in sorted(regions.items())},
            "absent_bytes": sorted({bit // 8 for bit in absent})[:200],
        },
    }
    report["passed"] = (
        objects_forged == 0
        and objects_untyped == 0
        and sqlite_tally.forged == 0
        and sqlite_tally.untyped == 0
    )
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        _print(report)
    return 0 if report["passed"] else 1


def _cells(name: str, row: dict[str, Any]) -> str:
    counts = (row["flips"], row["refused"], row["same_meaning"], row["forged"], row["untyped"])
    widths = (7, 8, 6, 7, 8)
    return f"{name:32} " + " ".join(f"{c:,}".rjust(w) for c, w in zip(counts, widths, strict=True))


def _print(report: dict[str, Any]) -> None:
    header = f"{'object':32} {'flips':>7} {'refused':>8} {'same':>6} {'forged':>7} {'untyped':>8}"
    print(header)
    print("-" * len(header))
    for row in report["objects"]:
        print(_cells(row["object"], row))
    sqlite = report["sqlite"]
    print(_cells("sqlite journal file", sqlite))
    print("-" * len(header))
    print(
        f"{report['object_flips']:,} object flips: {report['object_forged']} accepted with a "
        f"different meaning, {report['object_untyped']} untyped"
    )
    print(
        f"SQLite file of {sqlite['file_bytes']:,} bytes ({sqlite['pages']}): {sqlite['absent']:,} "
        "flips make the stored journal read as absent (new journal, revision 0)"
    )
    if sqlite["absent"]:
        print(f"  by page: {sqlite['absent_by_page']}; byte offsets: {sqlite['absent_bytes'][:40]}")
    for row in report["objects"]:
        for example in row["examples"]:
            print(f"  {example}")
    print(f"{report['wall_seconds']} s")
    print("PASS" if report["passed"] else "FAIL")


if __name__ == "__main__":
    raise SystemExit(main())
