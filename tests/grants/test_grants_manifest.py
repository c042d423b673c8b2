"""Session manifest validation and manifest attenuation (GR-23..GR-29, upstream probe output)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rescind.reference.grants import CapabilityGrant, GrantAttenuation, Resource, ResourceKind
from rescind.reference.manifest import ManifestAttenuation, SessionManifest
from rescind.reference.payload_format import PayloadFormat
from rescind.reference.protocol_errors import (
    AttenuationWidensLimits,
    DuplicateGrant,
    InvalidGrant,
    InvalidToken,
    Serialization,
    TooManyGrants,
    UnknownTool,
    UnsupportedVersion,
)

PROBE = {
    label: rest
    for label, _, rest in (
        line.partition(": ")
        for line in (Path(__file__).resolve().parents[1] / "upstream" / "out_ap.txt")
        .read_text(encoding="utf-8")
        .splitlines()
    )
}

MATH = CapabilityGrant(
    "math.add",
    PayloadFormat.JSON,
    2,
    128,
    128,
    0,
    [Resource(ResourceKind.NETWORK_ORIGIN, "math-api")],
)


def grant(tool: str, calls: int = 2) -> CapabilityGrant:
    return CapabilityGrant(tool, PayloadFormat.TEXT, calls, 8, 8)


def test_manifest_json_matches_probe() -> None:
    manifest = SessionManifest.new("session-1", [MATH])
    assert manifest.to_json() == PROBE["manifest json"]
    assert SessionManifest.from_json(PROBE["manifest json"]) == manifest


def test_zero_grant_manifest_is_valid() -> None:
    manifest = SessionManifest.new("s", [])
    assert manifest.to_json() == '{"protocol_version":5,"session_id":"s","grants":[]}'


def test_validation_order() -> None:
    many = [grant(f"t{i}") for i in range(129)]
    with pytest.raises(UnsupportedVersion) as version:
        SessionManifest(4, "Bad", many).validate()
    assert version.value.details["actual"] == 4
    with pytest.raises(TooManyGrants) as count:
        SessionManifest(5, "Bad", many).validate()
    assert count.value.details["maximum"] == 128
    SessionManifest(5, "s", many[:128]).validate()
    with pytest.raises(InvalidToken) as session:
        SessionManifest(5, "Bad", [grant("a", calls=0)]).validate()
    assert session.value.details["field"] == "session id"
    with pytest.raises(DuplicateGrant) as duplicate:
        SessionManifest(5, "s", [grant("a"), grant("a", calls=1)]).validate()
    assert duplicate.value.details["tool"] == "a"
    with pytest.raises(InvalidGrant):  # the second grant's own check runs before the duplicate
        SessionManifest(5, "s", [grant("a"), grant("a", calls=0)]).validate()


def test_version_must_fit_u16_when_decoding() -> None:
    with pytest.raises(Serialization):
        SessionManifest.from_json('{"protocol_version":65541,"session_id":"s","grants":[]}')


def test_grant_for() -> None:
    manifest = SessionManifest.new("s", [grant("a"), grant("b")])
    assert manifest.grant_for("b") == grant("b")
    with pytest.raises(UnknownTool):
        manifest.grant_for("c")


def test_manifest_attenuation_default_json_matches_probe() -> None:
    assert ManifestAttenuation().to_json() == PROBE["ManifestAttenuation default json"]
    assert ManifestAttenuation.from_json("{}") == ManifestAttenuation()


PARENT = SessionManifest.new("session-1", [grant("b"), grant("a")])


def test_unknown_tool_in_grants_matches_probe() -> None:
    assert PROBE["manifest atten unknown tool in grants"] == 'Err(UnknownTool("nope"))'
    with pytest.raises(UnknownTool) as caught:
        PARENT.attenuate(ManifestAttenuation(grants={"nope": GrantAttenuation()}))
    assert caught.value.details["tool"] == "nope"


def test_invalid_allowed_tool_matches_probe() -> None:
    expected = 'Err(InvalidToken { field: "tool", value: "Bad" })'
    assert PROBE["manifest atten invalid token in allowed_tools"] == expected
    with pytest.raises(InvalidToken) as caught:
        PARENT.attenuate(ManifestAttenuation(allowed_tools=["Bad"]))
    assert caught.value.details["field"] == "tool"


def test_dropped_tool_restriction_is_ignored_even_when_widening() -> None:
    assert PROBE["manifest atten restriction for tool dropped by allowed_tools"] == "Ok(1)"
    child = PARENT.attenuate(
        ManifestAttenuation(allowed_tools=["b"], grants={"a": GrantAttenuation(max_calls=99)})
    )
    assert child.tools == ("b",)
    with pytest.raises(AttenuationWidensLimits):
        PARENT.attenuate(
            ManifestAttenuation(allowed_tools=["a"], grants={"a": GrantAttenuation(max_calls=99)})
        )
    with pytest.raises(UnknownTool):
        PARENT.attenuate(ManifestAttenuation(allowed_tools=["b"], grants={"z": GrantAttenuation()}))


def test_check_order_and_selection() -> None:
    with pytest.raises(UnknownTool) as keys_first:
        PARENT.attenuate(
            ManifestAttenuation(allowed_tools=["Bad"], grants={"nope": GrantAttenuation()})
        )
    assert keys_first.value.details["tool"] == "nope"
    with pytest.raises(UnknownTool) as sorted_first:
        PARENT.attenuate(ManifestAttenuation(allowed_tools=["b B", "a-unknown"]))
    assert sorted_first.value.details["tool"] == "a-unknown"
    assert PARENT.attenuate(ManifestAttenuation(allowed_tools=[])).grants == ()
    assert PARENT.attenuate(ManifestAttenuation()).tools == ("b", "a")
    assert PARENT.attenuate(ManifestAttenuation(allowed_tools=["a", "b"])).tools == ("b", "a")
    narrowed = PARENT.attenuate(ManifestAttenuation(grants={"a": GrantAttenuation(max_calls=1)}))
    assert narrowed.grant_for("a").max_calls == 1
    assert narrowed.session_id == "session-1"
    with pytest.raises(UnsupportedVersion):
        SessionManifest(4, "s", []).attenuate(ManifestAttenuation())


def test_manifest_attenuation_decoding() -> None:
    parsed = ManifestAttenuation.from_json(
        '{"allowed_tools":null,"grants":{"a":{"max_calls":5},"a":{"max_calls":1}}}'
    )
    assert parsed.allowed_tools is None
    assert parsed.restriction_for("a") == GrantAttenuation(max_calls=1)
    listed = ManifestAttenuation.from_json('{"allowed_tools":["b","a","b"]}')
    assert listed.to_json() == '{"allowed_tools":["a","b"],"grants":{}}'
    with pytest.raises(Serialization):
        ManifestAttenuation.from_json('{"grants":null}')
    with pytest.raises(Serialization):
        ManifestAttenuation.from_json('{"grants":{},"grants":{}}')
