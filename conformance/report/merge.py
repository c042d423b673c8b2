"""Joining the JSON reports of a sharded run (``rescind check --shard I/N --json``) into the
report of the whole run, from which JSON, JUnit and Markdown are written as for any run.

A shard report carries a ``run`` section: the seed, the shard and the plan (how many checks
the unsharded run holds and a digest of their ids). Shards join only when they are all of
the same plan, seed and implementation, each shard appears once, no check id appears twice
and together they hold every check of the plan; exploration slices (``<id>#shard-I/N``) join
into one check ``<id>`` that fails if any slice failed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from rescind.conformance.comparison import Comparison
from rescind.conformance.explore.sharding import SLICE_MARK, Shard, unsliced
from rescind.conformance.harness import Driver
from rescind.conformance.report.run import NOT_A_VECTOR
from rescind.conformance.runner import RunReport
from rescind.conformance.runner_check import Check, Outcome, Result, Status
from rescind.reference.errors import RescindError


class ReportMergeError(RescindError):
    """A set of shard reports that cannot be joined."""


class NotAShardReport(ReportMergeError):
    code = "report_not_a_shard"


class IncompatibleShards(ReportMergeError):
    code = "report_shards_incompatible"


class OverlappingShards(ReportMergeError):
    code = "report_shards_overlap"


class IncompleteShards(ReportMergeError):
    code = "report_shards_incomplete"


def plan_section(check_ids: Iterable[str]) -> dict[str, Any]:
    """The plan of a run: its check count and a digest of the (unsliced) ids."""
    ids = sorted({unsliced(check_id) for check_id in check_ids})
    digest = hashlib.sha256("\n".join(ids).encode("utf-8")).hexdigest()
    return {"checks": len(ids), "digest": digest}


def run_section(seed: int, shard: Shard | None, plan: Mapping[str, Any]) -> dict[str, Any]:
    return {"seed": seed, "shard": None if shard is None else str(shard), "plan": dict(plan)}


# Worst first: a joined exploration check takes the worst status of its slices.
# A slice left unanswered makes the joined check unanswered: a pass is earned by every slice.
_SEVERITY: tuple[Status, ...] = (
    "error",
    "fail",
    "xpass",
    "xfail",
    "not-run",
    "unsupported",
    "pass",
    "restricted",
    "not-applicable",
)
_SAME = ("seed", "plan")


def _shard_of(document: Mapping[str, Any], name: str) -> Shard:
    run = document.get("run")
    if not isinstance(run, Mapping) or not isinstance(run.get("shard"), str):
        raise NotAShardReport(reason="no run.shard section", report=name)
    try:
        return Shard.parse(run["shard"])
    except ValueError as error:
        raise NotAShardReport(reason="run.shard is not i/n", report=name) from error


def _identity(document: Mapping[str, Any]) -> tuple[Any, ...]:
    run = document["run"]
    return (
        *(repr(run.get(key)) for key in _SAME),
        repr(document.get("implementation")),
        repr(document.get("capabilities")),
        repr(document.get("profiles")),
        repr(document.get("restrictions")),
    )


def merge(documents: Sequence[tuple[str, Mapping[str, Any]]]) -> tuple[RunReport, dict[str, Any]]:
    """The joined report and its ``run`` section, from ``(name, JSON report)`` pairs."""
    if not documents:
        raise IncompleteShards(reason="no report given")
    shards = [_shard_of(document, name) for name, document in documents]
    first_name, first = documents[0]
    for (name, document), shard in zip(documents, shards, strict=True):
        if shard.count != shards[0].count or _identity(document) != _identity(first):
            raise IncompatibleShards(
                reason="seed, plan, implementation or shard count differ",
                report=name,
                other=first_name,
            )
    seen: dict[int, str] = {}
    for (name, _), shard in zip(documents, shards, strict=True):
        if shard.index in seen:
            raise OverlappingShards(reason="a shard given twice", shard=shard.index, report=name)
        seen[shard.index] = name
    missing = sorted(set(range(1, shards[0].count + 1)) - set(seen))
    if missing:
        raise IncompleteShards(reason="shards missing", missing=",".join(map(str, missing)))
    results = _join([document for _, document in documents])
    plan = first["run"]["plan"]
    if plan_section(result.check.id for result in results) != plan:
        raise IncompleteShards(reason="the shards do not hold every check of the plan")
    report = RunReport(
        implementation=first["implementation"]["name"],
        version=first["implementation"]["version"],
        capabilities=tuple(first.get("capabilities", ())),
        profiles=tuple(first.get("profiles", ())),
        restrictions=tuple(first.get("restrictions", ())),
        upstream=first.get("upstream"),
        results=tuple(results),
        harness_failures=tuple(
            failure for _, document in documents for failure in document["harnessFailures"]
        ),
        notes=tuple(str(note) for _, document in documents for note in document.get("notes", ())),
        # Shards run side by side: the joined run takes as long as its slowest shard.
        seconds=max(float(document.get("seconds", 0.0)) for _, document in documents),
    )
    return report, run_section(first["run"]["seed"], None, plan)


def _join(documents: Sequence[Mapping[str, Any]]) -> list[Result]:
    plain: dict[str, Result] = {}
    slices: dict[str, list[Mapping[str, Any]]] = {}
    order: list[str] = []
    for document in documents:
        for entry in document["checks"]:
            check_id = str(entry["id"])
            base = unsliced(check_id)
            if base != check_id:
                if base not in slices:
                    slices[base] = []
                    order.append(base)
                slices[base].append(entry)
                continue
            if check_id in plain or check_id in slices:
                raise OverlappingShards(reason="a check in two shards", check=check_id)
            plain[check_id] = _result(entry, check_id, entry["status"], entry["message"])
            order.append(check_id)
    for base, parts in slices.items():
        if base in plain:
            raise OverlappingShards(reason="a check in two shards", check=base)
        labels = [str(part["id"])[len(base) + len(SLICE_MARK) :] for part in parts]
        if len(set(labels)) != len(labels):
            raise OverlappingShards(reason="an exploration slice given twice", check=base)
        worst = min(parts, key=lambda part: _SEVERITY.index(part["status"]))
        status = worst["status"]
        message = "; ".join(
            f"{label}: {part['message']}"
            for label, part in sorted(zip(labels, parts, strict=True), key=lambda item: item[0])
        )
        seconds = sum(float(part.get("seconds", 0.0)) for part in parts)
        # The worst slice speaks for the joined check (its comparison, if it has one).
        plain[base] = _result(worst, base, status, message, seconds)
    return [plain[check_id] for check_id in order]


def _not_runnable(_: Driver) -> Outcome:
    raise RuntimeError("a check read back from a report cannot run again")


def _result(
    entry: Mapping[str, Any],
    check_id: str,
    status: Status,
    message: str,
    seconds: float | None = None,
) -> Result:
    provenance = entry.get("provenance")
    check = Check(
        id=check_id,
        tier=entry["tier"],
        rule=entry["rule"],
        capability=entry["capability"],
        source=entry["source"],
        run=_not_runnable,
        profile=entry.get("profile"),
        provenance=None if provenance in (None, NOT_A_VECTOR) else str(provenance),
    )
    taken = float(entry.get("seconds", 0.0)) if seconds is None else seconds
    restricted_by = tuple(str(name) for name in entry.get("restrictedBy", ()))
    outcome = Outcome(
        status, message, taken, _comparison(entry, check_id), restricted_by=restricted_by
    )
    return Result(check, outcome)


def _comparison(entry: Mapping[str, Any], check_id: str) -> Comparison | None:
    """A vector check's comparison, carried through as read (bounded again on the way)."""
    if "comparison" not in entry:
        return None
    try:
        return Comparison.from_json(entry["comparison"])
    except ValueError as error:
        raise NotAShardReport(reason=f"malformed comparison: {error}", check=check_id) from None
