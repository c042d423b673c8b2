"""Differential exploration of journal/authorizer call sequences (the engine is
``explore.engine``): any disagreement in a result, an error code or the serialized journal
is shrunk to a minimal trace and saved as a replay file.

Traces use the ``journal.trace`` vocabulary of docs/spec/journal.md, so a replay file is an
ordinary request that ``rescind replay FILE`` (or any driver) can run again.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import attrs
from hypothesis import strategies as st
from hypothesis.database import ExampleDatabase

from rescind.conformance.explore.engine import (
    REPLAY_FORMAT,
    Area,
    Disagreement,
    ExplorationResult,
    replay,
    save_replay,
)
from rescind.conformance.explore.engine import explore as explore_area
from rescind.conformance.harness import Driver
from rescind.conformance.harness.restrictions import (
    AUTHORIZED_BY_AUTHORIZER,
    RESULT_CHECK_NEEDS_ISSUING_AUTHORIZER,
)
from rescind.conformance.ops import registry as operations
from rescind.reference.grants import CapabilityGrant

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


_AUTHORIZE = {
    "d": "authorize_operation",
    "c": "authorize_compensation",
    "r": "authorize_reconciliation",
}


def _authorize(request: str) -> dict[str, Any]:
    """Authorize ``request`` through the session authorizer, keeping the value under the
    request's own name (the ``authorized`` argument of later journal calls)."""
    return _step(_AUTHORIZE[request[0]], request=request, **{"as": request})


def _then(request: str, call: str, **args: Any) -> dict[str, Any]:
    """A macro step: authorize, then one journal call on the authorized value."""
    return {"macro": [_authorize(request), _step(call, authorized=request, **args)]}


def _authorized_candidate_steps() -> list[list[dict[str, Any]]]:
    """The vocabulary of a driver declaring ``authorized-by-authorizer``: every authorized
    value is made by an authorize_* step (so only pairs the authorizer accepts), never a raw
    request and grant. Same shape and ordering as ``_candidate_steps``."""
    focus = [("op-1", "a"), ("cmp-op", "b")]
    dispatch = [f"d.{key}.math.add.{name}.0" for key, name in focus]
    compensate = [f"c.{key}.cmp-a.{SCOPE}.add.u" for key, _ in focus]
    compensate.append(f"c.op-1.cmp-b.{SCOPE}.add.u")
    return [
        [_step("to_json"), _step("counters")],
        [_then(r, "admit") for r in dispatch],
        [
            {
                "macro": [
                    *_then(r, "admit")["macro"],
                    _step("observe", authorized=r, status=STATUSES[1]),
                ]
            }
            for r in dispatch
        ],
        [_step("observe", authorized=r, status=s) for r in dispatch for s in STATUSES],
        [_then(r, "admit_compensation") for r in compensate],
        [
            _step("observe_compensation", authorized=r, status=s)
            for r in compensate
            for s in STATUSES
        ],
        [_then(r, "admit") for r in _DISPATCH],
        [_step("observe", authorized=r, status=s) for r in _DISPATCH for s in STATUSES],
        [_authorize(r) for r in _DISPATCH],
        [_authorize(r) for r in _COMPENSATE],
        [_authorize(r) for r in _RECONCILE],
        [_then(r, "admit_compensation") for r in _COMPENSATE],
        [
            _step("observe_compensation", authorized=r, status=s)
            for r in _COMPENSATE
            for s in STATUSES
        ],
        [_then(r, "observe_reconciliation", status=s) for r in _RECONCILE for s in STATUSES],
        [_step("validate_reconciliation", authorized=r) for r in _RECONCILE],
    ]


@attrs.frozen
class _Vocabulary:
    groups: tuple[tuple[dict[str, Any], ...], ...]

    @property
    def slots(self) -> int:
        return max(len(group) for group in self.groups)

    @property
    def size(self) -> int:
        return len(self.groups) * self.slots

    def pick(self, index: int) -> dict[str, Any]:
        # Every kind of step gets an equal share of the index range, however many variants it
        # has; one integer draw per step keeps generation cheap, and smaller integers shrink
        # towards the first (harmless) kind.
        group = self.groups[index // self.slots]
        return group[(index % self.slots) % len(group)]


def _vocabulary(groups: list[list[dict[str, Any]]]) -> _Vocabulary:
    return _Vocabulary(tuple(tuple(group) for group in groups))


_RAW = _vocabulary(_candidate_steps())
_AUTHORIZED = _vocabulary(_authorized_candidate_steps())


# At least 12 steps, so the per-trace cost (setup, a round trip) is spread over many steps;
# shrinking turns surplus steps into the harmless ``to_json`` and ``minimize`` drops them.
def trace_of(chosen: list[dict[str, Any]], *, authorized_only: bool = False) -> dict[str, Any]:
    """A trace whose setup names only the requests its steps use (small on the wire);
    macro steps are expanded into their calls. ``authorized_only`` drops every journal call
    on an authorized value that no earlier authorize_* step made (the authorizer refused it),
    so such a trace stays well-formed."""
    chosen = [part for step in chosen for part in step.get("macro", [step])]
    if authorized_only:
        chosen = _established_only(chosen)
    used = {step["args"]["request"] for step in chosen if "request" in step["args"]}
    requests = {name: text for name, text in SETUP["requests"].items() if name in used}
    return {"setup": {**SETUP, "requests": requests}, "steps": chosen}


def _established_only(chosen: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Keep a call on ``authorized: name`` only after an authorize_* step made ``name``. Only
    authorize_* steps change the authorizer, so running them alone through the reference
    says which succeeded."""
    authorizing = [step for step in chosen if "as" in step["args"]]
    outcomes: list[Mapping[str, Any]] = []
    if authorizing:
        used = {step["args"]["request"] for step in authorizing}
        requests = {name: text for name, text in SETUP["requests"].items() if name in used}
        answer = operations.run(
            "journal.trace", {"setup": {**SETUP, "requests": requests}, "steps": authorizing}
        )
        outcomes = answer["steps"]
    made: set[str] = set()
    kept: list[dict[str, Any]] = []
    position = 0
    for step in chosen:
        args = step["args"]
        if "as" in args:
            if "result" in outcomes[position]:
                made.add(args["as"])
            position += 1
        elif "authorized" in args and args["authorized"] not in made:
            continue
        kept.append(step)
    return kept


def _drawn(vocabulary: _Vocabulary, authorized_only: bool) -> st.SearchStrategy[dict[str, Any]]:
    index = st.integers(0, vocabulary.size - 1)

    @st.composite
    def draw_trace(draw: st.DrawFn) -> dict[str, Any]:
        # The length, then one integer per step: the same choices as a list strategy minus its
        # per-element "one more?" draws and mapping, which cost as much as the steps' own draws.
        count = draw(st.integers(12, 48))
        chosen = [vocabulary.pick(draw(index)) for _ in range(count)]
        return trace_of(chosen, authorized_only=authorized_only)

    return draw_trace()


traces = _drawn(_RAW, authorized_only=False)
authorized_traces = _drawn(_AUTHORIZED, authorized_only=True)
"""Traces for a driver declaring ``authorized-by-authorizer``: no raw request and grant pair."""


def _rebuild(_: Mapping[str, Any], chosen: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    return trace_of([dict(step) for step in chosen])


def _rebuild_authorized(
    _: Mapping[str, Any], chosen: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    return trace_of([dict(step) for step in chosen], authorized_only=True)


def _under(area: Area, declared: frozenset[str]) -> Area:
    raw_pairs = {AUTHORIZED_BY_AUTHORIZER.name, RESULT_CHECK_NEEDS_ISSUING_AUTHORIZER.name}
    if not raw_pairs & declared:
        return area
    return attrs.evolve(
        area,
        traces=authorized_traces,
        rebuild=_rebuild_authorized,
        variant=AUTHORIZED_BY_AUTHORIZER.name,
    )


JOURNAL_AREA = Area(
    name="journal-authorizer",
    op="journal.trace",
    capability="journal",
    rule="WJ-16",
    description="random journal and authorizer call sequences agree with the reference",
    traces=traces,
    rebuild=_rebuild,
    variants=_under,
)


def explore(
    driver: Driver, examples: int, seed: int = 0, *, database: ExampleDatabase | None = None
) -> ExplorationResult:
    """Journal/authorizer exploration (see ``explore.engine.explore``)."""
    return explore_area(driver, JOURNAL_AREA, examples, seed, database=database)


__all__ = [
    "JOURNAL_AREA",
    "REPLAY_FORMAT",
    "Disagreement",
    "ExplorationResult",
    "authorized_traces",
    "explore",
    "replay",
    "save_replay",
    "trace_of",
    "traces",
]
