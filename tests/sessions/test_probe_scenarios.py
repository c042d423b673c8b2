"""Upstream's WorkerSession probe (out_other.txt blocks 1-7), reproduced line by line: every
error, reply text, poisoned flag, snapshot count, revision, adapter count and journal text.

The scenarios are the ``session.probe-*`` vector inputs; the expected values are read from
the probe output, never from the reference."""

from __future__ import annotations

from typing import Any

import pytest

from rescind.conformance.fixtures.session_cases import PROBE
from rescind.conformance.interpreters.worker_scenario import run_scenario
from tests.sessions.probe_blocks import ProbeLine, blocks, expected_error, parse_debug

# probe "key=value" names -> the state a scenario step reports after it
AFTER_KEYS = {
    "poisoned": "poisoned",
    "snapshots": "snapshots",
    "revision": "revision",
    "journal": "journal",
    "dispatches": "dispatch_calls",
    "compensations": "compensate_calls",
    "compensations adapter calls": "compensate_calls",
    "reconciliations adapter calls": "reconcile_calls",
}


def _probe_value(key: str, text: str) -> Any:
    if key == "journal":
        return text
    if text in ("true", "false"):
        return text == "true"
    return int(text)


def _sent_steps(case_number: int) -> tuple[list[dict[str, Any]], list[ProbeLine]]:
    case = PROBE[case_number - 1]
    assert case.id.startswith(f"session.probe-{case_number}.")
    run = run_scenario(case.spec())
    sent = [
        outcome
        for step, outcome in zip(case.steps, run["steps"], strict=True)
        if "send" in step.body
    ]
    return sent, blocks()[case_number]


@pytest.mark.parametrize("number", range(1, 8))
def test_probe_block_is_reproduced(number: int) -> None:
    sent, probe = _sent_steps(number)
    assert len(sent) == len(probe)
    for outcome, line in zip(sent, probe, strict=True):
        if line.ok:
            assert outcome.get("result") == line.text, line.label
        else:
            code, details = expected_error(parse_debug(line.text))
            assert outcome.get("error") == code, line.label
            for name, value in details.items():
                assert outcome["details"].get(name) == value, (line.label, name)
        for key, text in line.after.items():
            assert outcome["after"][AFTER_KEYS[key]] == _probe_value(key, text), (line.label, key)


def test_every_probe_line_with_state_is_checked() -> None:
    """Guard against a parser that silently drops lines: the seven blocks hold 29 outcomes (12, 2, 6, 3, 2, 2, 2),
    and every key=value name they use is one the test knows."""
    found = blocks()
    assert sorted(found) == list(range(1, 8))
    assert sum(len(block) for block in found.values()) == 29
    assert [len(found[n]) for n in range(1, 8)] == [12, 2, 6, 3, 2, 2, 2]
    keys = {key for block in found.values() for line in block for key in line.after}
    assert keys <= set(AFTER_KEYS)
    assert "journal" in keys and "snapshots" in keys


def test_debug_parser_reads_nested_causes() -> None:
    node = parse_debug(
        'IndeterminateOperation { operation_key: "op-1", cause: Protocol(OutputTooLarge { actual: 17, maximum: 16 }) }'
    )
    assert expected_error(node) == (
        "indeterminate_operation",
        {"operation_key": "op-1", "cause_kind": "protocol", "cause": "output_too_large"},
    )
    assert expected_error(
        parse_debug(
            'Protocol(CompensationRequiresSucceededOperation { operation_key: "op-1", state: Running })'
        )
    ) == (
        "compensation_requires_succeeded_operation",
        {"operation_key": "op-1", "state": "running", "layer": "protocol"},
    )
