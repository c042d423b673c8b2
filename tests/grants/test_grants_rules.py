"""Validation, decoding and attenuation rules, with expected outcomes from the probe output
(tests/upstream/out_ap.txt) and docs/spec/grants.md (GR-5..GR-22)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rescind.reference.errors import RescindError
from rescind.reference.grants import (
    CapabilityGrant,
    GrantAttenuation,
    Resource,
    ResourceKind,
    require_grant_fingerprint,
)
from rescind.reference.payload_format import PayloadFormat
from rescind.reference.protocol_errors import (
    AttenuationExpandsResources,
    AttenuationWidensLimits,
    InvalidCompensationGrantFingerprint,
    InvalidCompensationKey,
    InvalidGrant,
    InvalidToken,
    Serialization,
    TooManyResources,
)
from rescind.reference.tokens import require_compensation_key

PROBE_LINES = (
    (Path(__file__).resolve().parents[1] / "upstream" / "out_ap.txt")
    .read_text(encoding="utf-8")
    .splitlines()
)


def probe(label: str) -> str:
    """The text after '<label>: ' on the probe line with that label."""
    for line in PROBE_LINES:
        if line.startswith(label + ": "):
            return line[len(label) + 2 :]
    raise KeyError(label)


def probe_grant_reason(label: str) -> str:
    match = re.fullmatch(r'Err\(InvalidGrant\("(.*)"\)\)', probe(label))
    assert match, label
    return match.group(1)


def secret(rid: str) -> Resource:
    return Resource(ResourceKind.SECRET, rid)


BASE = CapabilityGrant(
    "math.add", PayloadFormat.JSON, 2, 128, 128, 1, [Resource(ResourceKind.NETWORK_ORIGIN, "m")]
)


def test_defaults_of_the_constructors() -> None:
    text = CapabilityGrant.text("t")
    assert (text.format, text.max_calls, text.max_input_bytes, text.max_output_bytes) == (
        PayloadFormat.TEXT,
        1,
        16384,
        65536,
    )
    assert (text.max_compensations, text.resources) == (0, frozenset())
    assert CapabilityGrant.json("t").format is PayloadFormat.JSON
    assert CapabilityGrant.text("t").with_compensation_limit(7).max_compensations == 7


def test_decoding_defaults_match_probe() -> None:
    grant = CapabilityGrant.from_json(
        '{"tool":"a","format":"text","max_calls":1,"max_input_bytes":1,"max_output_bytes":1}'
    )
    assert grant.to_json() == probe("grant defaults roundtrip")


def test_duplicate_selectors_and_unknown_member_match_probe() -> None:
    grant = CapabilityGrant.from_json(
        '{"tool":"a","format":"text","max_calls":1,"max_input_bytes":1,"max_output_bytes":1,'
        '"resources":[{"kind":"secret","id":"b"},{"kind":"file_root","id":"a"},'
        '{"kind":"secret","id":"b"}],"unknown":{"x":[1,2]}}'
    )
    observed = probe("grant dup resources + unknown field")
    assert observed == "Ok(" + '"' + grant.to_json().replace('"', '\\"') + '")'


@pytest.mark.parametrize(
    ("grant", "label"),
    [
        (CapabilityGrant("a", PayloadFormat.TEXT, 0, 1, 1), "max_calls 0"),
        (CapabilityGrant("a", PayloadFormat.TEXT, 1, 1, 0), "max_output 0"),
    ],
)
def test_invalid_grant_reasons_match_probe(grant: CapabilityGrant, label: str) -> None:
    with pytest.raises(InvalidGrant) as caught:
        grant.validate()
    assert caught.value.details["reason"] == probe_grant_reason(label)


def test_zero_input_bytes_uses_the_byte_limit_reason() -> None:
    with pytest.raises(InvalidGrant) as caught:
        CapabilityGrant("a", PayloadFormat.TEXT, 1, 0, 1).validate()
    assert caught.value.details["reason"] == probe_grant_reason("max_output 0")


def test_sixty_five_selectors_no_fingerprint() -> None:
    grant = BASE.with_resources(secret(f"r{i}") for i in range(65))
    assert probe("65 resources") == "Err(TooManyResources { maximum: 64 })"
    assert probe("comp fp of invalid grant") == "Err(TooManyResources { maximum: 64 })"
    with pytest.raises(TooManyResources) as caught:
        grant.compensation_fingerprint()
    assert caught.value.details["maximum"] == 64
    grant.with_resources(secret(f"r{i}") for i in range(64)).validate()


def test_validation_order() -> None:
    with pytest.raises(InvalidToken) as token_error:
        CapabilityGrant("Bad", PayloadFormat.TEXT, 0, 0, 0).validate()
    assert token_error.value.details["field"] == "tool"
    with pytest.raises(InvalidGrant) as calls_error:
        CapabilityGrant("a", PayloadFormat.TEXT, 0, 0, 0).validate()
    assert calls_error.value.details["reason"] == "max_calls must be greater than zero"
    with pytest.raises(TooManyResources):
        BASE.with_resources([secret("Bad"), *(secret(f"r{i}") for i in range(64))]).validate()
    with pytest.raises(InvalidToken) as selector_error:
        BASE.with_resources([secret("a/b")]).validate()
    assert selector_error.value.details["field"] == "resource selector"


@pytest.mark.parametrize(
    "text",
    [
        '{"tool":"a","format":"text","max_calls":1,"max_calls":1,"max_input_bytes":1,"max_output_bytes":1}',
        '{"tool":"a","format":"JSON","max_calls":1,"max_input_bytes":1,"max_output_bytes":1}',
        '{"tool":"a","format":"text","max_calls":4294967296,"max_input_bytes":1,"max_output_bytes":1}',
        '{"tool":"a","format":"text","max_calls":-1,"max_input_bytes":1,"max_output_bytes":1}',
        '{"tool":"a","format":"text","max_calls":1.0,"max_input_bytes":1,"max_output_bytes":1}',
        '{"tool":"a","format":"text","max_calls":true,"max_input_bytes":1,"max_output_bytes":1}',
        '{"tool":"a","format":"text","max_calls":1,"max_input_bytes":1,"max_output_bytes":1,"resources":null}',
        '{"tool":"a","format":"text","max_calls":1,"max_input_bytes":1,"max_output_bytes":1,'
        '"resources":[{"kind":"folder","id":"a"}]}',
        '{"tool":1,"format":"text","max_calls":1,"max_input_bytes":1,"max_output_bytes":1}',
        '{"format":"text","max_calls":1,"max_input_bytes":1,"max_output_bytes":1}',
        "",
    ],
)
def test_decoding_rejections_are_serialization(text: str) -> None:
    with pytest.raises(Serialization):
        CapabilityGrant.from_json(text)


def test_u32_upper_bound_is_accepted() -> None:
    top = 4294967295
    grant = CapabilityGrant.from_json(
        f'{{"tool":"a","format":"json","max_calls":{top},"max_input_bytes":{top},'
        f'"max_output_bytes":{top},"max_compensations":{top}}}'
    )
    assert grant.max_compensations == top


def test_constructor_refuses_values_no_u32_can_hold() -> None:
    with pytest.raises(ValueError):
        CapabilityGrant("a", PayloadFormat.TEXT, 2**32, 1, 1)
    with pytest.raises(TypeError):
        CapabilityGrant("a", PayloadFormat.TEXT, True, 1, 1)


PARENT = CapabilityGrant("svc", PayloadFormat.JSON, 10, 100, 100, 3, [secret("a"), secret("b")])


def test_attenuation_probe_outcomes() -> None:
    assert probe("atten max_calls 0") == (
        'Err(InvalidGrant("attenuated limits must be greater than zero"))'
    )
    with pytest.raises(InvalidGrant) as zero:
        PARENT.attenuate(GrantAttenuation(max_calls=0))
    assert f'Err(InvalidGrant("{zero.value.details["reason"]}"))' == probe("atten max_calls 0")
    assert probe("atten max_compensations 0 (ok)") == "Ok(0)"
    assert PARENT.attenuate(GrantAttenuation(max_compensations=0)).max_compensations == 0
    assert probe("atten widen + zero both").startswith("Err(InvalidGrant(")
    with pytest.raises(InvalidGrant):
        PARENT.attenuate(GrantAttenuation(max_calls=11, max_input_bytes=0))
    assert probe("atten widen calls + expand resources") == "Err(AttenuationWidensLimits)"
    with pytest.raises(AttenuationWidensLimits):
        PARENT.attenuate(GrantAttenuation(max_calls=11, resources=[secret("z")]))
    assert probe("atten resources empty set") == "Ok(0)"
    assert PARENT.attenuate(GrantAttenuation(resources=[])).resources == frozenset()


def test_attenuation_rules() -> None:
    with pytest.raises(AttenuationWidensLimits):
        PARENT.attenuate(GrantAttenuation(max_compensations=4))
    with pytest.raises(AttenuationExpandsResources):
        PARENT.attenuate(GrantAttenuation(resources=[Resource(ResourceKind.FILE_ROOT, "a")]))
    narrowed = PARENT.attenuate(GrantAttenuation(max_calls=1, resources=[secret("b")]))
    assert (narrowed.tool, narrowed.format, narrowed.max_calls) == ("svc", PayloadFormat.JSON, 1)
    assert (narrowed.max_input_bytes, narrowed.max_compensations) == (100, 3)
    assert narrowed.resources == frozenset([secret("b")])
    with pytest.raises(InvalidGrant) as parent_first:
        CapabilityGrant("svc", PayloadFormat.JSON, 0, 1, 1).attenuate(GrantAttenuation())
    assert parent_first.value.details["reason"] == "max_calls must be greater than zero"


def test_attenuation_json() -> None:
    assert GrantAttenuation().to_json() == probe("GrantAttenuation default json")
    parsed = GrantAttenuation.from_json(
        '{"max_calls":null,"resources":[{"kind":"secret","id":"b"},{"kind":"file_root","id":"c"}],'
        '"tool":"ignored"}'
    )
    assert parsed == GrantAttenuation(
        resources=[secret("b"), Resource(ResourceKind.FILE_ROOT, "c")]
    )
    assert parsed.to_json() == (
        '{"resources":[{"kind":"file_root","id":"c"},{"kind":"secret","id":"b"}]}'
    )
    with pytest.raises(Serialization):
        GrantAttenuation.from_json('{"max_calls":1,"max_calls":null}')


def _token_cases() -> list[tuple[str, bool]]:
    cases = []
    for line in PROBE_LINES:
        match = re.fullmatch(r'token "(.*)" \(len (\d+)\): (Ok|Err).*', line)
        if match:
            shown, length, verdict = match.groups()
            value = "a" * int(length) if shown == "<long>" else shown
            cases.append((value, verdict == "Ok"))
    return cases


TOKEN_CASES = _token_cases()


def test_probe_has_the_ten_token_cases() -> None:
    assert len(TOKEN_CASES) == 10


@pytest.mark.parametrize(("value", "accepted"), TOKEN_CASES)
def test_resource_selector_token_rule(value: str, accepted: bool) -> None:
    if accepted:
        assert Resource.create(ResourceKind.SECRET, value).id == value
    else:
        with pytest.raises(InvalidToken) as caught:
            Resource.create(ResourceKind.SECRET, value)
        assert caught.value.details["field"] == "resource selector"


def _key_cases() -> list[tuple[str, str]]:
    return [
        (match.group(1), match.group(2))
        for line in PROBE_LINES
        if (match := re.fullmatch(r'compensation key "(.*)": (.*)', line))
    ]


@pytest.mark.parametrize(("key", "outcome"), _key_cases())
def test_compensation_key_grammar(key: str, outcome: str) -> None:
    errors: dict[str, type[RescindError]] = {
        "Err(InvalidCompensationKey)": InvalidCompensationKey,
        f'Err(InvalidToken {{ field: "compensation key", value: "{key}" }})': InvalidToken,
    }
    if outcome == "Ok(())":
        assert require_compensation_key(key) == key
    else:
        with pytest.raises(errors[outcome]):
            require_compensation_key(key)


def _fingerprint_string_cases() -> list[tuple[str, bool]]:
    cases = []
    for line in PROBE_LINES:
        match = re.fullmatch(r'grant fp "(..)"\.\.len (\d+): (Ok|Err).*', line)
        if match:
            pair, length, verdict = match.groups()
            cases.append((pair[0] * int(length), verdict == "Ok"))
    return cases


def test_probe_has_four_fingerprint_string_cases() -> None:
    assert len(_fingerprint_string_cases()) == 4


@pytest.mark.parametrize(("value", "accepted"), _fingerprint_string_cases())
def test_grant_fingerprint_string(value: str, accepted: bool) -> None:
    if accepted:
        assert require_grant_fingerprint(value) == value
    else:
        with pytest.raises(InvalidCompensationGrantFingerprint):
            require_grant_fingerprint(value)
