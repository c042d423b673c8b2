"""Vectors for sessions that enforce ordering: worker session scenarios (docs/spec/session.md,
WS-n) and host crash and recovery scenarios (docs/spec/recovery.md, RC-n).

Every test is a whole scenario run: a worker scenario
(``rescind.conformance.interpreters.worker_scenario``) or a host scenario
(``rescind.conformance.interpreters.host_scenario``). The expected document is the reference's
run; ``build`` first checks that every step ends the way the case's author
intended from the spec, so a reference regression cannot silently rewrite a vector. The
probe runs are additionally compared line by line with upstream's observed output by
tests/sessions.
"""

from __future__ import annotations

from typing import Any

from rescind.conformance.fixtures import recovery_cases as host_cases
from rescind.conformance.fixtures import session_cases as worker_cases
from rescind.conformance.interpreters.host_scenario import run_host_scenario
from rescind.conformance.interpreters.worker_scenario import run_scenario
from rescind.conformance.provenance import Provenance, derived, edge_case_note, observed
from rescind.conformance.vectors.format import Flag, VectorFile, VectorGroup, VectorTest
from rescind.conformance.vectors.retired import live_id
from rescind.conformance.vectors.sets._precedence import FLAG, NOTE
from rescind.conformance.vectors.sets._session_precedence import precedence_tests

TOPIC = "session-scenarios"
OK = "ok"
PHASES = ("pending", "running", "succeeded", "failed", "cancelled")

NOTES = (
    Flag(FLAG, *NOTE),
    Flag(
        "ProbeObserved",
        "a worker session whose ordering, poisoning or error mapping differs from upstream's "
        "compiled WorkerSession (probe output out_other.txt, blocks 1-7)",
        "hosts written against upstream misread a reply: a pending key is redispatched, a "
        "poisoned session keeps writing, or an indeterminate effect is reported as definite",
    ),
    Flag(
        "RescindDriver",
        "a behaviour Rescind fixes where upstream leaves it to the host or the store: the "
        "host driver's persist-before-send and apply-then-persist duties, a write whose "
        "answer is lost, invocations outside the durable-operation model",
        "a host that approves or seals before its intent is durable, or a store that loses "
        "acknowledgements, can run an effect twice or lose track of one after a crash",
    ),
)


def _worker_outcomes(run: dict[str, Any]) -> list[str]:
    return [OK if "result" in step else str(step["error"]) for step in run["steps"]]


def worker_provenance(case: worker_cases.Case) -> Provenance:
    """Probe runs are the blocks of out_other.txt; every other scenario is derived."""
    if case.id.startswith("session.probe-"):
        number = case.id.removeprefix("session.probe-").split(".")[0]
        return observed(
            "out_other.txt",
            f"== {number}",
            scope="every line of the block, one per frame sent; state it does not print "
            f"(details, other counters) is computed by the reference ({case.rule})",
        )
    return derived(case.rule, note=edge_case_note(case.id))


def worker_vector(case: worker_cases.Case) -> VectorTest:
    spec = case.spec()
    expected = run_scenario(spec)
    opened = expected.get("open", {}).get("error")
    if case.open_error is not None and opened != case.open_error:
        raise AssertionError(f"{case.id}: intended open error {case.open_error}, got {opened}")
    intended = [step.expect for step in case.steps]
    if _worker_outcomes(expected) != intended:
        raise AssertionError(
            f"{case.id}: intended {intended}, reference {_worker_outcomes(expected)}"
        )
    flags = case.flags or (("ProbeObserved",) if case.id.startswith("session.probe") else ())
    if case.id.startswith("session.crash.lost") or case.id.startswith("session.invoke"):
        flags = (*flags, "RescindDriver")
    return VectorTest(
        id=case.id,
        rule=case.rule,
        comment=case.comment,
        input={"kind": "worker", "scenario": spec},
        expected=expected,
        result="valid",
        flags=flags,
        provenance=worker_provenance(case),
    )


def _host_outcome(step: host_cases.Step, outcome: dict[str, Any]) -> str:
    if "error" in outcome:
        return str(outcome["error"])
    if step.expect in PHASES:
        return str(outcome["result"])
    return OK


def host_vector(case: host_cases.Case) -> VectorTest:
    spec = case.spec()
    expected = run_host_scenario(spec)
    for index, (step, outcome) in enumerate(zip(case.steps, expected["steps"], strict=True)):
        actual = _host_outcome(step, outcome)
        if actual != step.expect:
            raise AssertionError(
                f"{case.id} step {index} ({step.call}): intended {step.expect}, got {actual}"
            )
    return VectorTest(
        id=live_id(case.id),
        rule=case.rule,
        comment=case.comment,
        input={"kind": "host", "scenario": spec},
        expected=expected,
        result="valid",
        flags=("RescindDriver",),
        # A run of the reference host driver under the recovery policy table (RC-n).
        provenance=derived(case.rule),
        profile=case.profile,
    )


SCENARIO_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["kind", "scenario"],
    "additionalProperties": False,
    "properties": {
        "kind": {"enum": ["worker", "host"]},
        "scenario": {
            "type": "object",
            "required": ["setup", "steps"],
            "properties": {"setup": {"type": "object"}, "steps": {"type": "array"}},
        },
    },
}

OUTCOME_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["steps", "final"],
    "properties": {
        "open": {"type": "object"},
        "steps": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "result": {},
                    "error": {"type": "string"},
                    "details": {"type": "object"},
                    "after": {"type": "object"},
                },
            },
        },
        "final": {"type": ["object", "null"]},
    },
}


def build() -> VectorFile:
    groups = [
        VectorGroup("worker-probe", [worker_vector(case) for case in worker_cases.PROBE]),
        VectorGroup("worker-edge-cases", [worker_vector(case) for case in worker_cases.EDGE]),
        VectorGroup("worker-crash", [worker_vector(case) for case in worker_cases.CRASH]),
        VectorGroup("worker-precedence", precedence_tests()),
        VectorGroup("host-recovery", [host_vector(case) for case in host_cases.ROWS]),
        VectorGroup(
            "host-compensation-reconcile",
            [host_vector(case) for case in host_cases.EXTENSION_ROWS],
        ),
    ]
    return VectorFile(
        topic=TOPIC,
        header=(
            "Sessions that enforce ordering "
            "(docs/spec/session.md WS-n, docs/spec/recovery.md RC-n).",
            "Worker scenarios: replay the steps against one worker over its journal store "
            "with the scripted adapter outcomes and store faults; compare error codes, reply "
            "texts and the state after each step.",
            "Host scenarios: ledger-trace calls plus the host driver, the authenticated "
            "ledger store and real worker sessions; compare error codes and results.",
            "ErrorPrecedence scenarios: the last message breaks two checks at once "
            "(docs/spec/precedence.md); the earlier check's code is expected.",
        ),
        notes=NOTES,
        groups=groups,
        test_schema={"input": SCENARIO_SCHEMA, "expected": OUTCOME_SCHEMA},
    )
