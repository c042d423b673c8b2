"""Where a golden vector's expectation comes from: its provenance kind and a citation.

Kinds, strongest first:

* ``upstream-observed``  compiled upstream code printed this answer for this input: a row of
  the probe output kept in ``tests/upstream/out_*.txt`` (file and row labels cited), or the
  answer a driver built from upstream's code gave, recorded in an observation file
  ``conformance/observations/<name>.json`` (``rescind.conformance.vectors.observation``; the file,
  the driver and the upstream commit cited);
* ``upstream-test``      an upstream unit test asserts it (repository, commit, path, test);
* ``upstream-code``      read from upstream source, not run (repository, commit, path, symbol);
* ``design-doc``         an upstream design text states it, no code or test was seen;
* ``derived``            the reference computed it from Rescind's own numbered rules in
  docs/spec (cited by rule id), even where those rules restate upstream;
* ``assumed``            upstream does not settle it: the citation says what was assumed and why.

The kind describes the expectation, not the input, and never claims more than the cited
evidence shows: a vector whose rows were only partly observed says which part in its citation.
Likewise a vector a driver over upstream answered in part (every member it answered matched,
some it marked ``{"unsupported": reason}``: observation ``partial``) keeps its earlier kind;
its citation gains "observed upstream in part (conformance/observations/X.json: every member
matched except /hostInputFingerprint)".
"""

from __future__ import annotations

import re

import attrs

KINDS: tuple[str, ...] = (
    "upstream-observed",
    "upstream-test",
    "upstream-code",
    "design-doc",
    "derived",
    "assumed",
)

MEANINGS: dict[str, str] = {
    "upstream-observed": "compiled upstream code gave this answer (a probe row in"
    " tests/upstream/out_*.txt, or a driver over upstream's code: conformance/observations/)",
    "upstream-test": "an upstream unit test asserts it",
    "upstream-code": "read from upstream source at the cited commit, path and symbol; not run",
    "design-doc": "stated by an upstream design text; no upstream code or test was seen",
    "derived": "computed by Rescind's reference from the cited docs/spec rules",
    "assumed": "upstream does not settle it; the citation says what was assumed and why",
}
"""One line per kind; vector files repeat it so a reader of the JSON alone can judge a test."""

SPLASH = "ymote/Splash 623d57c5c524f062ed5ddf8995cbed5b7b98e380"
"""The one Splash version every Splash citation refers to (docs/spec/README.md)."""

PROBE_DIRECTORY = "tests/upstream/"
OBSERVATION_DIRECTORY = "conformance/observations/"
"""Where observation files live (package data), as a citation names them."""
PROBE_FILES: tuple[str, ...] = ("out_ap.txt", "out_noap.txt", "out_other.txt")

_UPSTREAM_SOURCE = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+ [0-9a-f]{7,40} \S")
_RULE_ID = re.compile(r"\b[A-Z]{2,4}-[0-9]{1,3}\b")


def _check_citation(instance: Provenance, _: object, value: str) -> None:
    if not value.strip():
        raise ValueError("a provenance citation must not be empty")
    kind = instance.kind
    if kind == "upstream-observed" and not value.startswith(
        (PROBE_DIRECTORY + "out_", OBSERVATION_DIRECTORY)
    ):
        raise ValueError(
            f"upstream-observed must cite a probe file in {PROBE_DIRECTORY} or an observation"
            f" file in {OBSERVATION_DIRECTORY}: {value}"
        )
    if kind in ("upstream-test", "upstream-code", "design-doc") and not _UPSTREAM_SOURCE.match(
        value
    ):
        raise ValueError(f"{kind} must cite 'owner/repository commit path ...': {value}")
    if kind == "derived" and not _RULE_ID.search(value):
        raise ValueError(f"derived must name the docs/spec rule(s) it is computed from: {value}")


@attrs.frozen
class Provenance:
    kind: str = attrs.field(validator=attrs.validators.in_(KINDS))
    citation: str = attrs.field(validator=_check_citation)

    def to_json(self) -> dict[str, str]:
        return {"kind": self.kind, "citation": self.citation}


def _quoted(labels: tuple[str, ...]) -> str:
    return ", ".join(f"`{label}`" for label in labels)


def observed(file_name: str, *labels: str, scope: str = "") -> Provenance:
    """Rows of one probe file, cited by their labels (the text before the row's first ``:``).
    ``scope`` says which part of the expectation they back when it is not all of it."""
    if file_name not in PROBE_FILES:
        raise ValueError(f"no probe file {file_name}")
    if not labels:
        raise ValueError("cite at least one probe row")
    noun = "row" if len(labels) == 1 else "rows"
    citation = f"{PROBE_DIRECTORY}{file_name} {noun} {_quoted(labels)}"
    return Provenance("upstream-observed", f"{citation}; {scope}" if scope else citation)


def joined(*parts: Provenance) -> Provenance:
    """One provenance from several citations of the same kind (e.g. rows of two probe files)."""
    kinds = {part.kind for part in parts}
    if len(kinds) != 1:
        raise ValueError(f"cannot join provenances of kinds {sorted(kinds)}")
    return Provenance(parts[0].kind, "; ".join(part.citation for part in parts))


def splash_code(path: str, *symbols: str, note: str = "") -> Provenance:
    """Upstream Splash source read at the pinned commit: a path and the symbols read."""
    citation = f"{SPLASH} {path} {', '.join(symbols)}"
    return Provenance("upstream-code", f"{citation}; {note}" if note else citation)


def splash_test(path: str, *tests: str, note: str = "") -> Provenance:
    """Upstream Splash unit tests that assert the expectation."""
    citation = f"{SPLASH} {path} test {', '.join(tests)}"
    return Provenance("upstream-test", f"{citation}; {note}" if note else citation)


def upstream(kind: str, repository: str, commit: str, path: str, what: str) -> Provenance:
    """Any other upstream repository (agentctl, CaseHub), at the commit that was read."""
    return Provenance(kind, f"{repository} {commit} {path} {what}")


RULE_PAGES = {
    "CJ": "canonical.md",
    "GR": "grants.md",
    "WM": "messages.md",
    "FR": "frames.md",
    "WJ": "journal.md",
    "AU": "authorizer.md",
    "WS": "session.md",
    "RC": "recovery.md",
    "HK": "host-keys.md",
    "HL": "ledger.md",
    "ST": "storage.md",
    "SG": "saga.md",
    "MD": "model.md",
    "CR": "compensation-reconcile.md",
    "EP": "precedence.md",
}
"""Rule prefix to its docs/spec page (the table in docs/spec/README.md)."""


def rule_citation(rules: tuple[str, ...]) -> str:
    """``docs/spec/grants.md GR-1, GR-2; docs/spec/journal.md WJ-3``, pages in first-seen order."""
    by_page: dict[str, list[str]] = {}
    for rule in rules:
        if not _RULE_ID.fullmatch(rule):
            raise ValueError(f"{rule!r} is not a rule id")
        page = RULE_PAGES[rule.split("-")[0]]
        if rule not in by_page.setdefault(page, []):
            by_page[page].append(rule)
    return "; ".join(f"docs/spec/{page} {', '.join(ids)}" for page, ids in by_page.items())


def derived(*rules: str, note: str = "", how: str = "computed by the reference from") -> Provenance:
    """Computed by Rescind's reference from its numbered rules (docs/spec). ``note`` adds what
    else is known, e.g. probe rows that show some but not all of the answer."""
    if not rules:
        raise ValueError("name the rule(s) the expectation is computed from")
    citation = f"{how} {rule_citation(rules)}"
    return Provenance("derived", f"{citation}; {note}" if note else citation)


def assumed(what_and_why: str) -> Provenance:
    return Provenance("assumed", what_and_why)


_EDGE = re.compile(r"\.edge-([0-9]+)\.")


def edge_case_note(test_id: str) -> str:
    """For ids naming a worker edge case: where that case's upstream evidence is listed."""
    match = _EDGE.search(test_id)
    if match is None:
        return ""
    return f"upstream evidence for edge case {match.group(1)}: docs/spec/edge-cases.md"
