"""The session manifest (upstream ``CapabilityManifest``): every grant a worker session holds,
and its attenuation into a narrower session.

As with grants, constructing a manifest checks only Python types; ``validate`` applies the
protocol rules in upstream's order, and ``SessionManifest.new`` builds a checked one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import attrs

from rescind.reference.grants import CapabilityGrant, GrantAttenuation
from rescind.reference.jsonencode import encode_string
from rescind.reference.jsonparse import JsonPairs, Node
from rescind.reference.protocol_errors import (
    DuplicateGrant,
    Serialization,
    TooManyGrants,
    UnknownTool,
    UnsupportedVersion,
)
from rescind.reference.tokens import require_token
from rescind.reference.wirejson import Struct, as_list, as_str, as_uint, read_document

PROTOCOL_VERSION = 5
MAX_GRANTS_PER_MANIFEST = 128
U16_MAX = 2**16 - 1


def _check_u16(_: object, attribute: attrs.Attribute[int], value: object) -> None:
    if type(value) is not int:
        raise TypeError(f"{attribute.name} must be int")
    if not 0 <= value <= U16_MAX:
        raise ValueError(f"{attribute.name} must fit in u16")


def _check_text(_: object, attribute: attrs.Attribute[str], value: object) -> None:
    if not isinstance(value, str):
        raise TypeError(f"{attribute.name} must be str")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"{attribute.name} is not valid unicode text") from None


def _grant_tuple(value: Iterable[CapabilityGrant]) -> tuple[CapabilityGrant, ...]:
    grants = tuple(value)
    for grant in grants:
        if not isinstance(grant, CapabilityGrant):
            raise TypeError("grants must be CapabilityGrant values")
    return grants


@attrs.frozen
class SessionManifest:
    """The grants of one session, in the order the host listed them."""

    protocol_version: int = attrs.field(validator=_check_u16)
    session_id: str = attrs.field(validator=_check_text)
    grants: tuple[CapabilityGrant, ...] = attrs.field(converter=_grant_tuple)

    @classmethod
    def new(cls, session_id: str, grants: Iterable[CapabilityGrant]) -> SessionManifest:
        """A version-5 manifest, validated (upstream ``CapabilityManifest::new``)."""
        manifest = cls(PROTOCOL_VERSION, session_id, tuple(grants))
        manifest.validate()
        return manifest

    def validate(self) -> None:
        """Version, grant count, session id, then each grant in order: its own checks first,
        then whether its tool already appeared."""
        if self.protocol_version != PROTOCOL_VERSION:
            raise UnsupportedVersion(actual=self.protocol_version)
        if len(self.grants) > MAX_GRANTS_PER_MANIFEST:
            raise TooManyGrants(maximum=MAX_GRANTS_PER_MANIFEST)
        require_token("session id", self.session_id)
        seen: set[str] = set()
        for grant in self.grants:
            grant.validate()
            if grant.tool in seen:
                raise DuplicateGrant(tool=grant.tool)
            seen.add(grant.tool)

    @property
    def tools(self) -> tuple[str, ...]:
        return tuple(grant.tool for grant in self.grants)

    def grant_for(self, tool: str) -> CapabilityGrant:
        """The grant for ``tool``; ``unknown_tool`` when the session holds none."""
        for grant in self.grants:
            if grant.tool == tool:
                return grant
        raise UnknownTool(tool=tool)

    def attenuate(self, attenuation: ManifestAttenuation) -> SessionManifest:
        """A narrower session with the same id (docs/spec/grants.md GR-26..29)."""
        self.validate()
        known = set(self.tools)
        for tool, _ in attenuation.grants:
            if tool not in known:
                raise UnknownTool(tool=tool)
        allowed = attenuation.allowed_tools
        if allowed is not None:
            for tool in sorted(allowed):
                require_token("tool", tool)
                if tool not in known:
                    raise UnknownTool(tool=tool)
        # A restriction for a tool that allowed_tools drops was only checked to be a known
        # tool above; it is never applied, so even a widening one passes (upstream quirk).
        narrowed = []
        for grant in self.grants:
            if allowed is not None and grant.tool not in allowed:
                continue
            restriction = attenuation.restriction_for(grant.tool)
            narrowed.append(grant if restriction is None else grant.attenuate(restriction))
        return SessionManifest.new(self.session_id, narrowed)

    def to_json(self) -> str:
        grants = ",".join(grant.to_json() for grant in self.grants)
        return (
            f'{{"protocol_version":{self.protocol_version}'
            f',"session_id":{encode_string(self.session_id)},"grants":[{grants}]}}'
        )

    @classmethod
    def from_json(cls, text: str | bytes) -> SessionManifest:
        """Parse with upstream's serde rules; the result is *not* validated."""
        return cls.from_node(read_document(text))

    @classmethod
    def from_node(cls, node: Node) -> SessionManifest:
        struct = Struct(
            node, ("protocol_version", "session_id", "grants"), deny_unknown=False, what="manifest"
        )
        version = as_uint(struct.required("protocol_version"), 16)
        session_id = as_str(struct.required("session_id"))
        grants = tuple(
            CapabilityGrant.from_node(item) for item in as_list(struct.required("grants"))
        )
        return cls(version, session_id, grants)


Restrictions = tuple[tuple[str, GrantAttenuation], ...]


def _restriction_table(
    value: Mapping[str, GrantAttenuation] | Iterable[tuple[str, GrantAttenuation]],
) -> Restrictions:
    # Stored sorted by tool (the map order upstream iterates and serializes in); a repeated
    # tool keeps its last restriction, as a map insert does.
    pairs = value.items() if isinstance(value, Mapping) else value
    table: dict[str, GrantAttenuation] = {}
    for tool, restriction in pairs:
        if not isinstance(tool, str) or not isinstance(restriction, GrantAttenuation):
            raise TypeError("restrictions map tool names to GrantAttenuation values")
        table[tool] = restriction
    return tuple(sorted(table.items()))


def _optional_tool_set(value: Iterable[str] | None) -> frozenset[str] | None:
    if value is None:
        return None
    tools = frozenset(value)
    for tool in tools:
        if not isinstance(tool, str):
            raise TypeError("allowed_tools must be str values")
    return tools


@attrs.frozen
class ManifestAttenuation:
    """``allowed_tools`` absent keeps every grant; an empty set keeps none (a session with no
    authority at all). ``grants`` restricts individual kept grants."""

    allowed_tools: frozenset[str] | None = attrs.field(default=None, converter=_optional_tool_set)
    grants: Restrictions = attrs.field(factory=tuple, converter=_restriction_table)

    def restriction_for(self, tool: str) -> GrantAttenuation | None:
        for name, restriction in self.grants:
            if name == tool:
                return restriction
        return None

    def to_json(self) -> str:
        """``allowed_tools`` is left out when absent; the default is ``{"grants":{}}``."""
        members = []
        if self.allowed_tools is not None:
            tools = ",".join(encode_string(tool) for tool in sorted(self.allowed_tools))
            members.append(f'"allowed_tools":[{tools}]')
        table = ",".join(
            f"{encode_string(tool)}:{restriction.to_json()}" for tool, restriction in self.grants
        )
        members.append(f'"grants":{{{table}}}')
        return "{" + ",".join(members) + "}"

    @classmethod
    def from_json(cls, text: str | bytes) -> ManifestAttenuation:
        return cls.from_node(read_document(text))

    @classmethod
    def from_node(cls, node: Node) -> ManifestAttenuation:
        struct = Struct(
            node, ("allowed_tools", "grants"), deny_unknown=False, what="manifest attenuation"
        )
        allowed_node = struct.optional("allowed_tools")
        allowed = None
        if allowed_node is not None:
            allowed = frozenset(as_str(item) for item in as_list(allowed_node))
        table: list[tuple[str, GrantAttenuation]] = []
        if struct.has("grants"):
            grants_node = struct.required("grants")
            if not isinstance(grants_node, JsonPairs):
                raise Serialization(reason="invalid_type", expected="map")
            table = [(tool, GrantAttenuation.from_node(item)) for tool, item in grants_node.pairs]
        return cls(allowed, table)
