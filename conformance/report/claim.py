"""The conformance claim: what a driver declared, and what the run found of each part of it.

Every report opens with it. A claim is the driver's declaration (implementation and the
upstream commit it is built from, capabilities, number profiles, restrictions) beside the
suite's version and the digest of the vector set it was checked against, and a status for
every capability, profile and conformance class:

- ``conforms``: every check of it ran, was answered, and passed (a check a declared
  restriction excuses is counted as restricted, not as passed);
- ``partial``: nothing failed, but some checks were left unanswered (``unsupported`` outside
  the declared restrictions, members left unanswered, an exploration area compared under
  90% of its traces to their end);
- ``fails``: a required check failed or errored (expected failures included: a listed
  known gap still means the part does not conform, even where it does not fail the run);
- ``unchecked``: declared, but no check of it was answered in this run (``--select``, a
  dead driver);
- ``not claimed``: not declared by the driver.

Conformance classes group capabilities by the protocol's roles (``CLASSES``): a class is
claimed when the driver declares every capability (and profile) of it and of the classes it
requires, and conforms only when all of them conform. ``rescind check --claim CLASS`` runs
that class and exits 0 only when it conforms.
"""

from __future__ import annotations

import hashlib
import importlib.resources
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any, Literal

import attrs

from rescind import __version__
from rescind.conformance.runner import EXIT_PARTIAL, RunReport
from rescind.conformance.runner_check import REQUIRED_TIERS, Result

ClaimStatus = Literal["conforms", "partial", "fails", "unchecked", "not claimed"]
STATUSES: tuple[ClaimStatus, ...] = ("not claimed", "fails", "partial", "unchecked", "conforms")
"""Every claim status, worst first."""


@attrs.frozen
class ConformanceClass:
    name: str
    role: str
    capabilities: tuple[str, ...] = ()
    profile: str | None = None
    """For a profile class: the number profile or protocol extension it is."""
    requires: tuple[str, ...] = ()
    """Classes that must conform too."""


CLASSES: tuple[ConformanceClass, ...] = (
    ConformanceClass(
        "canonical", "canonical input bytes, worker and host input fingerprints", ("canonical",)
    ),
    ConformanceClass(
        "worker",
        "the worker side: grants and manifests, the operation journal, the session authorizer, "
        "authenticated frames",
        ("grants", "journal", "authorizer", "frames"),
        requires=("canonical",),
    ),
    ConformanceClass(
        "host",
        "the host side: plan fingerprints and operation keys, the workflow ledger, "
        "authenticated frames",
        ("host-keys", "ledger", "frames"),
        requires=("canonical",),
    ),
    ConformanceClass(
        "storage", "authenticated records, compare-and-swap revisions, fencing", ("storage",)
    ),
    ConformanceClass(
        "session",
        "worker and host sessions over a store: crash, recovery and exchange scenarios",
        ("session",),
        requires=("worker", "host", "storage"),
    ),
    ConformanceClass(
        "saga", "workflow-level compensation plans and lifecycles (agentctl, CaseHub)", ("saga",)
    ),
    ConformanceClass(
        "f64",
        "the informative splash-v5-f64 number profile (binary floats)",
        profile="splash-v5-f64",
        requires=("canonical",),
    ),
    ConformanceClass(
        "compensation-reconcile",
        "Rescind's compensation reconciliation extension (not upstream)",
        profile="splash-v5+compensation-reconcile",
        requires=("session",),
    ),
)
BY_NAME: Mapping[str, ConformanceClass] = {each.name: each for each in CLASSES}
NORMATIVE_PROFILE = "splash-v5"


def closure(name: str) -> tuple[ConformanceClass, ...]:
    """The class and every class it requires, each once, requirements first."""
    seen: dict[str, ConformanceClass] = {}

    def visit(current: str) -> None:
        for required in BY_NAME[current].requires:
            visit(required)
        seen.setdefault(current, BY_NAME[current])

    visit(name)
    return tuple(seen.values())


def class_capabilities(name: str) -> frozenset[str]:
    return frozenset(cap for each in closure(name) for cap in each.capabilities)


def class_profiles(name: str) -> frozenset[str]:
    return frozenset(each.profile for each in closure(name) if each.profile is not None)


@attrs.frozen
class Tally:
    """What happened to the checks of one part of the claim."""

    passed: int = 0
    failed: int = 0
    unanswered: int = 0
    restricted: int = 0
    not_applicable: int = 0
    other: int = 0

    def status(self, claimed: bool) -> ClaimStatus:
        if not claimed:
            return "not claimed"
        if self.failed:
            return "fails"
        if self.unanswered:
            return "partial"
        # A restricted check was answered except where a declared restriction excuses it.
        return "conforms" if self.passed or self.restricted else "unchecked"

    def to_json(self) -> dict[str, int]:
        return {
            "pass": self.passed,
            "fail": self.failed,
            "unanswered": self.unanswered,
            "restricted": self.restricted,
            "notApplicable": self.not_applicable,
        }


def tally(results: Iterable[Result]) -> Tally:
    counts = dict.fromkeys(("passed", "failed", "unanswered", "restricted", "na", "other"), 0)
    for result in results:
        status = result.outcome.status
        required = result.check.tier in REQUIRED_TIERS
        if status == "pass":
            counts["passed"] += 1
        elif status in ("fail", "error", "xfail") and required:
            counts["failed"] += 1
        elif status == "unsupported" and required:
            counts["unanswered"] += 1
        elif status == "restricted":
            counts["restricted"] += 1
        elif status == "not-applicable":
            counts["na"] += 1
        else:
            counts["other"] += 1
    return Tally(
        counts["passed"],
        counts["failed"],
        counts["unanswered"],
        counts["restricted"],
        counts["na"],
        counts["other"],
    )


@attrs.frozen
class Part:
    """A capability, a profile or a class, with its status and tally."""

    name: str
    status: ClaimStatus
    tally: Tally
    missing: tuple[str, ...] = ()
    """For a class: the capabilities and profiles the driver did not declare."""

    def to_json(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"name": self.name, "status": self.status, **self.tally.to_json()}
        if self.missing:
            entry["missing"] = list(self.missing)
        return entry


@attrs.frozen
class Claim:
    implementation: str
    version: str
    upstream: str | None
    capabilities: tuple[str, ...]
    profiles: tuple[str, ...]
    restrictions: tuple[str, ...]
    suite_version: str
    vectors_digest: str
    verdict: str
    classes: tuple[Part, ...]
    capability_parts: tuple[Part, ...]
    profile_parts: tuple[Part, ...]
    model: Tally
    """The suite's own model proofs (no capability: they run in process)."""
    restricted_by: Mapping[str, int]
    """Per declared restriction: how many checks it excused."""
    not_run: int = 0
    """Checks the run's deadline left without an answer."""
    total: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "implementation": {
                "name": self.implementation,
                "version": self.version,
                "upstream": self.upstream,
            },
            "suite": {"name": "rescind", "version": self.suite_version},
            "vectors": self.vectors_digest,
            "capabilities": list(self.capabilities),
            "profiles": list(self.profiles),
            "restrictions": [
                {"name": name, "checks": self.restricted_by.get(name, 0)}
                for name in self.restrictions
            ],
            "classes": [part.to_json() for part in self.classes],
            "capabilityStatus": [part.to_json() for part in self.capability_parts],
            "profileStatus": [part.to_json() for part in self.profile_parts],
            "model": self.model.to_json(),
            "notRun": self.not_run,
        }


VERDICTS: Mapping[int, str] = {
    0: "PASS",
    1: "FAIL",
    2: "HARNESS ERROR",
    EXIT_PARTIAL: "PARTIAL",
    4: "INCOMPLETE",
}


@lru_cache(maxsize=1)
def vectors_digest() -> str:
    """sha256 over the names and bytes of every vector file the suite ships (the set a claim
    was checked against)."""
    digest = hashlib.sha256()
    root = importlib.resources.files("rescind.vectors")
    for entry in sorted(root.iterdir(), key=lambda item: item.name):
        if entry.name.endswith(".json"):
            digest.update(entry.name.encode() + b"\0" + entry.read_bytes() + b"\0")
    return "sha256:" + digest.hexdigest()


def _worst(statuses: Iterable[ClaimStatus]) -> ClaimStatus:
    listed = list(statuses)
    return min(listed, key=STATUSES.index) if listed else "unchecked"


def claim_of(report: RunReport) -> Claim:
    declared_caps = set(report.capabilities)
    declared_profiles = set(report.profiles) or {NORMATIVE_PROFILE}
    by_cap: dict[str, list[Result]] = {}
    by_profile: dict[str, list[Result]] = {}
    model: list[Result] = []
    for result in report.results:
        if result.check.capability == "model":
            model.append(result)
            continue
        by_cap.setdefault(result.check.capability, []).append(result)
        profile = result.check.profile or NORMATIVE_PROFILE
        if result.check.capability in declared_caps:
            by_profile.setdefault(profile, []).append(result)
    cap_names = sorted(set(by_cap) | declared_caps)
    capability_parts = tuple(
        Part(
            name,
            tally(by_cap.get(name, ())).status(name in declared_caps),
            tally(by_cap.get(name, ())),
        )
        for name in cap_names
    )
    profile_names = sorted(set(by_profile) | declared_profiles)
    profile_parts = tuple(
        _part(name, by_profile.get(name, ()), name in declared_profiles) for name in profile_names
    )
    parts = {part.name: part for part in (*capability_parts, *profile_parts)}
    implementation_results = [r for r in report.results if r.check.capability != "model"]
    classes = tuple(
        _class_part(each, implementation_results, parts, declared_caps, declared_profiles)
        for each in CLASSES
    )
    restricted_by: dict[str, int] = {}
    for result in report.results:
        for name in result.outcome.restricted_by:
            restricted_by[name] = restricted_by.get(name, 0) + 1
    code = report.exit_code()
    verdict = VERDICTS.get(code, f"EXIT {code}")
    if report.accepted_partial:
        verdict = "PARTIAL (accepted)"
    return Claim(
        implementation=report.implementation,
        version=report.version,
        upstream=report.upstream,
        capabilities=report.capabilities,
        profiles=report.profiles,
        restrictions=report.restrictions,
        suite_version=__version__,
        vectors_digest=vectors_digest(),
        verdict=verdict,
        classes=classes,
        capability_parts=capability_parts,
        profile_parts=profile_parts,
        model=tally(model),
        restricted_by=restricted_by,
        not_run=report.not_run,
        total=len(report.results),
    )


def _part(name: str, results: Sequence[Result], claimed: bool) -> Part:
    counted = tally(results)
    return Part(name, counted.status(claimed), counted)


def _class_part(
    each: ConformanceClass,
    results: Sequence[Result],
    parts: Mapping[str, Part],
    declared_caps: set[str],
    declared_profiles: set[str],
) -> Part:
    """A class's status is the worst of its capabilities' and its profile's; its tally counts
    each of its checks once (a check of a class capability, or of the class's profile)."""
    caps = class_capabilities(each.name)
    profiles = class_profiles(each.name)
    mine = [
        result
        for result in results
        if result.check.capability in caps
        or (result.check.profile in profiles and result.check.capability in declared_caps)
    ]
    counted = tally(mine)
    missing = tuple(sorted((caps - declared_caps) | (profiles - declared_profiles)))
    if missing:
        return Part(each.name, "not claimed", counted, missing)
    statuses = [parts[name].status for name in (*sorted(caps), *sorted(profiles))]
    return Part(each.name, _worst(statuses), counted)


def held(
    report: RunReport, claim_names: Sequence[str] = (), accept_partial: bool = False
) -> RunReport:
    """``report`` held to the classes asked for with ``--claim``: they alone decide (a class
    that fails: 1; not claimed, unchecked or partial: 3; else 0), unless the run is a harness
    error (2) or incomplete (4).
    ``accept_partial`` turns a partial run into 0 (the reports still say PARTIAL)."""
    code = report.own_exit_code()
    if claim_names and code in (0, 1, EXIT_PARTIAL):
        # Only the classes asked for decide (a harness error or the deadline still does).
        statuses = {part.name: part.status for part in claim_of(report).classes}
        asked = [statuses[name] for name in claim_names]
        if "fails" in asked:
            code = 1
        elif any(status != "conforms" for status in asked):
            code = EXIT_PARTIAL
        else:
            code = 0
    accepted = accept_partial and code == EXIT_PARTIAL
    return attrs.evolve(report, held_to=0 if accepted else code, accepted_partial=accepted)


def headline(claim: Claim) -> str:
    """The first line of every text report: the verdict, the implementation, and each class
    that is claimed (its status, and for a partial or failing one what was not answered)."""
    upstream = f" (upstream {claim.upstream})" if claim.upstream else ""
    classes = "; ".join(_class_words(part) for part in claim.classes)
    not_run = (
        f" ({claim.not_run} of {claim.total} checks not run: deadline)" if claim.not_run else ""
    )
    return f"{claim.verdict}{not_run} {claim.implementation} {claim.version}{upstream}: {classes}"


def _class_words(part: Part) -> str:
    if part.status == "not claimed":
        return f"{part.name} not claimed"
    counts = []
    if part.tally.failed:
        counts.append(f"{part.tally.failed} failed")
    if part.tally.unanswered:
        counts.append(f"{part.tally.unanswered} unanswered")
    if part.tally.restricted:
        counts.append(f"{part.tally.restricted} restricted")
    detail = f" ({', '.join(counts)})" if counts else ""
    return f"{part.name} {part.status}{detail}"


def detail_lines(claim: Claim) -> list[str]:
    """The lines under the headline: the suite and vector set, the declaration, and every
    capability or profile whose status is not ``conforms``."""
    lines = [
        f"suite rescind {claim.suite_version}, vectors {claim.vectors_digest}",
        "declared: capabilities "
        + (", ".join(claim.capabilities) or "none")
        + "; profiles "
        + (", ".join(claim.profiles) or NORMATIVE_PROFILE)
        + "; restrictions "
        + (
            ", ".join(
                f"{name} ({claim.restricted_by.get(name, 0)} checks)" for name in claim.restrictions
            )
            or "none"
        ),
    ]
    for part in (*claim.capability_parts, *claim.profile_parts):
        if part.status in ("partial", "fails", "unchecked"):
            kind = "profile" if part in claim.profile_parts else "capability"
            lines.append(f"{kind} {_class_words(part)}")
    return lines
