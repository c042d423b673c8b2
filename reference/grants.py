"""Capability grants: the per-tool authority of a worker session, its attenuation, and the
grant fingerprint that binds a durable compensation to the grant it was approved under.

A grant is a plain value. Constructing one only checks Python types and the u32 width of the
limits (a Rust ``u32`` cannot hold anything else); the protocol rules live in ``validate``,
because upstream deserializes without validating and an invalid grant must be representable
to be rejected with the right error.

The fingerprint hashes the compact serde encoding ``G`` of the whole grant, so every field
(limits, format, resources, the compensation budget) is bound; a session id is not, so a
compensation can be recovered in a fresh session while the grant stays the same.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable

import attrs

from rescind.reference.digests import grant_fingerprint_of_encoding
from rescind.reference.jsonencode import encode_string
from rescind.reference.jsonparse import Node
from rescind.reference.payload_format import PayloadFormat
from rescind.reference.protocol_errors import (
    AttenuationExpandsResources,
    AttenuationWidensLimits,
    InvalidCompensationGrantFingerprint,
    InvalidGrant,
    Serialization,
    TooManyResources,
)
from rescind.reference.tokens import is_hex64, require_token
from rescind.reference.wirejson import Struct, as_list, as_str, as_uint, read_document

MAX_RESOURCES_PER_GRANT = 64
U32_MAX = 2**32 - 1

DEFAULT_MAX_CALLS = 1
DEFAULT_MAX_INPUT_BYTES = 16 * 1024
DEFAULT_MAX_OUTPUT_BYTES = 64 * 1024

# Upstream's three InvalidGrant texts, carried as the ``reason`` detail (informative only:
# conformance compares codes).
ZERO_CALLS = "max_calls must be greater than zero"
ZERO_BYTE_LIMITS = "byte limits must be greater than zero"
ZERO_ATTENUATED_LIMITS = "attenuated limits must be greater than zero"

GRANT_FIELDS = (
    "tool",
    "format",
    "max_calls",
    "max_input_bytes",
    "max_output_bytes",
    "max_compensations",
    "resources",
)
ATTENUATION_FIELDS = (
    "max_calls",
    "max_input_bytes",
    "max_output_bytes",
    "max_compensations",
    "resources",
)


class ResourceKind(enum.Enum):
    """Resource kinds. Declaration order is the sort order (``file_root`` first), which is
    *not* alphabetical; the grant encoding and so the fingerprint depend on it."""

    FILE_ROOT = "file_root"
    EXECUTABLE = "executable"
    NETWORK_ORIGIN = "network_origin"
    SECRET = "secret"

    @property
    def rank(self) -> int:
        return _KIND_RANK[self]

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, ResourceKind):
            return NotImplemented
        return self.rank < other.rank

    def __le__(self, other: object) -> bool:
        if not isinstance(other, ResourceKind):
            return NotImplemented
        return self.rank <= other.rank

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, ResourceKind):
            return NotImplemented
        return self.rank > other.rank

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, ResourceKind):
            return NotImplemented
        return self.rank >= other.rank

    @classmethod
    def from_wire(cls, node: Node) -> ResourceKind:
        name = as_str(node)
        for member in cls:
            if member.value == name:
                return member
        raise Serialization(reason="unknown_variant")


_KIND_RANK = {kind: rank for rank, kind in enumerate(ResourceKind)}


def _check_text(_: object, attribute: attrs.Attribute[str], value: object) -> None:
    # A Rust String is valid UTF-8, so a lone surrogate can never be part of a grant.
    if not isinstance(value, str):
        raise TypeError(f"{attribute.name} must be str")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"{attribute.name} is not valid unicode text") from None


def _check_u32(_: object, attribute: attrs.Attribute[int], value: object) -> None:
    if type(value) is not int:
        raise TypeError(f"{attribute.name} must be int")
    if not 0 <= value <= U32_MAX:
        raise ValueError(f"{attribute.name} must fit in u32")


def _check_optional_u32(instance: object, attribute: attrs.Attribute[int], value: object) -> None:
    if value is not None:
        _check_u32(instance, attribute, value)


def _read_format(node: Node) -> PayloadFormat:
    name = as_str(node)
    for member in PayloadFormat:
        if member.value == name:
            return member
    raise Serialization(reason="unknown_variant")


@attrs.frozen(order=True)
class Resource:
    """One opaque resource selector. Ordering is (kind rank, id): the set order upstream
    serializes in. Python compares str by code point, which equals UTF-8 byte order."""

    kind: ResourceKind = attrs.field(validator=attrs.validators.instance_of(ResourceKind))
    id: str = attrs.field(validator=_check_text)

    @classmethod
    def create(cls, kind: ResourceKind, id: str) -> Resource:
        """A checked selector (upstream ``ResourceSelector::new``): the id must be a token."""
        resource = cls(kind, id)
        resource.validate()
        return resource

    def validate(self) -> None:
        require_token("resource selector", self.id)

    def to_json(self) -> str:
        return f'{{"kind":"{self.kind.value}","id":{encode_string(self.id)}}}'

    @classmethod
    def from_node(cls, node: Node) -> Resource:
        struct = Struct(node, ("kind", "id"), deny_unknown=False, what="resource selector")
        kind = ResourceKind.from_wire(struct.required("kind"))
        return cls(kind, as_str(struct.required("id")))


def _resource_set(value: Iterable[Resource]) -> frozenset[Resource]:
    resources = frozenset(value)
    for resource in resources:
        if not isinstance(resource, Resource):
            raise TypeError("resources must be Resource values")
    return resources


def _optional_resource_set(value: Iterable[Resource] | None) -> frozenset[Resource] | None:
    return None if value is None else _resource_set(value)


def _resources_json(resources: frozenset[Resource]) -> str:
    return "[" + ",".join(resource.to_json() for resource in sorted(resources)) + "]"


def _read_resources(node: Node) -> frozenset[Resource]:
    # A JSON array read into a set: a repeated selector collapses silently.
    return frozenset(Resource.from_node(item) for item in as_list(node))


def _optional_u32(node: Node) -> int | None:
    # serde's Option: an absent field and an explicit null are both None.
    return None if node is None else as_uint(node, 32)


@attrs.frozen
class CapabilityGrant:
    """What one tool may do in a session. ``max_compensations`` 0 denies compensation."""

    tool: str = attrs.field(validator=_check_text)
    format: PayloadFormat = attrs.field(validator=attrs.validators.instance_of(PayloadFormat))
    max_calls: int = attrs.field(validator=_check_u32)
    max_input_bytes: int = attrs.field(validator=_check_u32)
    max_output_bytes: int = attrs.field(validator=_check_u32)
    max_compensations: int = attrs.field(default=0, validator=_check_u32)
    resources: frozenset[Resource] = attrs.field(factory=frozenset, converter=_resource_set)

    @classmethod
    def text(cls, tool: str) -> CapabilityGrant:
        """Upstream defaults: 1 call, 16 KiB in, 64 KiB out, no compensation, no resources."""
        return cls(
            tool,
            PayloadFormat.TEXT,
            DEFAULT_MAX_CALLS,
            DEFAULT_MAX_INPUT_BYTES,
            DEFAULT_MAX_OUTPUT_BYTES,
        )

    @classmethod
    def json(cls, tool: str) -> CapabilityGrant:
        return attrs.evolve(cls.text(tool), format=PayloadFormat.JSON)

    def with_compensation_limit(self, max_compensations: int) -> CapabilityGrant:
        return attrs.evolve(self, max_compensations=max_compensations)

    def with_resources(self, resources: Iterable[Resource]) -> CapabilityGrant:
        return attrs.evolve(self, resources=frozenset(resources))

    def validate(self) -> None:
        """Upstream's order: tool token, calls, byte limits, resource count, resource ids."""
        require_token("tool", self.tool)
        if self.max_calls == 0:
            raise InvalidGrant(reason=ZERO_CALLS)
        if self.max_input_bytes == 0 or self.max_output_bytes == 0:
            raise InvalidGrant(reason=ZERO_BYTE_LIMITS)
        if len(self.resources) > MAX_RESOURCES_PER_GRANT:
            raise TooManyResources(maximum=MAX_RESOURCES_PER_GRANT)
        for resource in sorted(self.resources):
            resource.validate()

    def to_json(self) -> str:
        """Compact serde form, fields in declaration order; resources always present."""
        return (
            f'{{"tool":{encode_string(self.tool)},"format":"{self.format.value}"'
            f',"max_calls":{self.max_calls},"max_input_bytes":{self.max_input_bytes}'
            f',"max_output_bytes":{self.max_output_bytes}'
            f',"max_compensations":{self.max_compensations}'
            f',"resources":{_resources_json(self.resources)}}}'
        )

    def encoded(self) -> bytes:
        """``G``: the exact bytes the grant fingerprint hashes (the compact JSON form)."""
        return self.to_json().encode("utf-8")

    def compensation_fingerprint(self) -> str:
        """BLAKE3(domain || u64be(len G) || G) as 64 lowercase hex; validates first, so an
        invalid grant yields its validation error instead of a digest."""
        self.validate()
        return grant_fingerprint_of_encoding(self.encoded())

    def attenuate(self, attenuation: GrantAttenuation) -> CapabilityGrant:
        """A grant with no more authority than this one (docs/spec/grants.md GR-17..22)."""
        self.validate()
        max_calls = _pick(attenuation.max_calls, self.max_calls)
        max_input_bytes = _pick(attenuation.max_input_bytes, self.max_input_bytes)
        max_output_bytes = _pick(attenuation.max_output_bytes, self.max_output_bytes)
        max_compensations = _pick(attenuation.max_compensations, self.max_compensations)
        # The zero check runs before the widening check: zero plus widening reports zero.
        # max_compensations is deliberately absent here: lowering it to 0 is allowed.
        if max_calls == 0 or max_input_bytes == 0 or max_output_bytes == 0:
            raise InvalidGrant(reason=ZERO_ATTENUATED_LIMITS)
        if (
            max_calls > self.max_calls
            or max_input_bytes > self.max_input_bytes
            or max_output_bytes > self.max_output_bytes
            or max_compensations > self.max_compensations
        ):
            raise AttenuationWidensLimits()
        resources = self.resources if attenuation.resources is None else attenuation.resources
        if not resources <= self.resources:
            raise AttenuationExpandsResources()
        grant = CapabilityGrant(
            self.tool,
            self.format,
            max_calls,
            max_input_bytes,
            max_output_bytes,
            max_compensations,
            resources,
        )
        grant.validate()
        return grant

    @classmethod
    def from_json(cls, text: str | bytes) -> CapabilityGrant:
        """Parse with upstream's serde rules; the result is *not* validated."""
        return cls.from_node(read_document(text))

    @classmethod
    def from_node(cls, node: Node) -> CapabilityGrant:
        """Unknown fields are ignored, a repeated field is an error, ``max_compensations``
        and ``resources`` default when absent (an explicit null is a type error)."""
        struct = Struct(node, GRANT_FIELDS, deny_unknown=False, what="capability grant")
        tool = as_str(struct.required("tool"))
        payload_format = _read_format(struct.required("format"))
        max_calls = as_uint(struct.required("max_calls"), 32)
        max_input_bytes = as_uint(struct.required("max_input_bytes"), 32)
        max_output_bytes = as_uint(struct.required("max_output_bytes"), 32)
        max_compensations = 0
        if struct.has("max_compensations"):
            max_compensations = as_uint(struct.required("max_compensations"), 32)
        resources: frozenset[Resource] = frozenset()
        if struct.has("resources"):
            resources = _read_resources(struct.required("resources"))
        return cls(
            tool,
            payload_format,
            max_calls,
            max_input_bytes,
            max_output_bytes,
            max_compensations,
            resources,
        )


def _pick(restriction: int | None, inherited: int) -> int:
    return inherited if restriction is None else restriction


@attrs.frozen
class GrantAttenuation:
    """Optional restrictions on a grant; an absent field keeps the parent's value."""

    max_calls: int | None = attrs.field(default=None, validator=_check_optional_u32)
    max_input_bytes: int | None = attrs.field(default=None, validator=_check_optional_u32)
    max_output_bytes: int | None = attrs.field(default=None, validator=_check_optional_u32)
    max_compensations: int | None = attrs.field(default=None, validator=_check_optional_u32)
    resources: frozenset[Resource] | None = attrs.field(
        default=None, converter=_optional_resource_set
    )

    def to_json(self) -> str:
        """Absent fields are left out, so the empty attenuation is ``{}``."""
        members = [
            f'"{name}":{value}'
            for name, value in (
                ("max_calls", self.max_calls),
                ("max_input_bytes", self.max_input_bytes),
                ("max_output_bytes", self.max_output_bytes),
                ("max_compensations", self.max_compensations),
            )
            if value is not None
        ]
        if self.resources is not None:
            members.append(f'"resources":{_resources_json(self.resources)}')
        return "{" + ",".join(members) + "}"

    @classmethod
    def from_json(cls, text: str | bytes) -> GrantAttenuation:
        return cls.from_node(read_document(text))

    @classmethod
    def from_node(cls, node: Node) -> GrantAttenuation:
        struct = Struct(node, ATTENUATION_FIELDS, deny_unknown=False, what="grant attenuation")
        resources_node = struct.optional("resources")
        return cls(
            _optional_u32(struct.optional("max_calls")),
            _optional_u32(struct.optional("max_input_bytes")),
            _optional_u32(struct.optional("max_output_bytes")),
            _optional_u32(struct.optional("max_compensations")),
            None if resources_node is None else _read_resources(resources_node),
        )


def require_grant_fingerprint(value: str) -> str:
    """A grant fingerprint string: exactly 64 lowercase hex digits."""
    if not is_hex64(value):
        raise InvalidCompensationGrantFingerprint()
    return value
