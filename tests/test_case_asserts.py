"""Expected-value fragments (rescind.conformance.cases.asserts): each property holds of the
value it describes and breaks on a neighbouring one."""

from __future__ import annotations

from typing import Any

import pytest

from rescind.conformance.cases import CaseTableError, json_values
from rescind.conformance.cases.asserts import broken

RESULTS: list[Any] = [
    "op-" + "a" * 64,
    '{"revision":1,"operations":[{"key":"k","state":"pending"},{"key":"j","state":"done"}]}',
    {"actions": [{"tool": "t", "hex": "00"}, {"tool": "t", "hex": "00"}]},
    True,
    None,
    {"calls": {}},
]


@pytest.mark.parametrize(
    ("holds", "breaks"),
    [
        ({"step": 3, "equals": True}, {"step": 3, "equals": 1}),
        (
            {"step": 1, "path": ["operations", 0, "key"], "equals": "k"},
            {"step": 1, "path": ["operations", -1, "key"], "equals": "k"},
        ),
        (
            {"step": 1, "path": ["operations", {"key": "j"}, "state"], "equals": "done"},
            {"step": 1, "path": ["operations", {"key": "x"}, "state"], "equals": "done"},
        ),
        ({"step": [3, 4], "equals": [True, None]}, {"step": [3, 4], "equals": [True, False]}),
        ({"step": 0, "differs_from": [{"$step": 3}]}, {"step": 0, "differs_from": [{"$step": 0}]}),
        ({"step": 1, "has": {"revision": 1}}, {"step": 1, "has": {"revision": 2}}),
        (
            {"step": 2, "path": ["actions"], "each_has": {"tool": "t"}},
            {"step": 2, "path": ["actions"], "each_has": {"tool": "u"}},
        ),
        (
            {"step": 2, "path": ["actions", "*", "hex"], "distinct": 1},
            {"step": 2, "path": ["actions", "*", "hex"], "distinct": 2},
        ),
        ({"step": 1, "path": ["operations"], "length": 2}, {"step": 1, "length": 3}),
        ({"step": 1, "keys": ["operations", "revision"]}, {"step": 1, "keys": ["revision"]}),
        ({"step": 1, "lacks": ["secret"]}, {"step": 1, "lacks": ["pending"]}),
        ({"step": 0, "matches": "op-[0-9a-f]{64}"}, {"step": 0, "matches": "op-[0-9a-f]{63}"}),
        ({"step": 4, "null": True}, {"step": 3, "null": True}),
        (
            {"step": 5, "path": ["calls", "tool"], "equals": 0, "absent": 0},
            {"step": 5, "path": ["calls", "tool"], "equals": 0},
        ),
        (
            {
                "step": 1,
                "path": ["operations", 1, "state"],
                "equals": {"$step": 1, "$path": ["operations", 1, "state"]},
            },
            {
                "step": 1,
                "path": ["operations", 0, "state"],
                "equals": {"$step": 1, "$path": ["operations", 1, "state"]},
            },
        ),
        ({"step": 4, "equals": {"$json": "null"}}, {"step": 4, "equals": {"$json": "0"}}),
        ({"step": 3, "equals": True}, {"step": 9, "equals": True}),
    ],
)
def test_a_property_holds_and_breaks(holds: dict[str, Any], breaks: dict[str, Any]) -> None:
    assert broken([{"what": "holds", **holds}], RESULTS) == []
    assert broken([{"what": "breaks", **breaks}], RESULTS) == ["breaks"]


@pytest.mark.parametrize(
    "assertion",
    [
        {"step": 0},
        {"step": 0, "equals": 1, "length": 1},
        {"step": 0, "resembles": 1},
        {"equals": 1},
    ],
)
def test_an_assertion_states_a_step_and_exactly_one_property(assertion: dict[str, Any]) -> None:
    with pytest.raises(CaseTableError, match="exactly one of"):
        broken([assertion], RESULTS)


def test_json_values_write_what_toml_cannot() -> None:
    written = {"a": [{"$json": "null"}, {"$json": "18446744073709551615"}], "b": {"c": 1}}
    assert json_values(written) == {"a": [None, 2**64 - 1], "b": {"c": 1}}
