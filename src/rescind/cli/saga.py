"""``rescind saga plan|validate FILE``: try compensation cases by hand (format: docs/saga.md).

``plan`` reads a described agentctl source run (its effects, reconciliations and earlier
compensation runs) and prints the compensation plan: tasks in order, blocks, and whether it is
executable and complete. ``validate`` reads a CaseHub binding set, prints its findings and the
compensation order of its compensable bindings. Exit codes: 0 done (``validate``: no errors),
1 ``validate`` found errors, 2 bad input (one line on stderr).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from rich.console import Console
from rich.table import Table

from rescind.cli import UsageError
from rescind.conformance.harness.text import visible
from rescind.reference.saga.bindings import BindingReport, compensation_order, validate_bindings
from rescind.reference.saga.errors import SagaInvalidInput
from rescind.reference.saga.execution import plan_exit_status
from rescind.reference.saga.loading import read_definition, read_lineage
from rescind.reference.saga.planner import CompensationPlan, plan_compensation

_T = TypeVar("_T")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("saga", help="plan compensations and validate bindings")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    plan = actions.add_parser("plan", help="print the compensation plan for a described run")
    plan.add_argument("file", type=Path, help="JSON description of the source run")
    plan.add_argument("--json", action="store_true", help="print the plan as JSON")
    plan.set_defaults(handler=_plan)
    validate = actions.add_parser("validate", help="validate a CaseHub binding set")
    validate.add_argument("file", type=Path, help="JSON binding set")
    validate.add_argument("--json", action="store_true", help="print the report as JSON")
    validate.set_defaults(handler=_validate)


def _reject_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [key for key, _ in pairs]
    if len(set(keys)) != len(keys):
        raise UsageError("a JSON object repeats a key")
    return dict(pairs)


def _reject_constant(name: str) -> Any:
    raise UsageError(f"{name} is not JSON")


def _number_out_of_range() -> SagaInvalidInput:
    # As serde_json answers a number past f64's range ("number out of range"). Deciding it by
    # value, before int(), keeps Python's integer-string digit limit from ever answering.
    return SagaInvalidInput(field="file", reason="number out of range")


def _integer(text: str) -> int:
    if math.isinf(float(text)):
        raise _number_out_of_range()
    return int(text)


def _decimal(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise _number_out_of_range()
    return value


def load_json(path: Path) -> Any:
    """The parsed file, or a one-line UsageError (never a traceback)."""
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{path}: not UTF-8 text") from None
    try:
        return json.loads(
            text,
            object_pairs_hook=_reject_duplicates,
            parse_constant=_reject_constant,
            parse_int=_integer,
            parse_float=_decimal,
        )
    except json.JSONDecodeError as error:
        raise UsageError(f"{path}: invalid JSON at line {error.lineno}: {error.msg}") from None
    except RecursionError:
        raise UsageError(f"{path}: JSON nested too deeply") from None


def _console() -> Console:
    return Console(file=sys.stdout, highlight=False, soft_wrap=True, width=120)


_CAMEL = re.compile(r"_([a-z0-9])")


def as_written(document: Any, field: str) -> str:
    """A reader's field path (``file.source_run.tasks.0.run_id``) as the JSON keys are
    written in the file (``sourceRun.tasks[0].runId``); other fields are returned as given."""
    if not field.startswith("file."):
        return field
    node, shown = document, ""
    for part in field.split(".")[1:]:
        if isinstance(node, list) and part.isdigit() and int(part) < len(node):
            shown, node = f"{shown}[{part}]", node[int(part)]
            continue
        keys = [k for k in node if _snake_key(k) == part] if isinstance(node, dict) else []
        key = keys[0] if keys else _CAMEL.sub(lambda m: m.group(1).upper(), part)
        shown = f"{shown}.{key}" if shown else key
        node = node.get(key) if isinstance(node, dict) else None
    return shown


def _snake_key(key: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", key).lower()


def _read(document: Any, read: Callable[[Any], _T], path: Path, expected: str) -> _T:
    """``read(document)``, with invalid input reported at the JSON keys as written, and a
    file of the other kind named as such."""
    if isinstance(document, dict):
        kind = "a run file" if "sourceRun" in document else None
        if "bindings" in document and "sourceRun" not in document:
            kind = "a binding set"
        if kind is not None and kind != expected:
            command = "rescind saga plan" if kind == "a run file" else "rescind saga validate"
            raise UsageError(f"{path} looks like {kind}, not {expected}: use {command} {path}")
    try:
        return read(document)
    except SagaInvalidInput as error:
        field = error.details.get("field")
        if not isinstance(field, str):
            raise
        where = visible(as_written(document, field))
        raise UsageError(f"{error.code} at {where}: {error.details.get('reason')}") from None


def _plan(args: argparse.Namespace) -> int:
    lineage, selection = _read(load_json(args.file), read_lineage, args.file, "a run file")
    _, plan = plan_compensation(lineage, selection)
    if args.json:
        body = plan.to_json()
        body["agentctlExit"] = plan_exit_status(plan).value
        print(json.dumps(body, indent=2, sort_keys=False))
        return 0
    _print_plan(plan)
    return 0


def _print_plan(plan: CompensationPlan) -> None:
    console = _console()
    title = f"Compensation plan for {plan.source_run_id}"
    table = Table(title=title, title_justify="left")
    for column in ("#", "source task", "compensation task", "action", "source effects"):
        table.add_column(column)
    for index, entry in enumerate(plan.tasks, 1):
        effects = ", ".join(entry.source_effect_ids)
        table.add_row(
            str(index), entry.source_task_id, entry.compensation_task_id, entry.action, effects
        )
    console.print(table if plan.tasks else f"{title}: no compensation task")
    if plan.blocked:
        blocks = Table(title="Blocked", title_justify="left")
        for column in ("task", "rule", "effect", "why"):
            blocks.add_column(column)
        for block in plan.blocked:
            blocks.add_row(block.task_id, block.rule.value, block.effect_id or "-", block.message)
        console.print(blocks)
    already = ", ".join(plan.already_compensated_effects) or "none"
    console.print(f"executable: {str(plan.executable).lower()}")
    console.print(f"complete: {str(plan.complete).lower()}")
    console.print(f"automatic: {str(plan.automatic).lower()}")
    console.print(f"already compensated effects: {already}")
    console.print(f"agentctl exit: {plan_exit_status(plan).value}")


def _validate(args: argparse.Namespace) -> int:
    definition = _read(load_json(args.file), read_definition, args.file, "a binding set")
    report = validate_bindings(definition)
    order = compensation_order(definition).to_json() if report.valid else None
    if args.json:
        body = {
            "valid": report.valid,
            "findings": [finding.to_json() for finding in report.findings],
            "order": order,
        }
        print(json.dumps(body, indent=2))
    else:
        _print_report(report, order)
    return 0 if report.valid else 1


def _print_report(report: BindingReport, order: dict[str, Any] | None) -> None:
    console = _console()
    if report.findings:
        table = Table(title="Binding findings", title_justify="left")
        for column in ("severity", "rule", "binding", "names"):
            table.add_column(column)
        for finding in report.findings:
            shown = (
                (*finding.names, finding.names[0])
                if finding.rule.value.endswith("cycle")
                else finding.names
            )
            names = " -> ".join(shown) if shown else "-"
            table.add_row(finding.severity.value, finding.rule.value, finding.binding, names)
        console.print(table)
    console.print(f"valid: {str(report.valid).lower()}")
    if order is None:
        return
    console.print("one order (one step at a time): " + (", ".join(order["undo"]) or "none"))
    pairs = ", ".join(f"{first} before {second}" for first, second in order["before"])
    console.print("every order keeps: " + (pairs or "nothing (any order)"))
