"""The protocol invariants, each with its statement, rule and (where needed) strengthening.

An invariant is a formula over one state and a few universally quantified *indices* (an
operation key, a tool, an approval nonce, an authorizer identity). ``holds`` is the property
as stated in docs/spec/model.md; ``strengthening`` is what makes ``holds`` inductive when it
is not inductive on its own. The lemmas a strengthening is built from are named, because
several invariants share them and because docs/model.md explains each one.

A ``step`` property relates a state to its successor ("a terminal state never changes",
"an attenuation never widens"). It is proven for every action from any state satisfying the
(proven inductive) ``holds`` and ``strengthening`` of the same invariant.
"""

from __future__ import annotations

import z3

from rescind.model.core.invariant import Indices, Invariant, Lemma, StateFormula
from rescind.model.core.logic import (
    APPROVAL_STATUS,
    CKEY,
    IDENTITY,
    KEY,
    MESSAGE,
    NONCE,
    TOOL,
    Expr,
    grant_field,
    narrower_or_equal,
    phase,
    sorted_phases,
)
from rescind.model.core.system import State, TransitionSystem

ABSENT = phase("absent")
SUCCEEDED = phase("succeeded")


def _true(m: TransitionSystem, s: State, ix: Indices) -> Expr:
    return z3.BoolVal(True)


def _implies(condition: Expr, consequence: Expr) -> Expr:
    return z3.Implies(condition, consequence)


# ---- lemmas ------------------------------------------------------------------------------


def _count_matches_slot(prefix: str) -> StateFormula:
    def formula(m: TransitionSystem, s: State, ix: Indices) -> Expr:
        k = ix["k"]
        return s[f"{prefix}.cmp_count"][k] == z3.If(s[f"{prefix}.cmp"][k] == ABSENT, 0, 1)

    return formula


def _memory_extends_disk(m: TransitionSystem, s: State, ix: Indices) -> Expr:
    k = ix["k"]
    parts = [
        _implies(s["disk.op"][k] != ABSENT, s["mem.op"][k] != ABSENT),
        _implies(s["disk.cmp"][k] != ABSENT, s["mem.cmp"][k] != ABSENT),
        _implies(s["disk.cmp"][k] != ABSENT, s["mem.cmp_key"][k] == s["disk.cmp_key"][k]),
    ]
    for slot, result in (("op", "result"), ("cmp", "cmp_result")):
        parts.append(
            _implies(
                m.logic.is_terminal(s[f"disk.{slot}"][k]),
                z3.And(
                    s[f"mem.{slot}"][k] == s[f"disk.{slot}"][k],
                    s[f"mem.{result}"][k] == s[f"disk.{result}"][k],
                ),
            )
        )
    return z3.And(parts)


def _worker_sent_only_durable(m: TransitionSystem, s: State, ix: Indices) -> Expr:
    k, c = ix["k"], ix["c"]
    parts = []
    for terminal in sorted_phases(m.logic.lifecycle.terminal):
        value = phase(terminal)
        parts.append(_implies(z3.IsMember(value, s["wire.results"][k]), s["disk.op"][k] == value))
        message = _message(c, value)
        parts.append(
            _implies(
                z3.IsMember(message, s["wire.cmp_results"][k]),
                z3.And(s["disk.cmp"][k] == value, s["disk.cmp_key"][k] == c),
            )
        )
    return z3.And(parts)


def _message(c: Expr, value: Expr) -> Expr:
    return MESSAGE.message(c, value)


def _inverse_effect_bookkeeping(m: TransitionSystem, s: State, ix: Indices) -> Expr:
    k = ix["k"]
    done = s["effects.inverse"][k] >= 1
    return z3.And(
        _implies(done, z3.And(s["disk.cmp"][k] != ABSENT, s["mem.cmp"][k] != ABSENT)),
        _implies(s["worker.cmp_owed"][k], s["effects.inverse"][k] == 0),
        s["effects.inverse"][k] >= 0,
    )


def _forward_effect_bookkeeping(m: TransitionSystem, s: State, ix: Indices) -> Expr:
    k = ix["k"]
    done = s["effects.forward"][k] >= 1
    return z3.And(
        _implies(done, z3.And(s["disk.op"][k] != ABSENT, s["mem.op"][k] != ABSENT)),
        _implies(s["worker.owed"][k], s["effects.forward"][k] == 0),
        s["effects.forward"][k] >= 0,
    )


def _host_knows_admitted(m: TransitionSystem, s: State, ix: Indices) -> Expr:
    k = ix["k"]
    return _implies(s["mem.op"][k] != ABSENT, s["host.op"][k] != ABSENT)


def _authorized_identities_match_grant(m: TransitionSystem, s: State, ix: Indices) -> Expr:
    identity = ix["id"]
    tool = IDENTITY.id_tool(identity)
    grant = s["grant.active"][tool]
    return _implies(
        z3.IsMember(identity, s["auth.identities"]),
        z3.And(
            IDENTITY.id_fp(identity) == m.fingerprint(grant), grant_field(grant, "tool") == tool
        ),
    )


def _worker_record_bound(prefix: str) -> StateFormula:
    def formula(m: TransitionSystem, s: State, ix: Indices) -> Expr:
        k = ix["k"]
        grant = s[f"{prefix}.cmp_grant"][k]
        return _implies(
            s[f"{prefix}.cmp"][k] != ABSENT,
            z3.And(
                s[f"{prefix}.op"][k] == SUCCEEDED,
                s[f"{prefix}.cmp_tool"][k] == s[f"{prefix}.tool"][k],
                s[f"{prefix}.cmp_scope"][k] == s["worker.scope"],
                s[f"{prefix}.cmp_fp"][k] == m.fingerprint(grant),
                grant_field(grant, "tool") == s[f"{prefix}.tool"][k],
            ),
        )

    return formula


def _host_record_bound(m: TransitionSystem, s: State, ix: Indices) -> Expr:
    k = ix["k"]
    grant = s["host.cmp_grant"][k]
    return _implies(
        s["host.cmp"][k] != ABSENT,
        z3.And(
            s["host.op"][k] == SUCCEEDED,
            grant_field(grant, "tool") == s["host.tool"][k],
            s["host.cmp_fp"][k] == m.fingerprint(grant),
        ),
    )


MEMORY_EXTENDS_DISK = Lemma(
    "memory_extends_disk",
    "the live journal only extends the persisted one: a durable record is in memory too, "
    "with the same compensation key, and a durable terminal state and result are in memory "
    "unchanged",
    _memory_extends_disk,
)
SENT_ONLY_DURABLE = Lemma(
    "worker_sent_only_durable",
    "every terminal result on the wire is the worker's persisted state for that key (and, "
    "for a compensation, its persisted compensation key)",
    _worker_sent_only_durable,
)
HOST_COUNT = Lemma(
    "host_count_matches_slot",
    "the host's count of recorded intents is 1 exactly when the compensation slot is filled",
    _count_matches_slot("host"),
)
WORKER_COUNTS = Lemma(
    "worker_count_matches_slot",
    "in memory and on disk, the attachment count is 1 exactly when the slot is filled",
    lambda m, s, ix: z3.And(
        _count_matches_slot("mem")(m, s, ix), _count_matches_slot("disk")(m, s, ix)
    ),
)
INVERSE_BOOKKEEPING = Lemma(
    "inverse_effect_bookkeeping",
    "an inverse effect implies a compensation in memory and on disk; an owed inverse call "
    "implies none has run yet",
    _inverse_effect_bookkeeping,
)
FORWARD_BOOKKEEPING = Lemma(
    "forward_effect_bookkeeping",
    "an effect implies the record is in memory and on disk; an owed call implies none has run yet",
    _forward_effect_bookkeeping,
)
HOST_KNOWS_ADMITTED = Lemma(
    "host_knows_admitted",
    "the worker only holds records the host has recorded",
    _host_knows_admitted,
)
IDENTITIES_MATCH_GRANT = Lemma(
    "authorized_identities_match_grant",
    "every identity the session authorized carries the fingerprint of the session's active "
    "grant for its tool, and that grant is for that tool",
    _authorized_identities_match_grant,
)
COUNTER_NOT_NEGATIVE = Lemma(
    "compensation_counter_not_negative",
    "the authorizer's compensation counter for a tool is never negative",
    lambda m, s, ix: s["auth.cmp_used"][ix["t"]] >= 0,
)
APPROVAL_USES = Lemma(
    "approval_uses_match_status",
    "an approval has been used once exactly when it is consumed, never before issue",
    lambda m, s, ix: (
        s["approval.uses"][ix["n"]] == z3.If(s["approval.status"][ix["n"]] == _consumed(), 1, 0)
    ),
)
RECORDS_BOUND = Lemma(
    "worker_records_bound",
    "a compensation in memory or on disk sits on a succeeded original, with the original's "
    "tool, the journal's scope and the fingerprint of a grant for that tool",
    lambda m, s, ix: z3.And(
        _worker_record_bound("mem")(m, s, ix), _worker_record_bound("disk")(m, s, ix)
    ),
)


def _consumed() -> Expr:
    return APPROVAL_STATUS["consumed"]


# ---- invariants --------------------------------------------------------------------------


def _host_at_most_one(m: TransitionSystem, s: State, ix: Indices) -> Expr:
    return s["host.cmp_count"][ix["k"]] <= 1


def _worker_at_most_one(m: TransitionSystem, s: State, ix: Indices) -> Expr:
    k = ix["k"]
    return z3.And(
        s["mem.cmp_count"][k] <= 1, s["disk.cmp_count"][k] <= 1, s["effects.inverse"][k] <= 1
    )


def _terminal_unchanged(m: TransitionSystem, pre: State, post: State, ix: Indices) -> Expr:
    k = ix["k"]
    parts = []
    for slot, kept in (
        ("host.op", ()),
        ("host.cmp", ("host.cmp_key",)),
        ("disk.op", ("disk.result",)),
        ("disk.cmp", ("disk.cmp_key", "disk.cmp_result")),
    ):
        same = [post[name][k] == pre[name][k] for name in (slot, *kept)]
        parts.append(_implies(m.logic.is_terminal(pre[slot][k]), z3.And(same)))
    return z3.And(parts)


def _agreement(m: TransitionSystem, s: State, ix: Indices) -> Expr:
    k = ix["k"]
    return z3.And(
        _implies(m.logic.is_terminal(s["host.op"][k]), s["disk.op"][k] == s["host.op"][k]),
        _implies(
            m.logic.is_terminal(s["host.cmp"][k]),
            z3.And(
                s["disk.cmp"][k] == s["host.cmp"][k], s["disk.cmp_key"][k] == s["host.cmp_key"][k]
            ),
        ),
    )


def _within_root(m: TransitionSystem, s: State, ix: Indices) -> Expr:
    return narrower_or_equal(s["grant.active"][ix["t"]], s["grant.root"][ix["t"]])


def _never_widens(m: TransitionSystem, pre: State, post: State, ix: Indices) -> Expr:
    return narrower_or_equal(post["grant.active"][ix["t"]], pre["grant.active"][ix["t"]])


def _stored_fp_tracks_grant(m: TransitionSystem, s: State, ix: Indices) -> Expr:
    k = ix["k"]
    parts = []
    for prefix in ("mem", "disk"):
        active = s["grant.active"][s[f"{prefix}.cmp_tool"][k]]
        parts.append(
            _implies(
                s[f"{prefix}.cmp"][k] != ABSENT,
                (s[f"{prefix}.cmp_fp"][k] == m.fingerprint(active))
                == (s[f"{prefix}.cmp_grant"][k] == active),
            )
        )
    return z3.And(parts)


def _fp_changes_with_grant(m: TransitionSystem, pre: State, post: State, ix: Indices) -> Expr:
    before, after = pre["grant.active"][ix["t"]], post["grant.active"][ix["t"]]
    return _implies(after != before, m.fingerprint(after) != m.fingerprint(before))


def _compensation_matches(m: TransitionSystem, s: State, ix: Indices) -> Expr:
    k = ix["k"]
    return z3.And(
        _worker_record_bound("mem")(m, s, ix),
        _worker_record_bound("disk")(m, s, ix),
        _host_record_bound(m, s, ix),
        _implies(s["effects.inverse"][k] >= 1, s["disk.op"][k] == SUCCEEDED),
    )


def _durable_before_effect(m: TransitionSystem, s: State, ix: Indices) -> Expr:
    k = ix["k"]
    return z3.And(
        _implies(
            s["effects.forward"][k] >= 1,
            z3.And(s["disk.op"][k] != ABSENT, s["host.op"][k] != ABSENT),
        ),
        _implies(s["effects.inverse"][k] >= 1, s["disk.cmp"][k] != ABSENT),
    )


def _budget(m: TransitionSystem, s: State, ix: Indices) -> Expr:
    t = ix["t"]
    return s["auth.cmp_used"][t] <= grant_field(s["grant.active"][t], "max_compensations")


def _no_superseded_write(m: TransitionSystem, s: State, ix: Indices) -> Expr:
    return z3.And(s["store.superseded_writes"] == 0, s["worker.lease"] == s["store.fence"])


def _approval_once(m: TransitionSystem, s: State, ix: Indices) -> Expr:
    return s["approval.uses"][ix["n"]] <= 1


def _one_effect(m: TransitionSystem, s: State, ix: Indices) -> Expr:
    return s["effects.forward"][ix["k"]] <= 1


_K = (("k", KEY),)

INVARIANTS: tuple[Invariant, ...] = (
    Invariant(
        "host_at_most_one_compensation",
        "the host ledger records at most one compensation intent per original operation, ever",
        "MD-2",
        _K,
        _host_at_most_one,
        (HOST_COUNT,),
    ),
    Invariant(
        "worker_at_most_one_compensation",
        "the worker journal attaches at most one compensation per original (in memory and on "
        "disk) and at most one inverse effect runs per original",
        "MD-3",
        _K,
        _worker_at_most_one,
        (WORKER_COUNTS, INVERSE_BOOKKEEPING, MEMORY_EXTENDS_DISK),
    ),
    Invariant(
        "terminal_states_never_change",
        "once the host ledger or the worker's persisted journal holds a terminal state, no step "
        "changes it (nor the worker's stored result or the compensation key)",
        "MD-4",
        _K,
        _true,
        (MEMORY_EXTENDS_DISK,),
        step=_terminal_unchanged,
    ),
    Invariant(
        "host_worker_terminal_agreement",
        "whenever the host holds a terminal result for a key, the worker's persisted journal "
        "holds the same terminal state (and compensation key) for it",
        "MD-5",
        (("k", KEY), ("c", CKEY)),
        _agreement,
        (SENT_ONLY_DURABLE, MEMORY_EXTENDS_DISK),
    ),
    Invariant(
        "attenuation_never_widens",
        "no attenuation, and no chain of them, raises a limit or max_compensations, adds a "
        "resource, or changes tool or format",
        "MD-6",
        (("t", TOOL),),
        _within_root,
        step=_never_widens,
    ),
    Invariant(
        "fingerprint_tracks_grant",
        "a grant change always changes its fingerprint, so a stored compensation fingerprint "
        "matches the active grant exactly when that grant is unchanged",
        "MD-7",
        (("t", TOOL), ("k", KEY), ("id", IDENTITY)),
        _stored_fp_tracks_grant,
        (RECORDS_BOUND, IDENTITIES_MATCH_GRANT, MEMORY_EXTENDS_DISK),
        step=_fp_changes_with_grant,
    ),
    Invariant(
        "compensation_matches_original",
        "a compensation exists (and an inverse effect runs) only for a succeeded original, "
        "with the original's tool, the journal's tenant scope and the fingerprint of the grant "
        "it was authorized under",
        "MD-8",
        (("k", KEY), ("id", IDENTITY)),
        _compensation_matches,
        (IDENTITIES_MATCH_GRANT, INVERSE_BOOKKEEPING, MEMORY_EXTENDS_DISK),
    ),
    Invariant(
        "effect_requires_durable_admission",
        "no effect or inverse effect happens unless its admission was persisted first (and "
        "the host recorded the operation)",
        "MD-9",
        _K,
        _durable_before_effect,
        (MEMORY_EXTENDS_DISK, HOST_KNOWS_ADMITTED),
    ),
    Invariant(
        "one_effect_per_operation",
        "the adapter performs an operation's effect at most once, across resends, crashes "
        "and lease takeovers",
        "MD-10",
        _K,
        _one_effect,
        (FORWARD_BOOKKEEPING, MEMORY_EXTENDS_DISK),
    ),
    Invariant(
        "compensation_budget_respected",
        "a session never authorizes more compensation identities for a tool than its grant's "
        "max_compensations",
        "MD-11",
        (("t", TOOL),),
        _budget,
        (COUNTER_NOT_NEGATIVE,),
    ),
    Invariant(
        "superseded_lease_never_writes",
        "the store accepts no journal write from a lease a newer one superseded, and the live "
        "session always holds the newest lease",
        "MD-12",
        (),
        _no_superseded_write,
    ),
    Invariant(
        "approval_used_at_most_once",
        "every compensation approval is used at most once",
        "MD-13",
        (("n", NONCE),),
        _approval_once,
        (APPROVAL_USES,),
    ),
)


def invariant(name: str) -> Invariant:
    for candidate in INVARIANTS:
        if candidate.name == name:
            return candidate
    raise KeyError(name)
