"""The transition system the progress properties are checked on, and its fairness.

The safety model (``rescind.model.core.actions``) over-approximates on purpose: any observation
the lifecycle table accepts may arrive at any time, and any request may reach the worker.
That is sound for "nothing bad happens" but useless for "something good eventually
happens": a model in which a compensation's outcome can always still arrive proves that it
always will. This module builds a *restriction* of that model that follows upstream's
session code step by step (``WorkerSession::handle_dispatch`` / ``handle_compensation`` /
``handle_reconciliation`` in ``crates/splash-worker/src/lib.rs``):

* the adapter's answer is observed in memory in the same step as the call it answers
  (``dispatch_call``, ``compensation_call``): upstream calls the adapter and observes its
  status before anything else can happen, so an outcome can only be lost by a crash before
  it is persisted;
* ``reconcile`` asks the adapter about an *original* in any session (``reconcile_operation``);
  upstream has no counterpart for a compensation;
* requests come from an honest host: it sends the compensation it recorded (same key, tool,
  tenant, grant fingerprint, and one input per operation) after using an approval for it,
  and records intents for the journal's tenant;
* a crashed session is replaced by a new one (``restart``); the grant is not narrowed
  (grant drift fails closed by design: a progress check would only report that).

Every action here is a base action with extra guards, or two base actions in sequence, so
every run of this system is a run of the safety model and all its invariants hold here too
(``tests/model/test_progress.py`` checks each action against its base actions with z3).

A :class:`ProgressProfile` names an action set, which actions are faults (they happen only
finitely often) and the weak-fairness families. A protocol extension is a new profile with
extra actions and families; the progress checks take the system as a parameter and run
unchanged on it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

import attrs
import z3

from rescind.model.core.actions import ACTIONS
from rescind.model.core.logic import (
    APPROVAL_STATUS,
    INPUT,
    KEY,
    NONCE,
    Expr,
    phase,
)
from rescind.model.core.system import Action, ModelConfig, Params, State, TransitionSystem
from rescind.tables.operation import OPERATION_LIFECYCLE

HONEST_INPUT = z3.Function("honest_input", KEY, INPUT)
"""The input an honest host sends with the compensation of an operation (always the same)."""

ABSENT = phase("absent")
TERMINAL = tuple(phase(p) for p in OPERATION_LIFECYCLE.states if p in OPERATION_LIFECYCLE.terminal)
OBSERVABLE = tuple(phase(p) for p in OPERATION_LIFECYCLE.observable)

GuardFn = Callable[[TransitionSystem, State, Params], dict[str, Expr]]


def base_action(name: str) -> Action:
    for action in ACTIONS:
        if action.name == name:
            return action
    raise KeyError(name)


def restricted(
    base: Action, name: str, summary: str, extra: GuardFn, params: Sequence[Any] = ()
) -> Action:
    """``base`` with more guards (and possibly parameters only those guards read)."""

    def guards(m: TransitionSystem, s: State, p: Params) -> dict[str, Expr]:
        return {**base.guards(m, s, p), **extra(m, s, p)}

    return Action(name, (*base.params, *params), guards, base.effects, base.hidden_params, summary)


def in_sequence(name: str, summary: str, first: Action, second: Action) -> Action:
    """``first`` then ``second`` as one step: both guards hold, the second on the middle state."""
    params = tuple(dict((*first.params, *second.params)).items())

    def middle(m: TransitionSystem, s: State, p: Params) -> State:
        return s.updated(first.effects(m, s, p))

    def guards(m: TransitionSystem, s: State, p: Params) -> dict[str, Expr]:
        found = {f"{first.name}.{g}": f for g, f in first.guards(m, s, p).items()}
        later = second.guards(m, middle(m, s, p), p)
        found.update({f"{second.name}.{g}": f for g, f in later.items()})
        return found

    def effects(m: TransitionSystem, s: State, p: Params) -> dict[str, Expr]:
        changes = dict(first.effects(m, s, p))
        changes.update(second.effects(m, middle(m, s, p), p))
        return changes

    return Action(
        name, params, guards, effects, first.hidden_params | second.hidden_params, summary
    )


def honest_compensation(s: State, key: Expr) -> dict[str, Expr]:
    """The fields of the compensation request an honest host sends for ``key``: the recorded
    intent (tool, compensation key, scope, grant fingerprint) and the honest input."""
    return {
        "tool": s["host.tool"][key],
        "cmp_key": s["host.cmp_key"][key],
        "scope": s["host.cmp_scope"][key],
        "fp": s["host.cmp_fp"][key],
        "input": HONEST_INPUT(key),
    }


def honest_request(m: TransitionSystem, s: State, p: Params) -> dict[str, Expr]:
    """The request carries exactly the host's recorded intent for ``key``."""
    # The fields of ``honest_compensation``, written out: building them through it creates
    # the z3 terms in another order, and z3 then reports another (equally valid) lasso.
    key = p["key"]
    return {
        "host_recorded_intent": s["host.cmp"][key] != ABSENT,
        "honest_request": z3.And(
            p["tool"] == s["host.tool"][key],
            p["cmp_key"] == s["host.cmp_key"][key],
            p["scope"] == s["host.cmp_scope"][key],
            p["fp"] == s["host.cmp_fp"][key],
            p["input"] == HONEST_INPUT(key),
        ),
    }


def _sent_after_approval(m: TransitionSystem, s: State, p: Params) -> dict[str, Expr]:
    nonce = p["nonce"]
    return {
        **honest_request(m, s, p),
        "approval_used": z3.And(
            s["approval.status"][nonce] == APPROVAL_STATUS["consumed"],
            s["approval.key"][nonce] == p["key"],
        ),
    }


def _no_call_in_flight(m: TransitionSystem, s: State, p: Params) -> dict[str, Expr]:
    """A session handles one request at a time: while the dispatch that admitted a key still
    owes its adapter call, no reconciliation of that key can run in between."""
    return {"no_call_owed": z3.Not(s["worker.owed"][p["key"]])}


def _journal_scope(m: TransitionSystem, s: State, p: Params) -> dict[str, Expr]:
    return {"journal_scope": p["scope"] == s["worker.scope"]}


def _session_down(m: TransitionSystem, s: State, p: Params) -> dict[str, Expr]:
    return {"session_down": z3.Not(s["worker.live"])}


def _upstream_actions() -> tuple[Action, ...]:
    b = base_action
    return (
        b("record_operation"),
        b("admit"),
        b("persist"),
        in_sequence(
            "dispatch_call",
            "adapter performs the effect and the journal records the status it returns",
            b("dispatch_effect"),
            b("observe"),
        ),
        restricted(
            b("observe"),
            "reconcile",
            "adapter reports an original's status on a reconciliation (a later request)",
            _no_call_in_flight,
        ),
        b("reply"),
        b("apply_result"),
        restricted(
            b("record_compensation"),
            "record_compensation",
            "host records a compensation intent for the journal's tenant",
            _journal_scope,
        ),
        b("approve"),
        b("prepare"),
        restricted(
            b("authorize_compensation"),
            "send_compensation",
            "host sends its recorded compensation, sealed with a used approval; the authorizer "
            "admits it",
            _sent_after_approval,
            (("nonce", NONCE),),
        ),
        restricted(
            b("admit_compensation"),
            "admit_compensation",
            "worker journal attaches the host's compensation",
            honest_request,
        ),
        in_sequence(
            "compensation_call",
            "adapter performs the inverse effect and the journal records the status it returns",
            b("compensation_effect"),
            b("observe_compensation"),
        ),
        b("reply_compensation"),
        b("apply_compensation_result"),
        b("crash_restore"),
        restricted(
            b("lease_takeover"),
            "restart",
            "a new session replaces the crashed one (next lease, journal reloaded)",
            _session_down,
        ),
    )


BASE_STEPS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        **{name: (name,) for name in ("record_operation", "admit", "persist", "reply")},
        **{name: (name,) for name in ("apply_result", "approve", "prepare", "crash_restore")},
        **{name: (name,) for name in ("reply_compensation", "apply_compensation_result")},
        "record_compensation": ("record_compensation",),
        "admit_compensation": ("admit_compensation",),
        "dispatch_call": ("dispatch_effect", "observe"),
        "reconcile": ("observe",),
        "send_compensation": ("authorize_compensation",),
        "compensation_call": ("compensation_effect", "observe_compensation"),
        "restart": ("lease_takeover",),
    }
)
"""The base actions each upstream progress action performs, in order (checked by the tests:
every progress step is a sequence of safety-model steps, so the safety invariants carry over)."""


Witnesses = Callable[[TransitionSystem, State, Mapping[str, Expr]], list[dict[str, Expr]]]


def _no_witness(m: TransitionSystem, s: State, ix: Mapping[str, Expr]) -> list[dict[str, Expr]]:
    return [{}]


@attrs.frozen
class FairFamily:
    """Weak fairness for the steps of one action, one family per value of ``index_param``.

    WF: if some step of the family that changes the state stays possible, one is eventually
    taken. ``restriction`` narrows which steps count (e.g. only terminal answers);
    ``witnesses`` proposes parameter values under which the family is enabled, used to
    show enabledness without quantifiers (more candidates only make proofs succeed more
    often; a wrong one only makes them fail).
    """

    name: str
    action: str
    meaning: str
    index_param: str | None = None
    restriction: GuardFn | None = attrs.field(default=None, repr=False)
    witnesses: Witnesses = attrs.field(default=_no_witness, repr=False)


def _observed_any(observed: Sequence[Expr]) -> Witnesses:
    def found(m: TransitionSystem, s: State, ix: Mapping[str, Expr]) -> list[dict[str, Expr]]:
        return [{"observed": value} for value in observed]

    return found


def terminal_only(m: TransitionSystem, s: State, p: Params) -> dict[str, Expr]:
    """The extra guard of a fair family whose answer is a terminal outcome."""
    return {"terminal_answer": z3.Or([p["observed"] == value for value in TERMINAL])}


def _honest_witness(m: TransitionSystem, s: State, ix: Mapping[str, Expr]) -> list[dict[str, Expr]]:
    values = honest_compensation(s, ix["k"])
    if "n" in ix:
        values["nonce"] = ix["n"]
    return [values]


def _result_witness(m: TransitionSystem, s: State, ix: Mapping[str, Expr]) -> list[dict[str, Expr]]:
    key = ix["k"]
    return [{"cmp_key": s["host.cmp_key"][key], "observed": value} for value in TERMINAL]


UPSTREAM_FAIRNESS: tuple[FairFamily, ...] = (
    FairFamily(
        "host_dispatches",
        "admit",
        "the host dispatches each operation it recorded until the worker holds it",
        "key",
    ),
    FairFamily("worker_persists", "persist", "a live session persists what it holds in memory"),
    FairFamily(
        "adapter_called",
        "dispatch_call",
        "an owed adapter call is made and answered",
        "key",
        witnesses=_observed_any(OBSERVABLE),
    ),
    FairFamily(
        "reconciliation_answers",
        "reconcile",
        "the host keeps reconciling an original without a terminal result, and the adapter, "
        "asked again and again, eventually reports a terminal status",
        "key",
        terminal_only,
        _observed_any(TERMINAL),
    ),
    FairFamily("worker_replies", "reply", "the worker sends each stored outcome", "key"),
    FairFamily(
        "host_applies",
        "apply_result",
        "the host applies each terminal result the worker sent",
        "key",
        terminal_only,
        _observed_any(TERMINAL),
    ),
    FairFamily(
        "host_prepares", "prepare", "the host seals a frame with each approval it issued", "nonce"
    ),
    FairFamily(
        "host_sends_compensation",
        "send_compensation",
        "the host keeps sending a compensation it has used an approval for",
        "key",
        witnesses=_honest_witness,
    ),
    FairFamily(
        "worker_attaches",
        "admit_compensation",
        "the journal attaches an authorized compensation",
        "key",
        witnesses=_honest_witness,
    ),
    FairFamily(
        "inverse_called",
        "compensation_call",
        "an owed inverse call is made and answered",
        "key",
        witnesses=_observed_any(OBSERVABLE),
    ),
    FairFamily(
        "worker_replies_compensation",
        "reply_compensation",
        "the worker sends each stored compensation outcome",
        "key",
    ),
    FairFamily(
        "host_applies_compensation",
        "apply_compensation_result",
        "the host applies each terminal compensation result the worker sent",
        "key",
        terminal_only,
        _result_witness,
    ),
    FairFamily("session_restarts", "restart", "a crashed session is replaced"),
)


@attrs.frozen
class ProgressProfile:
    """An action set with its faults, fairness, and the findings expected of it."""

    name: str
    description: str
    actions: tuple[Action, ...] = attrs.field(repr=False)
    faults: frozenset[str]
    """Actions that happen only finitely often (crashes)."""
    fairness: tuple[FairFamily, ...] = attrs.field(repr=False)
    expected_findings: Mapping[str, str] = attrs.field(factory=dict)
    """Property name -> the named lasso this profile is known to have (upstream hazards)."""
    base_steps: Mapping[str, tuple[str, ...]] = attrs.field(default=BASE_STEPS, repr=False)
    """Action name -> the safety-model actions it performs, in order (PG-6)."""

    def without(self, *names: str, expected: Mapping[str, str] | None = None) -> ProgressProfile:
        """A variant with some actions removed (with their fairness families)."""
        unknown = set(names) - {a.name for a in self.actions}
        if unknown:
            raise ValueError(f"no such actions: {sorted(unknown)}")
        return attrs.evolve(
            self,
            name=f"{self.name}-without-{'-'.join(names)}",
            actions=tuple(a for a in self.actions if a.name not in names),
            fairness=tuple(f for f in self.fairness if f.action not in names),
            faults=self.faults - set(names),
            expected_findings=MappingProxyType(dict(expected or {})),
        )

    def adding(
        self,
        name: str,
        description: str,
        actions: Sequence[Action],
        fairness: Sequence[FairFamily],
        expected: Mapping[str, str] | None = None,
        base_steps: Mapping[str, tuple[str, ...]] | None = None,
    ) -> ProgressProfile:
        """An extension: the same system plus new actions (with the safety-model steps each
        performs, ``base_steps``) and fairness families."""
        return ProgressProfile(
            name,
            description,
            (*self.actions, *actions),
            self.faults,
            (*self.fairness, *fairness),
            MappingProxyType(dict(expected or {})),
            MappingProxyType({**self.base_steps, **(base_steps or {})}),
        )


UPSTREAM = ProgressProfile(
    "splash-v5",
    "upstream Splash v5 worker and host, as in crates/splash-worker and crates/splash-workflow",
    _upstream_actions(),
    frozenset({"crash_restore"}),
    UPSTREAM_FAIRNESS,
    MappingProxyType(
        {
            "approved_compensation_settles": "compensation_outcome_lost_in_crash",
            "used_approval_can_settle": "compensation_outcome_lost_in_crash",
        }
    ),
)


class ProgressSystem(TransitionSystem):
    """The transition system of one profile (a restriction of the safety model)."""

    def __init__(
        self, profile: ProgressProfile = UPSTREAM, config: ModelConfig | None = None
    ) -> None:
        super().__init__(config)
        self.profile = profile
        self.actions = profile.actions
        names = {action.name for action in self.actions}
        missing = {family.action for family in profile.fairness} - names
        if missing or not profile.faults <= names:
            raise ValueError(f"fairness or faults name unknown actions: {sorted(missing)}")

    def family(self, name: str) -> FairFamily:
        for candidate in self.profile.fairness:
            if candidate.name == name:
                return candidate
        raise KeyError(name)

    def is_fault(self, action: Action) -> bool:
        return action.name in self.profile.faults
