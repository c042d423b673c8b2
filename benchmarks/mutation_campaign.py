"""Mutation testing of the reference core, killed only by the suite other implementations get.

    python benchmarks/mutation_campaign.py                        # core modules, 10 mutants each
    python benchmarks/mutation_campaign.py --per-module 0 --modules reference/frames.py
    python benchmarks/mutation_campaign.py --json

Each mutant is one small change to one module of ``reference/`` in a private copy of the
tree (the working tree as it is, laid out as the installed ``rescind`` package): an operator
swap (``+``/``-``, ``<``/``<=``, ``==``/``!=``, ``in``/``not in``, ``and``/``or``), an
integer constant moved by one (boundaries), ``True``/``False`` swapped, a string constant
changed, a condition negated, or a statement (raise, call, assignment) deleted. The killers
are only ``rescind vectors check`` (regenerate every vector from the mutated reference and
compare with the committed files) and then ``rescind check`` (the built-in reference against
the vectors, the scenario catalogue, refinement, exploration and the model). Unit tests are
never run: the vectors, not our tests, must notice.

A mutant is *killed* when a killer exits non-zero, *timeout* when a killer runs past its
limit (counted as detected), *survived* otherwise. Survivors that cannot be killed are listed
with a class and a reason in ``benchmarks/results/mutation-equivalents.json`` (module, line,
mutation) and left out of the score; the strict score leaves out only the ``equivalent``
class. Mutation points are drawn with a fixed seed, ``--per-module`` per module (0: all).
Results go to ``benchmarks/results/mutation-campaign[-LABEL].json`` and
``mutation-survivors[-LABEL].md``; ``--rescore REPORT`` prints an earlier sample scored, as it
was drawn, against today's exclusions.

Why not mutmut or cosmic-ray: mutmut 3 runs pytest as its only test runner and expects the
import names to match the source folders (here ``reference/`` is ``rescind.reference``);
cosmic-ray's local distributor runs one mutant at a time. This script is small, runs two
mutants at once and uses the two ``rescind`` commands as the killer.
"""

from __future__ import annotations

import argparse
import ast
import concurrent.futures
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
LAYOUT = {
    "": "src/rescind",
    "tables": "tables",
    "reference": "reference",
    "model": "model",
    "conformance": "conformance",
    "vectors": "vectors",
}
CORE = (
    "reference/jsonparse.py",
    "reference/numbers.py",
    "reference/payload.py",
    "reference/canonical_fast.py",
    "reference/wirejson.py",
    "reference/worker_message.py",
    "reference/frames.py",
    "reference/digests.py",
    "reference/grants.py",
    "reference/manifest.py",
    "reference/messages.py",
    "reference/tokens.py",
    "reference/storage/envelope.py",
    "reference/storage/tag.py",
    "reference/worker/journal.py",
    "reference/worker/records.py",
    "reference/host/ledger_codec.py",
    "reference/host/ledger.py",
)
KILLERS = (
    ("vectors", ("vectors", "check")),
    # A fixed exploration seed and no example database: every mutant meets the same checks,
    # and a failure one mutant saved cannot replay against the next.
    ("check", ("check", "--seed", "0", "--example-db", "none")),
)

_COMPARE_SWAPS = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}
_BINOP_SWAPS = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.FloorDiv,
    ast.FloorDiv: ast.Mult,
    ast.Mod: ast.FloorDiv,
    ast.LShift: ast.RShift,
    ast.RShift: ast.LShift,
    ast.BitAnd: ast.BitOr,
    ast.BitOr: ast.BitAnd,
}


# -- mutation points ------------------------------------------------------------------------


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and node.body
        ):
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                found.add(id(first.value))
            # attribute docstrings: a string expression right after an assignment
            for statement in node.body[1:]:
                if (
                    isinstance(statement, ast.Expr)
                    and isinstance(statement.value, ast.Constant)
                    and isinstance(statement.value.value, str)
                ):
                    found.add(id(statement.value))
    return found


def _skipped(tree: ast.AST) -> set[int]:
    """Nodes no vector can observe by design: docstrings, annotations, ``__repr__`` bodies,
    ``TYPE_CHECKING`` blocks and the ``upstream`` names of error classes (documentation)."""
    skipped = _docstrings(tree)
    for node in ast.walk(tree):
        roots: list[ast.AST] = []
        if isinstance(node, ast.FunctionDef) and node.name == "__repr__":
            roots.append(node)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            roots += [
                arg.annotation for arg in (*node.args.args, *node.args.kwonlyargs) if arg.annotation
            ]
            if node.returns:
                roots.append(node.returns)
        if isinstance(node, ast.AnnAssign):
            roots.append(node.annotation)
        if (
            isinstance(node, ast.If)
            and isinstance(node.test, ast.Name)
            and node.test.id == "TYPE_CHECKING"
        ):
            roots.append(node)
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "upstream" for t in node.targets
        ):
            roots.append(node)
        for root in roots:
            skipped.update(id(child) for child in ast.walk(root))
    return skipped


def mutation_points(source: str) -> list[dict[str, Any]]:
    tree = ast.parse(source)
    skipped = _skipped(tree)
    points: list[dict[str, Any]] = []

    def add(node: ast.AST, kind: str, description: str, index: int = 0) -> None:
        points.append(
            {
                "line": getattr(node, "lineno", 0),
                "col": getattr(node, "col_offset", 0),
                "kind": kind,
                "mutation": description,
                "index": index,
                "node": type(node).__name__,
            }
        )

    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Compare):
            for index, op in enumerate(node.ops):
                if type(op) in _COMPARE_SWAPS:
                    add(
                        node,
                        "compare",
                        f"{type(op).__name__} -> {_COMPARE_SWAPS[type(op)].__name__}",
                        index,
                    )
        elif isinstance(node, ast.BinOp) and type(node.op) in _BINOP_SWAPS:
            add(
                node, "binop", f"{type(node.op).__name__} -> {_BINOP_SWAPS[type(node.op)].__name__}"
            )
        elif isinstance(node, ast.BoolOp):
            add(
                node,
                "boolop",
                f"{type(node.op).__name__} -> {'Or' if isinstance(node.op, ast.And) else 'And'}",
            )
        elif isinstance(node, ast.Constant) and isinstance(node.value, bool):
            add(node, "constant", f"{node.value} -> {not node.value}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, int):
            add(node, "constant", f"{node.value} -> {node.value + 1}", 1)
            add(node, "constant", f"{node.value} -> {node.value - 1}", -1)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value:
            add(node, "constant", f"string {node.value[:30]!r} -> changed")
        elif isinstance(node, ast.If | ast.While | ast.IfExp | ast.Assert):
            add(node, "negate", f"negate condition of {type(node).__name__}")
        elif isinstance(node, ast.Raise | ast.Assign | ast.AugAssign) or (
            isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
        ):
            add(node, "delete", f"delete {type(node).__name__} statement")
    return points


class _Apply(ast.NodeTransformer):
    def __init__(self, point: dict[str, Any]) -> None:
        self.point = point
        self.done = False

    def _match(self, node: ast.AST) -> bool:
        return (
            not self.done
            and getattr(node, "lineno", None) == self.point["line"]
            and getattr(node, "col_offset", None) == self.point["col"]
            and type(node).__name__ == self.point["node"]
        )

    def visit(self, node: ast.AST) -> Any:
        if not self._match(node):
            return self.generic_visit(node)
        self.done = True
        kind = self.point["kind"]
        if kind == "compare":
            assert isinstance(node, ast.Compare)
            node.ops[self.point["index"]] = _COMPARE_SWAPS[type(node.ops[self.point["index"]])]()
        elif kind == "binop":
            assert isinstance(node, ast.BinOp)
            node.op = _BINOP_SWAPS[type(node.op)]()
        elif kind == "boolop":
            assert isinstance(node, ast.BoolOp)
            node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        elif kind == "constant":
            assert isinstance(node, ast.Constant)
            if isinstance(node.value, bool):
                node.value = not node.value
            elif isinstance(node.value, int):
                node.value = node.value + self.point["index"]
            elif isinstance(node.value, str):
                text = node.value
                node.value = text + "\x01" if text[-1:] != "\x01" else text[:-1]
        elif kind == "negate":
            test = node.test  # type: ignore[attr-defined]
            node.test = ast.UnaryOp(op=ast.Not(), operand=test)  # type: ignore[attr-defined]
        elif kind == "delete":
            return ast.copy_location(ast.Pass(), node)
        return node


def mutate(source: str, point: dict[str, Any]) -> str:
    tree = ast.parse(source)
    applier = _Apply(point)
    tree = applier.visit(tree)
    if not applier.done:
        raise LookupError(f"mutation point not found: {point}")
    return ast.unparse(ast.fix_missing_locations(tree))


# -- the tree copy and the killers ----------------------------------------------------------


def build_site(destination: Path) -> Path:
    """The working tree laid out as the installed package: site/rescind/{reference,...}."""
    site = destination / "site"
    package = site / "rescind"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    root = ROOT / LAYOUT[""]

    def ignore_root(directory: str, names: list[str]) -> set[str]:
        # src/rescind holds symlinks to the top-level folders; they are copied below, once.
        skipped = set(ignore(directory, names))
        if Path(directory) == root:
            skipped |= {name for name in names if name in LAYOUT}
        return skipped

    shutil.copytree(root, package, ignore=ignore_root)
    for name, folder in LAYOUT.items():
        if name:
            shutil.copytree(ROOT / folder, package / name, ignore=ignore)
    return site


def run_killers(site: Path, limit: float) -> tuple[str, str, float]:
    environment = {**os.environ, "PYTHONPATH": str(site), "PYTHONDONTWRITEBYTECODE": "1"}
    started = time.perf_counter()
    for name, arguments in KILLERS:
        try:
            completed = subprocess.run(
                [sys.executable, "-m", "rescind", *arguments],
                cwd=site.parent,
                env=environment,
                capture_output=True,
                timeout=limit,
            )
        except subprocess.TimeoutExpired:
            return "timeout", name, time.perf_counter() - started
        if completed.returncode != 0:
            return "killed", name, time.perf_counter() - started
    return "survived", "", time.perf_counter() - started


def run_mutant(site: Path, module: str, point: dict[str, Any], limit: float) -> dict[str, Any]:
    relative = module.split("/", 1)[1]
    path = site / "rescind" / "reference" / relative
    original = path.read_text(encoding="utf-8")
    try:
        path.write_text(mutate(original, point), encoding="utf-8")
        status, killer, seconds = run_killers(site, limit)
    finally:
        path.write_text(original, encoding="utf-8")
    return {
        "module": module,
        **point,
        "status": status,
        "killer": killer,
        "seconds": round(seconds, 1),
    }


def _sample(points: list[dict[str, Any]], count: int, rng: random.Random) -> list[dict[str, Any]]:
    if count <= 0 or count >= len(points):
        return points
    return sorted(rng.sample(points, count), key=lambda point: (point["line"], point["col"]))


EXCLUSION_CLASSES = ("equivalent", "masked", "outside-protocol", "detail-unrecorded")
"""Why a surviving mutant is left out of the score: no observable difference at all; a
difference no vector input can reach (another check or a construction invariant stands
first); Python object behaviour no driver sees (a unit test names it); or an informative
error detail on a path whose vectors record no details."""


def _equivalents() -> dict[tuple[str, int, str], tuple[str, str]]:
    path = RESULTS / "mutation-equivalents.json"
    if not path.exists():
        return {}
    return {
        (row["module"], row["line"], row["mutation"]): (row["class"], row["reason"])
        for row in json.loads(path.read_text())
    }


def summarise(
    results: list[dict[str, Any]], equivalents: dict[tuple[str, int, str], tuple[str, str]]
) -> dict[str, Any]:
    modules: dict[str, dict[str, Any]] = {}
    for result in results:
        row = modules.setdefault(
            result["module"],
            {
                "module": result["module"],
                "mutants": 0,
                "killed": 0,
                "timeouts": 0,
                "survived": 0,
                "equivalent": 0,
            },
        )
        row["mutants"] += 1
        if (
            result["status"] == "survived"
            and (result["module"], result["line"], result["mutation"]) in equivalents
        ):
            result["status"] = "equivalent"
            result["class"], result["reason"] = equivalents[
                (result["module"], result["line"], result["mutation"])
            ]
        key = {
            "killed": "killed",
            "timeout": "timeouts",
            "survived": "survived",
            "equivalent": "equivalent",
        }[result["status"]]
        row[key] += 1
    for row in modules.values():
        relevant = row["mutants"] - row["equivalent"]
        row["score"] = (
            round(100 * (row["killed"] + row["timeouts"]) / relevant, 1) if relevant else 100.0
        )
    total = {
        key: sum(row[key] for row in modules.values())
        for key in ("mutants", "killed", "timeouts", "survived", "equivalent")
    }
    relevant = total["mutants"] - total["equivalent"]
    total["score"] = (
        round(100 * (total["killed"] + total["timeouts"]) / relevant, 1) if relevant else 100.0
    )
    _strict_score(total, [r for r in results if r["status"] == "equivalent"])
    return {"modules": sorted(modules.values(), key=lambda row: row["module"]), "total": total}


def _strict_score(total: dict[str, Any], excluded: list[dict[str, Any]]) -> None:
    """Per-class counts of the excluded mutants, and the score that leaves out only the
    strictly equivalent ones (every other exclusion counted as a survivor)."""
    by_class = {name: 0 for name in EXCLUSION_CLASSES}
    for result in excluded:
        by_class[result.get("class", "equivalent")] += 1
    total["excluded_by_class"] = by_class
    relevant = total["mutants"] - by_class["equivalent"]
    total["strict_score"] = (
        round(100 * (total["killed"] + total["timeouts"]) / relevant, 1) if relevant else 100.0
    )


FIELDS = ("mutants", "killed", "timeouts", "survived", "equivalent", "score")


def _markdown_row(name: str, row: dict[str, Any]) -> str:
    return "| " + " | ".join([name, *(str(row[field]) for field in FIELDS)]) + " |"


def _text_row(name: str, row: dict[str, Any]) -> str:
    return f"{name:36} " + " ".join(str(row[field]).rjust(8) for field in FIELDS)


def merge(
    earlier: dict[str, Any], rerun: dict[str, Any], equivalent: list[dict[str, Any]]
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """An earlier report with its survivors replaced by their outcome in this re-run."""
    rows = {row["module"]: {**row, "survived": 0} for row in earlier["modules"]}
    for row in rerun["modules"]:
        for key in ("killed", "timeouts", "survived", "equivalent"):
            rows[row["module"]][key] += row[key]
    for row in rows.values():
        relevant = row["mutants"] - row["equivalent"]
        row["score"] = (
            round(100 * (row["killed"] + row["timeouts"]) / relevant, 1) if relevant else 100.0
        )
    total = {key: sum(row[key] for row in rows.values()) for key in FIELDS[:-1]}
    relevant = total["mutants"] - total["equivalent"]
    total["score"] = round(100 * (total["killed"] + total["timeouts"]) / relevant, 1)
    equivalents: list[dict[str, Any]] = [*earlier.get("equivalents", []), *equivalent]
    _strict_score(total, equivalents)
    modules = sorted(rows.values(), key=lambda row: str(row["module"]))
    return {"modules": modules, "total": total, "equivalents": equivalents}, equivalents


def write_survivors(
    results: list[dict[str, Any]], report: dict[str, Any], arguments: dict[str, Any]
) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"mutation-survivors{arguments['suffix']}.md"
    lines = [
        "# Mutation campaign: surviving mutants",
        "",
        f"Command: `python benchmarks/mutation_campaign.py {arguments['command']}` "
        f"(seed {arguments['seed']}, {arguments['per_module'] or 'all'} mutation points per "
        "module). Killers: `rescind vectors check`, then "
        "`rescind check --seed 0 --example-db none`."
        + (
            " A `--rerun` report: the survivors of the earlier report were re-run on the"
            " current tree and their outcome merged into it."
            if "--rerun" in arguments["command"]
            else ""
        ),
        "",
        "| module | mutants | killed | timeouts | survived | equivalent | score % |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for row in report["modules"]:
        lines.append(_markdown_row(row["module"], row))
    total = report["total"]
    lines += [
        _markdown_row("**total**", total),
        "",
        "## Survivors",
        "",
    ]
    survivors = [result for result in results if result["status"] == "survived"]
    lines += [
        f"- `{result['module']}:{result['line']}` {result['mutation']}" for result in survivors
    ] or ["None."]
    equivalent = report.get("equivalents") or [r for r in results if r["status"] == "equivalent"]
    if equivalent:
        lines += ["", "## Left out of the score", ""]
        lines += [
            f"- `{result['module']}:{result['line']}` {result['mutation']} "
            f"({result.get('class', 'equivalent')}): {result['reason']}"
            for result in equivalent
        ]
    lines += [
        "",
        f"Left out by class: {total['excluded_by_class']}. Strict score (only the "
        f"`equivalent` class left out, every other exclusion counted as a survivor): "
        f"{total['strict_score']}%.",
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _print_table(report: dict[str, Any]) -> None:
    print(f"{'module':36} " + " ".join(field.rjust(8) for field in FIELDS))
    for row in report["modules"]:
        print(_text_row(row["module"], row))
    total = report["total"]
    print(_text_row("total", total))
    print(f"left out by class: {total['excluded_by_class']}; strict score {total['strict_score']}%")


def rescore(path: Path) -> int:
    """The sample of an earlier report as it was drawn (before its survivors were fixed),
    with today's exclusions applied: the independent estimate of the kill rate."""
    earlier = json.loads(path.read_text(encoding="utf-8"))
    results = [
        {**result, "status": "survived" if result["status"] == "equivalent" else result["status"]}
        for result in earlier["results"]
    ]
    _print_table(summarise(results, _equivalents()))
    for result in results:
        if result["status"] == "survived":
            print(f"  still a survivor: {result['module']}:{result['line']} {result['mutation']}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--modules",
        nargs="*",
        default=list(CORE),
        help="module paths under reference/ (default: the core list)",
    )
    parser.add_argument("--all-modules", action="store_true", help="every module of reference/")
    parser.add_argument(
        "--per-module", type=int, default=10, help="mutation points drawn per module (0: all)"
    )
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--min-limit",
        type=float,
        default=60.0,
        help="the least time a mutant's killers may take before it counts as a timeout "
        "(default 60 s; the limit is otherwise four times the unmutated run)",
    )
    parser.add_argument(
        "--rescore",
        type=Path,
        help="print an earlier report's sample scored against today's exclusions, without "
        "running anything: its first score, with each survivor classified but not fixed",
    )
    parser.add_argument(
        "--label",
        default="",
        help="suffix of the result files (mutation-campaign-LABEL.json, "
        "mutation-survivors-LABEL.md), so one sample does not overwrite another",
    )
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--rerun", type=Path, help="re-run only the survivors of an earlier mutation-campaign.json"
    )
    args = parser.parse_args(argv)
    modules = (
        sorted(str(path.relative_to(ROOT)) for path in (ROOT / "reference").rglob("*.py"))
        if args.all_modules
        else args.modules
    )

    if args.rescore:
        return rescore(args.rescore)

    rng = random.Random(args.seed)
    plan: list[tuple[str, dict[str, Any]]] = []
    available = 0
    for module in modules:
        points = mutation_points((ROOT / module).read_text(encoding="utf-8"))
        available += len(points)
        plan += [(module, point) for point in _sample(points, args.per_module, rng)]
    if args.rerun:
        keys = ("line", "col", "kind", "mutation", "index", "node")
        earlier = json.loads(args.rerun.read_text(encoding="utf-8"))["survivors"]
        plan = [(row["module"], {key: row[key] for key in keys}) for row in earlier]

    with tempfile.TemporaryDirectory(prefix="rescind-mutants-") as scratch:
        sites = [build_site(Path(scratch) / f"w{index}") for index in range(max(1, args.workers))]
        started = time.perf_counter()
        status, killer, baseline = run_killers(sites[0], 600)
        if status != "survived":
            print(
                f"baseline fails ({killer}): the unmutated tree must pass `rescind {killer}` first",
                file=sys.stderr,
            )
            return 2
        # On a shared machine the baseline may run in a quiet moment and two mutants then
        # run side by side under load: a floor keeps slow killers from counting as detected.
        limit = max(args.min_limit, 4 * baseline)
        results: list[dict[str, Any]] = []
        free = list(sites)
        with concurrent.futures.ThreadPoolExecutor(len(sites)) as pool:
            pending: dict[concurrent.futures.Future[dict[str, Any]], Path] = {}
            queue: Iterator[tuple[str, dict[str, Any]]] = iter(plan)
            for module, point in queue:
                while not free:
                    done, _ = concurrent.futures.wait(
                        pending, return_when=concurrent.futures.FIRST_COMPLETED
                    )
                    for future in done:
                        results.append(future.result())
                        free.append(pending.pop(future))
                site = free.pop()
                pending[pool.submit(run_mutant, site, module, point, limit)] = site
                if not args.json:
                    where = f"{module}:{point['line']} {point['mutation']}"
                    count = f"[{len(results) + len(pending)}/{len(plan)}]"
                    print(f"  {count} {where}", file=sys.stderr, flush=True)
            for future in concurrent.futures.as_completed(pending):
                results.append(future.result())
        wall = time.perf_counter() - started

    report = summarise(results, _equivalents())
    equivalent = [r for r in results if r["status"] == "equivalent"]
    if args.rerun:
        report, equivalent = merge(
            json.loads(args.rerun.read_text(encoding="utf-8")), report, equivalent
        )
    command = " ".join(argv if argv is not None else sys.argv[1:])
    suffix = f"-{args.label}" if args.label else ""
    survivors = write_survivors(
        results,
        report,
        {
            "command": command,
            "seed": args.seed,
            "per_module": args.per_module,
            "suffix": suffix,
        },
    )
    report.update(
        {
            "baseline_seconds": round(baseline, 1),
            "limit_seconds": round(limit, 1),
            "wall_seconds": round(wall, 1),
            "mutation_points_available": available,
            "mutants_run": len(plan),
            "survivors_file": str(survivors.relative_to(ROOT)),
            "survivors": [r for r in results if r["status"] == "survived"],
            "equivalents": equivalent,
            "results": results,
        }
    )
    (RESULTS / f"mutation-campaign{suffix}.json").write_text(
        json.dumps(report, indent=2) + "\n", encoding="utf-8"
    )
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        _print_table(report)
        print(
            f"{len(plan)} of {available} mutation points in {len(modules)} modules; {wall:.0f} s "
            f"(baseline {baseline:.1f} s); survivors: {survivors.relative_to(ROOT)}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
