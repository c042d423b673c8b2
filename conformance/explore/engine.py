"""The differential exploration engine, shared by every explored vocabulary (an ``Area``).

Hypothesis writes traces of one vocabulary; the reference and the implementation both run
each one and the first disagreement (a result, an error code, a serialized state) is shrunk
by Hypothesis, then by dropping steps, and saved as a replay file: an ordinary request that
``rescind replay FILE`` (or any driver) runs again.

A seed makes a run reproducible (``random`` is derived from it, so Hypothesis' own
derandomization is never needed); an example database, when given, carries shrunk
disagreements between runs and machines (Hypothesis' ``reuse`` phase replays them first).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import attrs
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from hypothesis.database import ExampleDatabase

from rescind.conformance.harness import Driver
from rescind.conformance.harness.restrictions import Gap, excused_by
from rescind.conformance.ops import registry as operations
from rescind.conformance.verdict import judge
from rescind.reference.errors import RescindError

REPLAY_FORMAT = "rescind-replay/1"

Trace = dict[str, Any]
Rebuild = Callable[[Mapping[str, Any], Sequence[Mapping[str, Any]]], Trace]
StepsOf = Callable[[Mapping[str, Any]], Sequence[Mapping[str, Any]]]


def keep_steps(trace: Mapping[str, Any], steps: Sequence[Mapping[str, Any]]) -> Trace:
    """The same trace with only ``steps`` (the default way to rebuild a shorter trace)."""
    return {**trace, "steps": [dict(step) for step in steps]}


def top_steps(trace: Mapping[str, Any]) -> Sequence[Mapping[str, Any]]:
    steps: Sequence[Mapping[str, Any]] = trace["steps"]
    return steps


def keep_scenario_steps(trace: Mapping[str, Any], steps: Sequence[Mapping[str, Any]]) -> Trace:
    """``keep_steps`` for a trace wrapped as ``{"scenario": {setup, steps}}`` (the session
    vocabularies)."""
    return {"scenario": keep_steps(trace["scenario"], steps)}


def scenario_steps(trace: Mapping[str, Any]) -> Sequence[Mapping[str, Any]]:
    """``top_steps`` for a trace wrapped as ``{"scenario": {setup, steps}}``."""
    return top_steps(trace["scenario"])


class Answers:
    """The reference's answers recorded by a closed-loop generator while it drew each trace
    (it ran the reference anyway to choose well-formed steps), so a check does not run the
    reference a second time. Keyed by object identity and bounded: Hypothesis hands the
    drawn object itself to the check right after drawing it."""

    def __init__(self, size: int = 64) -> None:
        self._size = size
        self._entries: dict[int, tuple[Mapping[str, Any], dict[str, Any]]] = {}

    def remember(self, trace: Mapping[str, Any], answer: dict[str, Any]) -> None:
        if len(self._entries) >= self._size:
            self._entries.pop(next(iter(self._entries)))
        self._entries[id(trace)] = (trace, answer)

    def recall(self, trace: Mapping[str, Any]) -> dict[str, Any] | None:
        entry = self._entries.get(id(trace))
        if entry is None or entry[0] is not trace:
            return None
        return entry[1]


@attrs.frozen
class Area:
    """One explored vocabulary: the operation that runs a whole trace and its generator."""

    name: str
    """Short and stable: the check id is ``explore.<name>``, the database key derives from it."""
    op: str
    capability: str
    rule: str
    description: str
    traces: st.SearchStrategy[Trace] = attrs.field(eq=False, repr=False)
    rebuild: Rebuild = attrs.field(default=keep_steps, eq=False, repr=False)
    """A well-formed trace holding only the given steps (used when dropping steps)."""
    steps_of: StepsOf = attrs.field(default=top_steps, eq=False, repr=False)
    answers: Answers | None = attrs.field(default=None, eq=False, repr=False)
    """Answers the generator recorded, if it runs the reference while drawing."""
    profile: str | None = None
    """The profile a driver must declare for this area to be explored (``None``: any)."""
    variants: Variants | None = attrs.field(default=None, eq=False, repr=False)
    """The area a driver with these declared restrictions can express (its generator never
    draws a restricted shape); ``None``: no restriction concerns this vocabulary."""
    variant: str = ""
    """Names a restricted variant (its examples are kept apart in the example database)."""

    def under(self, restrictions: frozenset[str]) -> Area:
        """This area as a driver declaring ``restrictions`` can express it."""
        return self if self.variants is None else self.variants(self, restrictions)

    def expected(self, trace: Mapping[str, Any]) -> dict[str, Any]:
        recorded = self.answers.recall(trace) if self.answers is not None else None
        return recorded if recorded is not None else reference_answer(self.op, trace)

    @property
    def database_key(self) -> bytes:
        suffix = f"+{self.variant}" if self.variant else ""
        return f"rescind.explore.{self.name}{suffix}".encode()


Variants = Callable[[Area, frozenset[str]], Area]


@attrs.frozen
class Disagreement:
    op: str
    trace: Mapping[str, Any]
    expected: Mapping[str, Any]
    message: str

    def replay_document(self) -> dict[str, Any]:
        return {
            "format": REPLAY_FORMAT,
            "op": self.op,
            "args": dict(self.trace),
            "expected": dict(self.expected),
            "message": self.message,
        }


@attrs.frozen
class ExplorationResult:
    examples: int
    steps: int
    seconds: float
    disagreement: Disagreement | None
    seed: int
    inexpressible: int = 0
    """Traces the driver answered ``unsupported`` for (whole, or at a step after every earlier
    step agreed): discarded, not compared; ``examples`` counts them too."""
    in_part: int = 0
    """Compared traces whose reply left some members unanswered (the marker
    ``{"unsupported": reason}`` as a member's value) that no declared restriction names:
    compared on the answered members only."""

    @property
    def compared(self) -> int:
        return self.examples - self.inexpressible

    @property
    def to_the_end(self) -> int:
        """Traces compared to their end: every step answered, every member answered or
        excused by a declared restriction."""
        return self.compared - self.in_part

    @property
    def share_to_the_end(self) -> float:
        return self.to_the_end / self.examples if self.examples else 1.0


def reference_answer(op: str, trace: Mapping[str, Any]) -> dict[str, Any]:
    try:
        return operations.run(op, trace)
    except RescindError as error:
        return {"error": error.code}


@attrs.frozen
class Verdict:
    """One trace judged: a disagreement (``problem``), the driver could not express it
    (``unsupported``: why), or it agreed, possibly leaving some members ``unanswered``
    (compared on the answered ones, by ``verdict.judge``)."""

    problem: str | None = None
    unsupported: str | None = None
    unanswered: tuple[str, ...] = ()

    @property
    def inexpressible(self) -> bool:
        return self.unsupported is not None


def verdict_of(
    driver: Driver, op: str, trace: Mapping[str, Any], expected: Mapping[str, Any] | None = None
) -> Verdict:
    if expected is None:
        expected = reference_answer(op, trace)
    judged = judge(expected, driver.request(op, trace))
    if judged.cut is not None:
        if judged.cut.problem is not None:
            return Verdict(judged.cut.problem)
        return Verdict(unsupported=judged.cut.describe(trace.get("steps", ())))
    if judged.problem is not None:
        return Verdict(judged.problem)
    return Verdict(unanswered=tuple(path for path, _ in judged.unanswered_pointers))


def disagreement_of(
    driver: Driver, op: str, trace: Mapping[str, Any], expected: Mapping[str, Any] | None = None
) -> str | None:
    """Why the driver disagrees with the reference on ``trace``; ``None`` when it agrees or
    answered ``unsupported`` after agreeing on every earlier step (see ``verdict_of``)."""
    return verdict_of(driver, op, trace, expected).problem


def _malformed(op: str, trace: Mapping[str, Any]) -> bool:
    """A trace the reference itself refuses as a bad request (only a shrinking step can make
    one: generators never do, and a test holds them to it)."""
    return reference_answer(op, trace).get("error") == operations.BadRequest.code


def explore(
    driver: Driver,
    area: Area,
    examples: int,
    seed: int = 0,
    *,
    database: ExampleDatabase | None = None,
) -> ExplorationResult:
    """Run ``examples`` generated traces of ``area`` (as the driver's declared restrictions
    let it express them); shrink and return the first disagreement. A trace the driver
    answers ``unsupported`` for is discarded and counted, never a disagreement. The same seed
    (and database contents) gives the same traces."""
    declared = driver.hello.restrictions
    area = area.under(declared)
    counted = {"examples": 0, "steps": 0, "inexpressible": 0, "in_part": 0}
    started = time.monotonic()

    def disagrees(trace: Mapping[str, Any]) -> bool:
        counted["examples"] += 1
        verdict = verdict_of(driver, area.op, trace, area.expected(trace))
        if verdict.inexpressible:
            counted["inexpressible"] += 1
            return False
        counted["steps"] += len(area.steps_of(trace))
        counted["in_part"] += any(
            excused_by(Gap("member", area.op, trace, pointer=member), declared) is None
            for member in verdict.unanswered
        )
        return verdict.problem is not None

    # the search itself never reuses: _find replays the area's saved traces before it
    phases: tuple[Phase, ...] = (Phase.generate, Phase.shrink)
    config = settings(
        max_examples=max(examples, 1),
        database=database,
        deadline=None,
        derandomize=False,
        phases=phases,
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=False,
        print_blob=False,
    )
    minimal = _find(area, disagrees, config, seed)
    found = None
    if minimal is not None:
        minimal = minimize(driver, area, minimal)
        message = disagreement_of(driver, area.op, minimal) or "disagreement did not reproduce"
        found = Disagreement(area.op, minimal, reference_answer(area.op, minimal), message)
    return ExplorationResult(
        counted["examples"],
        counted["steps"],
        time.monotonic() - started,
        found,
        seed,
        counted["inexpressible"],
        counted["in_part"],
    )


class _Found(Exception):
    """Raised by the search's test function at the first disagreement (a plain exception, so
    Hypothesis shrinks it and saves it to the example database like any failure)."""


def _find(
    area: Area, disagrees: Callable[[Mapping[str, Any]], bool], config: settings, seed: int
) -> Trace | None:
    """The first disagreeing trace: a trace this area saved in the example database that still
    disagrees, else the shrunk result of a ``given`` search run under ``seed``.

    Only public Hypothesis API: ``seed`` turns the database off for the search (a seeded run
    reproduces a report), so the database holds the traces themselves (JSON, under the area's
    key, through ``ExampleDatabase.save``/``fetch``) and they are replayed here first. A saved
    trace outlives changes to the area's strategy."""
    database = config.database
    if database is not None:
        for saved in sorted(database.fetch(area.database_key)):
            trace = _saved_trace(saved)
            if trace is not None and disagrees(trace):
                return trace
    last: list[Trace] = []

    @settings(config, database=None)
    @given(area.traces)
    def search(trace: Trace) -> None:
        if disagrees(trace):
            last[:] = [trace]
            raise _Found

    try:
        with _without_local_constants():
            hypothesis_seed(seed)(search)()
    except _Found:
        if database is not None:
            database.save(area.database_key, _trace_bytes(last[0]))
        return last[0]
    return None


def _trace_bytes(trace: Trace) -> bytes:
    return json.dumps(trace, sort_keys=True, separators=(",", ":")).encode("utf-8")


def _saved_trace(saved: bytes) -> Trace | None:
    """A trace this engine saved, or ``None`` for an entry it cannot read (another tool's, or
    an older format): such entries are skipped, never trusted."""
    try:
        trace = json.loads(saved.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    return trace if isinstance(trace, dict) else None


@contextmanager
def _without_local_constants() -> Iterator[None]:
    """Draw without the literals of the process's own modules.

    Hypothesis (6.131 and later) now and then draws a literal found in the source of any
    loaded module that is not installed in site-packages. With Rescind installed editable,
    the traces of a seed would then depend on which Rescind modules the process happened to
    import (``rescind check`` imports ``hazards`` through ``diagnose``, a worker process does
    not) and on how Rescind is installed: one seed, different traces. Exploration draws as if
    no such module were loaded.

    This is the one private Hypothesis name Rescind touches (Hypothesis has no public switch
    for it); it is only read and swapped back here, and
    tests/exploration/test_seed_independent_of_imports.py fails if a Hypothesis release
    changes it so that seeds depend on imports again."""
    try:
        from hypothesis.internal.conjecture import providers
    except ImportError:  # pragma: no cover - another Hypothesis layout
        yield
        return
    original = getattr(providers, "_get_local_constants", None)
    make = getattr(providers, "Constants", None)
    cache = getattr(providers, "CONSTANTS_CACHE", None)
    if original is None or make is None or cache is None:
        yield
        return
    empty = make()
    cache.cache.clear()
    providers._get_local_constants = lambda: empty
    try:
        yield
    finally:
        providers._get_local_constants = original
        cache.cache.clear()


def minimize(driver: Driver, area: Area, trace: Mapping[str, Any]) -> Trace:
    """Drop every step whose removal keeps the disagreement (one pass, last step first),
    never leaving a trace the reference refuses as malformed."""
    steps_left = list(area.steps_of(trace))
    for index in reversed(range(len(steps_left))):
        candidate = area.rebuild(trace, steps_left[:index] + steps_left[index + 1 :])
        if not area.steps_of(candidate) or _malformed(area.op, candidate):
            continue
        if disagreement_of(driver, area.op, candidate) is not None:
            steps_left = list(area.steps_of(candidate))
    return area.rebuild(trace, steps_left)


def save_replay(disagreement: Disagreement, directory: Path, prefix: str = "journal") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    text = json.dumps(disagreement.replay_document(), indent=2, sort_keys=True) + "\n"
    name = hashlib.sha256(text.encode()).hexdigest()[:12]
    path = directory / f"{prefix}-{name}.json"
    path.write_text(text, encoding="utf-8")
    return path


def replay_verdict(document: Mapping[str, Any], driver: Driver) -> Verdict:
    """Re-run a replay file's request and judge the reply as exploration does: a
    disagreement, ``unsupported`` (the driver cannot express it: no verdict either way), or
    agreement (perhaps with unanswered members)."""
    if document.get("format") != REPLAY_FORMAT:
        raise ValueError(f"not a {REPLAY_FORMAT} file")
    return verdict_of(driver, document["op"], document["args"], document["expected"])


def replay(document: Mapping[str, Any], driver: Driver) -> str | None:
    """Re-run a replay file's request; ``None`` when the driver now agrees (or cannot express
    it: see ``replay_verdict``)."""
    return replay_verdict(document, driver).problem
