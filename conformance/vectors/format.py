"""The golden vector file format (Wycheproof-like), as frozen value objects.

A vector *file* covers one topic. It has a header (suite, version, profile, schema, number of
tests, free-text header lines, and ``notes``: one entry per flag naming the bug class the flag
targets and the effect of that bug), then ``testGroups``; each group has a ``type``, optional
group-level attributes, and ``tests``.

Every test has a stable string ``id`` (never renumbered or reused; see ``registry``), the
``rule`` it checks (a numbered rule in docs/spec), a ``comment``, ``flags``, an ``input``
object, an ``expected`` object and a tri-state ``result``:

* ``valid``      the implementation must produce exactly ``expected``;
* ``invalid``    the implementation must reject with ``expected.error`` (an error code);
* ``acceptable`` either behaviour is conformant (``expected`` shows upstream's).

Every test also carries its ``provenance`` (``rescind.conformance.provenance``: where the
expectation comes from, with a citation) and belongs to one number ``profile``: the file's
(``splash-v5``) unless the test names another; a test whose request asks for a profile
(``input.profile``, or ``input.setup.profile`` for traces) belongs to that one. Drivers that
do not declare a test's profile get it as not-applicable.

On export (``vectors.tool.self_describing``) the header gains ``informativeKeys`` and each
group its ``capability`` and ``operation`` or ``operationFromInput``, so a runner needs no
other file to send the tests. Vector files are written by ``rescind vectors export`` only;
the bytes are a pure function of the reference, so regeneration is byte-identical.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Literal

import attrs

from rescind.conformance.provenance import KINDS, MEANINGS, Provenance

SUITE = "rescind-vectors"
SUITE_VERSION = "1.0.0"
PROFILE = "splash-v5"
PROFILES: tuple[str, ...] = (PROFILE, "splash-v5-f64", "splash-v5+compensation-reconcile")
"""The normative number profile and the informative one (docs/spec/canonical.md), and
Rescind's protocol extension (docs/spec/compensation-reconcile.md, not upstream)."""

Result = Literal["valid", "invalid", "acceptable"]
RESULTS: tuple[str, ...] = ("valid", "invalid", "acceptable")

_ID = re.compile(r"[a-z0-9]+(?:[.\-][a-z0-9]+)*\Z")
_RULE = re.compile(r"[A-Z]{2,4}-[0-9]{1,3}\Z")
_FLAG = re.compile(r"[A-Z][A-Za-z0-9]*\Z")


def _check_id(_: object, __: object, value: str) -> None:
    if not _ID.match(value):
        raise ValueError(f"vector id {value!r} must be lowercase words joined by '.' or '-'")


def _check_rule(_: object, __: object, value: str) -> None:
    if not _RULE.match(value):
        raise ValueError(f"rule {value!r} must look like 'CJ-12' (a rule id from docs/spec)")


def _check_flags(_: object, __: object, value: tuple[str, ...]) -> None:
    for flag in value:
        if not _FLAG.match(flag):
            raise ValueError(f"flag {flag!r} must be CamelCase")
    if len(set(value)) != len(value):
        raise ValueError("flags repeat")


def _check_result(_: object, __: object, value: str) -> None:
    if value not in RESULTS:
        raise ValueError(f"result {value!r} is not one of {RESULTS}")


# Converters with concrete element types: with the builtin ``tuple`` as converter, mypy's attrs
# plugin types the ``__init__`` parameter as ``Iterable[_T_co]`` and rejects every argument.
def string_tuple(items: Iterable[str]) -> tuple[str, ...]:
    """Freezes a flag or header list; the converter of such fields here and in vectorsets."""
    return tuple(items)


def _tests(items: Iterable[VectorTest]) -> tuple[VectorTest, ...]:
    return tuple(items)


def _notes(items: Iterable[Flag]) -> tuple[Flag, ...]:
    return tuple(items)


def _groups(items: Iterable[VectorGroup]) -> tuple[VectorGroup, ...]:
    return tuple(items)


@attrs.frozen
class Flag:
    """What a flag means: the bug class a flagged vector targets and that bug's effect."""

    name: str = attrs.field(validator=attrs.validators.matches_re(_FLAG))
    bug_class: str
    effect: str

    def to_json(self) -> dict[str, str]:
        return {"bugClass": self.bug_class, "effect": self.effect}


@attrs.frozen
class VectorTest:
    id: str = attrs.field(validator=_check_id)
    rule: str = attrs.field(validator=_check_rule)
    comment: str
    input: Mapping[str, Any]
    expected: Mapping[str, Any]
    result: str = attrs.field(validator=_check_result)
    flags: tuple[str, ...] = attrs.field(default=(), converter=string_tuple, validator=_check_flags)
    provenance: Provenance = attrs.field(
        kw_only=True, validator=attrs.validators.instance_of(Provenance)
    )
    profile: str | None = attrs.field(
        kw_only=True, validator=attrs.validators.optional(attrs.validators.in_(PROFILES))
    )
    """``None``: the file's profile. Defaults to the profile the input requests."""

    @profile.default
    def _requested(self) -> str | None:
        return requested_profile(self.input)

    def __attrs_post_init__(self) -> None:
        requested = requested_profile(self.input)
        if requested is not None and requested != self.profile:
            raise ValueError(f"{self.id}: input asks for {requested}, test says {self.profile}")

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "id": self.id,
            "rule": self.rule,
            "comment": self.comment,
            "flags": list(self.flags),
        }
        if self.profile is not None:
            body["profile"] = self.profile
        body.update(
            {
                "input": dict(self.input),
                "expected": dict(self.expected),
                "result": self.result,
                "provenance": self.provenance.to_json(),
            }
        )
        return body


def requested_profile(test_input: Mapping[str, Any]) -> str | None:
    """The profile a vector's request names: ``input.profile`` or ``input.setup.profile``."""
    setup = test_input.get("setup")
    for holder in (test_input, setup if isinstance(setup, Mapping) else {}):
        value = holder.get("profile")
        if value is not None:
            return str(value)
    return None


@attrs.frozen
class VectorGroup:
    type: str
    tests: tuple[VectorTest, ...] = attrs.field(converter=_tests)
    attributes: Mapping[str, Any] = attrs.field(factory=dict)

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"type": self.type}
        body.update(self.attributes)
        body["tests"] = [test.to_json() for test in self.tests]
        return body


@attrs.frozen
class VectorFile:
    """One topic's vectors. ``topic`` names the file: ``vectors/<topic>.json``."""

    topic: str = attrs.field(validator=_check_id)
    header: tuple[str, ...] = attrs.field(converter=string_tuple)
    notes: tuple[Flag, ...] = attrs.field(converter=_notes)
    groups: tuple[VectorGroup, ...] = attrs.field(converter=_groups)
    test_schema: Mapping[str, Any] = attrs.field(factory=dict)
    """JSON Schema fragment with ``input`` and ``expected`` properties for this topic."""

    @property
    def tests(self) -> Iterable[VectorTest]:
        for group in self.groups:
            yield from group.tests

    @property
    def schema_name(self) -> str:
        return f"schema/{self.topic}.schema.json"

    def check_consistency(self) -> None:
        """Every used flag has a note, every note is used, ids are unique within the file."""
        used = {flag for test in self.tests for flag in test.flags}
        noted = {note.name for note in self.notes}
        if used - noted:
            raise ValueError(f"{self.topic}: flags without a note: {sorted(used - noted)}")
        if noted - used:
            raise ValueError(f"{self.topic}: notes for unused flags: {sorted(noted - used)}")
        ids = [test.id for test in self.tests]
        if len(set(ids)) != len(ids):
            raise ValueError(f"{self.topic}: duplicate test ids")

    def to_json(self) -> dict[str, Any]:
        self.check_consistency()
        return {
            "suite": SUITE,
            "suiteVersion": SUITE_VERSION,
            "topic": self.topic,
            "profile": PROFILE,
            "schema": self.schema_name,
            "numberOfTests": sum(1 for _ in self.tests),
            "header": list(self.header),
            "notes": {note.name: note.to_json() for note in sorted(self.notes, key=_name)},
            "provenanceKinds": {kind: MEANINGS[kind] for kind in KINDS},
            "testGroups": [group.to_json() for group in self.groups],
        }


Row = tuple[str, str, str, tuple[str, ...], str, Mapping[str, Any]]
"""(id, rule, intended result, flags, comment, input) of a hand-written case."""


def test_from_row(
    row: Row,
    expected_of: Callable[[Mapping[str, Any]], tuple[str, Mapping[str, Any]]],
    provenance: Provenance,
) -> VectorTest:
    """A vector whose expectation the reference computes; refuses to build when the
    reference's result kind differs from the one the case was written for."""
    test_id, rule, intended, flags, comment, case = row
    result, expected = expected_of(case)
    if result != intended:
        raise ValueError(f"{test_id}: reference gives {result} {expected}, row says {intended}")
    return VectorTest(test_id, rule, comment, case, expected, result, flags, provenance=provenance)


def _name(flag: Flag) -> str:
    return flag.name


def render(document: Mapping[str, Any]) -> str:
    """The one text form of a vector or schema file: ASCII only (non-ASCII as \\u escapes,
    so no editor can silently change a byte), two-space indent, trailing newline."""
    return json.dumps(document, indent=2, ensure_ascii=True) + "\n"
