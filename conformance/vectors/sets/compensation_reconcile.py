"""Vectors for Rescind's compensation reconciliation extension (not upstream): profile
``splash-v5+compensation-reconcile``, docs/spec/compensation-reconcile.md (CR-n).

Every test is one scenario run (``rescind.conformance.interpreters.compensation_reconcile``)
and belongs to the extension's profile, so a driver that declares only ``splash-v5`` gets
these vectors as not-applicable, except the ``cr.gate.plain-driver-*`` refusals, which belong
to ``splash-v5``: a plain driver that declares ``session`` is asked to reconcile and must
refuse. The expected document is the reference's run; ``build``
first checks that every step ends the way the case's author intended from the spec, so a
reference regression cannot silently rewrite a vector. Provenance is ``derived``: there is
no upstream to observe.

The ``cr.wire.*`` cases put the extension on the wire (CR-1): a ``reconcile_compensation``
frame answered by a sealed ``reconciled_compensation`` frame (exact frame texts, tags
included), the two kinds' message lines, and their refusal by a ``splash-v5`` worker, which
``build`` checks to be the refusal of an invented unknown kind, details and all.
"""

from __future__ import annotations

from typing import Any

import attrs

from rescind.conformance.interpreters.compensation_reconcile import (
    LOST,
    run_compensation_reconcile,
)
from rescind.conformance.provenance import derived
from rescind.conformance.vectors.format import Flag, VectorFile, VectorGroup, VectorTest
from rescind.reference.errors import RescindError
from rescind.reference.messages import OperationStatus
from rescind.reference.payload import ToolPayload

TOPIC = "compensation-reconcile"
PROFILE = "splash-v5+compensation-reconcile"
OK = "ok"
UNDONE = OperationStatus.succeeded(ToolPayload.text("undone")).to_json()
RUNNING = OperationStatus.running().to_json()
CANCELLED = OperationStatus.cancelled().to_json()
FAILED = OperationStatus.failed("inverse failed").to_json()
UPSTREAM = "splash-v5"
REQUEST_BODY = (
    '{"protocol_version":5,"session_id":"worker-1","request_id":"r9","tool":"text.echo",'
    '"operation_key":"op-1","compensation_key":"cmp-op-1","tenant_scope":"tenant",'
    '"grant_fingerprint":"' + "ab" * 32 + '","payload":{"format":"text","value":"undo"}}'
)
RESULT_BODY = (
    '{"protocol_version":5,"session_id":"worker-1","request_id":"r9","tool":"text.echo",'
    '"operation_key":"op-1","compensation_key":"cmp-op-1","tenant_scope":"tenant",'
    '"grant_fingerprint":"' + "ab" * 32 + '","status":' + UNDONE + "}"
)
RECONCILE_LINE = '{"type":"reconcile_compensation","request":' + REQUEST_BODY + "}"
RECONCILED_LINE = '{"type":"reconciled_compensation","result":' + RESULT_BODY + "}"
SPACED_LINE = ' { "request" : ' + REQUEST_BODY + ' , "type" : "reconcile_compensation" } '
INVENTED_KIND = "no_such_kind"

NOTES = (
    Flag(
        "RescindExtension",
        "behaviour of an optional protocol extension designed by Rescind, not upstream: a "
        "compensation reconciliation that looks an inverse effect up",
        "without it a compensation whose outcome was lost in a crash stays "
        "pending_compensation for good (docs/findings.md F8); done wrong, it runs a second "
        "inverse, answers for a compensation it does not hold, or spends budget",
    ),
)


@attrs.frozen
class Case:
    id: str
    rule: str
    comment: str
    steps: tuple[dict[str, Any], ...]
    intended: tuple[str, ...]
    """Each step's outcome as the author reads the spec: ``ok`` or the error code."""
    profile: str = PROFILE
    declared: bool = True
    same_as_unknown_kind: tuple[tuple[int, int], ...] = ()
    """Pairs of step indexes whose whole outcomes must be equal: an extension kind refused
    by ``splash-v5`` and the same line with an invented ``type``."""
    applies_to: str = PROFILE
    """The profile of the vector itself: the extension's, or ``splash-v5`` for the refusals
    every plain driver that declares ``session`` must give (CR-2, CR-1)."""
    settings: tuple[tuple[str, Any], ...] = ()
    """Optional scenario keys: ``limits`` (``perTool``, ``session``), ``maxCompensations``."""
    refused: str | None = None
    """The error code by which the scenario is refused before any step runs."""


def _lost() -> dict[str, Any]:
    return {"step": "compensate", "inverse": LOST}


def _reconcile(lookup: str | None = None, **request: Any) -> dict[str, Any]:
    step: dict[str, Any] = {"step": "reconcile", "lookup": lookup}
    if request:
        step["request"] = request
    return step


def _frame(lookup: str | None = None, **request: Any) -> dict[str, Any]:
    return {**_reconcile(lookup, **request), "step": "reconcile_frame"}


def _line(text: str) -> dict[str, Any]:
    return {"step": "message_line", "line": text}


def _invented(text: str, kind: str) -> dict[str, Any]:
    return _line(text.replace(f'"{kind}"', f'"{INVENTED_KIND}"'))


RESTART = {"step": "restart"}
RESEND = {"step": "resend"}
STUCK = (_lost(), RESTART)
STUCK_OUTCOMES = ("indeterminate_compensation", OK)

CASES = (
    Case(
        "cr.gate.upstream-profile-refuses",
        "CR-2",
        "a session without the profile refuses before any check or lookup; the compensation "
        "stays pending_compensation (upstream's behaviour)",
        (*STUCK, _reconcile(), RESEND),
        (*STUCK_OUTCOMES, "extension_not_enabled", "pending_compensation"),
        profile="splash-v5",
    ),
    Case(
        "cr.gate.plain-driver-reconcile",
        "CR-2",
        "a plain splash-v5 driver asked to reconcile a compensation whose outcome was lost "
        "refuses with extension_not_enabled before any lookup; this vector belongs to "
        "splash-v5, so every driver declaring session runs it",
        (*STUCK, _reconcile(), RESEND),
        (*STUCK_OUTCOMES, "extension_not_enabled", "pending_compensation"),
        profile=UPSTREAM,
        applies_to=UPSTREAM,
    ),
    Case(
        "cr.gate.plain-driver-frame",
        "CR-1",
        "a plain splash-v5 driver sent a reconcile_compensation frame refuses it as an unknown "
        "type (serialization) before it opens; this vector belongs to splash-v5",
        (*STUCK, _frame(), RESEND),
        (*STUCK_OUTCOMES, "serialization", "pending_compensation"),
        profile=UPSTREAM,
        applies_to=UPSTREAM,
    ),
    Case(
        "cr.lost-outcome.reconciled",
        "CR-7",
        "the inverse ran and its answer was lost; after a restart the lookup settles it, and a "
        "resend answers the stored outcome without a second inverse",
        (*STUCK, _reconcile(UNDONE), RESEND),
        (*STUCK_OUTCOMES, OK, OK),
    ),
    Case(
        "cr.lost-outcome.never-ran-cancelled",
        "CR-8",
        "the lookup finds no inverse effect: cancelled, and it never runs later",
        (*STUCK, _reconcile(CANCELLED), RESEND),
        (*STUCK_OUTCOMES, OK, OK),
    ),
    Case(
        "cr.running-then-terminal",
        "CR-8",
        "an inverse answered running is looked up again until it is terminal",
        ({"step": "compensate", "inverse": RUNNING}, _reconcile(RUNNING), _reconcile(FAILED)),
        (OK, OK, OK),
    ),
    Case(
        "cr.terminal-never-changes",
        "CR-8",
        "a lookup contradicting a stored terminal state is refused and changes nothing",
        ({"step": "compensate", "inverse": UNDONE}, _reconcile(FAILED)),
        (OK, "invalid_worker_compensation_transition"),
    ),
    Case(
        "cr.identity.compensation-key",
        "CR-4",
        "another compensation key is not the attached compensation",
        (*STUCK, _reconcile(compensation_key="cmp-other")),
        (*STUCK_OUTCOMES, "compensation_identity_mismatch"),
    ),
    Case(
        "cr.identity.input",
        "CR-4",
        "another input (worker input fingerprint) is not the attached compensation",
        (*STUCK, _reconcile(payload="undo something else")),
        (*STUCK_OUTCOMES, "compensation_identity_mismatch"),
    ),
    Case(
        "cr.identity.tenant",
        "CR-4",
        "another tenant scope is refused before any lookup of the key",
        (*STUCK, _reconcile(tenant_scope="other-tenant")),
        (*STUCK_OUTCOMES, "operation_journal_scope_mismatch"),
    ),
    Case(
        "cr.unknown-operation",
        "CR-4",
        "a key the journal does not hold: no lookup oracle",
        (*STUCK, _reconcile(operation_key="op-unknown")),
        (*STUCK_OUTCOMES, "unknown_operation"),
    ),
    Case(
        "cr.nothing-attached",
        "CR-4",
        "a journaled original without a compensation has nothing to reconcile",
        (_reconcile(),),
        ("unknown_compensation",),
    ),
    Case(
        "cr.grant-fingerprint",
        "CR-3",
        "a grant fingerprint other than the current grant's is refused by the authorizer",
        (*STUCK, _reconcile(grant_fingerprint="0" * 64)),
        (*STUCK_OUTCOMES, "compensation_grant_mismatch"),
    ),
    Case(
        "cr.adapter-not-declared",
        "CR-6",
        "an adapter that did not declare compensation reconciliation is never asked",
        (*STUCK, _reconcile()),
        (*STUCK_OUTCOMES, "compensation_reconciliation_not_declared"),
        declared=False,
    ),
    Case(
        "cr.no-budget",
        "CR-3",
        "reconciliations spend the session's reconciliation budget, never compensation budget",
        (*STUCK, _reconcile(RUNNING), _reconcile(UNDONE)),
        (*STUCK_OUTCOMES, OK, OK),
    ),
    Case(
        "cr.wire.frame-answered",
        "CR-1",
        "after a restart the host sends the lookup as an authenticated reconcile_compensation "
        "frame; the worker answers a sealed reconciled_compensation frame (exact texts), and "
        "a resend answers the stored outcome without a second inverse",
        (*STUCK, _frame(UNDONE), RESEND),
        (*STUCK_OUTCOMES, OK, OK),
    ),
    Case(
        "cr.wire.frame-refused-upstream",
        "CR-1",
        "a splash-v5 worker cannot decode the kind: the frame is refused as an unknown type "
        "before it opens (no sequence number used, no lookup), the session goes on, and the "
        "compensation stays pending_compensation",
        (*STUCK, _frame(), RESEND),
        (*STUCK_OUTCOMES, "serialization", "pending_compensation"),
        profile=UPSTREAM,
    ),
    Case(
        "cr.wire.frame-identity-checked",
        "CR-4",
        "on the wire too the request must be the attached compensation; the frame opened, so "
        "its sequence number is used",
        (*STUCK, _frame(compensation_key="cmp-other")),
        (*STUCK_OUTCOMES, "compensation_identity_mismatch"),
    ),
    Case(
        "cr.wire.message-lines",
        "CR-1",
        "both kinds decode and re-encode under the profile: type first, body key, struct field "
        "order; the tag may come last and spacing is free",
        (_line(RECONCILE_LINE), _line(RECONCILED_LINE), _line(SPACED_LINE)),
        (OK, OK, OK),
    ),
    Case(
        "cr.wire.message-strict-body",
        "CR-1",
        "the bodies are the compensation request and result: unknown fields are refused",
        (
            _line(RECONCILE_LINE.replace('"session_id"', '"extra":1,"session_id"')),
            _line(RECONCILED_LINE.replace('"session_id"', '"extra":1,"session_id"')),
        ),
        ("serialization", "serialization"),
    ),
    Case(
        "cr.wire.message-lines-refused-upstream",
        "CR-1",
        "a splash-v5 decoder refuses both kinds exactly as it refuses an invented type",
        (
            _line(RECONCILE_LINE),
            _invented(RECONCILE_LINE, "reconcile_compensation"),
            _line(RECONCILED_LINE),
            _invented(RECONCILED_LINE, "reconciled_compensation"),
        ),
        ("serialization",) * 4,
        profile=UPSTREAM,
        same_as_unknown_kind=((0, 1), (2, 3)),
    ),
    Case(
        "cr.budget.session-spent-to-its-end",
        "CR-3",
        "a session allowed two reconciliations: two lookups answer running, the third is "
        "refused before any lookup, and the compensation stays pending_compensation",
        (*STUCK, _reconcile(RUNNING), _reconcile(RUNNING), _reconcile(), RESEND),
        (*STUCK_OUTCOMES, OK, OK, "reconciliation_session_budget_exhausted", OK),
        settings=(("limits", {"session": 2}),),
    ),
    Case(
        "cr.budget.per-tool-spent-to-its-end",
        "CR-3",
        "one reconciliation per tool: the second is refused before any lookup",
        (*STUCK, _reconcile(RUNNING), _reconcile()),
        (*STUCK_OUTCOMES, OK, "reconciliation_budget_exhausted"),
        settings=(("limits", {"perTool": 1}),),
    ),
    Case(
        "cr.grant-without-compensations",
        "CR-4",
        "the tool's grant allows no compensation: a reconciliation is refused as not granted "
        "before the journal is looked at",
        (_reconcile(),),
        ("compensation_not_granted",),
        settings=(("maxCompensations", 0),),
    ),
    Case(
        "cr.limits.per-tool-zero-refused",
        "CR-3",
        "a per-tool reconciliation budget of zero is refused before the session opens",
        (),
        (),
        settings=(("limits", {"perTool": 0}),),
        refused="zero_per_tool_reconciliation_limit",
    ),
    Case(
        "cr.limits.session-zero-refused",
        "CR-3",
        "a session reconciliation budget of zero is refused before the session opens",
        (),
        (),
        settings=(("limits", {"session": 0}),),
        refused="zero_session_reconciliation_limit",
    ),
    Case(
        "cr.gate.unknown-profile",
        "CR-2",
        "a profile name the worker does not know is refused before the session opens",
        (),
        (),
        profile="splash-v6",
        refused="unknown_worker_profile",
    ),
)


def scenario(case: Case) -> dict[str, Any]:
    return {
        "profile": case.profile,
        "declared": case.declared,
        **dict(case.settings),
        "steps": list(case.steps),
    }


def _refused_vector(case: Case) -> VectorTest:
    try:
        run_compensation_reconcile(scenario(case))
    except RescindError as error:
        if error.code != case.refused:
            message = f"{case.id}: refused with {error.code}, intended {case.refused}"
            raise ValueError(message) from None
        return VectorTest(
            id=case.id,
            rule=case.rule,
            comment=case.comment,
            input={"scenario": scenario(case)},
            expected={"error": error.code},
            result="invalid",
            flags=("RescindExtension",),
            provenance=derived(case.rule),
            profile=case.applies_to,
        )
    raise ValueError(f"{case.id}: the reference ran the scenario, intended {case.refused}")


def vector(case: Case) -> VectorTest:
    if case.refused is not None:
        return _refused_vector(case)
    run = run_compensation_reconcile(scenario(case))
    outcomes = tuple(OK if "result" in step else str(step["error"]) for step in run["steps"])
    if outcomes != case.intended:
        raise ValueError(f"{case.id}: the reference ran {outcomes}, intended {case.intended}")
    for refused, invented in case.same_as_unknown_kind:
        if run["steps"][refused] != run["steps"][invented]:
            raise ValueError(f"{case.id}: step {refused} is not refused as an unknown type")
    return VectorTest(
        id=case.id,
        rule=case.rule,
        comment=case.comment,
        input={"scenario": scenario(case)},
        expected=run,
        result="valid",
        flags=("RescindExtension",),
        provenance=derived(case.rule),
        profile=case.applies_to,
    )


STEP_SCHEMA = {
    "type": "object",
    "required": ["step"],
    "properties": {
        "step": {
            "enum": [
                "compensate",
                "restart",
                "reconcile",
                "resend",
                "reconcile_frame",
                "message_line",
            ]
        }
    },
}
SCENARIO_SCHEMA = {
    "type": "object",
    "required": ["scenario"],
    "properties": {
        "scenario": {
            "type": "object",
            "required": ["profile", "declared", "steps"],
            "properties": {
                "steps": {"type": "array", "items": STEP_SCHEMA},
                "limits": {
                    "type": "object",
                    "properties": {
                        "perTool": {"type": "integer", "minimum": 0},
                        "session": {"type": "integer", "minimum": 0},
                    },
                    "additionalProperties": False,
                },
                "maxCompensations": {"type": "integer", "minimum": 0},
            },
        }
    },
}
OUTCOME_SCHEMA = {
    "type": "object",
    "oneOf": [{"required": ["steps"]}, {"required": ["error"]}],
}


def build() -> VectorFile:
    return VectorFile(
        topic=TOPIC,
        header=(
            "Rescind's compensation reconciliation extension, NOT upstream "
            "(docs/spec/compensation-reconcile.md CR-n); profile "
            "splash-v5+compensation-reconcile: drivers that do not declare it get every test "
            "as not-applicable.",
            "Replay each scenario against one worker over its journal store (an original "
            "already succeeded), compare each step's result or error code and the state after "
            "it: stored compensation state, inverse calls, lookups, budgets spent.",
        ),
        notes=NOTES,
        groups=[VectorGroup("compensation-reconcile-scenario", [vector(c) for c in CASES])],
        test_schema={"input": SCENARIO_SCHEMA, "expected": OUTCOME_SCHEMA},
    )
