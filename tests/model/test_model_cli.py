"""``rescind prove`` and ``rescind diagram``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rescind.cli import main
from rescind.cli import prove as prove_cli
from rescind.model.core.proof_check import Check, CheckResult
from rescind.model.safety.invariants import INVARIANTS
from rescind.tables import diagrams
from rescind.tables.operation import OPERATION_LIFECYCLE, Verdict

REPOSITORY = Path(__file__).resolve().parents[2]


def _fake(status: str) -> Check:
    trace = ("1. record_operation key=k0", "violated: x") if status == "violated" else ()
    return Check(
        name=f"fake_{status}",
        statement="a stand-in check",
        rule="MD-99",
        run=lambda: CheckResult(status, 0.5, trace, "why"),  # type: ignore[arg-type]
        group="test",
    )


def test_json_report_lists_every_check_with_its_fields(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["prove", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    rows = {row["name"]: row for row in report["invariants"]}
    for inv in INVARIANTS:
        row = rows[inv.name]
        assert row["statement"] == inv.statement
        assert row["rule"] == inv.rule
        assert row["group"] == "protocol"
        assert row["status"] == "proven"
        assert row["seconds"] > 0
    # Checks from every rescind.model module (the saga helper's included) are listed.
    from rescind.model.catalog import discover_checks

    assert [row["name"] for row in report["invariants"]] == [c.name for c in discover_checks()]
    assert report["seconds"] >= max(row["seconds"] for row in report["invariants"])


def test_single_invariant(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["prove", "--json", "--invariant", "approval_used_at_most_once"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [row["name"] for row in report["invariants"]] == ["approval_used_at_most_once"]


def test_unknown_invariant_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["prove", "--invariant", "no_such_thing"]) == 2
    assert "no_such_thing" in capsys.readouterr().err


def test_table_report_names_each_check(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["prove", "--invariant", "attenuation_never_widens"]) == 0
    out = capsys.readouterr().out
    assert "attenuation_never_widens" in out and "MD-6" in out and "proven" in out


@pytest.mark.parametrize("status", ["violated", "unknown"])
def test_any_failure_exits_1_and_prints_the_trace(
    status: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(prove_cli, "discover_checks", lambda: [_fake("proven"), _fake(status)])
    assert main(["prove"]) == 1
    out = capsys.readouterr().out
    assert f"fake_{status}" in out
    if status == "violated":
        assert "1. record_operation key=k0" in out


def test_a_crashing_check_is_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    def explode() -> CheckResult:
        raise RuntimeError("boom")

    broken = Check(name="explodes", statement="s", rule="MD-98", run=explode, group="test")
    monkeypatch.setattr(prove_cli, "discover_checks", lambda: [broken])
    assert main(["prove", "--json"]) == 1


def test_diagrams_in_docs_are_fresh() -> None:
    stale = diagrams_stale(REPOSITORY / "docs" / "diagrams")
    assert stale == [], "run `rescind diagram` from the repository root"


def diagrams_stale(directory: Path) -> list[str]:
    from rescind.cli.diagram import stale_files

    return stale_files(directory, diagrams.render_all())


def test_diagram_command_writes_and_checks(tmp_path: Path) -> None:
    out = tmp_path / "d"
    assert main(["diagram", "--output", str(out)]) == 0
    assert main(["diagram", "--output", str(out), "--check"]) == 0
    (out / "operation.md").write_text("changed", encoding="utf-8")
    (out / "left-over.md").write_text(f"{diagrams.MARKER} once", encoding="utf-8")
    assert main(["diagram", "--output", str(out), "--check"]) == 1
    assert main(["diagram", "--output", str(out)]) == 0
    assert not (out / "left-over.md").exists()


def test_operation_diagram_draws_every_accepting_row_of_the_table() -> None:
    text = diagrams.mermaid(OPERATION_LIFECYCLE)
    for (current, observed), verdict in OPERATION_LIFECYCLE.table.items():
        if verdict is Verdict.ADVANCE:
            assert f"    {current.value} --> {observed.value}: observe {observed.value}" in text
        else:
            assert f"    {current.value} --> {current.value}: {observed.value} (no-op" in text
    for state in OPERATION_LIFECYCLE.terminal:
        assert f"    {state.value} --> [*]" in text
    assert "    [*] --> pending" in text


def test_registry_lists_every_lifecycle_table_once() -> None:
    from rescind.tables.registry import LIFECYCLES
    from rescind.tables.saga import ALL_TABLES

    listed = [entry.lifecycle for entry in LIFECYCLES]
    assert listed[0] is OPERATION_LIFECYCLE
    assert {id(table) for table in ALL_TABLES} <= {id(table) for table in listed}
    assert len({id(table) for table in listed}) == len(listed)
    assert len({entry.name for entry in LIFECYCLES}) == len(LIFECYCLES)


def test_transition_rows_shape_is_drawn_with_triggers_and_exceptions() -> None:
    import attrs

    @attrs.frozen
    class Row:
        source: str
        target: str
        trigger: str = ""
        name: str = ""

    @attrs.frozen
    class Table:
        name: str = "door"
        states: tuple[str, ...] = ("shut", "open", "gone")
        initial: frozenset[str] = frozenset({"shut"})
        terminal: frozenset[str] = frozenset({"open", "gone"})
        final: frozenset[str] = frozenset({"gone"})
        transitions: tuple[Row, ...] = (
            Row("shut", "open", "push"),
            Row("shut", "open", "pull"),
            Row("open", "gone", "burn"),
        )
        exceptions: tuple[Row, ...] = (Row("open", "gone", name="arson"),)

    text = diagrams.mermaid(Table())
    assert "    shut --> open: push, pull" in text
    assert "    open --> gone: burn (documented exception arson)" in text
    assert "    gone --> [*]" in text and "    open --> [*]" not in text
    assert "class open,gone terminal" in text
