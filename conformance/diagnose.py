"""``rescind diagnose``: which reading of each known JSON hazard an implementation follows.

Not pass/fail. For each hazard (number mode, key order, duplicate keys, escapes, nesting and
depth limits, text normalisation, ...) every candidate reading predicts what the
implementation's ``canonical.input`` answers to a set of golden vectors (the probes). The
readings whose predictions all match the answers are the verdict; the probes that ruled out
readings with another verdict are its evidence.

Hazards are decided in order, and a decided reading becomes the context of later ones: an
implementation that writes numbers as binary floats is still judged on its key order by the
bytes it would write under its own number reading.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

import attrs

from rescind.conformance.harness import Driver
from rescind.conformance.hazards import (
    HAZARDS,
    LABELS,
    NOT_APPLICABLE,
    Candidate,
    Hazard,
    Prediction,
)
from rescind.conformance.vector_files import load_vector_files
from rescind.conformance.vectors.readings import Style

Status = Literal["decided", "not-applicable", "undecided", "other", "not-diagnosed"]


@attrs.frozen
class Observation:
    kind: Literal["ok", "error", "unsupported"]
    body: bytes | None = None
    code: str | None = None


def matches(prediction: Prediction, observation: Observation) -> bool:
    if prediction.outcome == "refused":
        return observation.kind == "error" and prediction.code in (None, observation.code)
    if prediction.outcome == "body":
        return observation.kind == "ok" and observation.body == prediction.body
    return observation.kind == "ok"


# ---- running it ----------------------------------------------------------------------------


@attrs.frozen
class ReadingLine:
    hazard: str
    aspect: str
    title: str
    status: Status
    reading: tuple[str, ...]
    """The value ids of the verdict (several when undecided, none when no reading fits)."""
    upstream: str
    evidence: tuple[str, ...]
    closest: str | None = None
    """When no reading fits: the candidate matching most probes."""

    @property
    def description(self) -> str:
        if self.status == "not-diagnosed":
            return "not diagnosed (the driver does not implement canonical.input)"
        if self.status == "other":
            return f"none of the known readings (closest: {self.closest})"
        return " or ".join(LABELS[value] for value in self.reading)

    @property
    def matches_upstream(self) -> bool | None:
        """``None`` when it cannot be told: not diagnosed, undecided between readings that
        include upstream's, or where only one side has this aspect at all (the line that
        decides whether it applies tells the difference)."""
        if self.status == "decided":
            # Upstream has no such aspect (an f64 layout): the line that made it apply differs.
            return None if self.upstream == NOT_APPLICABLE else self.reading == (self.upstream,)
        if self.status == "not-applicable":
            return True if self.upstream == NOT_APPLICABLE else None
        if self.status == "undecided":
            return None if self.upstream in self.reading else False
        return False if self.status == "other" else None

    def to_json(self) -> dict[str, Any]:
        return {
            "hazard": self.hazard,
            "aspect": self.aspect,
            "title": self.title,
            "status": self.status,
            "reading": list(self.reading),
            "description": self.description,
            "upstream": self.upstream,
            "matchesUpstream": self.matches_upstream,
            "evidence": list(self.evidence),
        }


@attrs.frozen
class Diagnosis:
    implementation: str
    version: str
    capabilities: tuple[str, ...]
    lines: tuple[ReadingLine, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "implementation": {"name": self.implementation, "version": self.version},
            "capabilities": list(self.capabilities),
            "readings": [line.to_json() for line in self.lines],
        }


def canonical_tests() -> dict[str, Mapping[str, Any]]:
    """Every canonical-input vector by id."""
    return {
        test["id"]: test
        for document in load_vector_files()
        if document["topic"] == "canonical-input"
        for group in document["testGroups"]
        for test in group["tests"]
    }


def probes_of(hazard: Hazard, ids: Sequence[str]) -> tuple[str, ...]:
    return hazard.probes(ids) if callable(hazard.probes) else hazard.probes


def _observe(driver: Driver, payload: Mapping[str, Any]) -> Observation:
    reply = driver.request("canonical.input", payload)
    if reply.kind == "unsupported":
        return Observation("unsupported")
    if reply.kind == "error":
        return Observation("error", code=reply.error_code)
    assert reply.ok is not None
    try:
        body = bytes.fromhex(str(reply.ok.get("canonicalInputHex", "")))[12:]
    except ValueError:
        body = None
    return Observation("ok", body=body)


def _rivals(hazard: Hazard, aspect: str, consistent: Sequence[Candidate]) -> list[Candidate]:
    """The readings whose elimination decided ``aspect``: those giving it another value and
    agreeing with a consistent reading on every other aspect (so the probes that ruled them
    out are about this aspect alone); failing those, every reading giving it another value."""
    value = consistent[0].aspects[aspect]
    others = [c for c in hazard.candidates if c.aspects[aspect] != value]

    def twin(c: Candidate, v: Candidate) -> bool:
        return all(c.aspects[a] == v.aspects[a] for a, _ in hazard.aspects if a != aspect)

    close = [c for c in others if any(twin(c, v) for v in consistent)]
    return close or others


def _judge(
    hazard: Hazard,
    probes: Sequence[str],
    predictions: Mapping[str, Mapping[str, Prediction]],
    observed: Mapping[str, Observation],
) -> tuple[list[ReadingLine], Candidate | None]:
    fits = {
        candidate.name: [p for p in probes if matches(predictions[candidate.name][p], observed[p])]
        for candidate in hazard.candidates
    }
    consistent = [c for c in hazard.candidates if len(fits[c.name]) == len(probes)]
    upstream = next(c for c in hazard.candidates if c.name == hazard.upstream)
    lines = []
    for aspect, title in hazard.aspects:
        values = tuple(dict.fromkeys(c.aspects[aspect] for c in consistent))
        status: Status
        closest = None
        if not consistent:
            best = max(hazard.candidates, key=lambda c: len(fits[c.name]))
            closest = f"{LABELS[best.aspects[aspect]]}, {len(fits[best.name])}/{len(probes)}"
            status, evidence = "other", [p for p in probes if p not in fits[upstream.name]]
        elif len(values) > 1:
            status, evidence = "undecided", []
        else:
            rivals = _rivals(hazard, aspect, consistent)
            evidence = [p for p in probes if any(p not in fits[c.name] for c in rivals)]
            status = "not-applicable" if values[0] == NOT_APPLICABLE else "decided"
        lines.append(
            ReadingLine(
                hazard.key,
                aspect,
                title,
                status,
                values,
                upstream.aspects[aspect],
                tuple(evidence),
                closest,
            )
        )
    return lines, consistent[0] if len(consistent) == 1 else None


def diagnose(driver: Driver) -> Diagnosis:
    """Send every hazard's probes through ``driver`` and decide its readings."""
    hello = driver.hello
    tests = canonical_tests()
    ids = list(tests)
    lines: list[ReadingLine] = []
    context = Style()
    cache: dict[str, Observation] = {}
    for hazard in HAZARDS:
        probes = probes_of(hazard, ids)
        if "canonical" in hello.capabilities:
            for probe in probes:
                if probe not in cache:
                    cache[probe] = _observe(driver, tests[probe]["input"])
        observed = {p: cache.get(p, Observation("unsupported")) for p in probes}
        if any(o.kind == "unsupported" for o in observed.values()):
            upstream = next(c for c in hazard.candidates if c.name == hazard.upstream)
            lines += [
                ReadingLine(hazard.key, a, t, "not-diagnosed", (), upstream.aspects[a], ())
                for a, t in hazard.aspects
            ]
            continue
        predictions = {
            c.name: {p: c.predict(tests[p]["input"], context) for p in probes}
            for c in hazard.candidates
        }
        decided_lines, verdict = _judge(hazard, probes, predictions, observed)
        lines += decided_lines
        if verdict is not None:
            context = attrs.evolve(context, **verdict.style)
    return Diagnosis(
        hello.implementation, hello.version, tuple(sorted(hello.capabilities)), tuple(lines)
    )
