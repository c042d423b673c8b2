"""The coverage map (``rescind coverage``): table pairs are observed from real lookups, the
verdict reports unexcused gaps and stale exceptions, the shipped exceptions file names real
items with reasons, and the JSON form is complete."""

from __future__ import annotations

import importlib
import json
import pkgutil
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rescind.cli import commands, main
from rescind.conformance import coverage
from rescind.conformance.coverage import CoverageMap, Exceptions, Reach, pair_name, verdict
from rescind.reference.errors import error_registry
from rescind.tables.registry import LIFECYCLES

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "docs" / "spec"


@pytest.fixture(scope="module")
def found() -> CoverageMap:
    return coverage.coverage_map(SPEC)


def _vector(topic: str, test_id: str) -> dict[str, Any]:
    document = json.loads((ROOT / "vectors" / f"{topic}.json").read_text(encoding="utf-8"))
    for group in document["testGroups"]:
        for test in group["tests"]:
            if test["id"] == test_id:
                return dict(test)
    raise AssertionError(f"no vector {test_id} in {topic}")


def _journal_observations(test: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(current, observed) of every operation observation the table must have been asked
    about: accepted ones (which move the phase) and ones refused as a transition. Read from
    the vector's own steps and expected outcomes, one operation (``request = "add"``)."""
    phase = None
    for step, outcome in zip(test["input"]["steps"], test["expected"]["steps"], strict=True):
        args = step["args"]
        if step["call"] == "admit" and args.get("request") == "add" and "error" not in outcome:
            phase = phase or "pending"
        elif step["call"] == "observe" and args.get("request") == "add" and phase is not None:
            observed = json.loads(args["status"])["state"]
            if "error" not in outcome:
                yield phase, observed
                phase = observed
            elif outcome["error"] == "invalid_worker_operation_transition":
                yield phase, observed


def _ledger_reconciliations(test: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(current, observed) of every applied reconciliation of a one-operation ledger trace:
    the status the worker replied, applied without error."""
    phase, replied = "pending", {}
    for step, outcome in zip(test["input"]["steps"], test["expected"]["steps"], strict=True):
        args = step["args"]
        if step["call"] == "worker_reply":
            replied[args["as"]] = args["status"]["state"]
        elif step["call"] == "apply_reconciliation" and "error" not in outcome:
            observed = replied[args["frame"]]
            yield phase, observed
            phase = observed


def test_a_journal_trace_reaches_the_pairs_its_steps_ask(found: CoverageMap) -> None:
    test_id = "journal.probe.upstream-lifecycle"
    asked = set(_journal_observations(_vector("journal-traces", test_id)))
    assert ("running", "succeeded") in asked  # the steps do observe success on a running op
    for current, observed in asked:
        assert test_id in found.pairs[("operation", current, observed)].checks, (current, observed)
    # Recording is per vector: a pair this trace never asks does not list it.
    assert test_id not in found.pairs[("operation", "cancelled", "succeeded")].checks


def test_a_ledger_trace_reaches_running_then_cancelled(found: CoverageMap) -> None:
    test_id = "ledger.trace.reconcile-running-then-cancelled"
    asked = list(_ledger_reconciliations(_vector("ledger-traces", test_id)))
    assert asked == [("pending", "running"), ("running", "cancelled"), ("cancelled", "cancelled")]
    for current, observed in asked:
        assert test_id in found.pairs[("operation", current, observed)].checks


def _synthetic() -> CoverageMap:
    return CoverageMap(
        rules={"AA-1": Reach(("v.one",), ("derived",)), "AA-2": Reach()},
        rule_pages={"AA-1": "page", "AA-2": "page"},
        codes={"code_reached": Reach(("v.one",)), "code_missing": Reach()},
        pairs={("t", "s", "reached"): Reach(("v.one",)), ("t", "s", "missing"): Reach()},
    )


def test_gaps_without_an_exception_are_unexcused() -> None:
    judged = verdict(_synthetic(), Exceptions({"rule": {}, "code": {}, "pair": {}}))
    assert judged == {
        "rule": {"unexcused": ["AA-2"], "stale": []},
        "code": {"unexcused": ["code_missing"], "stale": []},
        "pair": {"unexcused": ["t: s × missing"], "stale": []},
        "precedence": {"unexcused": [], "stale": []},
        "detail": {"unexcused": [], "stale": []},
    }


def test_excused_gaps_pass_and_exceptions_for_reached_or_unknown_items_are_stale() -> None:
    exceptions = Exceptions(
        {
            "rule": {"AA-2": "why", "AA-1": "reached now", "ZZ-9": "no such rule"},
            "code": {"code_missing": "why"},
            "pair": {"t: s × missing": "why", "t: s × reached": "reached now"},
        }
    )
    judged = verdict(_synthetic(), exceptions)
    assert judged == {
        "rule": {"unexcused": [], "stale": ["AA-1", "ZZ-9"]},
        "code": {"unexcused": [], "stale": []},
        "pair": {"unexcused": [], "stale": ["t: s × reached"]},
        "precedence": {"unexcused": [], "stale": []},
        "detail": {"unexcused": [], "stale": []},
    }


def test_an_exception_without_a_reason_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "exceptions.toml"
    path.write_text('[[rule]]\nitem = "AA-2"\nreason = "  "\n', encoding="utf-8")
    with pytest.raises(ValueError, match="without a reason"):
        Exceptions.load(path)


def _shipped() -> dict[str, list[dict[str, Any]]]:
    return tomllib.loads(coverage.EXCEPTIONS.read_text(encoding="utf-8"))


def _every_code() -> set[str]:
    """The error registry with every module that defines codes loaded: the reference, the
    conformance suite and the CLI commands (``rescind coverage`` runs with all of them)."""
    commands()
    for name in ("rescind.reference", "rescind.conformance"):
        package = importlib.import_module(name)
        for info in pkgutil.walk_packages(package.__path__, prefix=f"{name}."):
            importlib.import_module(info.name)
    return set(error_registry())


def test_every_shipped_exception_has_a_reason_and_names_an_existing_item() -> None:
    document = _shipped()
    assert set(document) <= {"rule", "code", "pair", "precedence", "detail"}
    spec_text = "\n".join(page.read_text(encoding="utf-8") for page in SPEC.glob("*.md"))
    rules = set(re.findall(r"\*\*([A-Z]{2,3}-\d+[a-z]?)\*\*", spec_text))
    codes = _every_code()
    pairs = set()
    for registered in LIFECYCLES:
        table = registered.lifecycle
        states = [str(getattr(state, "value", state)) for state in table.states]
        events = (
            [phase.value for phase in table.observable]
            if hasattr(table, "observable")
            else sorted({row.trigger for row in table.transitions})
        )
        pairs |= {pair_name((table.name, state, event)) for state in states for event in events}
    published = json.loads(
        (SPEC.parent.parent / "conformance/schemas/error-details.json").read_text(encoding="utf-8")
    )
    details = {
        f"{code}/{member}"
        for code, entry in published["codes"].items()
        for member in entry["normative"]
    }
    existing = {"rule": rules, "code": codes, "pair": pairs, "detail": details}
    for kind, entries in document.items():
        items = [entry["item"] for entry in entries]
        assert len(items) == len(set(items)), f"{kind} listed twice"
        for entry in entries:
            assert set(entry) == {"item", "reason"}, entry
            assert isinstance(entry["reason"], str) and entry["reason"].strip(), entry
            assert entry["item"] in existing[kind], f"{kind} {entry['item']} does not exist"


def test_json_output_round_trips(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["coverage", "--spec", str(SPEC), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert {"rules", "errorCodes", "tablePairs", "gaps"} <= set(document)
    assert document["rules"]["HL-10"]["page"] == "ledger"
    assert (
        "ledger.trace.reconcile-running-then-cancelled"
        in (document["tablePairs"]["operation: running × cancelled"])
    )
    assert (
        "session.limits.zero-per-tool"
        in document["errorCodes"]["zero_per_tool_reconciliation_limit"]
    )
    assert set(document["gaps"]) == {"rule", "code", "pair", "precedence", "detail"}
    assert "write_conflict/revision_floor" in document["normativeDetails"]
    for entry in document["gaps"].values():
        assert set(entry) == {"unexcused", "stale"}
