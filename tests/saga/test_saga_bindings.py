"""SG-47, SG-50..SG-55: CaseHub binding validation (CH-S13) and compensation order."""

from __future__ import annotations

import pytest

from rescind.reference.saga.bindings import (
    Binding,
    CaseDefinition,
    FindingRule,
    Severity,
    compensation_order,
    load_definition,
    validate_bindings,
)
from rescind.reference.saga.errors import (
    CompensationCycle,
    MissingCompensationTarget,
    OrphanCompensationBinding,
    SelfCompensatingBinding,
)


def definition(*bindings: Binding) -> CaseDefinition:
    return CaseDefinition(bindings)


def findings(d: CaseDefinition) -> list[tuple[str, str, str, tuple[str, ...]]]:
    return [
        (f.severity.value, f.rule.value, f.binding, f.names) for f in validate_bindings(d).findings
    ]


def test_ch_s13_self_reference() -> None:
    d = definition(Binding("step-a", compensate="step-a"))
    assert findings(d) == [("error", "saga_binding_self_reference", "step-a", ("step-a",))]
    with pytest.raises(SelfCompensatingBinding) as raised:
        load_definition(d)
    assert "step-a" in str(raised.value)


def test_ch_s13_missing_target_names_it() -> None:
    d = definition(Binding("step-a", compensate="nonexistent"))
    with pytest.raises(MissingCompensationTarget) as raised:
        load_definition(d)
    assert "nonexistent" in str(raised.value)


def test_ch_s13_defaults() -> None:
    b = Binding("step-a")
    assert b.compensate is None and b.compensation is False
    assert findings(definition(b)) == [("info", "compensation_gap", "step-a", ())]
    assert load_definition(definition(b)).bindings == (b,)


@pytest.mark.parametrize(
    ("links", "cycle"),
    [
        ({"a": "b", "b": "a"}, ("a", "b")),
        ({"c": "a", "a": "b", "b": "c"}, ("a", "b", "c")),
        ({"start": "x", "x": "y", "y": "x"}, ("x", "y")),
    ],
)
def test_ch_s13_cycles_named_once(links: dict[str, str], cycle: tuple[str, ...]) -> None:
    d = definition(*(Binding(name, compensate=target) for name, target in links.items()))
    errors = validate_bindings(d).of(Severity.ERROR)
    assert [(f.rule, f.names) for f in errors] == [(FindingRule.CYCLE, cycle)]
    with pytest.raises(CompensationCycle):
        load_definition(d)


def test_orphan_compensation_binding_refuses_the_set() -> None:
    # CaseHub's validator returns the orphan in its error list and the YAML loader refuses
    # any non-empty list (CompensationBindingValidationTest.orphanedCompensationBinding_...).
    d = definition(
        Binding("step-a", compensate="undo-a"),
        Binding("undo-a", compensation=True),
        Binding("spare", compensation=True),
    )
    assert findings(d) == [("error", "saga_binding_orphan", "spare", ())]
    assert not validate_bindings(d).valid
    with pytest.raises(OrphanCompensationBinding):
        load_definition(d)


def test_loading_stops_on_first_error_but_reports_all() -> None:
    d = definition(Binding("a", compensate="ghost"), Binding("b", compensate="b"))
    report = validate_bindings(d)
    assert [f.rule for f in report.of(Severity.ERROR)] == [
        FindingRule.MISSING_TARGET,
        FindingRule.SELF_REFERENCE,
    ]
    with pytest.raises(MissingCompensationTarget):
        report.raise_first_error()


def test_ch_s4_chain_order() -> None:
    d = definition(
        Binding("step-a", compensate="undo-a", produces=("step-a-output",)),
        Binding("step-b", compensate="undo-b", consumes=("step-a-output",)),
        Binding("undo-a", compensation=True),
        Binding("undo-b", compensation=True),
    )
    order = compensation_order(d)
    assert order.undo == ("step-b", "step-a")
    assert order.before == (("step-b", "step-a"),)


def test_ch_s5_independent_steps_are_unordered() -> None:
    d = definition(
        Binding("step-a", compensate="u"),
        Binding("step-b", compensate="u"),
        Binding("u", compensation=True),
    )
    order = compensation_order(d)
    assert sorted(order.undo) == ["step-a", "step-b"] and order.before == ()  # SG-100


def test_channels_match_exactly_and_cycles_leave_both_orders() -> None:
    d = definition(
        Binding("a", compensate="u", produces=("out",)),
        Binding("b", compensate="u", consumes=("out-2",)),
    )
    assert compensation_order(d).before == ()
    loop = definition(
        Binding("a", compensate="u", consumes=("y",), produces=("x",)),
        Binding("b", compensate="u", consumes=("x",), produces=("y",)),
    )
    order = compensation_order(loop)
    assert order.before == () and sorted(order.undo) == ["a", "b"]
