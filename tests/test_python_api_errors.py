"""Error codes that only the reference's Python API raises (no driver operation carries the
input that triggers them), so no vector can expect them; conformance/coverage-exceptions.toml
points here for each."""

from __future__ import annotations

import pytest

from rescind.reference.jsonvalue import AmbiguousFloat, Lexeme, UnsupportedPythonValue, from_python
from rescind.reference.saga.casehub import Case, PlanItem
from rescind.reference.saga.errors import UnknownPlanItem


def test_a_python_float_has_no_single_spelling() -> None:
    with pytest.raises(AmbiguousFloat) as raised:
        from_python({"price": 12.5})
    assert raised.value.code == "ambiguous_float"
    # The spelled-out number is accepted: the refusal is about the float, not the value.
    assert from_python({"price": Lexeme("12.5")}) is not None


@pytest.mark.parametrize("value", [{1: "integer key"}, {"set": {1, 2}}, b"bytes"])
def test_values_json_cannot_hold_are_refused(value: object) -> None:
    with pytest.raises(UnsupportedPythonValue) as raised:
        from_python(value)
    assert raised.value.code == "unsupported_python_value"


def test_an_unknown_plan_item_is_a_typed_error() -> None:
    case = Case("case-1", items=(PlanItem("known", "binding-1"),))
    assert case.item("known").item_id == "known"
    with pytest.raises(UnknownPlanItem) as raised:
        case.item("missing")
    assert raised.value.code == "saga_unknown_plan_item"
