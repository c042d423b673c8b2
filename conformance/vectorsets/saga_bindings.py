"""Vectors for CaseHub binding sets: build-time validation and the compensation order.

Input is a `rescind saga validate` file (docs/saga.md). A set with an error is ``invalid``:
CaseHub refuses to load it, and ``expected.error`` is the first error's code; every finding
is listed too. Valid sets also show the compensation order, both the upstream code's
one-at-a-time order and the design's parallel batches.
"""

from __future__ import annotations

from typing import Any

from rescind.conformance.interpreters.saga_documents import BindingSetRefused, validate_document
from rescind.conformance.provenance import Provenance, assumed, derived, upstream
from rescind.conformance.vectorformat import Flag, VectorFile, VectorGroup, VectorTest
from rescind.conformance.vectorsets._saga_evidence import casehub_code, casehub_design

TOPIC = "saga-bindings"

NOTES = (
    Flag(
        "DesignOnly",
        "the rule is in CaseHub's design text; no upstream code or test was seen",
        "a loader built from the upstream code alone may accept or reject differently",
    ),
    Flag(
        "CodeVersusDesign",
        "CaseHub's code starts one step at a time, its design runs independent steps together",
        "both orders are shown; an implementation must say which one it follows",
    ),
    Flag(
        "CodeOverridesDesign",
        "CaseHub's design calls an orphan compensation binding a warning; its validator lists it"
        " with the errors and its loader refuses any listed finding",
        "a loader that follows the design loads a set that CaseHub refuses",
    ),
    Flag(
        "RescindChoice",
        "a detail upstream does not settle (cycle length beyond two, how a cycle is named)",
        "another implementation may report the same problem in another form",
    ),
)


def binding(name: str, **fields: Any) -> dict[str, Any]:
    return {"name": name, **fields}


def undo(name: str, worker: str = "undo-worker") -> dict[str, Any]:
    return binding(name, compensation=True, capability="undo-cap", worker=worker)


def bindings(*items: dict[str, Any]) -> dict[str, Any]:
    return {"bindings": list(items), "workers": ["undo-worker"]}


CASES: list[tuple[str, str, str, tuple[str, ...], dict[str, Any], str]] = [
    (
        "validate.ch-s13.self-reference",
        "SG-51",
        "CH-S13: step-a names itself",
        (),
        bindings(binding("step-a", compensate="step-a")),
        "invalid",
    ),
    (
        "validate.ch-s13.missing-target",
        "SG-50",
        "CH-S13: compensate names a binding that does not exist",
        (),
        bindings(binding("step-a", compensate="nonexistent")),
        "invalid",
    ),
    (
        "validate.ch-s13.no-compensation-fields",
        "SG-54",
        "CH-S13: a binding with neither field: no compensate, not compensation-only (a gap)",
        (),
        bindings(binding("step-a")),
        "valid",
    ),
    (
        "validate.ch-s13.two-cycle",
        "SG-52",
        "CH-S13: A and B name each other",
        ("DesignOnly",),
        bindings(binding("b", compensate="a"), binding("a", compensate="b")),
        "invalid",
    ),
    (
        "validate.three-cycle",
        "SG-52",
        "a cycle of three is named once, from its smallest member",
        ("DesignOnly", "RescindChoice"),
        bindings(
            binding("c", compensate="a"),
            binding("a", compensate="b"),
            binding("b", compensate="c"),
        ),
        "invalid",
    ),
    (
        "validate.chain-into-cycle",
        "SG-52",
        "a binding that leads into a cycle is not itself part of it",
        ("DesignOnly", "RescindChoice"),
        bindings(
            binding("start", compensate="a"),
            binding("a", compensate="b"),
            binding("b", compensate="a"),
        ),
        "invalid",
    ),
    (
        "validate.ch-s13.orphan-refused",
        "SG-87",
        "CH-S13: a compensation-only binding nobody names is an error; the loader refuses the set",
        ("CodeOverridesDesign",),
        bindings(binding("step-a", compensate="undo-a"), undo("undo-a"), undo("spare")),
        "invalid",
    ),
    (
        "validate.all-findings.orphan-error",
        "SG-55",
        "every finding is reported, the orphan as an error; loading stops on the first error",
        ("DesignOnly", "CodeOverridesDesign"),
        bindings(
            binding("plain"),
            binding("step-a", compensate="ghost"),
            binding("step-b", compensate="step-b"),
            undo("spare"),
        ),
        "invalid",
    ),
    (
        "order.ch-s4.chain-reverse",
        "SG-47",
        "CH-S4: step-b consumes what step-a produces: undo-b before undo-a",
        (),
        bindings(
            binding("step-a", compensate="undo-a", produces=["step-a-output"]),
            binding("step-b", compensate="undo-b", consumes=["step-a-output"]),
            undo("undo-a"),
            undo("undo-b"),
        ),
        "valid",
    ),
    (
        "order.ch-s5.independent",
        "SG-47",
        "CH-S5: unrelated steps: the code undoes b then a, the design both at once",
        ("CodeVersusDesign",),
        bindings(
            binding("step-a", compensate="undo-a"),
            binding("step-b", compensate="undo-b"),
            undo("undo-a"),
            undo("undo-b"),
        ),
        "valid",
    ),
    (
        "order.diamond",
        "SG-47",
        "a diamond: the sink first, the two middles together, the source last",
        ("CodeVersusDesign",),
        bindings(
            binding("top", compensate="undo", produces=["x"]),
            binding("left", compensate="undo", consumes=["x"], produces=["y"]),
            binding("right", compensate="undo", consumes=["x"], produces=["z"]),
            binding("bottom", compensate="undo", consumes=["y", "z"]),
            undo("undo"),
        ),
        "valid",
    ),
    (
        "order.exact-channel-match",
        "SG-47",
        "channels match by exact string equality only",
        ("CodeVersusDesign",),
        bindings(
            binding("step-a", compensate="undo", produces=["out"]),
            binding("step-b", compensate="undo", consumes=["out-2"]),
            undo("undo"),
        ),
        "valid",
    ),
    (
        "order.uncompensable-link-ignored",
        "SG-47",
        "dependencies count among compensable steps only: a and c are unrelated without b",
        ("CodeVersusDesign",),
        bindings(
            binding("a", compensate="undo", produces=["x"]),
            binding("b", consumes=["x"], produces=["y"]),
            binding("c", compensate="undo", consumes=["y"]),
            undo("undo"),
        ),
        "valid",
    ),
    (
        "order.data-cycle",
        "SG-47",
        "steps consuming each other's output: the code still orders them, no batches exist",
        ("CodeVersusDesign", "RescindChoice"),
        bindings(
            binding("a", compensate="undo", consumes=["y"], produces=["x"]),
            binding("b", compensate="undo", consumes=["x"], produces=["y"]),
            undo("undo"),
        ),
        "valid",
    ),
]


def _expected(document: dict[str, Any]) -> tuple[dict[str, Any], str]:
    try:
        return validate_document(document), "valid"
    except BindingSetRefused as refused:
        return {"error": refused.error.code, "findings": refused.findings}, "invalid"


_CODE_ORDER = "order.sequential follows CaseCompensationServiceImpl.buildReverseTopologicalOrder"
_VALIDATION = casehub_design("5.6 (build-time validation rules)")


def provenance_of(test_id: str, rule: str, flags: tuple[str, ...]) -> Provenance:
    """Validation rules exist in CaseHub's design text only (SG-50 to SG-53); the batched order
    is the design's, the sequential one the code's; where upstream is silent Rescind chose."""
    if "RescindChoice" in flags:
        return assumed(
            f"{rule}: CaseHub's design rejects a two-step compensation cycle and says nothing "
            "about longer cycles, how a cycle is named, or how data cycles order; Rescind's "
            "choice here is assumed, not read upstream"
        )
    if rule in ("SG-50", "SG-51", "SG-52", "SG-53"):
        return _VALIDATION
    if "CodeOverridesDesign" in flags:
        return upstream(
            "upstream-test",
            "mdproctor/engine",
            "ee78965427b6daaad22aef449deae1ec654a4af0",
            "api/src/test/java/io/casehub/api/model/CompensationBindingValidationTest.java",
            "orphanedCompensationBinding_returnsWarning (the orphan is in the validator's list);"
            " YamlCaseDefinitionConverter.convert refuses a set whose list is not empty",
        )
    if "CodeVersusDesign" in flags:
        return casehub_design("5.2 (independent steps compensate concurrently)", _CODE_ORDER)
    if test_id == "order.ch-s4.chain-reverse":
        return casehub_code("buildReverseTopologicalOrder", "topoVisit")
    return derived(
        rule,
        note="how findings are reported is Rescind's; CaseHub's design section 5.6 has the "
        "refusals and the orphan warning",
    )


def _vector(case: tuple[str, str, str, tuple[str, ...], dict[str, Any], str]) -> VectorTest:
    test_id, rule, comment, flags, document, meant = case
    expected, result = _expected(document)
    if result != meant:
        raise ValueError(f"{test_id}: the reference says {result}, the author meant {meant}")
    provenance = provenance_of(test_id, rule, flags)
    return VectorTest(
        test_id, rule, comment, document, expected, result, flags, provenance=provenance
    )


_FINDING = {
    "type": "object",
    "required": ["severity", "rule", "binding", "names"],
    "properties": {
        "severity": {"enum": ["error", "warning", "info"]},
        "rule": {"type": "string"},
        "binding": {"type": "string"},
        "names": {"type": "array", "items": {"type": "string"}},
    },
}
_SCHEMA = {
    "input": {
        "type": "object",
        "required": ["bindings"],
        "properties": {"bindings": {"type": "array"}, "workers": {"type": "array"}},
        "additionalProperties": False,
    },
    "expected": {
        "type": "object",
        "required": ["findings"],
        "properties": {
            "error": {"type": "string"},
            "findings": {"type": "array", "items": _FINDING},
            "bindings": {"type": "array"},
            "order": {
                "type": "object",
                "required": ["sequential", "batches"],
                "properties": {
                    "sequential": {"type": "array", "items": {"type": "string"}},
                    "batches": {"type": ["array", "null"]},
                },
            },
        },
        "additionalProperties": False,
    },
}


def build() -> VectorFile:
    validation = tuple(_vector(case) for case in CASES if case[0].startswith("validate."))
    order = tuple(_vector(case) for case in CASES if case[0].startswith("order."))
    return VectorFile(
        topic=TOPIC,
        header=(
            "CaseHub compensation bindings (docs/spec/saga.md SG-47, SG-50..SG-55).",
            "Findings: errors refuse the set (expected.error is the first), warnings and gaps",
            "do not. order.sequential is the upstream code's order, order.batches the design's.",
        ),
        notes=NOTES,
        groups=(VectorGroup("validate", validation), VectorGroup("order", order)),
        test_schema=_SCHEMA,
    )
