"""Hypothesis properties of grants, attenuation and manifests.

Oracles are independent of the reference: the expected attenuation verdict is recomputed
from the rule text (GR-17..21), and the expected encoding from Python's json module.
"""

from __future__ import annotations

import json
import struct

import attrs
from blake3 import blake3
from hypothesis import given
from hypothesis import strategies as st

from rescind.reference.errors import RescindError
from rescind.reference.grants import CapabilityGrant, GrantAttenuation, Resource, ResourceKind
from rescind.reference.manifest import ManifestAttenuation, SessionManifest
from rescind.reference.payload_format import PayloadFormat

U32_MAX = 2**32 - 1
KIND_ORDER = ["file_root", "executable", "network_origin", "secret"]
LIMIT_FIELDS = ("max_calls", "max_input_bytes", "max_output_bytes")

tokens = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789._-", min_size=1, max_size=10)
small_ids = st.sampled_from(["a", "b", "c", "a-b", "a.b", "a_b", "a0"])
resources = st.builds(Resource, st.sampled_from(list(ResourceKind)), small_ids | tokens)
resource_sets = st.frozensets(resources, max_size=6)
positive = st.integers(1, 12) | st.integers(1, U32_MAX)
budget = st.integers(0, 4) | st.integers(0, U32_MAX)
grants = st.builds(
    CapabilityGrant,
    tokens,
    st.sampled_from(list(PayloadFormat)),
    positive,
    positive,
    positive,
    budget,
    resource_sets,
)
# Arbitrary (possibly invalid) grants for the codec: any text, any u32.
any_u32 = st.integers(0, U32_MAX)
any_grants = st.builds(
    CapabilityGrant,
    st.text(max_size=12),
    st.sampled_from(list(PayloadFormat)),
    any_u32,
    any_u32,
    any_u32,
    any_u32,
    st.frozensets(st.builds(Resource, st.sampled_from(list(ResourceKind)), st.text(max_size=6))),
)
maybe = st.none() | st.integers(0, 14)
attenuations = st.builds(
    GrantAttenuation, maybe, maybe, maybe, st.none() | st.integers(0, 5), st.none() | resource_sets
)


def expected_verdict(parent: CapabilityGrant, attenuation: GrantAttenuation) -> str:
    """The outcome GR-19..21 prescribe (parent assumed valid)."""
    values = {
        name: getattr(parent, name)
        if getattr(attenuation, name) is None
        else getattr(attenuation, name)
        for name in (*LIMIT_FIELDS, "max_compensations")
    }
    if any(values[name] == 0 for name in LIMIT_FIELDS):
        return "invalid_grant"
    if any(values[name] > getattr(parent, name) for name in values):
        return "attenuation_widens_limits"
    chosen = parent.resources if attenuation.resources is None else attenuation.resources
    if not chosen <= parent.resources:
        return "attenuation_expands_resources"
    return "ok"


def outcome(parent: CapabilityGrant, attenuation: GrantAttenuation) -> str:
    try:
        parent.attenuate(attenuation)
    except RescindError as error:
        return error.code
    return "ok"


@given(grants, attenuations)
def test_attenuation_verdict_follows_the_rules(
    grant: CapabilityGrant, att: GrantAttenuation
) -> None:
    assert outcome(grant, att) == expected_verdict(grant, att)


def narrowing(grant: CapabilityGrant) -> st.SearchStrategy[GrantAttenuation]:
    """Attenuations that stay within ``grant`` (each field optional)."""

    def at_most(value: int, low: int) -> st.SearchStrategy[int | None]:
        return st.none() | st.integers(low, max(low, value))

    pool = sorted(grant.resources)
    subset = st.none() | (st.frozensets(st.sampled_from(pool)) if pool else st.just(frozenset()))
    return st.builds(
        GrantAttenuation,
        at_most(grant.max_calls, 1),
        at_most(grant.max_input_bytes, 1),
        at_most(grant.max_output_bytes, 1),
        at_most(grant.max_compensations, 0),
        subset,
    )


@given(grants, st.data())
def test_chains_never_widen(original: CapabilityGrant, data: st.DataObject) -> None:
    current = original
    for _ in range(data.draw(st.integers(1, 5))):
        step = data.draw(narrowing(current) | attenuations)
        try:
            child = current.attenuate(step)
        except RescindError as error:
            assert error.code in {
                "invalid_grant",
                "attenuation_widens_limits",
                "attenuation_expands_resources",
            }
            continue
        for name in (*LIMIT_FIELDS, "max_compensations"):
            assert getattr(child, name) <= getattr(current, name) <= getattr(original, name)
        assert child.resources <= current.resources <= original.resources
        assert (child.tool, child.format) == (original.tool, original.format)
        child.validate()
        current = child


@given(grants)
def test_empty_attenuation_is_identity(grant: CapabilityGrant) -> None:
    assert grant.attenuate(GrantAttenuation()) == grant


@given(grants, st.data())
def test_attenuation_is_idempotent(grant: CapabilityGrant, data: st.DataObject) -> None:
    step = data.draw(narrowing(grant))
    once = grant.attenuate(step)
    assert once.attenuate(step) == once


MUTATIONS = {
    "tool": tokens,
    "format": st.sampled_from(list(PayloadFormat)),
    "max_calls": positive,
    "max_input_bytes": positive,
    "max_output_bytes": positive,
    "max_compensations": budget,
    "resources": resource_sets,
}


@given(grants, st.sampled_from(sorted(MUTATIONS)), st.data())
def test_fingerprint_changes_with_every_field(
    grant: CapabilityGrant, field: str, data: st.DataObject
) -> None:
    value = data.draw(MUTATIONS[field].filter(lambda new: new != getattr(grant, field)))
    changed = attrs.evolve(grant, **{field: value})
    assert changed.compensation_fingerprint() != grant.compensation_fingerprint()


def oracle_encoding(grant: CapabilityGrant) -> bytes:
    ordered = sorted(grant.resources, key=lambda r: (KIND_ORDER.index(r.kind.value), r.id.encode()))
    document = {
        "tool": grant.tool,
        "format": grant.format.value,
        "max_calls": grant.max_calls,
        "max_input_bytes": grant.max_input_bytes,
        "max_output_bytes": grant.max_output_bytes,
        "max_compensations": grant.max_compensations,
        "resources": [{"kind": r.kind.value, "id": r.id} for r in ordered],
    }
    return json.dumps(document, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


@given(any_grants)
def test_encoding_matches_an_independent_encoder(grant: CapabilityGrant) -> None:
    assert grant.encoded() == oracle_encoding(grant)


@given(grants)
def test_fingerprint_recipe(grant: CapabilityGrant) -> None:
    encoded = oracle_encoding(grant)
    digest = blake3(b"splash-compensation-grant-v1" + struct.pack(">Q", len(encoded)) + encoded)
    assert grant.compensation_fingerprint() == digest.hexdigest()


@given(any_grants)
def test_grant_json_roundtrip(grant: CapabilityGrant) -> None:
    assert CapabilityGrant.from_json(grant.to_json()) == grant
    assert CapabilityGrant.from_json(grant.encoded()) == grant


@given(attenuations)
def test_attenuation_json_roundtrip(att: GrantAttenuation) -> None:
    assert GrantAttenuation.from_json(att.to_json()) == att


manifests = st.lists(grants, max_size=5, unique_by=lambda g: g.tool).map(
    lambda listed: SessionManifest.new("session-1", listed)
)


@given(manifests)
def test_manifest_json_roundtrip(manifest: SessionManifest) -> None:
    assert SessionManifest.from_json(manifest.to_json()) == manifest


@given(manifests, st.data())
def test_manifest_attenuation_only_narrows(manifest: SessionManifest, data: st.DataObject) -> None:
    tools = list(manifest.tools)
    allowed = data.draw(st.none() | st.frozensets(st.sampled_from(tools)) if tools else st.none())
    restricted = data.draw(st.lists(st.sampled_from(tools), unique=True) if tools else st.just([]))
    table = {tool: data.draw(narrowing(manifest.grant_for(tool))) for tool in restricted}
    attenuation = ManifestAttenuation(allowed, table)
    assert ManifestAttenuation.from_json(attenuation.to_json()) == attenuation
    child = manifest.attenuate(attenuation)
    assert child.session_id == manifest.session_id
    expected_tools = [tool for tool in tools if allowed is None or tool in allowed]
    assert list(child.tools) == expected_tools
    for narrowed in child.grants:
        parent = manifest.grant_for(narrowed.tool)
        for name in (*LIMIT_FIELDS, "max_compensations"):
            assert getattr(narrowed, name) <= getattr(parent, name)
        assert narrowed.resources <= parent.resources
