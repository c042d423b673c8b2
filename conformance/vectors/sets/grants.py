# ruff: noqa: E501  (the row tables below keep one vector per line)
"""Vectors for capability grants: fingerprints, validation, decoding, attenuation, manifests
and the identifier grammars that grants and compensations rely on (docs/spec/grants.md).

Inputs are exact JSON *text* (a driver parses them with its own decoder), so decoding rules
such as ignored unknown members or rejected repeated members are part of what is tested.
Expected values are computed here by the reference; each row also states the result it is
meant to have, and building fails if the reference disagrees.
"""

from __future__ import annotations

import json
from typing import Any

from rescind.conformance.cases import CaseRow
from rescind.conformance.fixtures.grant_texts import grant_text, manifest_text
from rescind.conformance.interpreters.grant_ops import OPERATIONS, expected_of, run
from rescind.conformance.precedence import PROTOCOL
from rescind.conformance.provenance import Provenance, derived, observed, splash_code
from rescind.conformance.vectors.format import (
    Flag,
    VectorFile,
    VectorGroup,
    VectorTest,
    test_from_row,
)
from rescind.conformance.vectors.sets._precedence import FLAG, NOTE, Faults, pair_rows

TOPIC = "grants"


UPSTREAM = grant_text()
MULTI = grant_text(
    "multi",
    "json",
    1,
    16384,
    65536,
    1,
    (
        ("secret", "a"),
        ("network_origin", "z"),
        ("network_origin", "b"),
        ("executable", "x"),
        ("file_root", "y"),
    ),
)
RICH = grant_text(
    "svc.deploy", "json", 10, 4096, 4096, 3, (("file_root", "repo"), ("secret", "token"))
)
SIXTY_FIVE = tuple(("secret", f"r{index:02d}") for index in range(65))


TWO_TOOLS = manifest_text(RICH, grant_text("text.echo", "text", 4, 16384, 65536, 1, ()))


Row = tuple[str, str, str, tuple[str, ...], str, dict[str, Any]]
"""(id, rule, intended result, flags, comment, input)."""


def _g(text: str) -> dict[str, Any]:
    return {"operation": "grant", "grant": text}


def _att(parent: str, *steps: str) -> dict[str, Any]:
    return {"operation": "grant_attenuate", "grant": parent, "attenuations": list(steps)}


def _man(text: str) -> dict[str, Any]:
    return {"operation": "manifest", "manifest": text}


def _matt(parent: str, attenuation: str) -> dict[str, Any]:
    return {"operation": "manifest_attenuate", "manifest": parent, "attenuation": attenuation}


def _one(operation: str, value: str) -> dict[str, Any]:
    return {"operation": operation, "value": value}


def _sel(rid: str) -> dict[str, Any]:
    return {"operation": "resource_selector", "kind": "secret", "id": rid}


KA = ("UpstreamKnownAnswer",)
ORDER = ("CheckOrder",)
TEXT_ECHO = grant_text("text.echo", "text", 4, 16384, 65536, 1, ())
_ATT_PARENT = RICH
_DROP_PARENT = manifest_text(
    grant_text("a", "json", 2, 8, 8, 0, ()), grant_text("b", "text", 2, 8, 8, 0, ())
)
_B_THEN_A = manifest_text(
    grant_text("b", "text", 1, 1, 1, 0, ()), grant_text("a", "text", 1, 1, 1, 0, ())
)


def _many(count: int, version: int = 5, session: str = "session-1") -> str:
    grants = (grant_text(f"t{i}", "text", 1, 1, 1, 0, ()) for i in range(count))
    return manifest_text(*grants, version=version, session=session)


# One row per line: these are data tables, easier to review unwrapped.
# fmt: off
FINGERPRINTS: list[Row] = [
    ("grant.fp.upstream-compensation-grant", "GR-15", "valid", KA, "upstream protocol test grant", _g(UPSTREAM)),
    ("grant.fp.upstream-compensation-grant-no-budget", "GR-16", "valid", KA, "same grant, max_compensations 0: a different fingerprint", _g(grant_text(comp=0))),
    ("grant.fp.upstream-worker-test-grant", "GR-13", "valid", KA, "no resources encode as []", _g(TEXT_ECHO)),
    ("grant.fp.json-release-publish-limit-1", "GR-10", "valid", KA, "json(tool).with_compensation_limit(1) written out", _g(grant_text("release.publish", "json", 1, 16384, 65536, 1, ()))),
    ("grant.fp.probe-text-echo-output-16", "GR-15", "valid", KA, "probe grant with max_output_bytes 16", _g(grant_text("text.echo", "text", 3, 16384, 16, 1, ()))),
    ("grant.fp.multi-resource-kind-order", "GR-14", "valid", (*KA, "ResourceKindOrder"), "inserted secret, network_origin z, network_origin b, executable, file_root", _g(MULTI)),
    ("grant.fp.absent-optional-members-default", "GR-6", "valid", ("DefaultedField",), "no max_compensations and no resources", _g(grant_text("a", "text", 1, 1, 1, None, None))),
    ("grant.fp.duplicate-selectors-and-unknown-member", "GR-9", "valid", ("DuplicateResourceCollapse", "UnknownFieldIgnored"), "a repeated selector collapses; an unknown member is ignored", _g('{"tool":"a","format":"text","max_calls":1,"max_input_bytes":1,"max_output_bytes":1,"resources":[{"kind":"secret","id":"b"},{"kind":"file_root","id":"a"},{"kind":"secret","id":"b"}],"extra":{"deep":[1,2.5e10,null]}}')),
    ("grant.fp.members-in-reverse-order", "GR-7", "valid", ("FieldOrderFree",), "the upstream grant with its members reversed", _g('{"resources":[{"id":"math-api","kind":"network_origin"}],"max_compensations":1,"max_output_bytes":128,"max_input_bytes":128,"max_calls":2,"format":"json","tool":"math.add"}')),
    ("grant.fp.u32-max-limits", "GR-5", "valid", ("IntegerRange",), "every limit at 4294967295", _g(grant_text(calls=4294967295, inp=4294967295, out=4294967295, comp=4294967295))),
    ("grant.fp.id-byte-order-within-kind", "GR-14", "valid", ("ResourceIdByteOrder",), "ids a_b, a0, a.b, a-b sort as a-b, a.b, a0, a_b", _g(grant_text(resources=(("secret", "a_b"), ("secret", "a0"), ("secret", "a.b"), ("secret", "a-b"))))),
    ("grant.fp.same-id-two-kinds", "GR-9", "valid", ("ResourceKindOrder",), "secret x and file_root x are two selectors", _g(grant_text(resources=(("secret", "x"), ("file_root", "x"))))),
    ("grant.fp.sixty-four-selectors", "GR-11", "valid", ("ResourceLimit",), "exactly 64 selectors", _g(grant_text(resources=SIXTY_FIVE[:64]))),
    ("grant.fp.sixty-five-entries-collapse-to-64", "GR-11", "valid", ("ResourceLimit", "DuplicateResourceCollapse"), "65 entries, one repeated: 64 after collapsing", _g(grant_text(resources=(*SIXTY_FIVE[:64], SIXTY_FIVE[0])))),
    ("grant.fp.format-text-differs", "GR-16", "valid", (), "the upstream grant with text format", _g(grant_text(fmt="text"))),
    ("grant.fp.output-limit-64-differs", "GR-16", "valid", (), "edge case 37: max_output_bytes 128 to 64 changes the fingerprint", _g(grant_text(out=64))),
    ("grant.fp.compensation-budget-zero-is-valid", "GR-12", "valid", ("CompensationDisabled",), "a grant without compensation still has a fingerprint", _g(grant_text("a", "json", 1, 1, 1, 0, ()))),
    ("grant.fp.tool-128-bytes", "GR-1", "valid", ("TokenLength",), "tool of 128 bytes", _g(grant_text("t" * 128))),
]

VALIDATION: list[Row] = [
    ("grant.validate.tool-uppercase", "GR-1", "invalid", ("TokenGrammar",), "tool must be a token", _g(grant_text("Math.add"))),
    ("grant.validate.tool-empty", "GR-1", "invalid", ("TokenLength",), "empty tool", _g(grant_text(""))),
    ("grant.validate.tool-129-bytes", "GR-1", "invalid", ("TokenLength",), "tool one byte over the limit", _g(grant_text("t" * 129))),
    ("grant.validate.max-calls-zero", "GR-11", "invalid", ("ZeroLimit",), "max_calls 0", _g(grant_text(calls=0))),
    ("grant.validate.max-input-zero", "GR-11", "invalid", ("ZeroLimit",), "max_input_bytes 0", _g(grant_text(inp=0))),
    ("grant.validate.max-output-zero", "GR-11", "invalid", ("ZeroLimit",), "max_output_bytes 0", _g(grant_text(out=0))),
    ("grant.validate.bad-tool-before-zero-calls", "GR-11", "invalid", ORDER, "tool checked before limits", _g(grant_text("Bad", calls=0))),
    ("grant.validate.zero-calls-before-zero-bytes", "GR-11", "invalid", ORDER, "the max_calls reason wins over the byte-limit reason", _g(grant_text(calls=0, inp=0, out=0))),
    ("grant.validate.sixty-five-selectors", "GR-11", "invalid", ("ResourceLimit",), "65 distinct selectors: an error, no digest", _g(grant_text(resources=SIXTY_FIVE))),
    ("grant.validate.count-before-selector-ids", "GR-11", "invalid", ORDER, "65 selectors, one with a bad id: the count is reported", _g(grant_text(resources=(*SIXTY_FIVE[:64], ("secret", "Bad"))))),
    ("grant.validate.zero-bytes-before-count", "GR-11", "invalid", ORDER, "byte limit 0 and 65 selectors", _g(grant_text(out=0, resources=SIXTY_FIVE))),
    ("grant.validate.selector-id-not-token", "GR-11", "invalid", ("TokenGrammar",), "selector id with a slash", _g(grant_text(resources=(("file_root", "a/b"),)))),
]

DECODING: list[Row] = [
    ("grant.decode.repeated-member", "GR-8", "invalid", ("DuplicateFieldRejected",), "max_calls written twice", _g('{"tool":"a","format":"text","max_calls":1,"max_calls":1,"max_input_bytes":1,"max_output_bytes":1}')),
    ("grant.decode.repeated-resources-member", "GR-8", "invalid", ("DuplicateFieldRejected",), "resources written twice", _g('{"tool":"a","format":"text","max_calls":1,"max_input_bytes":1,"max_output_bytes":1,"resources":[],"resources":[]}')),
    ("grant.decode.max-calls-over-u32", "GR-5", "invalid", ("IntegerRange",), "4294967296 does not fit", _g(grant_text(calls=4294967296))),
    ("grant.decode.max-calls-negative", "GR-5", "invalid", ("IntegerRange",), "negative limit", _g(grant_text(calls=-1))),
    ("grant.decode.max-calls-5000-digits", "GR-5", "invalid", ("IntegerRange", "LongInteger"), "a 5,000-digit limit does not fit a u32, like 4294967296", _g(grant_text(calls="9" * 5000))),
    ("grant.decode.max-calls-fraction", "GR-5", "invalid", ("StrictIntegerType",), "1.0 is not an integer", _g(grant_text(calls="1.0"))),
    ("grant.decode.max-compensations-exponent", "GR-5", "invalid", ("StrictIntegerType",), "1e0 is not an integer", _g(grant_text(comp="1e0"))),
    ("grant.decode.max-calls-string", "GR-5", "invalid", ("StrictIntegerType",), "a quoted number", _g(grant_text(calls='"1"'))),
    ("grant.decode.max-calls-boolean", "GR-5", "invalid", ("StrictIntegerType",), "true is not a number", _g(grant_text(calls="true"))),
    ("grant.decode.format-uppercase", "GR-5", "invalid", ("CaseSensitiveVariant",), "JSON is not a format", _g(grant_text(fmt="JSON"))),
    ("grant.decode.unknown-resource-kind", "GR-5", "invalid", ("CaseSensitiveVariant",), "there is no kind directory", _g(grant_text(resources=(("directory", "a"),)))),
    ("grant.decode.missing-tool", "GR-5", "invalid", (), "tool is required", _g('{"format":"text","max_calls":1,"max_input_bytes":1,"max_output_bytes":1}')),
    ("grant.decode.resources-null", "GR-6", "invalid", ("DefaultedField",), "null is not an absent member", _g('{"tool":"a","format":"text","max_calls":1,"max_input_bytes":1,"max_output_bytes":1,"resources":null}')),
    ("grant.decode.max-compensations-null", "GR-6", "invalid", ("DefaultedField",), "null is not an absent member", _g(grant_text(comp="null"))),
    ("grant.decode.trailing-comma", "GR-5", "invalid", (), "strict JSON", _g('{"tool":"a","format":"text","max_calls":1,"max_input_bytes":1,"max_output_bytes":1,}')),
]

ATTENUATION: list[Row] = [
    ("grant.attenuate.empty-keeps-parent", "GR-18", "valid", (), "{} changes nothing", _att(_ATT_PARENT, "{}")),
    ("grant.attenuate.narrow-everything", "GR-20", "valid", (), "every limit lower, one selector kept", _att(_ATT_PARENT, '{"max_calls":1,"max_input_bytes":1,"max_output_bytes":1,"max_compensations":1,"resources":[{"kind":"secret","id":"token"}]}')),
    ("grant.attenuate.equal-limits", "GR-20", "valid", (), "equal is not wider", _att(_ATT_PARENT, '{"max_calls":10,"max_input_bytes":4096,"max_output_bytes":4096,"max_compensations":3}')),
    ("grant.attenuate.null-member-keeps-parent", "GR-18", "valid", ("NullMeansAbsent",), "null equals absent", _att(_ATT_PARENT, '{"max_calls":null,"resources":null}')),
    ("grant.attenuate.tool-member-ignored", "GR-18", "valid", ("UnknownFieldIgnored",), "tool and format cannot be changed", _att(_ATT_PARENT, '{"tool":"other","format":"text","max_calls":2}')),
    ("grant.attenuate.max-calls-zero", "GR-19", "invalid", ("ZeroLimit",), "attenuated max_calls 0", _att(_ATT_PARENT, '{"max_calls":0}')),
    ("grant.attenuate.max-input-zero", "GR-19", "invalid", ("ZeroLimit",), "attenuated max_input_bytes 0", _att(_ATT_PARENT, '{"max_input_bytes":0}')),
    ("grant.attenuate.max-output-zero", "GR-19", "invalid", ("ZeroLimit",), "attenuated max_output_bytes 0", _att(_ATT_PARENT, '{"max_output_bytes":0}')),
    ("grant.attenuate.zero-before-widening", "GR-19", "invalid", (*ORDER, "ZeroLimit", "AttenuationWidening"), "max_calls widened and max_output_bytes 0: the zero is reported", _att(_ATT_PARENT, '{"max_calls":11,"max_output_bytes":0}')),
    ("grant.attenuate.widen-max-calls", "GR-20", "invalid", ("AttenuationWidening",), "11 > 10", _att(_ATT_PARENT, '{"max_calls":11}')),
    ("grant.attenuate.widen-max-input", "GR-20", "invalid", ("AttenuationWidening",), "4097 > 4096", _att(_ATT_PARENT, '{"max_input_bytes":4097}')),
    ("grant.attenuate.widen-max-output", "GR-20", "invalid", ("AttenuationWidening",), "u32 maximum > 4096", _att(_ATT_PARENT, '{"max_output_bytes":4294967295}')),
    ("grant.attenuate.widen-max-compensations", "GR-20", "invalid", ("AttenuationWidening", "CompensationLimitLowering"), "4 > 3", _att(_ATT_PARENT, '{"max_compensations":4}')),
    ("grant.attenuate.compensations-to-zero", "GR-20", "valid", ("CompensationLimitLowering",), "0 disables compensation and is not a zero-limit error", _att(_ATT_PARENT, '{"max_compensations":0}')),
    ("grant.attenuate.compensations-lowered", "GR-20", "valid", ("CompensationLimitLowering",), "3 to 1", _att(_ATT_PARENT, '{"max_compensations":1}')),
    ("grant.attenuate.compensations-raised-from-zero", "GR-20", "invalid", ("CompensationLimitLowering", "AttenuationWidening"), "a grant without compensation cannot gain it", _att(grant_text(comp=0), '{"max_compensations":1}')),
    ("grant.attenuate.resources-subset", "GR-21", "valid", (), "keep one of two selectors", _att(_ATT_PARENT, '{"resources":[{"kind":"file_root","id":"repo"}]}')),
    ("grant.attenuate.resources-empty-set", "GR-21", "valid", ("EmptyResourceSet",), "[] removes every selector", _att(_ATT_PARENT, '{"resources":[]}')),
    ("grant.attenuate.resources-expand", "GR-21", "invalid", ("ResourceExpansion",), "a new selector", _att(_ATT_PARENT, '{"resources":[{"kind":"secret","id":"other"}]}')),
    ("grant.attenuate.resources-other-kind", "GR-21", "invalid", ("ResourceExpansion",), "same id, different kind", _att(_ATT_PARENT, '{"resources":[{"kind":"secret","id":"repo"}]}')),
    ("grant.attenuate.widening-before-expansion", "GR-21", "invalid", (*ORDER, "AttenuationWidening", "ResourceExpansion"), "limits checked before resources", _att(_ATT_PARENT, '{"max_calls":11,"resources":[{"kind":"secret","id":"other"}]}')),
    ("grant.attenuate.parent-validated-first", "GR-17", "invalid", ORDER, "parent max_calls 0 with an empty attenuation", _att(grant_text(calls=0), "{}")),
    ("grant.attenuate.invalid-parent-selector", "GR-17", "invalid", ORDER, "the bad selector would be dropped, but the parent fails first", _att(grant_text(resources=(("secret", "Bad"), ("secret", "ok"))), '{"resources":[{"kind":"secret","id":"ok"}]}')),
    ("grant.attenuate.chain-narrowing", "GR-22", "valid", ("AttenuationChain",), "two narrowing steps", _att(_ATT_PARENT, '{"max_calls":5}', '{"max_calls":2,"resources":[]}')),
    ("grant.attenuate.chain-rewiden-calls", "GR-22", "invalid", ("AttenuationChain", "AttenuationWidening"), "5 then 6: still below the original 10", _att(_ATT_PARENT, '{"max_calls":5}', '{"max_calls":6}')),
    ("grant.attenuate.chain-restore-compensation", "GR-22", "invalid", ("AttenuationChain", "CompensationLimitLowering"), "0 then back to 1", _att(_ATT_PARENT, '{"max_compensations":0}', '{"max_compensations":1}')),
    ("grant.attenuate.chain-restore-selector", "GR-22", "invalid", ("AttenuationChain", "ResourceExpansion"), "a dropped selector cannot come back", _att(_ATT_PARENT, '{"resources":[]}', '{"resources":[{"kind":"secret","id":"token"}]}')),
    ("grant.attenuation.default-json", "GR-18", "valid", (), "the empty attenuation serializes as {}", {"operation": "grant_attenuation_json", "attenuation": "{}"}),
    ("grant.attenuation.json-leaves-out-absent", "GR-18", "valid", ("NullMeansAbsent",), "null and absent members are not written; selectors sorted", {"operation": "grant_attenuation_json", "attenuation": '{"resources":[{"kind":"secret","id":"b"},{"kind":"file_root","id":"c"}],"max_output_bytes":null,"max_calls":3}'}),
]

MANIFESTS: list[Row] = [
    ("manifest.validate.upstream-single-grant", "GR-23", "valid", KA, "the probe's manifest", _man(manifest_text(grant_text(comp=0)))),
    ("manifest.validate.zero-grants", "GR-25", "valid", ("ZeroGrantSession",), "no grants at all", _man(manifest_text())),
    ("manifest.validate.version-4", "GR-24", "invalid", ("VersionCheck",), "older version", _man(manifest_text(version=4))),
    ("manifest.validate.version-6", "GR-24", "invalid", ("VersionCheck",), "newer version", _man(manifest_text(version=6))),
    ("manifest.validate.version-0", "GR-24", "invalid", ("VersionCheck",), "version zero (the smallest u16)", _man(manifest_text(version=0))),
    ("manifest.validate.128-grants", "GR-24", "valid", ("GrantLimit",), "exactly 128 grants", _man(_many(128))),
    ("manifest.validate.129-grants", "GR-24", "invalid", ("GrantLimit",), "one grant too many", _man(_many(129))),
    ("manifest.validate.count-before-session-id", "GR-24", "invalid", ORDER, "129 grants and a bad session id", _man(_many(129, session="Bad"))),
    ("manifest.validate.version-before-count", "GR-24", "invalid", ORDER, "version 4 and 129 grants", _man(_many(129, version=4))),
    ("manifest.validate.session-id-not-token", "GR-24", "invalid", ("TokenGrammar",), "session id with a colon", _man(manifest_text(session="session:1"))),
    ("manifest.validate.session-before-grants", "GR-24", "invalid", ORDER, "bad session id and an invalid grant", _man(manifest_text(grant_text(calls=0), session="S"))),
    ("manifest.validate.duplicate-tool", "GR-24", "invalid", ("DuplicateGrant",), "two grants for math.add", _man(manifest_text(UPSTREAM, grant_text(calls=1)))),
    ("manifest.validate.grant-checked-before-duplicate", "GR-24", "invalid", (*ORDER, "DuplicateGrant"), "the repeated grant is itself invalid: its own error wins", _man(manifest_text(UPSTREAM, grant_text(calls=0)))),
    ("manifest.validate.unknown-member-ignored", "GR-23", "valid", ("UnknownFieldIgnored",), "an extra member at the manifest level", _man('{"protocol_version":5,"session_id":"s","grants":[],"note":"x"}')),
    ("manifest.decode.version-over-u16", "GR-23", "invalid", ("IntegerRange",), "65541 does not fit a u16 (it is 5 modulo 65536)", _man(manifest_text(version=65541))),
    ("manifest.decode.version-5000-digits", "GR-23", "invalid", ("IntegerRange", "LongInteger"), "a 5,000-digit version does not fit a u16 either", _man('{"protocol_version":' + "5" * 5000 + ',"session_id":"session-1","grants":[]}')),
    ("manifest.decode.repeated-session-id", "GR-23", "invalid", ("DuplicateFieldRejected",), "session_id written twice", _man('{"protocol_version":5,"session_id":"a","session_id":"b","grants":[]}')),
    ("grant.attenuation.json-every-limit", "GR-18", "valid", ("AttenuationFieldNames",), "every limit present: written in struct order under its own name, whatever the input order", {"operation": "grant_attenuation_json", "attenuation": '{"max_compensations":0,"max_output_bytes":7,"max_input_bytes":4294967295,"max_calls":1}'}),
    ("manifest.attenuation.default-json", "GR-26", "valid", (), "the default serializes as grants only", {"operation": "manifest_attenuation_json", "attenuation": "{}"}),
    ("manifest.attenuation.repeated-tool-key-last-wins", "GR-26", "valid", ("DuplicateMapKeyLastWins",), "a map, not a struct: the later entry replaces the earlier", {"operation": "manifest_attenuation_json", "attenuation": '{"grants":{"a":{"max_calls":5},"a":{"max_calls":1}},"allowed_tools":["b","a","b"]}'}),
    ("manifest.attenuate.empty-keeps-all", "GR-27", "valid", (), "{} keeps every grant unchanged", _matt(TWO_TOOLS, "{}")),
    ("manifest.attenuate.restrict-one-tool", "GR-27", "valid", (), "one restriction applied", _matt(TWO_TOOLS, '{"grants":{"svc.deploy":{"max_calls":1,"resources":[]}}}')),
    ("manifest.attenuate.unknown-tool-in-grants", "GR-27", "invalid", ("UnknownToolRestriction",), "restriction for a tool the parent lacks", _matt(TWO_TOOLS, '{"grants":{"nope":{}}}')),
    ("manifest.attenuate.allowed-tool-not-token", "GR-27", "invalid", ("TokenGrammar",), "Bad in allowed_tools", _matt(TWO_TOOLS, '{"allowed_tools":["Bad"]}')),
    ("manifest.attenuate.allowed-tool-unknown", "GR-27", "invalid", ("UnknownToolRestriction",), "a valid token the parent lacks", _matt(TWO_TOOLS, '{"allowed_tools":["nope"]}')),
    ("manifest.attenuate.grants-keys-before-allowed-tools", "GR-27", "invalid", ORDER, "unknown restriction key and a bad allowed tool", _matt(TWO_TOOLS, '{"allowed_tools":["Bad"],"grants":{"nope":{}}}')),
    ("manifest.attenuate.allowed-tools-sorted-order", "GR-27", "invalid", ORDER, "allowed_tools a-unknown and b B: a-unknown sorts first", _matt(TWO_TOOLS, '{"allowed_tools":["b B","a-unknown"]}')),
    ("manifest.attenuate.parent-validated-first", "GR-27", "invalid", ORDER, "parent of version 4", _matt(manifest_text(version=4), '{"grants":{"nope":{}}}')),
    ("manifest.attenuate.dropped-tool-restriction-ignored", "GR-28", "valid", ("DroppedToolRestriction",), "a widening restriction for a removed tool does not fail", _matt(_DROP_PARENT, '{"allowed_tools":["b"],"grants":{"a":{"max_calls":99}}}')),
    ("manifest.attenuate.dropped-tool-must-be-known", "GR-28", "invalid", ("DroppedToolRestriction", "UnknownToolRestriction"), "restriction keys are still checked", _matt(_DROP_PARENT, '{"allowed_tools":["b"],"grants":{"zzz":{}}}')),
    ("manifest.attenuate.kept-tool-widening", "GR-27", "invalid", ("AttenuationWidening",), "the restriction of a kept tool is applied", _matt(_DROP_PARENT, '{"allowed_tools":["a"],"grants":{"a":{"max_calls":99}}}')),
    ("manifest.attenuate.empty-allowed-tools", "GR-29", "valid", ("ZeroGrantSession",), "a session with no grants", _matt(TWO_TOOLS, '{"allowed_tools":[]}')),
    ("manifest.attenuate.null-allowed-tools", "GR-26", "valid", ("NullMeansAbsent", "ZeroGrantSession"), "null is absent: every grant kept", _matt(TWO_TOOLS, '{"allowed_tools":null}')),
    ("manifest.attenuate.keeps-parent-grant-order", "GR-29", "valid", ("GrantOrderPreserved",), "the parent lists b before a", _matt(_B_THEN_A, '{"allowed_tools":["a","b"]}')),
    ("manifest.attenuate.first-failure-in-grant-order", "GR-27", "invalid", (*ORDER, "GrantOrderPreserved"), "b widens, a expands; b is listed first", _matt(_B_THEN_A, '{"grants":{"a":{"resources":[{"kind":"secret","id":"x"}]},"b":{"max_calls":2}}}')),
]

IDENTIFIERS: list[Row] = [
    ("token.selector.single-letter", "GR-2", "valid", ("TokenGrammar",), "a", _sel("a")),
    ("token.selector.uppercase", "GR-2", "invalid", ("TokenGrammar",), "A", _sel("A")),
    ("token.selector.space", "GR-2", "invalid", ("TokenGrammar",), "a b", _sel("a b")),
    ("token.selector.slash", "GR-2", "invalid", ("TokenGrammar",), "a/b", _sel("a/b")),
    ("token.selector.colon", "GR-2", "invalid", ("TokenGrammar",), "a:b", _sel("a:b")),
    ("token.selector.punctuation", "GR-2", "valid", ("TokenGrammar",), "dot, underscore and hyphen", _sel("a.b_c-d")),
    ("token.selector.non-ascii", "GR-2", "invalid", ("NonAsciiToken",), "e with acute accent (2 bytes)", _sel("\u00e9")),
    ("token.selector.128-bytes", "GR-2", "valid", ("TokenLength",), "longest token", _sel("a" * 128)),
    ("token.selector.129-bytes", "GR-2", "invalid", ("TokenLength",), "one byte over", _sel("a" * 129)),
    ("token.selector.empty", "GR-2", "invalid", ("TokenLength",), "empty id", _sel("")),
    ("token.selector.128-bytes-2byte", "GR-2", "invalid", ("TokenLength", "NonAsciiToken"), "64 2-byte characters: within 128 bytes, refused by the byte grammar", _sel("\u00e9" * 64)),
    ("token.selector.129-bytes-in-128-chars", "GR-2", "invalid", ("TokenLength", "NonAsciiToken"), "127 ASCII and one 2-byte character: 129 bytes in 128 characters", _sel("a" * 127 + "\u00e9")),
    ("token.selector.128-bytes-4byte", "GR-2", "invalid", ("TokenLength", "NonAsciiToken"), "32 4-byte characters: within 128 bytes, refused by the byte grammar", _sel("\U0001f600" * 32)),
    ("compensation-key.bare-prefix", "GR-3", "valid", ("CompensationKeyPrefix",), "cmp- alone", _one("compensation_key", "cmp-")),
    ("compensation-key.prefixed", "GR-3", "valid", ("CompensationKeyPrefix",), "cmp-x", _one("compensation_key", "cmp-x")),
    ("compensation-key.missing-hyphen", "GR-3", "invalid", ("CompensationKeyPrefix",), "cmpx", _one("compensation_key", "cmpx")),
    ("compensation-key.uppercase-is-token-error", "GR-3", "invalid", (*ORDER, "CompensationKeyPrefix"), "CMP-x fails the token rule first", _one("compensation_key", "CMP-x")),
    ("compensation-key.operation-prefix", "GR-3", "invalid", ("CompensationKeyPrefix",), "op-x", _one("compensation_key", "op-x")),
    ("grant-fingerprint.lowercase-64", "GR-4", "valid", ("FingerprintHexCase",), "64 zeros", _one("grant_fingerprint_string", "00" * 32)),
    ("grant-fingerprint.uppercase", "GR-4", "invalid", ("FingerprintHexCase",), "uppercase hex", _one("grant_fingerprint_string", "AA" * 32)),
    ("grant-fingerprint.63-chars", "GR-4", "invalid", ("FingerprintHexCase",), "one short", _one("grant_fingerprint_string", "0" * 63)),
    ("grant-fingerprint.65-chars", "GR-4", "invalid", ("FingerprintHexCase",), "one long", _one("grant_fingerprint_string", "0" * 65)),
    ("grant-fingerprint.non-hex", "GR-4", "invalid", ("FingerprintHexCase",), "g is not hex", _one("grant_fingerprint_string", "gg" * 32)),
]

NOTES: tuple[Flag, ...] = (
    Flag("UpstreamKnownAnswer", "value observed from the compiled upstream code", "a different encoding or digest refuses every compensation bound to an upstream grant"),
    Flag("ResourceKindOrder", "resource kinds sorted by name or insertion order", "a different G, so a fingerprint mismatch for grants with several kinds"),
    Flag("ResourceIdByteOrder", "ids sorted by locale or character class", "a different G and fingerprint"),
    Flag("DefaultedField", "optional members not defaulted, or null taken as a default", "upstream grants refused, or malformed ones accepted"),
    Flag("UnknownFieldIgnored", "unknown members refused or copied into the grant", "grants from newer hosts refused, or a changed fingerprint"),
    Flag("DuplicateResourceCollapse", "selectors kept as a list", "a different G and a wrong count against the 64 limit"),
    Flag("FieldOrderFree", "the input text hashed instead of the re-encoded grant", "one grant with several fingerprints"),
    Flag("DuplicateFieldRejected", "last-wins or first-wins on a repeated struct member", "a checker and the worker may read different limits from one document"),
    Flag("IntegerRange", "integers not range-checked, or wrapped to the field width", "a huge limit or version wraps to a small one, or the reverse"),
    Flag("LongInteger", "an integer field parsed into an unbounded integer, or by a parser with a digit limit, before its range check", "a number thousands of digits long raises the parser's own error, or costs quadratic time, instead of the out-of-range decode error"),
    Flag("StrictIntegerType", "floats, strings or booleans accepted as limits", "grants upstream refuses are accepted"),
    Flag("CaseSensitiveVariant", "enum names matched without case, or unknown kinds kept", "grants upstream refuses are accepted"),
    Flag("ResourceLimit", "off by one at 64 selectors, or counting before collapsing", "valid grants refused or oversized ones accepted"),
    Flag("CheckOrder", "checks run in a different order", "a different error code for the same input"),
    Flag(FLAG, *NOTE),
    Flag("ZeroLimit", "zero limits accepted", "a grant that can never be used passes validation"),
    Flag("CompensationDisabled", "a zero compensation budget treated as invalid", "grants without compensation refused"),
    Flag("TokenGrammar", "a looser identifier character class", "identifiers upstream refuses are accepted"),
    Flag("TokenLength", "length counted in characters, or off by one at 0 or 128", "boundary identifiers judged differently"),
    Flag("NonAsciiToken", "Unicode-aware letter classes in tokens", "identifiers that look alike but differ are accepted"),
    Flag("AttenuationWidening", "a child limit not compared with its parent", "a delegate gains authority its parent lacks"),
    Flag("ResourceExpansion", "child selectors not required to be a subset", "a delegate reaches resources its parent lacks"),
    Flag("CompensationLimitLowering", "the compensation budget treated like the other limits, or skipped", "either compensation cannot be switched off, or its budget can grow"),
    Flag("AttenuationChain", "chain steps compared with the original grant only", "authority given up is taken back later"),
    Flag("AttenuationFieldNames", "a limit written under another name or out of struct order", "a normalized attenuation that names a different limit than the one set"),
    Flag("NullMeansAbsent", "null treated as 0 or as an error in optional members", "an attenuation meant to keep a value zeroes it or fails"),
    Flag("EmptyResourceSet", "an empty selector set taken as no restriction", "an attenuation meant to remove every selector keeps them all"),
    Flag("VersionCheck", "versions other than 5 accepted", "a session opened under different rules"),
    Flag("GrantLimit", "off by one at 128 grants", "boundary manifests judged differently"),
    Flag("DuplicateGrant", "a repeated tool accepted, or checked before the grant itself", "ambiguous authority, or a different error"),
    Flag("ZeroGrantSession", "an empty grant list refused, or an empty allowed_tools read as all", "no zero-authority session, or one that silently keeps everything"),
    Flag("UnknownToolRestriction", "restrictions for absent tools ignored", "a misspelt restriction silently leaves a grant wider than intended"),
    Flag("DroppedToolRestriction", "upstream quirk: a dropped tool's restriction applied, or not checked at all", "a different outcome from upstream for the same attenuation"),
    Flag("DuplicateMapKeyLastWins", "upstream quirk: a repeated tool key in the grants map resolves last-wins", "a checker reading the first entry sees a different restriction"),
    Flag("GrantOrderPreserved", "grants sorted or re-ordered", "a different manifest text and a different first failure"),
    Flag("CompensationKeyPrefix", "the prefix checked before the token rule, or not at all", "a different error code, or ordinary keys accepted as compensation keys"),
    Flag("FingerprintHexCase", "uppercase or mis-sized hex accepted", "two spellings of one fingerprint, so identity checks disagree"),
)
# fmt: on

GROUPS: tuple[tuple[str, list[Row]], ...] = (
    ("grant-fingerprint", FINGERPRINTS),
    ("grant-validation", VALIDATION),
    ("grant-decoding", DECODING),
    ("grant-attenuation", ATTENUATION),
    ("session-manifest", MANIFESTS),
    ("identifiers", IDENTIFIERS),
)

_HEX64 = {"type": "string", "pattern": "^[0-9a-f]{64}$"}
TEST_SCHEMA: dict[str, Any] = {
    "input": {
        "type": "object",
        "required": ["operation"],
        "additionalProperties": False,
        "properties": {
            "operation": {"enum": list(OPERATIONS)},
            "grant": {"type": "string", "description": "grant JSON text"},
            "attenuations": {
                "type": "array",
                "items": {"type": "string"},
                "description": "grant attenuation JSON texts, applied in order",
            },
            "attenuation": {"type": "string", "description": "attenuation JSON text"},
            "manifest": {"type": "string", "description": "manifest JSON text"},
            "kind": {"enum": ["file_root", "executable", "network_origin", "secret"]},
            "id": {"type": "string"},
            "value": {"type": "string"},
        },
    },
    "expected": {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "encoded": {"type": "string", "description": "G: compact grant JSON"},
            "fingerprint": _HEX64,
            "normalized": {"type": "string"},
            "manifest": {"type": "string"},
            "tools": {"type": "array", "items": {"type": "string"}},
            "resource": {"type": "string"},
            "value": {"type": "string"},
            "error": {"type": "string"},
            "field": {"type": "string"},
            "reason": {"type": "string"},
            "maximum": {"type": "integer"},
            "tool": {"type": "string"},
            "actual": {"type": "integer"},
        },
    },
}


_AP = "out_ap.txt"
_FP_COMPUTED = "fingerprint computed by the reference (GR-15)"
_ENCODED_COMPUTED = "the grant's encoding and fingerprint computed by the reference (GR-13, GR-15)"
_OTHER_MEMBERS = "the row does not print the probe's other grant members"


def _fp_pair(label: str) -> Provenance:
    return observed(_AP, label, "fp", scope="the `fp` row right after it")


PROBED: dict[str, Provenance] = {
    "grant.fp.upstream-compensation-grant": _fp_pair("grant json"),
    "grant.fp.upstream-compensation-grant-no-budget": _fp_pair("grant(no comp) json"),
    "grant.fp.upstream-worker-test-grant": _fp_pair("worker test grant json"),
    "grant.fp.json-release-publish-limit-1": _fp_pair("release.publish json"),
    "grant.fp.multi-resource-kind-order": _fp_pair("multi-resource json"),
    "grant.fp.probe-text-echo-output-16": observed(
        "out_other.txt",
        "compensate same identity new id after success (budget 1 already reserved by c1)",
        scope="the grant_fingerprint of block 3's grant; its encoding computed (GR-13)",
    ),
    "grant.fp.absent-optional-members-default": observed(
        _AP, "grant defaults roundtrip", scope=f"the encoding; {_FP_COMPUTED}"
    ),
    "grant.validate.max-calls-zero": observed(_AP, "max_calls 0", scope=_OTHER_MEMBERS),
    "grant.validate.max-output-zero": observed(_AP, "max_output 0", scope=_OTHER_MEMBERS),
    "grant.validate.sixty-five-selectors": observed(
        _AP, "65 resources", "comp fp of invalid grant"
    ),
    "grant.attenuate.max-calls-zero": observed(_AP, "atten max_calls 0", scope=_OTHER_MEMBERS),
    "grant.attenuate.compensations-to-zero": observed(
        _AP, "atten max_compensations 0 (ok)", scope=f"acceptance and the 0; {_ENCODED_COMPUTED}"
    ),
    "grant.attenuate.zero-before-widening": observed(_AP, "atten widen + zero both"),
    "grant.attenuate.widening-before-expansion": observed(
        _AP, "atten widen calls + expand resources"
    ),
    "grant.attenuate.resources-empty-set": observed(
        _AP, "atten resources empty set", scope=f"acceptance and the empty set; {_ENCODED_COMPUTED}"
    ),
    "grant.attenuation.default-json": observed(_AP, "GrantAttenuation default json"),
    "manifest.attenuation.default-json": observed(_AP, "ManifestAttenuation default json"),
    "manifest.validate.upstream-single-grant": observed(_AP, "manifest json"),
    "manifest.attenuate.unknown-tool-in-grants": observed(
        _AP, "manifest atten unknown tool in grants"
    ),
    "manifest.attenuate.allowed-tool-not-token": observed(
        _AP, "manifest atten invalid token in allowed_tools"
    ),
    "manifest.attenuate.dropped-tool-restriction-ignored": observed(
        _AP,
        "manifest atten restriction for tool dropped by allowed_tools",
        scope="acceptance with one grant kept; the manifest text computed by the reference (GR-23)",
    ),
    **{
        f"token.selector.{name}": observed(
            _AP, f"token {label}", scope="the resource text computed (GR-9)" if valid else ""
        )
        for name, label, valid in (
            ("single-letter", '"a" (len 1)', True),
            ("uppercase", '"A" (len 1)', False),
            ("space", '"a b" (len 3)', False),
            ("slash", '"a/b" (len 3)', False),
            ("colon", '"a:b" (len 3)', False),
            ("punctuation", '"a.b_c-d" (len 7)', True),
            ("non-ascii", '"\u00e9" (len 2)', False),
            ("128-bytes", '"<long>" (len 128)', True),
            ("129-bytes", '"<long>" (len 129)', False),
            ("empty", '"" (len 0)', False),
        )
    },
    **{
        f"compensation-key.{name}": observed(_AP, f'compensation key "{key}"')
        for name, key in (
            ("bare-prefix", "cmp-"),
            ("prefixed", "cmp-x"),
            ("missing-hyphen", "cmpx"),
            ("uppercase-is-token-error", "CMP-x"),
            ("operation-prefix", "op-x"),
        )
    },
    **{
        f"grant-fingerprint.{name}": observed(_AP, f"grant fp {label}")
        for name, label in (
            ("lowercase-64", '"00"..len 64'),
            ("uppercase", '"AA"..len 64'),
            ("63-chars", '"00"..len 63'),
            ("non-hex", '"gg"..len 64'),
        )
    },
}
"""Vectors whose answer a probe row prints; every other vector is derived from its rule."""


def _grant_fault(document: dict[str, Any], at: int) -> None:
    document["grants"][at]["tool"] = document["grants"][at]["tool"].upper()


def _repeat_tool(document: dict[str, Any], at: int) -> None:
    document["grants"][at - 1]["tool"] = document["grants"][at]["tool"]


def _too_many_grants(document: dict[str, Any], _: int) -> None:
    grants = document["grants"]
    grants.extend(json.loads(grant_text(f"extra.t{i}")) for i in range(129 - len(grants)))


def _compact(document: dict[str, Any]) -> dict[str, Any]:
    return _man(json.dumps(document, separators=(",", ":")))


def precedence_rows() -> list[CaseRow]:
    """EP-5's pairs: a three-grant manifest with two of its checks broken."""
    return pair_rows(
        Faults(
            "grants.manifest",
            "manifest.validate",
            lambda: json.loads(manifest_text(*(grant_text(f"tool.t{i}") for i in range(3)))),
            {
                "version": lambda document, _: document.update(protocol_version=4),
                "grant_count": _too_many_grants,
                "session_id": lambda document, _: document.update(session_id="Session-1"),
                "grant": _grant_fault,
                "grant_unique": _repeat_tool,
            },
            _compact,
            run,
            splash_code(
                PROTOCOL,
                "SessionManifest::validate",
                note="the order of the checks in the function; read, not run (EP-5)",
            ),
        )
    )


def _grant_faults() -> dict[str, Any]:
    return {
        "tool": lambda grant, _: grant.update(tool="Math.Add"),
        "max_calls": lambda grant, _: grant.update(max_calls=0),
        "byte_limits": lambda grant, _: grant.update(max_output_bytes=0),
        "resource_count": lambda grant, _: grant.update(
            resources=[{"kind": kind, "id": rid} for kind, rid in SIXTY_FIVE]
        ),
        "resource_id": lambda grant, _: grant["resources"][0].update(id="Math-API"),
    }


def grant_precedence_rows() -> list[CaseRow]:
    """EP-6's pairs: one grant with two of its checks broken."""
    return pair_rows(
        Faults(
            "grants.grant",
            "grant.validate",
            lambda: json.loads(grant_text()),
            _grant_faults(),
            lambda grant: _g(json.dumps(grant, separators=(",", ":"))),
            run,
            splash_code(
                PROTOCOL,
                "CapabilityGrant::validate",
                note="the order of the checks in the function; read, not run (EP-6)",
            ),
        )
    )


def _attenuated(document: dict[str, Any]) -> dict[str, Any]:
    return _att(*(json.dumps(document[k], separators=(",", ":")) for k in ("grant", "step")))


def attenuation_precedence_rows() -> list[CaseRow]:
    """EP-7's pairs: a parent and one attenuation step with two checks broken."""
    return pair_rows(
        Faults(
            "grants.attenuate",
            "grant.attenuate",
            lambda: {"grant": json.loads(grant_text()), "step": {"max_calls": 1}},
            {
                "parent": lambda document, _: document["grant"].update(tool="Math.Add"),
                "zero_limit": lambda document, _: document["step"].update(max_calls=0),
                "widen": lambda document, _: document["step"].update(max_input_bytes=129),
                "expand": lambda document, _: document["step"].update(
                    resources=[{"kind": "secret", "id": "token"}]
                ),
            },
            _attenuated,
            run,
            splash_code(
                PROTOCOL,
                "CapabilityGrant::attenuate",
                note="the order of the checks in the function; read, not run (EP-7)",
            ),
        )
    )


def _precedence_test(row: CaseRow) -> VectorTest:
    result, expected = expected_of(row.input)
    if result != row.result:
        raise ValueError(f"{row.id}: reference gives {result} {expected}")
    return VectorTest(
        row.id,
        row.rule,
        row.comment,
        row.input,
        expected,
        result,
        row.flags,
        provenance=row.provenance,
    )


def _test(row: Row) -> VectorTest:
    test_id, rule = row[0], row[1]
    return test_from_row(row, expected_of, PROBED.get(test_id) or derived(rule))


def build() -> VectorFile:
    groups = [VectorGroup(name, tuple(_test(row) for row in rows)) for name, rows in GROUPS]
    groups.append(
        VectorGroup(
            "precedence",
            tuple(
                _precedence_test(row)
                for row in (
                    *grant_precedence_rows(),
                    *attenuation_precedence_rows(),
                    *precedence_rows(),
                )
            ),
        )
    )
    return VectorFile(
        topic=TOPIC,
        header=(
            "Capability grants, their fingerprint, attenuation, the session manifest and the",
            "identifier grammars they use. Rules: docs/spec/grants.md (GR-n).",
            "Inputs are JSON text; decode them with your own parser. Compare error codes only;",
            "reason, field, maximum, tool and actual are informative.",
            "ErrorPrecedence vectors break two checks at once (docs/spec/precedence.md):",
            "the earlier check's code is expected.",
        ),
        notes=NOTES,
        groups=groups,
        test_schema=TEST_SCHEMA,
    )
