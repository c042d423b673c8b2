"""Profile ``splash-v5+compensation-reconcile``: Rescind's protocol extension (not upstream).

Upstream can lose a compensation's outcome for good (docs/findings.md, the stuck
compensation): the inverse ran, the session died before its answer was stored, and nothing
may ask the adapter again. The extension adds one step, a *compensation reconciliation*
(docs/spec/compensation-reconcile.md, rules CR-n), shaped like the original's reconcile:

* it asks the adapter about a compensation already attached in the journal and never calls
  the inverse (``effects.inverse`` is untouched: at most one inverse effect still holds);
* the request names the attached compensation exactly: tool, tenant scope, compensation key,
  grant fingerprint and input must all equal the stored record (CR-5), and the grant
  fingerprint must be the current grant's (CR-4);
* it needs no new approval and spends no compensation budget (CR-7): the attachment it asks
  about was sent under an approval already;
* it runs in a later request, never while the attaching request still owes its inverse call.

As a model step it is ``observe_compensation`` with more guards, so every run of this
profile is a run of the safety model (``base_steps``, checked by ``rescind prove``).
"""

from __future__ import annotations

from collections.abc import Mapping

import z3

from rescind.model.core.logic import CKEY, FINGERPRINT, INPUT, SCOPE, TOOL, Expr
from rescind.model.core.system import Action, Params, State, TransitionSystem
from rescind.model.progress.fair_system import (
    TERMINAL,
    UPSTREAM,
    FairFamily,
    ProgressProfile,
    base_action,
    honest_compensation,
    honest_request,
    restricted,
    terminal_only,
)

NAME = "splash-v5+compensation-reconcile"


def _reconcile_guards(m: TransitionSystem, s: State, p: Params) -> dict[str, Expr]:
    key = p["key"]
    return {
        "no_call_owed": z3.Not(s["worker.cmp_owed"][key]),
        "scope_matches": p["scope"] == s["worker.scope"],  # CR-3
        "same_tool": s["mem.tool"][key] == p["tool"],  # CR-3
        "grant_fingerprint_current": p["fp"] == m.fingerprint(s["grant.active"][p["tool"]]),
        "same_compensation": z3.And(  # CR-5
            s["mem.cmp_key"][key] == p["cmp_key"],
            s["mem.cmp_fp"][key] == p["fp"],
            s["mem.cmp_input"][key] == p["input"],
        ),
        **honest_request(m, s, p),
    }


_PARAMS = (
    ("tool", TOOL),
    ("cmp_key", CKEY),
    ("scope", SCOPE),
    ("fp", FINGERPRINT),
    ("input", INPUT),
)

RECONCILE_COMPENSATION: Action = restricted(
    base_action("observe_compensation"),
    "reconcile_compensation",
    "adapter reports an attached compensation's status on a compensation reconciliation "
    "(extension; a later request, same identity and current grant)",
    _reconcile_guards,
    _PARAMS,
)


def _answers(m: TransitionSystem, s: State, ix: Mapping[str, Expr]) -> list[dict[str, Expr]]:
    honest = honest_compensation(s, ix["k"])
    return [{**honest, "observed": value} for value in TERMINAL]


COMPENSATION_RECONCILIATION_ANSWERS = FairFamily(
    "compensation_reconciliation_answers",
    "reconcile_compensation",
    "the host keeps reconciling a compensation without a terminal result, and the adapter, "
    "asked again and again, eventually reports a terminal status (extension)",
    "key",
    terminal_only,
    _answers,
)

COMPENSATION_RECONCILE: ProgressProfile = UPSTREAM.adding(
    NAME,
    "Splash v5 plus Rescind's compensation reconciliation (docs/spec/compensation-reconcile.md)",
    [RECONCILE_COMPENSATION],
    [COMPENSATION_RECONCILIATION_ANSWERS],
    base_steps={"reconcile_compensation": ("observe_compensation",)},
)
