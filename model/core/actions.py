"""The actions of the transition system, one function pair (guards, effects) each.

Rejected requests are stutters (nothing changes), so only the accepting path of each
protocol step is an action. Where upstream spends something before a later check can
refuse (the authorizer records a compensation identity even if the journal then refuses),
the spending and the refusable part are two actions, which keeps that behaviour reachable.

Guard names are what broken variants and counterexample traces refer to; the docs/spec rule
each guard comes from is noted beside it.
"""

from __future__ import annotations

import z3

from rescind.model.core.logic import (
    APPROVAL_STATUS,
    CKEY,
    FINGERPRINT,
    IDENTITY,
    INPUT,
    INT,
    KEY,
    MESSAGE,
    NONCE,
    PHASE,
    RESOURCE,
    SCOPE,
    TOOL,
    Expr,
    grant_field,
    make_grant,
    phase,
)
from rescind.model.core.system import (
    JOURNAL_FIELDS,
    Action,
    Params,
    State,
    TransitionSystem,
)

Changes = dict[str, Expr]
Guards = dict[str, Expr]

SUCCEEDED = phase("succeeded")
ABSENT = phase("absent")


def _store(state: State, name: str, index: Expr, value: Expr) -> Expr:
    return z3.Store(state[name], index, value)


def _bump(state: State, name: str, index: Expr, amount: Expr | int = 1) -> Expr:
    return z3.Store(state[name], index, state[name][index] + amount)


def _revision_after(state: State, changed: Expr) -> Expr:
    """HL-4: +1 exactly when a mutation changes the ledger."""
    return state["host.revision"] + z3.If(changed, 1, 0)


# ---- host ledger -------------------------------------------------------------------------


def _record_operation_guards(m: TransitionSystem, s: State, p: Params) -> Guards:
    return {"key_unused": s["host.op"][p["key"]] == ABSENT}


def _record_operation_effects(m: TransitionSystem, s: State, p: Params) -> Changes:
    return {
        "host.op": _store(s, "host.op", p["key"], m.logic.initial),
        "host.tool": _store(s, "host.tool", p["key"], p["tool"]),
        "host.revision": _revision_after(s, z3.BoolVal(True)),
    }


def _apply_result_guards(m: TransitionSystem, s: State, p: Params) -> Guards:
    current = s["host.op"][p["key"]]
    seen = m.logic.observe(current, p["observed"], z3.BoolVal(True))
    return {
        "recorded": current != ABSENT,
        "observable": m.logic.is_observable(p["observed"]),
        "worker_sent_it": z3.IsMember(p["observed"], s["wire.results"][p["key"]]),
        "transition_allowed": seen.accepted,  # HL-10, from the table
    }


def _apply_result_effects(m: TransitionSystem, s: State, p: Params) -> Changes:
    current = s["host.op"][p["key"]]
    seen = m.logic.observe(current, p["observed"], z3.BoolVal(True))
    return {
        "host.op": _store(s, "host.op", p["key"], seen.next_phase),
        "host.revision": _revision_after(s, seen.advanced),
    }


def _policy_grant(s: State, key: Expr) -> Expr:
    return s["grant.active"][s["host.tool"][key]]


def _record_compensation_guards(m: TransitionSystem, s: State, p: Params) -> Guards:
    grant = _policy_grant(s, p["key"])
    return {
        "original_succeeded": s["host.op"][p["key"]] == SUCCEEDED,  # HL-7
        "not_yet_recorded": s["host.cmp"][p["key"]] == ABSENT,  # CompensationAlreadyRecorded
        "grant_for_tool": grant_field(grant, "tool") == s["host.tool"][p["key"]],  # HL-17 (G)
        "compensation_granted": grant_field(grant, "max_compensations") > 0,  # HL-16
    }


def _record_compensation_effects(m: TransitionSystem, s: State, p: Params) -> Changes:
    key, grant = p["key"], _policy_grant(s, p["key"])
    return {
        "host.cmp": _store(s, "host.cmp", key, m.logic.initial),
        "host.cmp_key": _store(s, "host.cmp_key", key, p["cmp_key"]),
        "host.cmp_scope": _store(s, "host.cmp_scope", key, p["scope"]),
        "host.cmp_fp": _store(s, "host.cmp_fp", key, m.fingerprint(grant)),
        "host.cmp_grant": _store(s, "host.cmp_grant", key, grant),
        "host.cmp_count": _bump(s, "host.cmp_count", key),
        "host.revision": _revision_after(s, z3.BoolVal(True)),
    }


def _apply_compensation_result_guards(m: TransitionSystem, s: State, p: Params) -> Guards:
    key = p["key"]
    current = s["host.cmp"][key]
    seen = m.logic.observe(current, p["observed"], z3.BoolVal(True))
    sent = MESSAGE.message(p["cmp_key"], p["observed"])
    return {
        "recorded": current != ABSENT,
        "same_compensation_key": p["cmp_key"] == s["host.cmp_key"][key],  # HL-21
        "observable": m.logic.is_observable(p["observed"]),
        "worker_sent_it": z3.IsMember(sent, s["wire.cmp_results"][key]),
        "transition_allowed": seen.accepted,
    }


def _apply_compensation_result_effects(m: TransitionSystem, s: State, p: Params) -> Changes:
    current = s["host.cmp"][p["key"]]
    seen = m.logic.observe(current, p["observed"], z3.BoolVal(True))
    return {
        "host.cmp": _store(s, "host.cmp", p["key"], seen.next_phase),
        "host.revision": _revision_after(s, seen.advanced),
    }


def _approve_guards(m: TransitionSystem, s: State, p: Params) -> Guards:
    key = p["key"]
    grant = _policy_grant(s, key)
    return {
        "fresh_nonce": s["approval.status"][p["nonce"]] == APPROVAL_STATUS["unissued"],
        "original_succeeded": s["host.op"][key] == SUCCEEDED,  # HL-22
        "compensation_recorded": s["host.cmp"][key] != ABSENT,
        "policy_matches": s["host.cmp_fp"][key] == m.fingerprint(grant),  # RC-6 grant drift
    }


def _approve_effects(m: TransitionSystem, s: State, p: Params) -> Changes:
    nonce = p["nonce"]
    return {
        "approval.status": _store(s, "approval.status", nonce, APPROVAL_STATUS["issued"]),
        "approval.key": _store(s, "approval.key", nonce, p["key"]),
        "approval.revision": _store(s, "approval.revision", nonce, s["host.revision"]),
    }


def _prepare_guards(m: TransitionSystem, s: State, p: Params) -> Guards:
    return {"approval_issued": s["approval.status"][p["nonce"]] == APPROVAL_STATUS["issued"]}


def _prepare_effects(m: TransitionSystem, s: State, p: Params) -> Changes:
    """HL-23: the approval is used up on entry, whether sealing then succeeds or not."""
    nonce = p["nonce"]
    after = "issued" if m.switched("prepare.keeps_approval") else "consumed"
    return {
        "approval.status": _store(s, "approval.status", nonce, APPROVAL_STATUS[after]),
        "approval.uses": _bump(s, "approval.uses", nonce),
    }


# ---- worker journal and adapter ----------------------------------------------------------


def _admit_guards(m: TransitionSystem, s: State, p: Params) -> Guards:
    return {
        "session_live": s["worker.live"],
        "host_recorded": s["host.op"][p["key"]] != ABSENT,  # the host dispatches what it recorded
        "new_record": s["mem.op"][p["key"]] == ABSENT,  # an existing one answers Existing
    }


def _admit_effects(m: TransitionSystem, s: State, p: Params) -> Changes:
    key = p["key"]
    return {
        "mem.op": _store(s, "mem.op", key, m.logic.initial),
        "mem.tool": _store(s, "mem.tool", key, s["host.tool"][key]),
        "worker.owed": _store(s, "worker.owed", key, z3.BoolVal(True)),
    }


def _persist_guards(m: TransitionSystem, s: State, p: Params) -> Guards:
    return {
        "session_live": s["worker.live"],
        "lease_is_current": s["worker.lease"] == s["store.fence"],  # WS-19 fenced CAS
    }


def _copy_journal(s: State, source: str, target: str) -> Changes:
    return {f"{target}.{name}": s[f"{source}.{name}"] for name in JOURNAL_FIELDS}


def _persist_effects(m: TransitionSystem, s: State, p: Params) -> Changes:
    return _copy_journal(s, "mem", "disk")


def _dispatch_effect_guards(m: TransitionSystem, s: State, p: Params) -> Guards:
    return {
        "session_live": s["worker.live"],
        "call_owed": s["worker.owed"][p["key"]],
        "admission_durable": s["disk.op"][p["key"]] != ABSENT,  # WS-7
    }


def _dispatch_effect_effects(m: TransitionSystem, s: State, p: Params) -> Changes:
    return {
        "worker.owed": _store(s, "worker.owed", p["key"], z3.BoolVal(False)),
        "effects.forward": _bump(s, "effects.forward", p["key"]),
    }


def _worker_observation(m: TransitionSystem, s: State, p: Params, field: str) -> Expr:
    current = s[f"mem.{field}"][p["key"]]
    same = p["result"] == s[f"mem.{field}_result" if field == "cmp" else "mem.result"][p["key"]]
    return current, m.logic.observe(current, p["observed"], same)


def _observe_guards(m: TransitionSystem, s: State, p: Params) -> Guards:
    current, seen = _worker_observation(m, s, p, "op")
    return {
        "session_live": s["worker.live"],
        "admitted": current != ABSENT,
        "observable": m.logic.is_observable(p["observed"]),
        "transition_allowed": seen.accepted,  # WJ-6, from the table
    }


def _observe_effects(m: TransitionSystem, s: State, p: Params) -> Changes:
    _, seen = _worker_observation(m, s, p, "op")
    key = p["key"]
    return {
        "mem.op": _store(s, "mem.op", key, seen.next_phase),
        "mem.result": _store(
            s, "mem.result", key, z3.If(seen.advanced, p["result"], s["mem.result"][key])
        ),
    }


def _reply_source(m: TransitionSystem) -> str:
    return "mem" if m.switched("reply.from_memory") else "disk"


def _reply_guards(m: TransitionSystem, s: State, p: Params) -> Guards:
    state = s[f"{_reply_source(m)}.op"][p["key"]]
    return {"has_outcome": z3.And(state != ABSENT, state != m.logic.initial)}


def _reply_effects(m: TransitionSystem, s: State, p: Params) -> Changes:
    key = p["key"]
    state = s[f"{_reply_source(m)}.op"][key]
    return {
        "wire.results": _store(s, "wire.results", key, z3.SetAdd(s["wire.results"][key], state))
    }


def _identity(p: Params) -> Expr:
    return IDENTITY.identity(p["tool"], p["key"], p["cmp_key"], p["scope"], p["fp"], p["input"])


def _authorize_compensation_guards(m: TransitionSystem, s: State, p: Params) -> Guards:
    grant = s["grant.active"][p["tool"]]
    limit = grant_field(grant, "max_compensations")
    known = z3.IsMember(_identity(p), s["auth.identities"])
    return {
        "session_live": s["worker.live"],
        "grant_for_tool": grant_field(grant, "tool") == p["tool"],  # UnknownTool
        "compensation_granted": limit > 0,  # AU-6
        "grant_fingerprint_matches": p["fp"] == m.fingerprint(grant),  # step 5
        "budget_left": z3.Or(known, s["auth.cmp_used"][p["tool"]] < limit),  # step 9
    }


def _authorize_compensation_effects(m: TransitionSystem, s: State, p: Params) -> Changes:
    identity = _identity(p)
    known = z3.IsMember(identity, s["auth.identities"])
    return {
        "auth.identities": z3.SetAdd(s["auth.identities"], identity),
        "auth.cmp_used": _bump(s, "auth.cmp_used", p["tool"], z3.If(known, 0, 1)),
    }


def _admit_compensation_guards(m: TransitionSystem, s: State, p: Params) -> Guards:
    key = p["key"]
    return {
        "session_live": s["worker.live"],
        "authorized": z3.IsMember(_identity(p), s["auth.identities"]),
        "scope_matches": p["scope"] == s["worker.scope"],  # WJ-13
        "original_known": s["mem.op"][key] != ABSENT,  # step 4
        "same_tool": s["mem.tool"][key] == p["tool"],  # step 5
        "original_succeeded": s["mem.op"][key] == SUCCEEDED,  # step 6
        "not_yet_attached": s["mem.cmp"][key] == ABSENT,  # step 7: otherwise Existing
    }


def _admit_compensation_effects(m: TransitionSystem, s: State, p: Params) -> Changes:
    key = p["key"]
    return {
        "mem.cmp": _store(s, "mem.cmp", key, m.logic.initial),
        "mem.cmp_key": _store(s, "mem.cmp_key", key, p["cmp_key"]),
        "mem.cmp_fp": _store(s, "mem.cmp_fp", key, p["fp"]),
        "mem.cmp_input": _store(s, "mem.cmp_input", key, p["input"]),
        "mem.cmp_tool": _store(s, "mem.cmp_tool", key, p["tool"]),
        "mem.cmp_scope": _store(s, "mem.cmp_scope", key, p["scope"]),
        "mem.cmp_grant": _store(s, "mem.cmp_grant", key, s["grant.active"][p["tool"]]),
        "mem.cmp_count": _bump(s, "mem.cmp_count", key),
        "worker.cmp_owed": _store(s, "worker.cmp_owed", key, z3.BoolVal(True)),
    }


def _compensation_effect_guards(m: TransitionSystem, s: State, p: Params) -> Guards:
    return {
        "session_live": s["worker.live"],
        "call_owed": s["worker.cmp_owed"][p["key"]],
        "admission_durable": s["disk.cmp"][p["key"]] != ABSENT,  # WS-12
    }


def _compensation_effect_effects(m: TransitionSystem, s: State, p: Params) -> Changes:
    return {
        "worker.cmp_owed": _store(s, "worker.cmp_owed", p["key"], z3.BoolVal(False)),
        "effects.inverse": _bump(s, "effects.inverse", p["key"]),
    }


def _observe_compensation_guards(m: TransitionSystem, s: State, p: Params) -> Guards:
    current, seen = _worker_observation(m, s, p, "cmp")
    return {
        "session_live": s["worker.live"],
        "attached": current != ABSENT,  # UnknownCompensation otherwise
        "observable": m.logic.is_observable(p["observed"]),
        "transition_allowed": seen.accepted,
    }


def _observe_compensation_effects(m: TransitionSystem, s: State, p: Params) -> Changes:
    _, seen = _worker_observation(m, s, p, "cmp")
    key = p["key"]
    stored = s["mem.cmp_result"][key]
    return {
        "mem.cmp": _store(s, "mem.cmp", key, seen.next_phase),
        "mem.cmp_result": _store(
            s, "mem.cmp_result", key, z3.If(seen.advanced, p["result"], stored)
        ),
    }


def _reply_compensation_guards(m: TransitionSystem, s: State, p: Params) -> Guards:
    state = s[f"{_reply_source(m)}.cmp"][p["key"]]
    return {"has_outcome": z3.And(state != ABSENT, state != m.logic.initial)}


def _reply_compensation_effects(m: TransitionSystem, s: State, p: Params) -> Changes:
    key, source = p["key"], _reply_source(m)
    message = MESSAGE.message(s[f"{source}.cmp_key"][key], s[f"{source}.cmp"][key])
    sent = z3.SetAdd(s["wire.cmp_results"][key], message)
    return {"wire.cmp_results": _store(s, "wire.cmp_results", key, sent)}


# ---- sessions, leases, grants ------------------------------------------------------------


def _no_guards(m: TransitionSystem, s: State, p: Params) -> Guards:
    return {}


def _crash_restore_effects(m: TransitionSystem, s: State, p: Params) -> Changes:
    """WS-7, WS-11, WS-17: memory goes back to the last persisted journal; the session is dead
    (crashed, or poisoned after a failed persist) and owes no adapter call any more."""
    return {**_reload(s), "worker.live": z3.BoolVal(False)}


def _new_session(s: State) -> Changes:
    """A fresh session: reserve_fence (stores and returns fence + 1), reload, new authorizer."""
    token = s["store.fence"] + 1
    return {
        **_reload(s),
        "worker.live": z3.BoolVal(True),
        "worker.lease": token,
        "store.fence": token,
        "auth.cmp_used": z3.K(TOOL, z3.IntVal(0)),
        "auth.identities": z3.EmptySet(IDENTITY),
    }


def _reload(s: State) -> Changes:
    return {
        **_copy_journal(s, "disk", "mem"),
        "worker.owed": z3.K(KEY, z3.BoolVal(False)),
        "worker.cmp_owed": z3.K(KEY, z3.BoolVal(False)),
    }


def _lease_takeover_effects(m: TransitionSystem, s: State, p: Params) -> Changes:
    return _new_session(s)


def _attenuate_guards(m: TransitionSystem, s: State, p: Params) -> Guards:
    """GR-19 to GR-21, in order: positive limits, no limit raised, resources a subset."""
    parent = s["grant.active"][p["tool"]]
    guards = {
        "limits_positive": z3.And(
            p["max_calls"] > 0, p["max_input_bytes"] > 0, p["max_output_bytes"] > 0
        ),
        "compensations_not_negative": p["max_compensations"] >= 0,
    }
    for name in ("max_calls", "max_input_bytes", "max_output_bytes", "max_compensations"):
        guards[f"{name}_not_raised"] = p[name] <= grant_field(parent, name)
    guards["resources_subset"] = z3.IsSubset(p["resources"], grant_field(parent, "resources"))
    return guards


def _attenuate_effects(m: TransitionSystem, s: State, p: Params) -> Changes:
    parent = s["grant.active"][p["tool"]]
    child = make_grant(
        tool=grant_field(parent, "tool"),
        json_format=grant_field(parent, "json_format"),
        max_calls=p["max_calls"],
        max_input_bytes=p["max_input_bytes"],
        max_output_bytes=p["max_output_bytes"],
        max_compensations=p["max_compensations"],
        resources=p["resources"],
    )
    return {**_new_session(s), "grant.active": _store(s, "grant.active", p["tool"], child)}


HAVOC = tuple((f"content_{name}", sort) for name, sort in JOURNAL_FIELDS.items())


def _superseded_write_guards(m: TransitionSystem, s: State, p: Params) -> Guards:
    return {
        "writer_superseded": z3.And(p["token"] >= 1, p["token"] < s["store.fence"]),
        "token_is_current": p["token"] == s["store.fence"],  # WS-19 fenced CAS
    }


def _superseded_write_effects(m: TransitionSystem, s: State, p: Params) -> Changes:
    """An older session, still running, tries to write whatever journal it holds."""
    written = {f"disk.{name}": p[f"content_{name}"] for name in JOURNAL_FIELDS}
    return {**written, "store.superseded_writes": s["store.superseded_writes"] + 1}


def _action(
    name: str,
    params: tuple[tuple[str, object], ...],
    guards: object,
    effects: object,
    summary: str,
    hidden: frozenset[str] = frozenset(),
) -> Action:
    return Action(name, params, guards, effects, hidden, summary)  # type: ignore[arg-type]


_IDENTITY_PARAMS = (
    ("tool", TOOL),
    ("key", KEY),
    ("cmp_key", CKEY),
    ("scope", SCOPE),
    ("fp", FINGERPRINT),
    ("input", INPUT),
)

ACTIONS: tuple[Action, ...] = (
    _action(
        "record_operation",
        (("key", KEY), ("tool", TOOL)),
        _record_operation_guards,
        _record_operation_effects,
        "host records a pending operation",
    ),
    _action(
        "admit",
        (("key", KEY),),
        _admit_guards,
        _admit_effects,
        "worker journal admits a dispatch (Dispatch outcome)",
    ),
    _action(
        "persist",
        (),
        _persist_guards,
        _persist_effects,
        "live session writes its journal under its lease",
    ),
    _action(
        "dispatch_effect",
        (("key", KEY),),
        _dispatch_effect_guards,
        _dispatch_effect_effects,
        "adapter performs the operation's effect",
    ),
    _action(
        "observe",
        (("key", KEY), ("observed", PHASE), ("result", INT)),
        _observe_guards,
        _observe_effects,
        "worker journal records an adapter status",
    ),
    _action(
        "reply", (("key", KEY),), _reply_guards, _reply_effects, "worker sends an operation result"
    ),
    _action(
        "apply_result",
        (("key", KEY), ("observed", PHASE)),
        _apply_result_guards,
        _apply_result_effects,
        "host ledger applies an operation result",
    ),
    _action(
        "record_compensation",
        (("key", KEY), ("cmp_key", CKEY), ("scope", SCOPE)),
        _record_compensation_guards,
        _record_compensation_effects,
        "host records a compensation intent",
    ),
    _action(
        "approve",
        (("key", KEY), ("nonce", NONCE)),
        _approve_guards,
        _approve_effects,
        "host issues a compensation approval",
    ),
    _action(
        "prepare",
        (("nonce", NONCE),),
        _prepare_guards,
        _prepare_effects,
        "host prepares (seals) a compensation with an approval",
    ),
    _action(
        "authorize_compensation",
        _IDENTITY_PARAMS,
        _authorize_compensation_guards,
        _authorize_compensation_effects,
        "worker authorizer admits a compensation identity",
    ),
    _action(
        "admit_compensation",
        _IDENTITY_PARAMS,
        _admit_compensation_guards,
        _admit_compensation_effects,
        "worker journal attaches a compensation",
    ),
    _action(
        "compensation_effect",
        (("key", KEY),),
        _compensation_effect_guards,
        _compensation_effect_effects,
        "adapter performs the inverse effect",
    ),
    _action(
        "observe_compensation",
        (("key", KEY), ("observed", PHASE), ("result", INT)),
        _observe_compensation_guards,
        _observe_compensation_effects,
        "worker journal records a compensation status",
    ),
    _action(
        "reply_compensation",
        (("key", KEY),),
        _reply_compensation_guards,
        _reply_compensation_effects,
        "worker sends a compensation result",
    ),
    _action(
        "apply_compensation_result",
        (("key", KEY), ("cmp_key", CKEY), ("observed", PHASE)),
        _apply_compensation_result_guards,
        _apply_compensation_result_effects,
        "host ledger applies a compensation result",
    ),
    _action(
        "attenuate_grant",
        (
            ("tool", TOOL),
            ("max_calls", INT),
            ("max_input_bytes", INT),
            ("max_output_bytes", INT),
            ("max_compensations", INT),
            ("resources", z3.SetSort(RESOURCE)),
        ),
        _attenuate_guards,
        _attenuate_effects,
        "host opens the next session under an attenuated grant",
    ),
    _action(
        "crash_restore",
        (),
        _no_guards,
        _crash_restore_effects,
        "worker crashes (or poisons); memory restored to the persisted journal",
    ),
    _action(
        "lease_takeover",
        (),
        _no_guards,
        _lease_takeover_effects,
        "a new session reserves the next lease and reloads the journal",
    ),
    _action(
        "superseded_write",
        (("token", INT), *HAVOC),
        _superseded_write_guards,
        _superseded_write_effects,
        "a superseded session tries to write its journal",
        frozenset(name for name, _ in HAVOC),
    ),
)
