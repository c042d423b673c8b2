"""Every not-yet-excluded mutant of ``reference/canonical_fast.py``, killed in process.

    python benchmarks/canonical_fast_mutants.py            # survivors of the fast-path checks
    python benchmarks/canonical_fast_mutants.py --diff 2000  # ... each compared with the exact path

The only ``rescind check`` path that reaches the fast canonical path is the
``reference.canonical-fast.*`` checks (one per encoder and number mode over the canonical-input
vectors), so running those checks in process against each mutated module tells, in about a
second a mutant, what ``mutation_campaign.py`` would tell in two minutes. ``--diff N`` then runs
each survivor's fast path against the unmutated exact path on N texts from the differential
tests' generators plus the vectors: a survivor that answers differently is a gap a vector can
close (the differing text is printed); one that never does is a candidate for
``mutation-equivalents.json``, which still needs its own argument.
"""

from __future__ import annotations

import argparse
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT))

import mutation_campaign as campaign  # noqa: E402

from rescind.conformance.sources import canonical_fast as source  # noqa: E402
from rescind.reference import canonical_fast  # noqa: E402
from rescind.reference.errors import RescindError  # noqa: E402
from rescind.reference.numbers import NumberMode  # noqa: E402
from rescind.reference.payload_format import PayloadFormat  # noqa: E402

MODULE = "reference/canonical_fast.py"
SWAPPED = ("ENCODERS", "fast_canonical_input", "fast_worker_fingerprint")
MODES = (NumberMode.AP, NumberMode.F64)


def _load(text: str) -> types.ModuleType:
    module = types.ModuleType("rescind.reference.canonical_fast")
    exec(compile(text, MODULE, "exec"), module.__dict__)
    return module


def verdict(text: str) -> str:
    """``survived`` or how the fast-path checks killed the mutant."""
    try:
        module = _load(text)
    except Exception as error:  # an import-time failure kills it in every run
        return f"killed at import ({type(error).__name__})"
    saved = {name: getattr(source, name) for name in SWAPPED}
    for name in SWAPPED:
        setattr(source, name, getattr(module, name))
    try:
        checks = source.canonical_fast_checks(None, None)  # type: ignore[arg-type]
        if len(checks) != 2 * (1 + len(canonical_fast.ENCODERS)):
            return f"killed: {len(checks)} checks offered"
        for check in checks:
            try:
                outcome = check.run(None)  # type: ignore[arg-type]
            except Exception as error:
                return f"killed: {check.id} raised {type(error).__name__}"
            if outcome.status != "pass":
                return f"killed: {check.id} failed"
        return "survived"
    finally:
        for name, value in saved.items():
            setattr(source, name, value)


def _answer(call: Callable[..., bytes], *args: Any, **kwargs: Any) -> tuple[str, Any]:
    try:
        return ("bytes", call(*args, **kwargs))
    except RescindError as error:
        return ("error", error.code)
    except Exception as error:
        return ("crash", type(error).__name__)


def corpus(count: int) -> list[bytes]:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from benchmarks.hardening import canonical_texts as generators

    texts: list[bytes] = []

    @settings(
        max_examples=count,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(st.one_of(generators.json_texts(), generators.payload_bytes()))
    def collect(value: str | bytes) -> None:
        texts.append(value if isinstance(value, bytes) else value.encode("utf-8", "surrogatepass"))

    collect()
    vectors = source._vectors()
    return texts + [source._data(t) for t in vectors if t["input"].get("format") == "json"]


def first_difference(module: types.ModuleType, texts: list[bytes], wanted: dict[Any, Any]) -> Any:
    for encoder in ("auto", *module.ENCODERS):
        for index, data in enumerate(texts):
            for mode in MODES:
                got = _answer(
                    module.fast_canonical_input, data, PayloadFormat.JSON, mode, encoder=encoder
                )
                if got != wanted[index, mode]:
                    return encoder, mode.value, data[:200], got, wanted[index, mode]
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--diff", type=int, default=0, help="texts to compare survivors on")
    args = parser.parse_args()
    cached = list(source._vectors())
    source._vectors = lambda: iter(cached)  # type: ignore[assignment]
    text = (ROOT / MODULE).read_text(encoding="utf-8")
    if verdict(text) != "survived":
        print("the unmutated module fails its own checks", file=sys.stderr)
        return 2
    excluded = campaign._equivalents()
    survivors = [
        point
        for point in campaign.mutation_points(text)
        if (MODULE, point["line"], point["mutation"]) not in excluded
        and verdict(campaign.mutate(text, point)) == "survived"
    ]
    texts = corpus(args.diff) if args.diff else []
    wanted = {
        (index, mode): _answer(canonical_fast.exact_canonical_input, data, PayloadFormat.JSON, mode)
        for index, data in enumerate(texts)
        for mode in MODES
    }
    for point in survivors:
        where = f"{MODULE}:{point['line']}:{point['col']} {point['mutation']}"
        if not texts:
            print(f"survived {where}")
            continue
        difference = first_difference(_load(campaign.mutate(text, point)), texts, wanted)
        print(f"{'DIFFERS' if difference else 'same'} {where} {difference or ''}")
    print(f"{len(survivors)} survivors", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
