"""Provenance from observation: what a driver built from upstream's code answered to every
golden vector, recorded once (``rescind vectors observe``) and read by ``rescind vectors
export`` to derive provenance.

An observation file (``conformance/observations/<name>.json``, package data: an installed
``rescind vectors check`` reads it too) is deterministic: sorted keys, no timestamps. It holds

* ``format``: ``rescind-observation/1``;
* ``driver``: the implementation's ``name`` and ``version`` from its hello;
* ``upstream``: the ``repository`` and ``commit`` the driver is built from;
* ``profiles``: the number profiles the driver declared;
* ``producedBy``: the command that wrote it, driver paths relative to the repository root;
* ``vectors``: per vector check id (a vector id, or ``<id>.f64`` for the informative f64
  expectation), ``answered`` (``matched``, ``differed``, ``partial``, ``unsupported`` or
  ``not-applicable``) and ``reply``, a SHA-256 digest of the driver's replies (never the
  replies themselves); a ``partial`` entry also has ``unanswered``, the sorted JSON pointers
  (into the vector's ``expected``) of the members the driver answered with the marker
  ``{"unsupported": reason}``, every other member having matched.

Export (``derive``): a vector some observation ``matched`` becomes ``upstream-observed``,
citing the file, the driver and the upstream commit, with the earlier evidence kept in the
citation text (an ``upstream-test`` vector too: the kinds are ordered strongest first, and
upstream's code answering it is stronger than a test asserting it). A vector any observation
``differed`` on is never upgraded, and export fails unless ``rescind.conformance.vectors.findings``
lists it as a named finding; a vector observed only ``partial`` keeps its kind (a kind never
claims more than the evidence) and its citation gains "observed upstream in part (FILE: every
member matched except /pointer, ...)"; ``unsupported`` and ``not-applicable`` leave it as it
was.
Provenance is outside a vector's meaning digest, so no id changes.
"""

from __future__ import annotations

import hashlib
import importlib.resources
import json
import os
import re
import shlex
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from rescind.conformance.driver import REFERENCE_CAPABILITY
from rescind.conformance.harness import Driver, Reply, Upstream
from rescind.conformance.provenance import OBSERVATION_DIRECTORY, SPLASH, Provenance
from rescind.conformance.runner import run_checks
from rescind.conformance.runner_check import Check, Outcome
from rescind.conformance.vectors.checks import vector_checks
from rescind.conformance.vectors.findings import OBSERVED_DIFFERENCES, ObservedDifference
from rescind.conformance.vectors.format import VectorFile, VectorTest
from rescind.reference.errors import RescindError

FORMAT = "rescind-observation/1"
ANSWERS: tuple[str, ...] = ("matched", "differed", "partial", "unsupported", "not-applicable")
_BY_STATUS = {
    "pass": "matched",
    "fail": "differed",
    "unsupported": "unsupported",
    # an observation records what upstream answered; whether a restriction excuses it is the
    # claim's business, not the observation's
    "restricted": "unsupported",
    "not-applicable": "not-applicable",
}
OBSERVABLE_TOPICS: Mapping[str, frozenset[str]] = {
    "ymote/Splash": frozenset(
        {
            "authorizer-traces",
            "canonical-input",
            "frames",
            "grants",
            "host-keys",
            "journal-codec",
            "journal-traces",
            "ledger-codec",
            "ledger-traces",
            "session-scenarios",
            "splash-upstream-tests",
            "storage",
        }
    )
}
"""Per upstream repository, the vector topics whose expectations describe it. The saga topics
describe agentctl and CaseHub, and ``compensation-reconcile`` is Rescind's own extension:
a driver built from Splash cannot observe them, and a "match" there would be no evidence."""

_NAME = re.compile(r"^[a-z0-9]+(?:[.-][a-z0-9]+)*$")
_DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")


class ObservationError(RescindError):
    """An observation file or run that cannot be used."""


class InvalidObservation(ObservationError):
    code = "observation_invalid"


class ObservationIncomplete(ObservationError):
    """The driver broke the protocol while being observed: nothing is written."""

    code = "observation_incomplete"


def _check_unanswered(instance: Observed, _: object, value: tuple[str, ...]) -> None:
    if (instance.answered == "partial") != bool(value):
        raise ValueError("a partial answer, and only one, lists its unanswered members")
    if list(value) != sorted(set(value)) or not all(p.startswith("/") for p in value):
        raise ValueError("unanswered members are sorted, distinct JSON pointers")


@attrs.frozen
class Observed:
    answered: str = attrs.field(validator=attrs.validators.in_(ANSWERS))
    reply: str = attrs.field(validator=attrs.validators.matches_re(_DIGEST))
    unanswered: tuple[str, ...] = attrs.field(default=(), validator=_check_unanswered)
    """For ``partial``: the JSON pointers of the members the driver could not answer."""

    def to_json(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"answered": self.answered, "reply": self.reply}
        if self.unanswered:
            entry["unanswered"] = list(self.unanswered)
        return entry


@attrs.frozen
class Observation:
    name: str = attrs.field(validator=attrs.validators.matches_re(_NAME))
    """The file's stem: ``conformance/observations/<name>.json``."""
    implementation: str
    version: str
    upstream: Upstream
    profiles: tuple[str, ...]
    produced_by: str
    vectors: Mapping[str, Observed] = attrs.field(eq=False)

    @property
    def path(self) -> str:
        return f"{OBSERVATION_DIRECTORY}{self.name}.json"

    @property
    def driver(self) -> str:
        return f"{self.implementation} {self.version}"

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "driver": {"name": self.implementation, "version": self.version},
            "upstream": {"repository": self.upstream.repository, "commit": self.upstream.commit},
            "profiles": sorted(self.profiles),
            "producedBy": self.produced_by,
            "vectors": {key: self.vectors[key].to_json() for key in sorted(self.vectors)},
        }

    def render(self) -> str:
        return json.dumps(self.to_json(), indent=2, sort_keys=True, ensure_ascii=True) + "\n"

    def counts(self) -> dict[str, int]:
        tally = dict.fromkeys(ANSWERS, 0)
        for observed in self.vectors.values():
            tally[observed.answered] += 1
        return tally

    @classmethod
    def from_json(cls, name: str, document: Mapping[str, Any]) -> Observation:
        try:
            if document["format"] != FORMAT:
                raise ValueError(f"format is not {FORMAT}")
            driver, upstream = document["driver"], document["upstream"]
            return cls(
                name=name,
                implementation=str(driver["name"]),
                version=str(driver["version"]),
                upstream=Upstream(str(upstream["repository"]), str(upstream["commit"])),
                profiles=tuple(str(profile) for profile in document["profiles"]),
                produced_by=str(document["producedBy"]),
                vectors={
                    str(key): Observed(
                        str(entry["answered"]),
                        str(entry["reply"]),
                        tuple(str(p) for p in entry.get("unanswered", [])),
                    )
                    for key, entry in document["vectors"].items()
                },
            )
        except (KeyError, TypeError, ValueError, AttributeError):
            raise InvalidObservation(
                file=f"{name}.json", reason="not an observation file"
            ) from None


def default_directory() -> Path:
    """Where observation files live: package data of ``rescind.conformance`` (resolved: in a
    checkout the package is reached through the src/rescind link)."""
    return (Path(str(importlib.resources.files("rescind.conformance"))) / "observations").resolve()


def load(directory: Path | None = None) -> tuple[Observation, ...]:
    """Every ``*.json`` observation in ``directory`` (default: the package's), by name; none
    when the directory does not exist."""
    folder = default_directory() if directory is None else directory
    if not folder.is_dir():
        return ()
    found = []
    for path in sorted(folder.glob("*.json")):
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            raise InvalidObservation(file=path.name, reason="not json") from None
        found.append(Observation.from_json(path.stem, document))
    return tuple(found)


# -- observing ---------------------------------------------------------------------------


def reply_json(reply: Reply) -> dict[str, Any]:
    if reply.kind == "unsupported":
        return {"unsupported": reply.unsupported}
    if reply.kind == "error":
        return {"error": {"code": reply.error_code, "definite": reply.definite}}
    return {"ok": dict(reply.ok or {})}


def reply_digest(exchanges: Sequence[tuple[str, Mapping[str, Any]]]) -> str:
    """SHA-256 of ``[[op, reply], ...]`` as compact JSON with sorted keys (ASCII)."""
    text = json.dumps(
        [[op, reply] for op, reply in exchanges],
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=True,
    )
    return "sha256:" + hashlib.sha256(text.encode("ascii")).hexdigest()


class _Recorder(Driver):
    """Passes requests to a driver and keeps its replies for the check being run."""

    def __init__(self, inner: Driver, log: list[tuple[str, dict[str, Any]]]) -> None:
        self._inner = inner
        self._log = log
        self.hello = inner.hello

    def request(self, op: str, args: Mapping[str, Any]) -> Reply:
        reply = self._inner.request(op, args)
        self._log.append((op, reply_json(reply)))
        return reply

    def close(self) -> None:
        self._inner.close()


def answered_in_part(outcome: Outcome) -> tuple[str, ...]:
    """The sorted pointers of the unanswered members of a check answered in part (status
    ``unsupported``, a comparison with unanswered members and no differences); empty for any
    other outcome (a trace cut at an unsupported step is ``unsupported``, not partial)."""
    comparison = outcome.comparison
    unanswered = outcome.status in ("unsupported", "restricted")
    if not unanswered or comparison is None or comparison.differences:
        return ()
    return tuple(sorted({comparison.at + member.path for member in comparison.unanswered}))


def relative_command(command: str, root: Path) -> str:
    """``command`` with every path inside ``root`` (absolute, or relative with a ``/``)
    written relative to it, normalised: the same command wherever the checkout is."""
    base = Path(os.path.abspath(root))
    words = []
    for word in shlex.split(command):
        path = Path(os.path.normpath(base / word))  # an absolute ``word`` replaces ``base``
        if "/" in word and path.is_relative_to(base) and path.exists():
            word = str(path.relative_to(base))
        words.append(word)
    return shlex.join(words)


def observe(
    start_driver: Callable[[], Driver],
    command: str,
    *,
    name: str | None = None,
    upstream: Upstream | None = None,
    checks: Iterable[Check] | None = None,
) -> Observation:
    """Run every vector check (the same requests as ``rescind check``) through the driver and
    record what it answered. ``upstream`` is needed when the driver's hello does not say."""
    log: list[tuple[str, dict[str, Any]]] = []
    seen: dict[str, Observed] = {}
    topic_of: dict[str, str] = {}
    declared: list[Upstream | None] = []

    def start() -> Driver:
        driver = start_driver()
        declared.append(driver.hello.upstream)
        return _Recorder(driver, log)

    def record(check: Check, outcome: Outcome) -> None:
        answered = _BY_STATUS.get(outcome.status)
        if answered is not None:
            exchanges = [] if answered == "not-applicable" else log
            unanswered = answered_in_part(outcome)
            if unanswered:
                answered = "partial"
            seen[check.id] = Observed(answered, reply_digest(exchanges), unanswered)
            topic_of[check.id] = check.source
        log.clear()

    log.clear()
    chosen = list(vector_checks() if checks is None else checks)
    report = run_checks(chosen, start, progress=record)
    if REFERENCE_CAPABILITY in report.capabilities:
        # Rescind's reference answering its own vectors is no evidence about upstream.
        raise InvalidObservation(reason="the driver is the rescind reference, not upstream")
    if report.harness_broken:
        raise ObservationIncomplete(
            reason="the driver broke the protocol while observed",
            failures=len(report.harness_failures),
        )
    hello_upstream = upstream or next((u for u in declared if u is not None), None)
    if hello_upstream is None:
        raise InvalidObservation(
            reason="no upstream: give --upstream, or implementation.upstream in hello"
        )
    # A topic the upstream does not define (the sagas, Rescind's extension) is never evidence
    # about it, whatever the driver answered: recorded as not applicable.
    observable = OBSERVABLE_TOPICS.get(hello_upstream.repository, frozenset())
    for check_id, topic in topic_of.items():
        if topic not in observable:
            seen[check_id] = Observed("not-applicable", reply_digest([]), ())
    stem = name or re.sub(r"[^a-z0-9.-]+", "-", report.implementation.lower()).strip("-.")
    return Observation(
        name=stem,
        implementation=report.implementation,
        version=report.version,
        upstream=hello_upstream,
        profiles=report.profiles,
        produced_by=command,
        vectors=seen,
    )


# -- deriving provenance -----------------------------------------------------------------

_PREVIOUS = {
    "upstream-test": "also asserted by upstream test",
    "upstream-code": "also read in upstream code",
    "design-doc": "also stated by an upstream design text",
    "derived": "also derived",
    "assumed": "previously assumed",
}


def _pinned() -> Upstream:
    repository, commit = SPLASH.split()
    return Upstream(repository, commit)


def observed_provenance(
    previous: Provenance, test_id: str, by: Sequence[Observation]
) -> Provenance:
    """The provenance of a vector the observations ``by`` matched."""
    where = "; ".join(f"{o.path} `{test_id}` matched by {o.driver}" for o in by)
    upstream = by[0].upstream
    observed = f"{where}, built from {upstream.repository} {upstream.commit}"
    if previous.kind == "upstream-observed":
        return Provenance("upstream-observed", f"{previous.citation}; also {observed}")
    return Provenance(
        "upstream-observed", f"{observed}; {_PREVIOUS[previous.kind]}: {previous.citation}"
    )


NOTE_POINTERS = 12
"""Unanswered pointers an in-part citation names (the observation file lists them all)."""


def in_part_note(observation: Observation, seen: Observed) -> str:
    """ "observed upstream in part (FILE: every member matched except /a, /b)"."""
    shown = ", ".join(seen.unanswered[:NOTE_POINTERS])
    more = len(seen.unanswered) - NOTE_POINTERS
    if more > 0:
        shown += f" and {more} more"
    return f"observed upstream in part ({observation.path}: every member matched except {shown})"


def derive(
    files: Iterable[VectorFile],
    observations: Sequence[Observation],
    differences: Sequence[ObservedDifference] | None = None,
) -> tuple[list[VectorFile], list[str]]:
    """The vector files with provenance derived from ``observations``, and the problems that
    forbid exporting them (an unlisted difference, a stale finding, an unknown id, an
    observation of another upstream commit)."""
    files = list(files)
    if differences is None:
        differences = OBSERVED_DIFFERENCES
    problems: list[str] = []
    pinned = _pinned()
    for observation in observations:
        if observation.upstream != pinned:
            problems.append(
                f"{observation.path} observes {observation.upstream.repository} "
                f"{observation.upstream.commit}, but citations are pinned to {SPLASH}"
            )
    ids = {test.id for vector_file in files for test in vector_file.tests}
    for observation in observations:
        for check_id in sorted(observation.vectors):
            if check_id not in ids and check_id.removesuffix(".f64") not in ids:
                problems.append(f"{observation.path} names {check_id}, which no vector has")
    topic_of = {test.id: vector_file.topic for vector_file in files for test in vector_file.tests}
    for observation in observations:
        observable = OBSERVABLE_TOPICS.get(observation.upstream.repository, frozenset())
        for check_id, seen in sorted(observation.vectors.items()):
            topic = topic_of.get(check_id.removesuffix(".f64"))
            if seen.answered != "not-applicable" and topic is not None and topic not in observable:
                problems.append(
                    f"{observation.path} answers {check_id} of topic {topic}, which "
                    f"{observation.upstream.repository} does not define"
                )
    listed = {difference.vector: difference for difference in differences}
    for vector, difference in sorted(listed.items()):
        if vector not in ids:
            problems.append(f"finding {difference.finding} lists {vector}, which no vector has")
    derived_files = []
    for vector_file in files:
        groups = []
        for group in vector_file.groups:
            tests = [_derived(test, observations, listed, problems) for test in group.tests]
            groups.append(attrs.evolve(group, tests=tuple(tests)))
        derived_files.append(attrs.evolve(vector_file, groups=tuple(groups)))
    return derived_files, problems


def _derived(
    test: VectorTest,
    observations: Sequence[Observation],
    listed: Mapping[str, ObservedDifference],
    problems: list[str],
) -> VectorTest:
    """One vector with its provenance derived from the observations (see ``derive``)."""
    answers = [(o, o.vectors[test.id]) for o in observations if test.id in o.vectors]
    differed = [o for o, seen in answers if seen.answered == "differed"]
    matched = [o for o, seen in answers if seen.answered == "matched"]
    partial = [(o, seen) for o, seen in answers if seen.answered == "partial"]
    finding = listed.get(test.id)
    if differed:
        if finding is None:
            drivers = ", ".join(f"{o.driver} ({o.path})" for o in differed)
            problems.append(
                f"{test.id}: upstream answered differently ({drivers}); fix the expectation or"
                " list it as a named finding in conformance/vectors/findings.py (docs/findings.md)"
            )
            return test
        note = (
            f"upstream answers differently ({differed[0].path}): docs/findings.md "
            f"{finding.finding}, {finding.site}"
        )
        provenance = Provenance(test.provenance.kind, f"{test.provenance.citation}; {note}")
        return attrs.evolve(test, provenance=provenance)
    if not matched:
        if not partial:
            return test
        note = "; ".join(in_part_note(o, seen) for o, seen in partial)
        provenance = Provenance(test.provenance.kind, f"{test.provenance.citation}; {note}")
        return attrs.evolve(test, provenance=provenance)
    if finding is not None:
        problems.append(
            f"{test.id} is listed as finding {finding.finding}, but upstream now matches it; "
            "drop it from conformance/vectors/findings.py"
        )
    return attrs.evolve(test, provenance=observed_provenance(test.provenance, test.id, matched))
