"""The grants operations a vector asks (``input.operation``): decoding, fingerprints and
attenuation of capability grants and session manifests, and the identifier grammars."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rescind.reference.errors import RescindError
from rescind.reference.grants import (
    CapabilityGrant,
    GrantAttenuation,
    Resource,
    ResourceKind,
    require_grant_fingerprint,
)
from rescind.reference.manifest import ManifestAttenuation, SessionManifest
from rescind.reference.tokens import require_compensation_key

_DETAILS = ("field", "reason", "maximum", "tool", "actual")

OPERATIONS = (
    "grant",
    "grant_attenuate",
    "grant_attenuation_json",
    "manifest",
    "manifest_attenuate",
    "manifest_attenuation_json",
    "resource_selector",
    "compensation_key",
    "grant_fingerprint_string",
)
"""Every ``input.operation`` of this topic (each is one driver operation ``grants.<name>``)."""


def run(case: Mapping[str, Any]) -> dict[str, Any]:
    """Execute one vector input with the reference; raises the reference's error."""
    operation = case["operation"]
    if operation == "grant":
        grant = CapabilityGrant.from_json(case["grant"])
        return {"encoded": grant.to_json(), "fingerprint": grant.compensation_fingerprint()}
    if operation == "grant_attenuate":
        grant = CapabilityGrant.from_json(case["grant"])
        for step in case["attenuations"]:
            grant = grant.attenuate(GrantAttenuation.from_json(step))
        return {"encoded": grant.to_json(), "fingerprint": grant.compensation_fingerprint()}
    if operation == "grant_attenuation_json":
        return {"normalized": GrantAttenuation.from_json(case["attenuation"]).to_json()}
    if operation == "manifest":
        manifest = SessionManifest.from_json(case["manifest"])
        manifest.validate()
        return {"manifest": manifest.to_json()}
    if operation == "manifest_attenuate":
        parent = SessionManifest.from_json(case["manifest"])
        child = parent.attenuate(ManifestAttenuation.from_json(case["attenuation"]))
        return {"manifest": child.to_json(), "tools": list(child.tools)}
    if operation == "manifest_attenuation_json":
        return {"normalized": ManifestAttenuation.from_json(case["attenuation"]).to_json()}
    if operation == "resource_selector":
        resource = Resource.create(ResourceKind(case["kind"]), case["id"])
        return {"resource": resource.to_json()}
    if operation == "compensation_key":
        return {"value": require_compensation_key(case["value"])}
    if operation == "grant_fingerprint_string":
        return {"value": require_grant_fingerprint(case["value"])}
    raise ValueError(f"unknown operation {operation}")


def refusal(error: Exception) -> dict[str, Any]:
    """A refused grants operation as a vector expects it: the code, and the informative
    details (none for ``serialization``: serde texts are not part of the contract)."""
    assert isinstance(error, RescindError)
    expected: dict[str, Any] = {"error": error.code}
    if error.code != "serialization":
        expected.update({k: v for k, v in error.details.items() if k in _DETAILS})
    return expected


def expected_of(case: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    try:
        return "valid", run(case)
    except RescindError as error:
        return "invalid", refusal(error)
