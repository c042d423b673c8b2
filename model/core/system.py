"""The transition system's frame: state variables, the initial state, actions and steps.

A *state* maps each variable name to a z3 term. An *action* has typed parameters, a set of
**named** guard conjuncts and an effect (the variables it writes); every variable it does
not write keeps its value. Naming the guards is what lets a broken variant drop exactly one
of them (``ModelConfig.dropped_guards``) and lets a counterexample say which guard it needed.

Variables (``.`` separates the owner from the field):

* ``host.*``      the host workflow ledger (durable on every mutation, MD-13), ghosts
                  ``host.cmp_grant`` (the grant a compensation policy was built from) and
                  ``host.cmp_count`` (how many compensation intents were ever recorded);
* ``approval.*``  approvals by nonce: status, bound key/revision and ghost use count;
* ``wire.*``      every result the worker ever sent, as sets (messages may be duplicated,
                  delayed and reordered, never invented);
* ``mem.*``/``disk.*`` the worker journal in the live session's memory and in the store;
                  the ghost fields ``cmp_tool``/``cmp_scope``/``cmp_grant``/``cmp_count``
                  travel with the record so that crash/restore restores them too;
* ``worker.*``    session: journal scope, liveness (not poisoned, not crashed), lease token,
                  adapter calls owed after a ``Dispatch`` admission;
* ``auth.*``      the session authorizer's compensation counter per tool and identity set;
* ``grant.*``     the active manifest's grant per tool, and the root grant it descends from;
* ``store.*``     the fence of the journal record, and a ghost count of superseded writes;
* ``effects.*``   ghost counts of adapter effects (forward) and inverse effects per key.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

import attrs
import z3

from rescind.model.core.logic import (
    APPROVAL,
    APPROVAL_STATUS,
    BOOL,
    CKEY,
    FINGERPRINT,
    GRANT,
    GRANT_FIELDS,
    IDENTITY,
    INPUT,
    INT,
    KEY,
    MESSAGE,
    NONCE,
    PHASE,
    SCOPE,
    TOOL,
    Expr,
    Fingerprints,
    LifecycleLogic,
    phase,
)
from rescind.tables.operation import OPERATION_LIFECYCLE, Lifecycle


def _array(index: Any, value: Any) -> Any:
    return z3.ArraySort(index, value)


JOURNAL_FIELDS: dict[str, Any] = {
    "op": _array(KEY, PHASE),
    "tool": _array(KEY, TOOL),
    "result": _array(KEY, INT),
    "cmp": _array(KEY, PHASE),
    "cmp_key": _array(KEY, CKEY),
    "cmp_fp": _array(KEY, FINGERPRINT),
    "cmp_input": _array(KEY, INPUT),
    "cmp_result": _array(KEY, INT),
    "cmp_tool": _array(KEY, TOOL),
    "cmp_scope": _array(KEY, SCOPE),
    "cmp_grant": _array(KEY, GRANT),
    "cmp_count": _array(KEY, INT),
}
"""One worker journal record per key; ``result`` abstracts the success payload or failure
message (the worker compares it on ``stay_if_same``), ``cmp_*`` the compensation record."""

SCHEMA: dict[str, Any] = {
    "host.op": _array(KEY, PHASE),
    "host.tool": _array(KEY, TOOL),
    "host.cmp": _array(KEY, PHASE),
    "host.cmp_key": _array(KEY, CKEY),
    "host.cmp_scope": _array(KEY, SCOPE),
    "host.cmp_fp": _array(KEY, FINGERPRINT),
    "host.cmp_grant": _array(KEY, GRANT),
    "host.cmp_count": _array(KEY, INT),
    "host.revision": INT,
    "approval.status": _array(NONCE, APPROVAL),
    "approval.key": _array(NONCE, KEY),
    "approval.revision": _array(NONCE, INT),
    "approval.uses": _array(NONCE, INT),
    "wire.results": _array(KEY, z3.SetSort(PHASE)),
    "wire.cmp_results": _array(KEY, z3.SetSort(MESSAGE)),
    **{f"mem.{name}": sort for name, sort in JOURNAL_FIELDS.items()},
    **{f"disk.{name}": sort for name, sort in JOURNAL_FIELDS.items()},
    "worker.scope": SCOPE,
    "worker.live": BOOL,
    "worker.lease": INT,
    "worker.owed": _array(KEY, BOOL),
    "worker.cmp_owed": _array(KEY, BOOL),
    "auth.cmp_used": _array(TOOL, INT),
    "auth.identities": z3.SetSort(IDENTITY),
    "grant.active": _array(TOOL, GRANT),
    "grant.root": _array(TOOL, GRANT),
    "store.fence": INT,
    "store.superseded_writes": INT,
    "effects.forward": _array(KEY, INT),
    "effects.inverse": _array(KEY, INT),
}

GHOSTS = frozenset(
    {
        "host.cmp_grant",
        "host.cmp_count",
        "approval.uses",
        "wire.results",
        "wire.cmp_results",
        *(
            f"{part}.{name}"
            for part in ("mem", "disk")
            for name in JOURNAL_FIELDS
            if name in ("cmp_tool", "cmp_scope", "cmp_grant", "cmp_count")
        ),
        "grant.root",
        "store.superseded_writes",
        "effects.forward",
        "effects.inverse",
    }
)
"""History variables: the protocol does not store them; the model keeps them to state
properties about the past ("ever", "how many times")."""


class State(Mapping[str, Expr]):
    """An immutable mapping from variable name to z3 term."""

    def __init__(self, values: Mapping[str, Expr]) -> None:
        missing = set(SCHEMA) - set(values)
        if missing:
            raise ValueError(f"state lacks {sorted(missing)}")
        self._values = dict(values)

    @classmethod
    def fresh(cls, prefix: str) -> State:
        return cls({name: z3.Const(f"{prefix}|{name}", sort) for name, sort in SCHEMA.items()})

    def __getitem__(self, name: str) -> Expr:
        return self._values[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def updated(self, changes: Mapping[str, Expr]) -> State:
        unknown = set(changes) - set(SCHEMA)
        if unknown:
            raise ValueError(f"unknown variables {sorted(unknown)}")
        return State({**self._values, **changes})


def initial_condition(state: State, tools: Iterable[Expr] = ()) -> Expr:
    """Nothing recorded, nothing sent, one live session holding lease 1, grants = roots.

    The root manifest is arbitrary but valid (GR-24): each tool's grant is for that tool,
    its three call/byte limits are positive and max_compensations is a u32. That is stated
    for the tool terms a query mentions (``tools``), which keeps every query quantifier-free;
    no action writes ``grant.root``, so the constraint holds along a whole path.
    """
    absent = phase("absent")
    parts = [
        state["host.op"] == z3.K(KEY, absent),
        state["host.cmp"] == z3.K(KEY, absent),
        state["host.cmp_count"] == z3.K(KEY, z3.IntVal(0)),
        state["host.revision"] == 0,
        state["approval.status"] == z3.K(NONCE, APPROVAL_STATUS["unissued"]),
        state["approval.uses"] == z3.K(NONCE, z3.IntVal(0)),
        state["wire.results"] == z3.K(KEY, z3.EmptySet(PHASE)),
        state["wire.cmp_results"] == z3.K(KEY, z3.EmptySet(MESSAGE)),
        state["worker.live"],
        state["worker.lease"] == 1,
        state["store.fence"] == 1,
        state["store.superseded_writes"] == 0,
        state["worker.owed"] == z3.K(KEY, z3.BoolVal(False)),
        state["worker.cmp_owed"] == z3.K(KEY, z3.BoolVal(False)),
        state["auth.cmp_used"] == z3.K(TOOL, z3.IntVal(0)),
        state["auth.identities"] == z3.EmptySet(IDENTITY),
        state["grant.active"] == state["grant.root"],
        state["effects.forward"] == z3.K(KEY, z3.IntVal(0)),
        state["effects.inverse"] == z3.K(KEY, z3.IntVal(0)),
    ]
    parts.extend(root_is_valid(state, tool) for tool in tools)
    for part in ("mem", "disk"):
        parts.append(state[f"{part}.op"] == z3.K(KEY, absent))
        parts.append(state[f"{part}.cmp"] == z3.K(KEY, absent))
        parts.append(state[f"{part}.cmp_count"] == z3.K(KEY, z3.IntVal(0)))
    return z3.And(parts)


def root_is_valid(state: State, tool: Expr) -> Expr:
    root = state["grant.root"][tool]
    return z3.And(
        GRANT.tool(root) == tool,
        GRANT.max_calls(root) >= 1,
        GRANT.max_input_bytes(root) >= 1,
        GRANT.max_output_bytes(root) >= 1,
        GRANT.max_compensations(root) >= 0,
    )


Params = Mapping[str, Expr]
GuardFn = Callable[["TransitionSystem", State, Params], dict[str, Expr]]
EffectFn = Callable[["TransitionSystem", State, Params], dict[str, Expr]]


@attrs.frozen
class Action:
    name: str
    params: tuple[tuple[str, Any], ...]
    guards: GuardFn = attrs.field(repr=False)
    effects: EffectFn = attrs.field(repr=False)
    hidden_params: frozenset[str] = frozenset()
    """Parameters a trace does not print (havoc contents of a rejected writer)."""
    summary: str = ""


@attrs.frozen
class Step:
    """One action instantiated on a state with fresh parameters."""

    action: Action
    params: Mapping[str, Expr]
    guards: Mapping[str, Expr]
    post: State
    written: frozenset[str]

    @property
    def enabled(self) -> Expr:
        return z3.And(list(self.guards.values())) if self.guards else z3.BoolVal(True)


SWITCHES = {
    "reply.from_memory": "the worker answers from its in-memory journal before persisting",
    "prepare.keeps_approval": "prepare does not consume the approval it is given",
}


@attrs.frozen
class ModelConfig:
    """Which model to build: the correct one, or a deliberately broken variant."""

    lifecycle: Lifecycle = OPERATION_LIFECYCLE
    dropped_guards: frozenset[str] = frozenset()
    """``"action.guard"`` names whose conjunct is left out."""
    fingerprint_covers: tuple[str, ...] = GRANT_FIELDS
    switches: frozenset[str] = frozenset()

    def __attrs_post_init__(self) -> None:
        unknown = set(self.switches) - set(SWITCHES)
        if unknown:
            raise ValueError(f"unknown switches {sorted(unknown)}")


class TransitionSystem:
    """The protocol model for one :class:`ModelConfig`."""

    def __init__(self, config: ModelConfig | None = None) -> None:
        from rescind.model.core.actions import ACTIONS  # actions.py imports this module

        self.config = config or ModelConfig()
        self.logic = LifecycleLogic(self.config.lifecycle)
        self.fingerprints = Fingerprints(self.config.fingerprint_covers)
        self.actions: tuple[Action, ...] = ACTIONS
        names = {f"{a.name}.{g}" for a in ACTIONS for g in _guard_names(self, a)}
        unknown = set(self.config.dropped_guards) - names
        if unknown:
            raise ValueError(f"no such guards: {sorted(unknown)}")
        self._counter = 0

    def switched(self, name: str) -> bool:
        return name in self.config.switches

    def fingerprint(self, grant: Expr) -> Expr:
        return self.fingerprints.of(grant)

    def action(self, name: str) -> Action:
        for candidate in self.actions:
            if candidate.name == name:
                return candidate
        raise KeyError(name)

    def instantiate(
        self,
        action: Action,
        state: State,
        tag: str | None = None,
        fixed: Mapping[Any, Expr] | None = None,
    ) -> Step:
        """Fresh parameters named by ``tag``; a sort in ``fixed`` takes that term instead."""
        if tag is None:
            self._counter += 1
            tag = str(self._counter)
        fixed = fixed or {}
        params = {
            name: fixed[sort]
            if sort in fixed and name not in action.hidden_params
            else z3.Const(f"{action.name}|{name}|{tag}", sort)
            for name, sort in action.params
        }
        guards = {
            name: formula
            for name, formula in action.guards(self, state, params).items()
            if f"{action.name}.{name}" not in self.config.dropped_guards
        }
        changes = action.effects(self, state, params)
        return Step(action, params, guards, state.updated(changes), frozenset(changes))


def _guard_names(system: TransitionSystem, action: Action) -> list[str]:
    probe = State.fresh("probe")
    params = {name: z3.Const(f"probe|{name}", sort) for name, sort in action.params}
    return list(action.guards(system, probe, params))
