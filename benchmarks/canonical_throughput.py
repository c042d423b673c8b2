"""Throughput of canonical input bytes + worker input fingerprint, next to common JSON stacks.

Every pipeline takes the same UTF-8 JSON payload text and produces a worker input fingerprint
(BLAKE3 over the worker domain tag and ``json`` + u64 length + canonical body), so only the
parse/canonicalise step differs. Only the two Rescind pipelines compute splash-v5 bytes; the
others canonicalise their own way and are shown for speed, with how often they agree.

Run: ``python benchmarks/canonical_throughput.py`` (``--help`` for options). Needs the
``bench`` extra (orjson, rfc8785, canonicaljson).
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import statistics
import struct
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import canonicaljson
import orjson
import rfc8785
from blake3 import blake3
from canonical_corpus import build_corpus  # benchmarks/ is on sys.path when run as a script
from rich.console import Console
from rich.table import Table

from rescind.reference.canonical_fast import (
    ENCODERS,
    exact_worker_fingerprint,
    fast_worker_fingerprint,
)
from rescind.reference.digests import WORKER_INPUT_DOMAIN

BASELINE = "stdlib"
TARGET_VS_STDLIB = 1.0
TARGET_VS_RFC8785 = 3.0

# ---------------------------------------------------------------------------------------------
# Pipelines: JSON text in, worker input fingerprint (hex) out.


def _fingerprint(body: bytes) -> str:
    return blake3(WORKER_INPUT_DOMAIN + b"json" + struct.pack(">Q", len(body)) + body).hexdigest()


def stdlib_pipeline(data: bytes) -> str:
    """The baseline, as the issue states it: loads, dumps(sort_keys=True), BLAKE3."""
    return _fingerprint(json.dumps(json.loads(data), sort_keys=True).encode("utf-8"))


def stdlib_compact_pipeline(data: bytes) -> str:
    value = json.loads(data)
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return _fingerprint(text.encode("utf-8"))


def orjson_pipeline(data: bytes) -> str:
    return _fingerprint(orjson.dumps(orjson.loads(data), option=orjson.OPT_SORT_KEYS))


def rfc8785_pipeline(data: bytes) -> str:
    return _fingerprint(rfc8785.dumps(json.loads(data)))


def canonicaljson_pipeline(data: bytes) -> str:
    return _fingerprint(canonicaljson.encode_canonical_json(json.loads(data)))


def rescind_fast_stdlib_pipeline(data: bytes) -> str:
    return fast_worker_fingerprint(data, encoder="json")


@dataclass(frozen=True)
class Pipeline:
    name: str
    run: Callable[[bytes], str]
    description: str


FAST_ENCODER = "orjson" if "orjson" in ENCODERS else "json"
PIPELINES = (
    Pipeline(BASELINE, stdlib_pipeline, "json.loads + json.dumps(sort_keys=True)"),
    Pipeline(
        "stdlib-compact",
        stdlib_compact_pipeline,
        "json.loads + json.dumps(sort_keys, separators=(',', ':'), ensure_ascii=False)",
    ),
    Pipeline("orjson", orjson_pipeline, "orjson.loads + orjson.dumps(OPT_SORT_KEYS)"),
    Pipeline("rfc8785", rfc8785_pipeline, "json.loads + rfc8785.dumps (JCS)"),
    Pipeline(
        "canonicaljson", canonicaljson_pipeline, "json.loads + canonicaljson.encode_canonical_json"
    ),
    Pipeline("rescind-exact", exact_worker_fingerprint, "pure-Python reference parser and encoder"),
    Pipeline(
        "rescind-fast",
        fast_worker_fingerprint,
        f"canonical_fast: stdlib C scanner + {FAST_ENCODER} encoder, exact by proof or fallback",
    ),
    Pipeline(
        "rescind-fast-stdlib",
        rescind_fast_stdlib_pipeline,
        "canonical_fast with the stdlib encoder only (no orjson)",
    ),
)
RESCIND = ("rescind-exact", "rescind-fast", "rescind-fast-stdlib")


# ---------------------------------------------------------------------------------------------
# Measurement


def time_pass(run: Callable[[bytes], str], docs: Sequence[bytes]) -> float:
    gc.collect()
    gc.disable()
    try:
        start = time.perf_counter()
        for doc in docs:
            run(doc)
        return time.perf_counter() - start
    finally:
        gc.enable()


def measure(
    corpus: dict[str, list[bytes]], pipelines: Sequence[Pipeline], rounds: int
) -> dict[str, dict[str, float]]:
    """Median seconds per (pipeline, size class); pipeline order rotates every round."""
    samples: dict[str, dict[str, list[float]]] = {
        p.name: {name: [] for name in corpus} for p in pipelines
    }
    for round_index in range(rounds):
        for name, docs in corpus.items():
            shift = round_index % len(pipelines)
            for pipeline in [*pipelines[shift:], *pipelines[:shift]]:
                samples[pipeline.name][name].append(time_pass(pipeline.run, docs))
    return {
        pipeline: {name: statistics.median(times) for name, times in by_class.items()}
        for pipeline, by_class in samples.items()
    }


def agreement(
    corpus: dict[str, list[bytes]], pipelines: Sequence[Pipeline]
) -> dict[str, tuple[int, int]]:
    """How many payloads each pipeline fingerprints exactly as splash-v5 (the reference)."""
    docs = [doc for class_docs in corpus.values() for doc in class_docs]
    expected = [exact_worker_fingerprint(doc) for doc in docs]
    return {
        p.name: (
            sum(p.run(doc) == want for doc, want in zip(docs, expected, strict=True)),
            len(docs),
        )
        for p in pipelines
    }


def summarise(
    corpus: dict[str, list[bytes]],
    medians: dict[str, dict[str, float]],
    agree: dict[str, tuple[int, int]],
    rounds: int,
    seed: int,
) -> dict[str, Any]:
    class_bytes = {name: sum(map(len, docs)) for name, docs in corpus.items()}
    total_items = sum(len(docs) for docs in corpus.values())
    total_bytes = sum(class_bytes.values())
    base, rfc = medians[BASELINE], medians["rfc8785"]
    results: dict[str, Any] = {}
    for pipeline in PIPELINES:
        times = medians[pipeline.name]
        total_time = sum(times.values())
        matched, checked = agree[pipeline.name]
        results[pipeline.name] = {
            "description": pipeline.description,
            "exact_by_design": pipeline.name in RESCIND,
            "splash_v5_matches": matched,
            "payloads_checked": checked,
            "overall": {
                "seconds": total_time,
                "items_per_second": total_items / total_time,
                "mb_per_second": total_bytes / total_time / 1e6,
                "ratio_to_stdlib": sum(base.values()) / total_time,
                "ratio_to_rfc8785": sum(rfc.values()) / total_time,
            },
            "size_classes": {
                name: {
                    "median_seconds": times[name],
                    "items_per_second": len(corpus[name]) / times[name],
                    "mb_per_second": class_bytes[name] / times[name] / 1e6,
                    "ratio_to_stdlib": base[name] / times[name],
                    "ratio_to_rfc8785": rfc[name] / times[name],
                }
                for name in corpus
            },
        }
    fast = results["rescind-fast"]["overall"]
    fast_matched, fast_checked = agree["rescind-fast"]
    return {
        "benchmark": "canonical input bytes + worker input fingerprint (splash-v5)",
        "python": platform.python_version(),
        "platform": platform.platform(),
        "fast_path_encoder": FAST_ENCODER,
        "seed": seed,
        "rounds": rounds,
        "statistic": "median seconds of the rounds per size class; overall = their sum",
        "corpus": {
            name: {"payloads": len(docs), "bytes": class_bytes[name]}
            for name, docs in corpus.items()
        },
        "pipelines": results,
        "targets": {
            "fast_vs_stdlib": {
                "ratio": fast["ratio_to_stdlib"],
                "target": TARGET_VS_STDLIB,
                "met": fast["ratio_to_stdlib"] >= TARGET_VS_STDLIB,
            },
            "fast_vs_rfc8785": {
                "ratio": fast["ratio_to_rfc8785"],
                "target": TARGET_VS_RFC8785,
                "met": fast["ratio_to_rfc8785"] >= TARGET_VS_RFC8785,
            },
            "fast_is_exact": {
                "matches": fast_matched,
                "payloads": fast_checked,
                "met": fast_matched == fast_checked,
            },
        },
    }


def render(summary: dict[str, Any], console: Console) -> None:
    pipelines = summary["pipelines"]
    overall = Table(
        title=f"Canonical input bytes + worker fingerprint: median of {summary['rounds']} rounds, "
        f"Python {summary['python']}, seed {summary['seed']}",
        title_justify="left",
    )
    for column in ("pipeline", "items/s", "MB/s", "x stdlib", "x rfc8785", "splash-v5 exact"):
        overall.add_column(column, justify="left" if column == "pipeline" else "right")
    for name, result in pipelines.items():
        row = result["overall"]
        matched, checked = result["splash_v5_matches"], result["payloads_checked"]
        overall.add_row(
            f"[bold]{name}[/bold]" if name == "rescind-fast" else name,
            f"{row['items_per_second']:,.0f}",
            f"{row['mb_per_second']:.1f}",
            f"{row['ratio_to_stdlib']:.2f}",
            f"{row['ratio_to_rfc8785']:.2f}",
            f"{matched}/{checked}",
        )
    console.print(overall)

    by_size = Table(title="Per size class: MB/s and x stdlib", title_justify="left")
    by_size.add_column("pipeline")
    for name, corpus in summary["corpus"].items():
        by_size.add_column(
            f"{name} ({corpus['payloads']}, {corpus['bytes'] / 1024:.0f} KiB)", justify="right"
        )
    for name, result in pipelines.items():
        by_size.add_row(
            name,
            *(
                f"{cell['mb_per_second']:.1f}  {cell['ratio_to_stdlib']:.2f}x"
                for cell in result["size_classes"].values()
            ),
        )
    console.print(by_size)

    for name, result in pipelines.items():
        console.print(f"  {name}: {result['description']}")
    console.print(
        "Exactness: only the rescind pipelines compute splash-v5 bytes. The others parse numbers "
        "into binary floats (1.50 becomes 1.5, 6.02E23 becomes 6.02e+23, rfc8785 also sorts keys "
        "by UTF-16 units and stdlib escapes non-ASCII), so their fingerprints are right only "
        "for payloads without such spellings; 'splash-v5 exact' counts them."
    )
    targets = summary["targets"]
    for label, key in (("vs stdlib", "fast_vs_stdlib"), ("vs rfc8785", "fast_vs_rfc8785")):
        target = targets[key]
        verdict = "[green]met[/green]" if target["met"] else "[red]NOT met[/red]"
        console.print(
            f"Target rescind-fast {label}: {target['ratio']:.2f}x "
            f"(need >= {target['target']:.1f}x): {verdict}"
        )
    exact = targets["fast_is_exact"]
    console.print(
        f"Target rescind-fast exact: {exact['matches']}/{exact['payloads']} payloads agree with "
        "the reference: " + ("[green]met[/green]" if exact["met"] else "[red]NOT met[/red]")
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7, help="timed rounds (default 7)")
    parser.add_argument("--seed", type=int, default=20240501, help="corpus seed")
    parser.add_argument(
        "--scale", type=float, default=1.0, help="corpus size factor (1.0: ~0.5 MB per class)"
    )
    parser.add_argument("--quick", action="store_true", help="3 rounds on a quarter corpus")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument(
        "--require-targets", action="store_true", help="exit 1 when a target is not met"
    )
    args = parser.parse_args(argv)
    rounds, scale = (3, args.scale / 4) if args.quick else (args.rounds, args.scale)
    corpus = build_corpus(args.seed, scale)
    agree = agreement(corpus, PIPELINES)
    medians = measure(corpus, PIPELINES, rounds)
    summary = summarise(corpus, medians, agree, rounds, args.seed)
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        render(summary, Console(width=max(Console().width, 110)))
    met = all(target["met"] for target in summary["targets"].values())
    return 1 if args.require_targets and not met else 0


if __name__ == "__main__":
    sys.exit(main())
