"""Upstream sources the saga vectors cite as provenance, at the versions that were read.

The scenario numbering (AG-Sn, CH-Sn) and the upstream function that decides each scenario are
docs/spec/edge-cases.md ("Saga scenarios"); a scenario marked "not confirmed" there rests on no
upstream source read here, so its vectors are derived (or assumed, where Rescind chose).
"""

from __future__ import annotations

from rescind.conformance.provenance import Provenance, upstream

AGENTCTL = "opensourceops/agentctl"
AGENTCTL_TEMPLATE = (
    "27bc5a717df32188e794b63ed29de25173b4f53d",
    "crates/agentctl-core/src/template.rs",
)
CASEHUB_ENGINE = (
    "mdproctor/engine",
    "1a547de656d313c9efc4418a8fa46368fd779dbd",
    "planning/src/main/java/io/casehub/engine/planning/compensation/CaseCompensationServiceImpl.java",
)
CASEHUB_DESIGN = (
    "mdproctor/wsp-casehub-work",
    "c7762bbe3eafddb36b9fd850c24a9ce05416da12",
    "specs/issue-238-saga-compensation/2026-09-01-saga-compensation-design.md",
)


def _with(text: str, note: str) -> str:
    return f"{text}; {note}" if note else text


def casehub_code(*symbols: str, note: str = "") -> Provenance:
    repository, commit, path = CASEHUB_ENGINE
    names = ", ".join(f"CaseCompensationServiceImpl.{symbol}" for symbol in symbols)
    return upstream("upstream-code", repository, commit, path, _with(names, note))


def casehub_design(section: str, note: str = "") -> Provenance:
    """CaseHub's saga compensation design text; no code or test of it was seen."""
    repository, commit, path = CASEHUB_DESIGN
    return upstream("design-doc", repository, commit, path, _with(f"section {section}", note))


# docs/spec/edge-cases.md: the upstream functions that decide each CaseHub case scenario; the
# scenarios it marks "not confirmed" are absent.
CASEHUB_SCENARIO_CODE: dict[str, tuple[str, ...]] = {
    "ch-s1": ("compensate", "fireNextCompensationStep"),
    "ch-s2": ("onCompensationPlanItemStateChanged", "transitionToCompensated"),
    "ch-s3": ("onCompensationPlanItemStateChanged", "transitionToFaulted"),
    "ch-s4": ("buildReverseTopologicalOrder",),
    "ch-s5": ("buildReverseTopologicalOrder", "topoVisit"),
    "ch-s6": ("fireNextCompensationStep",),
    "ch-s7": ("compensate",),
    "ch-s8": ("fireNextCompensationStep",),
    "ch-s9": ("dispatchCompensatingBinding",),
    "ch-s10": ("dispatchCompensatingBinding",),
    "ch-s11": ("onCompensationPlanItemStateChanged",),
    "ch-s12": ("fireNextCompensationStep",),
}


def scenario_of(test_id: str) -> str | None:
    """``plan.ag-s4.uncertain-source-blocks`` -> ``ag-s4``; ``None`` without a scenario."""
    for part in test_id.split("."):
        if part.startswith(("ag-s", "ch-s")) and part[4:].isdigit():
            return part
    return None
