"""``rescind prove`` checks for progress properties (group ``progress``, rules PG-1 to PG-3).

Each property is proven with a stage ranking (``ranking``) on a progress system
(``fair_system``). When the ranking fails, the property's named lasso shapes are searched
(``lasso``). The profile says which lasso it is known to have: that one is reported as
``finding`` (an upstream hazard, documented in docs/findings.md), any other as ``violated``,
and an expected lasso that no longer appears (or a property that is now proven) as ``violated``
with "expected finding not reproduced". A proof counts only with a witness: a fair run in which
the trigger holds and the goal is reached (otherwise the result is ``unknown``: the proof may
be vacuous).
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Sequence

import attrs
import z3

from rescind.model.core.invariant import Indices
from rescind.model.core.logic import (
    APPROVAL_STATUS,
    IDENTITY,
    KEY,
    MESSAGE,
    NONCE,
    Expr,
    grant_field,
    phase,
)
from rescind.model.core.proof_check import Check, CheckResult
from rescind.model.core.system import State
from rescind.model.progress.fair_system import (
    HONEST_INPUT,
    UPSTREAM,
    ProgressProfile,
    ProgressSystem,
)
from rescind.model.progress.lasso import (
    Lasso,
    LassoShape,
    Witness,
    find_lasso,
    find_witness,
    render_lasso,
    watched,
)
from rescind.model.progress.lemmas import HONEST_HOST_LEMMAS
from rescind.model.progress.profiles import PROFILES
from rescind.model.progress.ranking import (
    Assumption,
    LeadsTo,
    RankingResult,
    Stage,
    prove_leads_to,
)
from rescind.model.progress.refines_safety import run_refinement
from rescind.model.safety.invariants import invariant

ABSENT = phase("absent")
PENDING = phase("pending")
RUNNING = phase("running")
UNSETTLED = (PENDING, RUNNING)


def _unsettled(value: Expr) -> Expr:
    return z3.Or([value == p for p in UNSETTLED])


def _terminal(m: ProgressSystem, value: Expr) -> Expr:
    return m.logic.is_terminal(value)


# ---- PG-1: originals ---------------------------------------------------------------------


def _durably_admitted(m: ProgressSystem, s: State, ix: Indices) -> Expr:
    return s["disk.op"][ix["k"]] != ABSENT


def _host_has_outcome(m: ProgressSystem, s: State, ix: Indices) -> Expr:
    return _terminal(m, s["host.op"][ix["k"]])


SESSION_DOWN = Stage(
    "session_down",
    "no live session",
    lambda m, s, ix: z3.Not(s["worker.live"]),
    ("session_restarts",),
)
"""The stage farthest from the goal, shared by the properties that wait on a session: with no
live session, what fairness owes is a restart."""


ORIGINAL = LeadsTo(
    indices=(("k", KEY),),
    trigger=_durably_admitted,
    goal=_host_has_outcome,
    stages=(
        Stage(
            "result_on_wire",
            "the worker's stored terminal state is on the wire",
            lambda m, s, ix: z3.And(
                _terminal(m, s["disk.op"][ix["k"]]),
                z3.IsMember(s["disk.op"][ix["k"]], s["wire.results"][ix["k"]]),
            ),
            ("host_applies",),
        ),
        Stage(
            "outcome_stored",
            "the stored journal holds a terminal state",
            lambda m, s, ix: _terminal(m, s["disk.op"][ix["k"]]),
            ("worker_replies",),
        ),
        Stage(
            "outcome_in_memory",
            "a live session holds a terminal state not yet stored",
            lambda m, s, ix: z3.And(s["worker.live"], _terminal(m, s["mem.op"][ix["k"]])),
            ("worker_persists",),
        ),
        Stage(
            "outcome_unknown",
            "a live session holds the original pending or running and owes no adapter call",
            lambda m, s, ix: z3.And(
                s["worker.live"],
                _unsettled(s["mem.op"][ix["k"]]),
                z3.Not(s["worker.owed"][ix["k"]]),
            ),
            ("reconciliation_answers",),
        ),
        Stage(
            "call_owed",
            "a live session owes the adapter call for the stored admission",
            lambda m, s, ix: z3.And(s["worker.live"], _unsettled(s["mem.op"][ix["k"]])),
            ("adapter_called",),
        ),
        SESSION_DOWN,
    ),
    supports=(
        invariant("effect_requires_durable_admission"),
        invariant("host_worker_terminal_agreement"),
        invariant("superseded_lease_never_writes"),
    ),
)

ORIGINAL_UNKNOWABLE = LassoShape(
    "original_outcome_unknowable",
    "the admission is stored, the session dies before the adapter answers, and the new session "
    "can neither call the adapter again (the call is not owed after a reload) nor reconcile",
    lambda m, s, ix: z3.And(s["worker.live"], s["mem.op"][ix["k"]] == s["disk.op"][ix["k"]]),
    lambda m, s, ix: z3.And(
        _unsettled(s["host.op"][ix["k"]]),
        _unsettled(s["mem.op"][ix["k"]]),
        _unsettled(s["disk.op"][ix["k"]]),
        z3.Not(s["worker.owed"][ix["k"]]),
    ),
    5,
)

# ---- PG-2 and PG-3: compensations ---------------------------------------------------------


def _approval_used(m: ProgressSystem, s: State, ix: Indices) -> Expr:
    n = ix["n"]
    return z3.And(
        s["approval.status"][n] == APPROVAL_STATUS["consumed"], s["approval.key"][n] == ix["k"]
    )


def _compensation_settled(m: ProgressSystem, s: State, ix: Indices) -> Expr:
    return _terminal(m, s["host.cmp"][ix["k"]])


def honest_identity(s: State, k: Expr) -> Expr:
    return IDENTITY.identity(
        s["host.tool"][k],
        k,
        s["host.cmp_key"][k],
        s["host.cmp_scope"][k],
        s["host.cmp_fp"][k],
        HONEST_INPUT(k),
    )


def _budget_left(m: ProgressSystem, s: State, ix: Indices) -> Expr:
    k = ix["k"]
    tool = s["host.tool"][k]
    return z3.Implies(
        z3.And(s["worker.live"], s["host.cmp"][k] != ABSENT),
        z3.Or(
            z3.IsMember(honest_identity(s, k), s["auth.identities"]),
            s["auth.cmp_used"][tool] < grant_field(s["grant.active"][tool], "max_compensations"),
        ),
    )


def _compensation_terms(m: ProgressSystem, s: State, ix: Indices) -> list[Expr]:
    k = ix["k"]
    return [s["host.cmp_key"][k], s["disk.cmp_key"][k], s["host.tool"][k]]


def _cmp(s: State, prefix: str, ix: Indices) -> Expr:
    return s[f"{prefix}.cmp"][ix["k"]]


COMPENSATION = LeadsTo(
    indices=(("n", NONCE), ("k", KEY)),
    trigger=_approval_used,
    goal=_compensation_settled,
    stages=(
        Stage(
            "result_on_wire",
            "the worker's stored terminal compensation state is on the wire, under the host's key",
            lambda m, s, ix: z3.And(
                _terminal(m, _cmp(s, "disk", ix)),
                z3.IsMember(_message(s, ix), s["wire.cmp_results"][ix["k"]]),
            ),
            ("host_applies_compensation",),
        ),
        Stage(
            "outcome_stored",
            "the stored journal holds a terminal compensation state",
            lambda m, s, ix: _terminal(m, _cmp(s, "disk", ix)),
            ("worker_replies_compensation",),
        ),
        Stage(
            "outcome_in_memory",
            "a live session holds a terminal compensation state not yet stored",
            lambda m, s, ix: z3.And(s["worker.live"], _terminal(m, _cmp(s, "mem", ix))),
            ("worker_persists",),
        ),
        Stage(
            "outcome_unknown",
            "a live session holds the compensation pending or running, with no inverse call owed",
            lambda m, s, ix: z3.And(
                s["worker.live"],
                _unsettled(_cmp(s, "mem", ix)),
                z3.Not(s["worker.cmp_owed"][ix["k"]]),
            ),
            ("compensation_reconciliation_answers",),
        ),
        Stage(
            "inverse_owed",
            "the attachment is stored and the inverse call is owed",
            lambda m, s, ix: z3.And(
                s["worker.live"],
                _unsettled(_cmp(s, "mem", ix)),
                s["worker.cmp_owed"][ix["k"]],
                _cmp(s, "disk", ix) != ABSENT,
            ),
            ("inverse_called",),
        ),
        Stage(
            "attachment_in_memory",
            "the attachment is in memory only",
            lambda m, s, ix: z3.And(
                s["worker.live"], _unsettled(_cmp(s, "mem", ix)), s["worker.cmp_owed"][ix["k"]]
            ),
            ("worker_persists",),
        ),
        Stage(
            "authorized",
            "the session authorized the host's request, nothing attached yet",
            lambda m, s, ix: z3.And(
                s["worker.live"],
                _cmp(s, "mem", ix) == ABSENT,
                z3.IsMember(honest_identity(s, ix["k"]), s["auth.identities"]),
            ),
            ("worker_attaches",),
        ),
        Stage(
            "not_sent",
            "the live session has not authorized the host's request",
            lambda m, s, ix: z3.And(s["worker.live"], _cmp(s, "mem", ix) == ABSENT),
            ("host_sends_compensation",),
        ),
        SESSION_DOWN,
    ),
    supports=(
        invariant("host_worker_terminal_agreement"),
        invariant("effect_requires_durable_admission"),
        invariant("superseded_lease_never_writes"),
        *HONEST_HOST_LEMMAS,
    ),
    assumptions=(
        Assumption(
            "budget_left",
            "a live session always has compensation budget left for the host's request, or has "
            "authorized it already (the host opens a new session rather than exceed "
            "max_compensations)",
            _budget_left,
        ),
    ),
    terms=_compensation_terms,
)


def _message(s: State, ix: Indices) -> Expr:
    k = ix["k"]
    return MESSAGE.message(s["host.cmp_key"][k], s["disk.cmp"][k])


def _stuck_compensation(m: ProgressSystem, s: State, ix: Indices) -> Expr:
    k = ix["k"]
    return z3.And(
        _unsettled(s["host.cmp"][k]),
        _unsettled(s["mem.cmp"][k]),
        _unsettled(s["disk.cmp"][k]),
        z3.Not(s["worker.cmp_owed"][k]),
    )


def _resent_in_live_session(m: ProgressSystem, s: State, ix: Indices) -> Expr:
    k = ix["k"]
    return z3.And(s["worker.live"], z3.IsMember(honest_identity(s, k), s["auth.identities"]))


ORIGINAL_PATH = (
    "record_operation",
    "admit",
    "persist",
    "dispatch_call",
    "persist",
    "reply",
    "apply_result",
)
COMPENSATION_PATH = (
    *ORIGINAL_PATH,
    "record_compensation",
    "approve",
    "prepare",
    "send_compensation",
    "admit_compensation",
    "persist",
    "compensation_call",
    "persist",
    "reply_compensation",
    "apply_compensation_result",
)
"""The fault-free happy paths a witness run follows (one action per step); the recorded
lassos below start with them."""


OUTCOME_LOST_IN_CRASH = LassoShape(
    "compensation_outcome_lost_in_crash",
    "the inverse effect ran and the adapter answered, but the session died before the answer "
    "was stored; the stored attachment is pending with no call owed, a resend is answered "
    "pending_compensation, and nothing can ask the adapter again",
    lambda m, s, ix: z3.And(
        _resent_in_live_session(m, s, ix),
        s["worker.lease"] >= 2,
        s["mem.cmp"][ix["k"]] == PENDING,
        s["disk.cmp"][ix["k"]] == PENDING,
        s["effects.inverse"][ix["k"]] == 1,
    ),
    _stuck_compensation,
    17,
    recorded=(*COMPENSATION_PATH[:14], "crash_restore", "restart", "send_compensation"),
)

LEFT_RUNNING = LassoShape(
    "compensation_left_running",
    "the adapter answered the inverse call with running; the journal stores running, the host "
    "applies running, and nothing can ask the adapter again",
    lambda m, s, ix: z3.And(
        _resent_in_live_session(m, s, ix),
        s["disk.cmp"][ix["k"]] == RUNNING,
        s["host.cmp"][ix["k"]] == RUNNING,
    ),
    _stuck_compensation,
    17,
    recorded=COMPENSATION_PATH[:17],
)


@attrs.frozen
class ProgressProperty:
    name: str
    statement: str
    rule: str
    spec: LeadsTo = attrs.field(repr=False)
    fair: bool
    """True: a leads-to under fairness; False: the goal stays reachable (AG EF)."""
    fairness: tuple[str, ...]
    """The fairness families the proof is expected to use (stated in docs/model.md)."""
    lassos: tuple[LassoShape, ...]
    witness_depth: int
    witness_schedule: tuple[str, ...] | None = None
    """The action of each step of the witness run (a fault-free happy path): z3 then only
    finds the parameters; any run it finds is still a run of the whole system."""


PROPERTIES: tuple[ProgressProperty, ...] = (
    ProgressProperty(
        "original_reaches_terminal",
        "every original whose admission is stored reaches a terminal state in the host ledger; "
        "until then a live session can always reconcile it",
        "PG-1",
        ORIGINAL,
        True,
        (
            "session_restarts",
            "adapter_called",
            "reconciliation_answers",
            "worker_persists",
            "worker_replies",
            "host_applies",
        ),
        (ORIGINAL_UNKNOWABLE,),
        7,
        ORIGINAL_PATH,
    ),
    ProgressProperty(
        "approved_compensation_settles",
        "every compensation the host approved and sealed reaches a terminal state in the host "
        "ledger",
        "PG-2",
        COMPENSATION,
        True,
        (
            "session_restarts",
            "host_sends_compensation",
            "worker_attaches",
            "worker_persists",
            "inverse_called",
            "worker_replies_compensation",
            "host_applies_compensation",
        ),
        (OUTCOME_LOST_IN_CRASH, LEFT_RUNNING),
        17,
        COMPENSATION_PATH,
    ),
    ProgressProperty(
        "used_approval_can_settle",
        "no approval is used up without a reachable settlement: from every state after an "
        "approval was used, some continuation brings its compensation to a terminal state",
        "PG-3",
        COMPENSATION,
        False,
        (),
        (OUTCOME_LOST_IN_CRASH, LEFT_RUNNING),
        17,
        COMPENSATION_PATH,
    ),
)


def progress_property(name: str) -> ProgressProperty:
    for candidate in PROPERTIES:
        if candidate.name == name:
            return candidate
    raise KeyError(name)


# ---- running a check -----------------------------------------------------------------------


_LASSOS: weakref.WeakKeyDictionary[ProgressSystem, dict[str, Lasso | None]] = (
    weakref.WeakKeyDictionary()
)
_WITNESSES: weakref.WeakKeyDictionary[ProgressSystem, dict[int, Witness | None]] = (
    weakref.WeakKeyDictionary()
)


def lasso_of(system: ProgressSystem, prop: ProgressProperty, shape: LassoShape) -> Lasso | None:
    """Searched once per system and shape (two properties share the compensation lassos)."""
    known = _LASSOS.setdefault(system, {})
    if shape.name not in known:
        known[shape.name] = find_lasso(system, prop.spec, shape)
    return known[shape.name]


def witness_of(system: ProgressSystem, prop: ProgressProperty) -> Witness | None:
    known = _WITNESSES.setdefault(system, {})
    key = id(prop.spec) * 100 + prop.witness_depth
    if key not in known:
        known[key] = find_witness(system, prop.spec, prop.witness_depth, prop.witness_schedule)
    return known[key]


def _lasso_counts(lasso: Lasso, fair: bool) -> bool:
    """A fair-leads-to property needs a fair loop; a reachability one needs a closed trap."""
    return lasso.quiet if fair else lasso.closed


def _lasso_lines(
    system: ProgressSystem, prop: ProgressProperty, lasso: Lasso, verdict: str
) -> tuple[str, ...]:
    shape = next(s for s in prop.lassos if s.name == lasso.name)
    # approval.key is left out: before the approval exists its old value means nothing.
    shown = watched(system, prop.spec, shape.trap, shape.target, prop.spec.trigger)
    shown -= {"approval.key"}
    headline = f"{verdict}: {prop.statement} [{prop.rule}], lasso {lasso.name}"
    return render_lasso(lasso, shown, headline)


def run_progress(prop: ProgressProperty, system: ProgressSystem) -> CheckResult:
    """Prove ``prop`` on ``system``, or report its lasso, against the profile's expectations."""
    started = time.perf_counter()

    def elapsed() -> float:
        return time.perf_counter() - started

    expected = system.profile.expected_findings.get(prop.name)
    proof = prove_leads_to(system, prop.spec, fair=prop.fair)
    if proof.holds:
        if expected:
            return CheckResult(
                "violated",
                elapsed(),
                detail=f"expected finding not reproduced: {expected} (the property is proven on "
                f"profile {system.profile.name})",
            )
        return _proven(system, prop, proof, started)
    found = _first_lasso(system, prop, expected)
    if found is None:
        if expected:
            return CheckResult(
                "violated",
                elapsed(),
                detail=f"expected finding not reproduced: no lasso {expected} within "
                f"{_shape(prop, expected).depth} steps ({proof.failure})",
            )
        return CheckResult(
            "unknown", elapsed(), detail=f"not proven: {proof.failure}; no lasso found"
        )
    if found.name == expected:
        lines = _lasso_lines(system, prop, found, "finding")
        note = (
            f"upstream hazard {found.name} (docs/findings.md): {_shape(prop, found.name).meaning}; "
            f"the ranking proof stops at {proof.failure}"
        )
        return CheckResult("finding", elapsed(), lines, note, found.name)
    lines = _lasso_lines(system, prop, found, "violated")
    prefix = f"expected finding {expected} not reproduced; " if expected else ""
    return CheckResult(
        "violated", elapsed(), lines, f"{prefix}lasso {found.name}; {proof.failure}", found.name
    )


def _shape(prop: ProgressProperty, name: str) -> LassoShape:
    return next(s for s in prop.lassos if s.name == name)


def _first_lasso(
    system: ProgressSystem, prop: ProgressProperty, expected: str | None
) -> Lasso | None:
    shapes = sorted(prop.lassos, key=lambda s: s.name != expected)
    for shape in shapes:
        lasso = lasso_of(system, prop, shape)
        if lasso is not None and _lasso_counts(lasso, prop.fair):
            return lasso
    return None


def _proven(
    system: ProgressSystem, prop: ProgressProperty, proof: RankingResult, started: float
) -> CheckResult:
    witness = witness_of(system, prop)
    if witness is None or not witness.quiet:
        why = "none found" if witness is None else f"{witness.restless} can still move it"
        return CheckResult(
            "unknown",
            time.perf_counter() - started,
            detail=f"ranking proof holds, but no fair witness run reaches the goal within "
            f"{prop.witness_depth} steps ({why}): the proof may be vacuous",
        )
    used = ", ".join(f"{stage}<-{family}" for stage, family in proof.helpful.items())
    mode = "under weak fairness" if prop.fair else "as reachability"
    return CheckResult(
        "proven",
        time.perf_counter() - started,
        detail=f"proven {mode} on profile {system.profile.name}; stages {used}; witness: a fair "
        f"run of {len(witness.path)} steps reaches the goal",
    )


def checks_for(profile: ProgressProfile) -> Sequence[Check]:
    """One check per property, all on one shared system of ``profile`` (caches are per system)."""
    holder: list[ProgressSystem] = []

    def system() -> ProgressSystem:
        if not holder:
            holder.append(ProgressSystem(profile))
        return holder[0]

    suffix = "" if profile is UPSTREAM else f"@{profile.name}"
    found = tuple(
        Check(
            name=f"{prop.name}{suffix}",
            statement=prop.statement,
            rule=prop.rule,
            run=lambda prop=prop: run_progress(prop, system()),  # type: ignore[misc]
            group="progress",
            expected_finding=profile.expected_findings.get(prop.name, ""),
        )
        for prop in PROPERTIES
    )
    if profile is UPSTREAM:
        return found
    # An extension must show it keeps the protocol invariants (upstream's steps are
    # checked once, by the tests, against the same base-step map).
    refines = Check(
        name=f"safety_invariants_hold{suffix}",
        statement="every step of the profile is a sequence of safety-model steps, so every "
        "protocol invariant holds on it",
        rule="CR-9",
        run=lambda: run_refinement(system()),
        group="progress",
    )
    return (refines, *found)


def checks() -> Sequence[Check]:
    """The properties on every registered profile (upstream first)."""
    return tuple(check for profile in PROFILES.values() for check in checks_for(profile))
