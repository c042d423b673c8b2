"""Differential exploration: Hypothesis writes journal/authorizer call sequences, both the
reference and the implementation run them, and any disagreement in a result, an error code
or the serialized journal is shrunk to a minimal trace and saved as a replay file.

Traces use the ``journal.trace`` vocabulary of docs/spec/journal.md, so a replay file is an
ordinary request that ``rescind replay FILE`` (or any driver) can run again.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs
from hypothesis import HealthCheck, Phase, find, settings
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample

from rescind.conformance import operations
from rescind.conformance.harness import Driver, Reply
from rescind.conformance.vectorchecks import compare
from rescind.reference.errors import RescindError
from rescind.reference.grants import CapabilityGrant

REPLAY_FORMAT = "rescind-replay/1"
SESSION = "session-1"
SCOPE = "tenant-release"
# A small pool on purpose: steps that name the same identity often are what reaches
# duplicates, contradictions and compensations within a few hundred traces.
KEYS = ("op-1", "cmp-op")
INPUTS = {"a": '{"left":20,"right":22}', "a2": '{ "right":22, "left":20 }', "b": '{"left":1}'}
UNDO = {"u": '{"undo":"x"}', "u2": '{"undo":"y"}'}
STATUSES = (
    '{"state":"running"}',
    '{"state":"succeeded","payload":{"format":"json","value":{"total":42}}}',
    '{"state":"succeeded","payload":{"format":"json","value":{"total":42.0}}}',
    '{"state":"succeeded","payload":{"format":"json","value":{"total":"' + "x" * 40 + '"}}}',
    '{"state":"succeeded","payload":{"format":"text","value":"42"}}',
    '{"state":"failed","message":"boom"}',
    '{"state":"failed","message":"boom2"}',
    '{"state":"cancelled"}',
)


def _grant(tool: str, output: int, compensations: int) -> CapabilityGrant:
    grant = CapabilityGrant.json(tool)
    return attrs.evolve(
        grant,
        max_calls=6,
        max_input_bytes=128,
        max_output_bytes=output,
        max_compensations=compensations,
    )


GRANTS = {
    "add": _grant("math.add", 64, 2),
    "narrow": _grant("math.add", 16, 2),
    "sub": _grant("math.sub", 64, 1),
}


def _request(body: Mapping[str, Any]) -> str:
    header = {"protocol_version": 5, "session_id": SESSION}
    return json.dumps({**header, **body}, separators=(",", ":"))


def _payload(text: str) -> dict[str, Any]:
    return {"format": "json", "value": json.loads(text)}


def _setup() -> dict[str, Any]:
    requests: dict[str, str] = {}
    for key in KEYS:
        for tool, inputs in (("math.add", INPUTS), ("math.sub", {"a": INPUTS["a"]})):
            for name, text in inputs.items():
                for rid in range(2):
                    requests[f"d.{key}.{tool}.{name}.{rid}"] = _request(
                        {
                            "request_id": f"d-{key}-{tool}-{name}-{rid}",
                            "tool": tool,
                            "operation_key": key,
                            "payload": _payload(text),
                        }
                    ).replace(json.dumps(_payload(text), separators=(",", ":")), _wire(text))
        requests[f"r.{key}"] = _request(
            {"request_id": f"r-{key}", "tool": "math.add", "operation_key": key}
        )
        for cmp in ("cmp-a", "cmp-b"):
            for scope in (SCOPE, "tenant-other"):
                for grant in ("add", "narrow"):
                    for name, text in UNDO.items():
                        requests[f"c.{key}.{cmp}.{scope}.{grant}.{name}"] = _request(
                            {
                                "request_id": f"c-{key}-{cmp}-{scope}-{grant}-{name}",
                                "tool": "math.add",
                                "operation_key": key,
                                "compensation_key": cmp,
                                "tenant_scope": scope,
                                "grant_fingerprint": GRANTS[grant].compensation_fingerprint(),
                                "payload": _payload(text),
                            }
                        )
    manifest = {
        "protocol_version": 5,
        "session_id": SESSION,
        "grants": [json.loads(GRANTS["add"].to_json()), json.loads(GRANTS["sub"].to_json())],
    }
    return {
        "grants": {name: grant.to_json() for name, grant in GRANTS.items()},
        "authorizers": {"session": json.dumps(manifest, separators=(",", ":"))},
        "requests": requests,
        "journal": {"scope": SCOPE},
    }


def _wire(text: str) -> str:
    """Keep the payload's own spelling (whitespace, key order) inside the request text."""
    return '{"format":"json","value":' + text + "}"


SETUP = _setup()
_DISPATCH = sorted(name for name in SETUP["requests"] if name.startswith("d."))
_COMPENSATE = sorted(name for name in SETUP["requests"] if name.startswith("c."))
_RECONCILE = sorted(name for name in SETUP["requests"] if name.startswith("r."))


def _step(call: str, **args: Any) -> dict[str, Any]:
    return {"call": call, "args": args}


def _succeed(request: str) -> dict[str, Any]:
    """A macro step: admit and observe success (so compensation paths are reached often)."""
    return {
        "macro": [
            _step("admit", request=request, grant="add"),
            _step("observe", request=request, grant="add", status=STATUSES[1]),
        ]
    }


def _candidate_steps() -> list[list[dict[str, Any]]]:
    """Every step the explorer may take, grouped by kind (simplest kinds and values first,
    so shrinking moves towards short, plain traces)."""
    grants = sorted(GRANTS)
    focus = [("op-1", "a"), ("cmp-op", "b")]
    dispatch = [f"d.{key}.math.add.{name}.0" for key, name in focus]
    compensate = [f"c.{key}.cmp-a.{SCOPE}.add.u" for key, _ in focus]
    compensate.append(f"c.op-1.cmp-b.{SCOPE}.add.u")  # a second key for the same original
    return [
        [_step("to_json"), _step("counters")],
        # Focused groups: the same two identities, under the right grant, again and again,
        # so duplicates, contradictions and compensations are reached in few traces.
        [_step("admit", request=r, grant="add") for r in dispatch],
        [_succeed(r) for r in dispatch],
        [_step("observe", request=r, grant="add", status=s) for r in dispatch for s in STATUSES],
        [_step("admit_compensation", request=r, grant="add") for r in compensate],
        [
            _step("observe_compensation", request=r, grant="add", status=s)
            for r in compensate
            for s in STATUSES
        ],
        [_step("admit", request=r, grant=g) for r in _DISPATCH for g in grants],
        [
            _step("observe", request=r, grant=g, status=s)
            for r in _DISPATCH
            for g in grants
            for s in STATUSES
        ],
        [_step("authorize_operation", request=r) for r in _DISPATCH],
        [_step("authorize_compensation", request=r) for r in _COMPENSATE],
        [_step("authorize_reconciliation", request=r) for r in _RECONCILE],
        [_step("admit_compensation", request=r, grant=g) for r in _COMPENSATE for g in grants],
        [
            _step("observe_compensation", request=r, grant=g, status=s)
            for r in _COMPENSATE
            for g in grants
            for s in STATUSES
        ],
        [
            _step("observe_reconciliation", request=r, grant=g, status=s)
            for r in _RECONCILE
            for g in grants
            for s in STATUSES
        ],
        [_step("validate_reconciliation", request=r, grant=g) for r in _RECONCILE for g in grants],
    ]


_GROUPS = _candidate_steps()
_SLOTS = max(len(group) for group in _GROUPS)


def _pick(index: int) -> dict[str, Any]:
    # Every kind of step gets an equal share of the index range, however many variants it
    # has; one integer draw per step keeps generation cheap, and smaller integers shrink
    # towards the first (harmless) kind.
    group = _GROUPS[index // _SLOTS]
    return group[(index % _SLOTS) % len(group)]


steps = st.integers(0, len(_GROUPS) * _SLOTS - 1).map(_pick)


# At least 12 steps, so the per-trace cost (setup, a round trip) is spread over many steps;
# shrinking turns surplus steps into the harmless ``to_json`` and ``minimize`` drops them.
def trace_of(chosen: list[dict[str, Any]]) -> dict[str, Any]:
    """A trace whose setup names only the requests its steps use (small on the wire);
    macro steps are expanded into their calls."""
    chosen = [part for step in chosen for part in step.get("macro", [step])]
    used = {step["args"]["request"] for step in chosen if "request" in step["args"]}
    requests = {name: text for name, text in SETUP["requests"].items() if name in used}
    return {"setup": {**SETUP, "requests": requests}, "steps": chosen}


traces = st.lists(steps, min_size=12, max_size=48).map(trace_of)


@attrs.frozen
class Disagreement:
    trace: Mapping[str, Any]
    expected: Mapping[str, Any]
    message: str

    def replay_document(self) -> dict[str, Any]:
        return {
            "format": REPLAY_FORMAT,
            "op": "journal.trace",
            "args": dict(self.trace),
            "expected": dict(self.expected),
            "message": self.message,
        }


@attrs.frozen
class ExplorationResult:
    examples: int
    steps: int
    seconds: float
    disagreement: Disagreement | None


def reference_answer(trace: Mapping[str, Any]) -> dict[str, Any]:
    try:
        return operations.run("journal.trace", trace)
    except RescindError as error:
        return {"error": error.code}


def disagreement_of(driver: Driver, trace: Mapping[str, Any]) -> str | None:
    expected = reference_answer(trace)
    reply = driver.request("journal.trace", trace)
    return compare(expected, reply)


def explore(driver: Driver, examples: int, seed: int = 0) -> ExplorationResult:
    """Run ``examples`` generated traces; shrink and return the first disagreement."""
    counted = {"examples": 0, "steps": 0}
    started = time.monotonic()

    def disagrees(trace: Mapping[str, Any]) -> bool:
        counted["examples"] += 1
        counted["steps"] += len(trace["steps"])
        return disagreement_of(driver, trace) is not None

    config = settings(
        max_examples=examples,
        database=None,
        deadline=None,
        derandomize=True,
        phases=(Phase.generate, Phase.shrink),
        suppress_health_check=list(HealthCheck),
    )
    try:
        minimal = find(traces, disagrees, settings=config, random=None)
    except NoSuchExample:
        minimal = None
    found = None
    if minimal is not None:
        minimal = minimize(driver, minimal)
        message = disagreement_of(driver, minimal) or "disagreement did not reproduce"
        found = Disagreement(minimal, reference_answer(minimal), message)
    return ExplorationResult(
        counted["examples"], counted["steps"], time.monotonic() - started, found
    )


def minimize(driver: Driver, trace: Mapping[str, Any]) -> dict[str, Any]:
    """Drop every step whose removal keeps the disagreement (one pass, last step first)."""
    steps_left = list(trace["steps"])
    for index in reversed(range(len(steps_left))):
        candidate = steps_left[:index] + steps_left[index + 1 :]
        if candidate and disagreement_of(driver, trace_of(candidate)) is not None:
            steps_left = candidate
    return trace_of(steps_left)


def save_replay(disagreement: Disagreement, directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    text = json.dumps(disagreement.replay_document(), indent=2, sort_keys=True) + "\n"
    import hashlib

    name = hashlib.sha256(text.encode()).hexdigest()[:12]
    path = directory / f"journal-{name}.json"
    path.write_text(text, encoding="utf-8")
    return path


def replay(document: Mapping[str, Any], driver: Driver) -> str | None:
    """Re-run a replay file's request; ``None`` when the driver now agrees."""
    if document.get("format") != REPLAY_FORMAT:
        raise ValueError(f"not a {REPLAY_FORMAT} file")
    reply: Reply = driver.request(document["op"], document["args"])
    return compare(document["expected"], reply)
