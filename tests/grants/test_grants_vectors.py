"""The generated `grants` vectors: well-formed, tied to the rule document, and carrying the
upstream known answers (transcribed here from upstream probe output, out_ap.txt)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from rescind.conformance.vectors.format import VectorFile
from rescind.conformance.vectors.sets.grants import build
from rescind.conformance.vectors.tool import file_schema, self_describing

RULES_DOC = Path(__file__).resolve().parents[2] / "docs" / "spec" / "grants.md"

VECTORS: VectorFile = build()
BY_ID = {test.id: test for test in VECTORS.tests}

KNOWN_FINGERPRINTS = {
    "grant.fp.upstream-compensation-grant": "a312a58bbb8e2dc99c371b7d80b2fe7ddb877fc94dca018f2782f982223ab6f2",
    "grant.fp.upstream-compensation-grant-no-budget": "24867a5828034ba6bc90e352306b61f65a32266c8cba8820d486612d96a72cbb",
    "grant.fp.upstream-worker-test-grant": "08243739d58d5f31a6cb2385f5dd74400e97ac2382a8d21096280768d1e46648",
    "grant.fp.json-release-publish-limit-1": "f868e4d5cb807c8d016259c0201e3a02526188043f9a64188bc86364d9b142a6",
    "grant.fp.probe-text-echo-output-16": "d593a0897245261a0b67a45bdcda6d1ca8dedcb0d67a6c434500b11547226ae9",
    "grant.fp.multi-resource-kind-order": "60889dcb49f8d4c75e7db4c3b4548c8a6f6462438248422dc281ff780d316b6d",
    # The reversed-member input is the upstream grant: same digest.
    "grant.fp.members-in-reverse-order": "a312a58bbb8e2dc99c371b7d80b2fe7ddb877fc94dca018f2782f982223ab6f2",
}

KNOWN_ENCODINGS = {
    "grant.fp.multi-resource-kind-order": '{"tool":"multi","format":"json","max_calls":1,"max_input_bytes":16384,"max_output_bytes":65536,"max_compensations":1,"resources":[{"kind":"file_root","id":"y"},{"kind":"executable","id":"x"},{"kind":"network_origin","id":"b"},{"kind":"network_origin","id":"z"},{"kind":"secret","id":"a"}]}',
    "grant.fp.absent-optional-members-default": '{"tool":"a","format":"text","max_calls":1,"max_input_bytes":1,"max_output_bytes":1,"max_compensations":0,"resources":[]}',
    "grant.fp.duplicate-selectors-and-unknown-member": '{"tool":"a","format":"text","max_calls":1,"max_input_bytes":1,"max_output_bytes":1,"max_compensations":0,"resources":[{"kind":"file_root","id":"a"},{"kind":"secret","id":"b"}]}',
}

# Outcomes read off docs/spec/grants.md and the probe output, per vector id.
EXPECTED_ERRORS = {
    "grant.validate.sixty-five-selectors": "too_many_resources",
    "grant.validate.max-calls-zero": "invalid_grant",
    "grant.validate.count-before-selector-ids": "too_many_resources",
    "grant.decode.repeated-member": "serialization",
    "grant.decode.format-uppercase": "serialization",
    "grant.attenuate.zero-before-widening": "invalid_grant",
    "grant.attenuate.widening-before-expansion": "attenuation_widens_limits",
    "grant.attenuate.widen-max-compensations": "attenuation_widens_limits",
    "grant.attenuate.resources-expand": "attenuation_expands_resources",
    "grant.attenuate.chain-restore-compensation": "attenuation_widens_limits",
    "manifest.validate.version-4": "unsupported_version",
    "manifest.validate.129-grants": "too_many_grants",
    "manifest.validate.duplicate-tool": "duplicate_grant",
    "manifest.attenuate.unknown-tool-in-grants": "unknown_tool",
    "manifest.attenuate.allowed-tool-not-token": "invalid_token",
    "compensation-key.missing-hyphen": "invalid_compensation_key",
    "compensation-key.uppercase-is-token-error": "invalid_token",
    "compensation-key.operation-prefix": "invalid_compensation_key",
    "grant-fingerprint.uppercase": "invalid_compensation_grant_fingerprint",
    "token.selector.non-ascii": "invalid_token",
}

EXPECTED_VALID = [
    "grant.attenuate.compensations-to-zero",
    "grant.attenuate.resources-empty-set",
    "manifest.validate.zero-grants",
    "manifest.attenuate.dropped-tool-restriction-ignored",
    "manifest.attenuate.empty-allowed-tools",
    "compensation-key.bare-prefix",
    "token.selector.128-bytes",
]


def test_enough_vectors_and_consistent_notes() -> None:
    VECTORS.check_consistency()
    assert len(BY_ID) >= 50


def test_document_matches_its_schema() -> None:
    jsonschema.validate(self_describing(VECTORS.to_json()), file_schema(VECTORS))


def test_every_rule_is_documented_and_every_documented_rule_is_used() -> None:
    documented = set(re.findall(r"\*\*(GR-\d+)\*\*", RULES_DOC.read_text(encoding="utf-8")))
    precedence = RULES_DOC.with_name("precedence.md").read_text(encoding="utf-8")
    orders = set(re.findall(r"\*\*(EP-\d+)\*\*", precedence))  # ErrorPrecedence vectors
    used = {test.rule for test in VECTORS.tests}
    assert used <= documented | orders
    assert documented <= used


@pytest.mark.parametrize(("test_id", "fingerprint"), sorted(KNOWN_FINGERPRINTS.items()))
def test_known_fingerprints(test_id: str, fingerprint: str) -> None:
    assert BY_ID[test_id].result == "valid"
    assert BY_ID[test_id].expected["fingerprint"] == fingerprint


@pytest.mark.parametrize(("test_id", "encoded"), sorted(KNOWN_ENCODINGS.items()))
def test_known_encodings(test_id: str, encoded: str) -> None:
    assert BY_ID[test_id].expected["encoded"] == encoded


@pytest.mark.parametrize(("test_id", "code"), sorted(EXPECTED_ERRORS.items()))
def test_expected_error_codes(test_id: str, code: str) -> None:
    test = BY_ID[test_id]
    assert (test.result, test.expected["error"]) == ("invalid", code)


@pytest.mark.parametrize("test_id", EXPECTED_VALID)
def test_expected_valid(test_id: str) -> None:
    assert BY_ID[test_id].result == "valid"


def test_dropped_tool_vector_keeps_only_the_allowed_tool() -> None:
    expected: dict[str, Any] = dict(
        BY_ID["manifest.attenuate.dropped-tool-restriction-ignored"].expected
    )
    assert expected["tools"] == ["b"]


def test_invalid_grant_reasons_are_upstream_texts() -> None:
    reasons = {
        test.expected.get("reason")
        for test in VECTORS.tests
        if test.expected.get("error") == "invalid_grant"
    }
    assert reasons == {
        "max_calls must be greater than zero",
        "byte limits must be greater than zero",
        "attenuated limits must be greater than zero",
    }
