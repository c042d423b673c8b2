"""Splash protocol tests of grants and manifests, as grants-topic requests.

Upstream's ``CapabilityGrant::text``/``json`` default to 1 call, 16,384 bytes in, 65,536 out
and no compensation; ``json_grant`` and ``compensation_grant`` are described in the journal
group of ``conformance/cases/splash-upstream-tests.toml``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from rescind.conformance.interpreters.grant_ops import expected_of
from rescind.conformance.vectors.format import VectorTest
from rescind.conformance.vectors.sets._splash_port_support import (
    PROTOCOL,
    PortDisagrees,
    SinglePort,
    check_holds,
    cite,
    words,
)
from rescind.conformance.vectors.sets.grants import grant_text, manifest_text

JSON_GRANT = grant_text(comp=0)
ECHO_2 = grant_text("text.echo", "text", 2, 16384, 65536, 0, ())
TWO_TOOLS = manifest_text(JSON_GRANT, ECHO_2)


def _tool_grants(count: int) -> str:
    return manifest_text(
        *(grant_text(f"tool-{index}", "text", 1, 16384, 65536, 0, ()) for index in range(count))
    )


def _attenuate(attenuation: str) -> dict[str, Any]:
    return {
        "operation": "grant_attenuate",
        "grant": grant_text(comp=2),
        "attenuations": [attenuation],
    }


def _port(
    test: str,
    rule: str,
    comment: str,
    body: dict[str, Any],
    intended: str,
    suffix: str,
    holds: Callable[[Mapping[str, Any]], bool] | None = None,
) -> SinglePort:
    return SinglePort(test, PROTOCOL, rule, comment, body, intended, suffix, holds=holds)


def _grant(answer: Mapping[str, Any]) -> dict[str, Any]:
    grant: dict[str, Any] = json.loads(answer["encoded"])
    return grant


def _grants(answer: Mapping[str, Any]) -> list[Any]:
    grants: list[Any] = json.loads(answer["manifest"])["grants"]
    return grants


def _narrowed(answer: Mapping[str, Any]) -> bool:
    grant = _grant(answer)
    limits = (grant["max_calls"], grant["max_input_bytes"], grant["max_compensations"])
    return limits == (1, 64, 1) and len(grant["resources"]) == 1


ATTENUATION_TEST = "attenuation_only_reduces_authority"
MANIFEST_TEST = "capability_manifest_grant_count_is_bounded_across_protocol_entry_points"
DROP_TEST = "manifest_attenuation_can_drop_tools_or_create_a_zero_capability_session"

PORTS = [
    _port(
        "rejects_duplicate_capability_grants",
        "GR-24",
        "upstream asserts: a manifest holding json_grant twice is duplicate_grant (math.add)",
        {"operation": "manifest", "manifest": manifest_text(JSON_GRANT, JSON_GRANT)},
        "duplicate_grant",
        "",
    ),
    _port(
        MANIFEST_TEST,
        "GR-24",
        "upstream asserts: 128 text grants tool-0..tool-127 make a valid manifest",
        {"operation": "manifest", "manifest": _tool_grants(128)},
        "ok",
        ".exact-maximum",
        lambda answer: len(_grants(answer)) == 128,
    ),
    _port(
        MANIFEST_TEST,
        "GR-24",
        "upstream asserts: 129 grants are too_many_grants (maximum 128) at validate, new, the authorizer, frame decoding and sealing; the manifest check is pinned here",
        {"operation": "manifest", "manifest": _tool_grants(129)},
        "too_many_grants",
        ".one-over",
    ),
    _port(
        ATTENUATION_TEST,
        "GR-20",
        "upstream asserts: compensation_grant with 2 compensations narrowed to 1 call, 64 bytes in and out, 1 compensation and its one selector has exactly those limits",
        _attenuate(
            '{"max_calls":1,"max_input_bytes":64,"max_output_bytes":64,"max_compensations":1,"resources":[{"kind":"network_origin","id":"math-api"}]}'
        ),
        "ok",
        ".narrowed",
        _narrowed,
    ),
    _port(
        ATTENUATION_TEST,
        "GR-20",
        "upstream asserts: max_compensations 0 is accepted and disables compensation",
        _attenuate('{"max_compensations":0}'),
        "ok",
        ".compensation-disabled",
        lambda answer: _grant(answer)["max_compensations"] == 0,
    ),
    _port(
        ATTENUATION_TEST,
        "GR-20",
        "upstream asserts: max_calls 3 over the parent's 2 is attenuation_widens_limits",
        _attenuate('{"max_calls":3}'),
        "attenuation_widens_limits",
        ".wider-calls",
    ),
    _port(
        ATTENUATION_TEST,
        "GR-20",
        "upstream asserts: max_compensations 3 over the parent's 2 is attenuation_widens_limits",
        _attenuate('{"max_compensations":3}'),
        "attenuation_widens_limits",
        ".wider-compensations",
    ),
    _port(
        ATTENUATION_TEST,
        "GR-21",
        "upstream asserts: adding secret api-key to the selectors is attenuation_expands_resources",
        _attenuate(
            '{"resources":[{"kind":"network_origin","id":"math-api"},{"kind":"secret","id":"api-key"}]}'
        ),
        "attenuation_expands_resources",
        ".added-selector",
    ),
    _port(
        DROP_TEST,
        "GR-27",
        "upstream asserts: allowing only math.add keeps one grant, math.add",
        {
            "operation": "manifest_attenuate",
            "manifest": TWO_TOOLS,
            "attenuation": '{"allowed_tools":["math.add"]}',
        },
        "ok",
        ".keep-one-tool",
        lambda answer: [g["tool"] for g in _grants(answer)] == ["math.add"],
    ),
    _port(
        DROP_TEST,
        "GR-28",
        "upstream asserts: an empty allowed_tools set gives a manifest with no grants",
        {
            "operation": "manifest_attenuate",
            "manifest": TWO_TOOLS,
            "attenuation": '{"allowed_tools":[]}',
        },
        "ok",
        ".zero-capability",
        lambda answer: _grants(answer) == [],
    ),
]


def _compute(body: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    return expected_of(body)


def vectors(prefix: str) -> list[VectorTest]:
    built = []
    for port in PORTS:
        result, expected = _compute(port.input)
        outcome = "ok" if result == "valid" else expected["error"]
        if outcome != port.intended:
            raise PortDisagrees(
                f"{port.test}{port.suffix}: upstream {port.intended}, reference {outcome}"
            )
        check_holds(port, expected)
        built.append(
            VectorTest(
                f"{prefix}.{words(port.test)}{port.suffix}",
                port.rule,
                port.comment,
                dict(port.input),
                expected,
                result,
                provenance=cite(port.path, port.test),
            )
        )
    return built
