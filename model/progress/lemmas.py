"""Safety facts the progress proofs rest on, beyond the protocol invariants.

They are ordinary inductive invariants, but of the progress system (honest host, no grant
drift), not of the safety model: the safety model lets any request reach the worker, so a
journal there may hold a compensation key the host never recorded. Each is proven on the
system a progress check runs on before the check uses it (``rescind.model.progress.ranking``).
"""

from __future__ import annotations

import z3

from rescind.model.core.invariant import Indices, Invariant, Lemma
from rescind.model.core.logic import APPROVAL_STATUS, KEY, NONCE, Expr, grant_field, phase
from rescind.model.core.system import State, TransitionSystem
from rescind.model.progress.fair_system import HONEST_INPUT

ABSENT = phase("absent")
SUCCEEDED = phase("succeeded")


def _attachment_is_the_hosts(m: TransitionSystem, s: State, ix: Indices) -> Expr:
    k = ix["k"]
    parts = []
    for prefix in ("mem", "disk"):
        parts.append(
            z3.Implies(
                s[f"{prefix}.cmp"][k] != ABSENT,
                z3.And(
                    s["host.cmp"][k] != ABSENT,
                    s[f"{prefix}.cmp_key"][k] == s["host.cmp_key"][k],
                    s[f"{prefix}.cmp_fp"][k] == s["host.cmp_fp"][k],
                    s[f"{prefix}.cmp_input"][k] == HONEST_INPUT(k),
                ),
            )
        )
    return z3.And(parts)


def _intent_matches_policy(m: TransitionSystem, s: State, ix: Indices) -> Expr:
    k = ix["k"]
    tool = s["host.tool"][k]
    grant = s["grant.active"][tool]
    return z3.Implies(
        s["host.cmp"][k] != ABSENT,
        z3.And(
            s["host.op"][k] == SUCCEEDED,
            grant_field(grant, "tool") == tool,
            grant_field(grant, "max_compensations") > 0,
            s["host.cmp_fp"][k] == m.fingerprint(grant),
            s["host.cmp_scope"][k] == s["worker.scope"],
        ),
    )


def _journal_tool_is_the_hosts(m: TransitionSystem, s: State, ix: Indices) -> Expr:
    k = ix["k"]
    return z3.And(
        [
            z3.Implies(
                s[f"{prefix}.op"][k] != ABSENT,
                z3.And(s[f"{prefix}.tool"][k] == s["host.tool"][k], s["host.op"][k] != ABSENT),
            )
            for prefix in ("mem", "disk")
        ]
    )


def _approval_has_intent(m: TransitionSystem, s: State, ix: Indices) -> Expr:
    n = ix["n"]
    return z3.Implies(
        s["approval.status"][n] != APPROVAL_STATUS["unissued"],
        s["host.cmp"][s["approval.key"][n]] != ABSENT,
    )


ATTACHMENT_IS_THE_HOSTS = Invariant(
    "attachment_is_the_hosts",
    "a compensation in the journal (memory or store) carries the host's recorded key, grant "
    "fingerprint and input",
    "PG-7",
    (("k", KEY),),
    _attachment_is_the_hosts,
)
INTENT_MATCHES_POLICY = Invariant(
    "intent_matches_policy",
    "a recorded intent is for a succeeded original, the journal's tenant and the active "
    "grant (which allows compensation) of the original's tool",
    "PG-7",
    (("k", KEY),),
    _intent_matches_policy,
)
JOURNAL_TOOL_IS_THE_HOSTS = Invariant(
    "journal_tool_is_the_hosts",
    "a journal record (memory or store) has the tool the host recorded for it",
    "PG-7",
    (("k", KEY),),
    _journal_tool_is_the_hosts,
)
APPROVAL_HAS_INTENT = Invariant(
    "approval_has_intent",
    "an issued or used approval belongs to an operation with a recorded intent",
    "PG-7",
    (("n", NONCE),),
    _approval_has_intent,
)

HONEST_HOST_LEMMAS = (
    ATTACHMENT_IS_THE_HOSTS,
    INTENT_MATCHES_POLICY,
    JOURNAL_TOOL_IS_THE_HOSTS,
    APPROVAL_HAS_INTENT,
)


def as_lemma(invariant: Invariant) -> Lemma:
    """An invariant (with its strengthening) as one lemma, for use as a hypothesis."""
    return Lemma(invariant.name, invariant.statement, invariant.strengthened)
