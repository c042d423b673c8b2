"""Host crash and recovery scenarios (docs/spec/recovery.md): one per row of the host
policy table (upstream docs/worker-compensation.md, rules RC-1 .. RC-15) and the fenced ledger
recovery of RC-16 (host edge case 48 in the vector id, docs/spec/edge-cases.md). Each runs
``HostLedgerDriver`` over an authenticated store, against a real worker session where a worker
answers, and lists the outcome its author expects from the spec for every step.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import attrs

OK = "ok"
TOOL = "release.publish"
TENANT = "tenant-release"
PLAN = [["publish", "release.publish(version)"]]
INPUT = {"format": "json", "value": {"version": "1.2.3"}}
UNDO = {"format": "json", "value": {"undo": "1.2.3"}}
UNDO_DRIFT = {"format": "json", "value": {"undo": "1.2.4"}}


def _grant(tool: str = TOOL, out: int = 1024, comp: int = 1) -> dict[str, Any]:
    return {
        "tool": tool,
        "format": "json",
        "max_calls": 4,
        "max_input_bytes": 1024,
        "max_output_bytes": out,
        "max_compensations": comp,
        "resources": [],
    }


GRANTS = {
    "publish": _grant(),
    "publish-v2": _grant(out=512),
    "publish-two-comp": _grant(comp=2),
    "publish-no-comp": _grant(comp=0),
    "notify": _grant(tool="release.notify"),
}


def _session(number: int, role: str) -> dict[str, Any]:
    return {"session_id": f"host-{number}", "key": f"{0x20 + number:02x}" * 32, "role": role}


SETUP: dict[str, Any] = {
    "sessions": {
        **{f"s{n}": _session(n, "host") for n in (1, 2, 3)},
        **{f"s{n}w": _session(n, "worker") for n in (1, 2, 3)},
    },
    "grants": GRANTS,
    "verifiers": {"allow": True},
}

PUBLISHED = {
    "status": '{"state":"succeeded","payload":{"format":"json","value":{"url":"r/1.2.3"}}}'
}
UNDONE = {"status": '{"state":"succeeded","payload":{"format":"json","value":{"removed":true}}}'}
RUNNING = {"status": '{"state":"running"}'}
FAILED = {"status": '{"state":"failed","message":"boom"}'}
CANCELLED = {"status": '{"state":"cancelled"}'}
INDETERMINATE = {"error": "indeterminate"}
UNDONE_STATUS = {"state": "succeeded", "payload": {"format": "json", "value": {"removed": True}}}


@attrs.frozen
class Step:
    call: str
    expect: str
    args: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"call": self.call, "args": self.args}


def h(call: str, expect: str = OK, **args: Any) -> Step:
    if "as_" in args:
        args["as"] = args.pop("as_")
    return Step(call, expect, args)


def _step_tuple(steps: Iterable[Step]) -> tuple[Step, ...]:
    return tuple(steps)


@attrs.frozen
class Case:
    id: str
    rule: str
    comment: str
    steps: tuple[Step, ...] = attrs.field(converter=_step_tuple)
    setup: dict[str, Any] | None = None
    """The scenario's setup when it is not ``SETUP``."""
    profile: str | None = None
    """The vector's profile when it is not the file's (an extension case)."""

    def spec(self) -> dict[str, Any]:
        setup = SETUP if self.setup is None else self.setup
        return {"setup": setup, "steps": [step.to_json() for step in self.steps]}


L1 = {"engine": "e1", "plan": "p1", "ledger": "l1"}


def start(driver: str = "h1", names: dict[str, str] = L1) -> Step:
    return h("driver_start", driver=driver, steps=PLAN, **names)


def record(key: str = "op", nonce: str = "n1", driver: str = "h1", expect: str = OK) -> Step:
    return h(
        "driver_record_operation",
        expect,
        driver=driver,
        step_id="publish",
        tool=TOOL,
        input=INPUT,
        nonce=nonce,
        as_=key,
    )


def dispatched(
    key: str,
    rid: str,
    answer: dict[str, Any] | None,
    state: str = "succeeded",
    session: str = "s1",
    worker: str = "w1",
) -> list[Step]:
    """Dispatch through the driver, the worker handles it (``answer`` scripts its adapter;
    None: the journal answers), the driver applies the reply."""
    steps = [
        h(
            "driver_dispatch",
            driver="h1",
            operation_key=f"${key}",
            payload=INPUT,
            request_id=rid,
            session=session,
            as_=rid,
        ),
        h(
            "deliver",
            worker=worker,
            frame=rid,
            adapter=[answer] if answer else [],
            as_=f"{rid}-reply",
        ),
    ]
    if state != "lost":
        steps.append(
            h(
                "driver_apply_dispatch",
                state,
                driver="h1",
                request=rid,
                session=session,
                frame=f"{rid}-reply",
            )
        )
    return steps


def worker(session: str = "s1", grant: str = "publish") -> Step:
    return h("worker_start", worker="w1", session=session, grants=[grant], scope=TENANT)


def policy(
    name: str = "pol", grant: str = "publish", tenant: str = TENANT, expect: str = OK
) -> Step:
    return h("policy", expect, tenant_scope=tenant, grant=grant, as_=name)


def target(name: str = "tgt", key: str = "op", pol: str = "pol", grant: str = "publish") -> Step:
    return h(
        "target",
        operation_key=f"${key}",
        policy=pol,
        grant=grant,
        grant_verifier="allow",
        action_verifier="allow",
        as_=name,
    )


def record_comp(tgt: str = "tgt", key: str = "cmp", driver: str = "h1", expect: str = OK) -> Step:
    return h(
        "driver_record_compensation",
        expect,
        driver=driver,
        target=tgt,
        input=UNDO,
        nonce="c1",
        as_=key,
    )


def compensated(
    rid: str,
    answer: dict[str, Any] | None,
    state: str,
    tgt: str = "tgt",
    session: str = "s1",
    driver: str = "h1",
    deliver_expect: str = OK,
) -> list[Step]:
    steps = [
        h(
            "driver_compensate",
            driver=driver,
            target=tgt,
            payload=UNDO,
            request_id=rid,
            session=session,
            as_=rid,
        ),
        h(
            "deliver",
            deliver_expect,
            worker="w1",
            frame=rid,
            adapter=[answer] if answer else [],
            as_=f"{rid}-reply",
        ),
    ]
    if state != "lost" and deliver_expect == OK:
        steps.append(
            h(
                "driver_apply_compensation",
                state,
                driver=driver,
                request=rid,
                session=session,
                frame=f"{rid}-reply",
            )
        )
    return steps


def approve(
    name: str,
    tgt: str = "tgt",
    session: str = "s1",
    payload: dict[str, Any] = UNDO,
    expect: str = OK,
    names: dict[str, str] = L1,
) -> Step:
    return h(
        "approve_compensation",
        expect,
        target=tgt,
        input=payload,
        session=session,
        as_=name,
        **names,
    )


def prepare(
    approval: str,
    rid: str,
    tgt: str = "tgt",
    session: str = "s1",
    payload: dict[str, Any] = UNDO,
    expect: str = OK,
) -> Step:
    return h(
        "prepare_compensation",
        expect,
        target=tgt,
        approval=approval,
        request_id=rid,
        payload=payload,
        session=session,
        as_=rid,
        **L1,
    )


def state(driver: str = "h1") -> Step:
    return h("driver_state", driver=driver)


SUCCEEDED_WITH_INTENT = [
    start(),
    record(),
    worker(),
    *dispatched("op", "d1", PUBLISHED),
    policy(),
    target(),
    record_comp(),
]

# fmt: off
ROWS = [
    Case(
        "recovery.row-01.original-not-succeeded", "RC-1",
        "pending, running, failed and cancelled originals refuse a compensation key, record and approval; reconciliation works in every state and a succeeded original then takes an intent",
        [
            start(), record("op1", "n1"), record("op2", "n2"), record("op3", "n3"), record("op4", "n4"), worker(),
            *dispatched("op2", "d2", RUNNING, "running"),
            *dispatched("op3", "d3", FAILED, "failed"),
            *dispatched("op4", "d4", CANCELLED, "cancelled"),
            policy(),
            *[
                h("derive_compensation_key", "compensation_requires_succeeded_operation", operation_key=f"${key}", policy="pol", input=UNDO, nonce="c1", **L1)
                for key in ("op1", "op2", "op3", "op4")
            ],
            target("tgt2", "op2"),
            record_comp("tgt2", expect="compensation_requires_succeeded_operation"),
            approve("a2", "tgt2", expect="compensation_requires_succeeded_operation"),
            h("driver_reconcile", driver="h1", operation_key="$op2", input=INPUT, request_id="r2", session="s1", as_="r2"),
            h("deliver", worker="w1", frame="r2", adapter=[PUBLISHED], as_="r2-reply"),
            h("driver_apply_reconciliation", "succeeded", driver="h1", request="r2", session="s1", frame="r2-reply"),
            h("driver_reconcile", driver="h1", operation_key="$op3", input=INPUT, request_id="r3", session="s1", as_="r3"),
            h("deliver", worker="w1", frame="r3", adapter=[FAILED], as_="r3-reply"),
            h("driver_apply_reconciliation", "failed", driver="h1", request="r3", session="s1", frame="r3-reply"),
            record_comp("tgt2"),
            h("worker_calls", worker="w1"),
        ],
    ),
    Case(
        "recovery.row-02.intent-persisted-before-approval", "RC-2",
        "a compensation intent recorded outside the driver is not sent until it is durable; persisting does not change the ledger revision the approval binds",
        [
            start(), record(), worker(), *dispatched("op", "d1", PUBLISHED), policy(), target(),
            h("record_derived_compensation_with_action_verifier", target="tgt", input=UNDO, nonce="c1", as_="cmp", **L1),
            state(),
            h("driver_compensate", "ledger_not_persisted", driver="h1", target="tgt", payload=UNDO, request_id="c0", session="s1", as_="c0"),
            h("driver_persist", driver="h1"),
            approve("a1"),
            *compensated("c1", UNDONE, "succeeded"),
            state(),
            h("worker_calls", worker="w1"),
        ],
    ),
    Case(
        "recovery.row-03.pending-intent-after-crash", "RC-3",
        "the worker could not tell whether the inverse ran; the host crashes; a new engine rebuilds the plan, loads and checks the ledger, rebuilds the policy, opens a new session, re-approves and re-seals the same cmp- key; the worker answers pending and never runs the inverse again",
        [
            *SUCCEEDED_WITH_INTENT,
            *compensated("c1", INDETERMINATE, "lost", deliver_expect="indeterminate_compensation"),
            state(),
            h("driver_recover", driver="h2", steps=PLAN, watermark=3, engine="e2", plan="p2", ledger="l2"),
            policy("pol2"), target("tgt2", pol="pol2"), worker("s2"),
            record_comp("tgt2", "cmp2", "h2", expect="compensation_already_recorded"),
            h("driver_compensate", driver="h2", target="tgt2", payload=UNDO, request_id="c2", session="s2", as_="c2"),
            h("deliver", "pending_compensation", worker="w1", frame="c2", as_="c2-reply"),
            state("h2"),
            h("worker_calls", worker="w1"),
            h("worker_journal", worker="w1"),
        ],
    ),
    Case(
        "recovery.row-04.compensation-succeeded", "RC-4",
        "after a succeeded compensation a new intent is refused; a re-sent intent is answered from the worker journal with no second inverse and applies as a no-op; a contradicting result is refused",
        [
            *SUCCEEDED_WITH_INTENT,
            *compensated("c1", UNDONE, "succeeded"),
            state(),
            record_comp(expect="compensation_already_recorded"),
            *compensated("c2", None, "succeeded"),
            state(),
            h("apply_verified_compensation", "invalid_compensation_state_transition", request={"of": "c1"}, result={"reply_to": "c1", "status": {"state": "failed", "message": "late"}}, **L1),
            h("worker_calls", worker="w1"),
        ],
    ),
    Case(
        "recovery.row-05.compensation-failed-or-cancelled", "RC-5",
        "a failed or cancelled compensation stays terminal: no second key, a re-send is answered from the worker journal, a contradicting result is refused",
        [
            start(), record("op1", "n1"), record("op2", "n2"), worker(grant="publish-two-comp"),
            *dispatched("op1", "d1", PUBLISHED), *dispatched("op2", "d2", PUBLISHED),
            policy(grant="publish-two-comp"),
            target("tgt1", "op1", grant="publish-two-comp"), target("tgt2", "op2", grant="publish-two-comp"),
            record_comp("tgt1", "cmp1"), record_comp("tgt2", "cmp2"),
            *compensated("c1", FAILED, "failed", tgt="tgt1"),
            *compensated("c2", CANCELLED, "cancelled", tgt="tgt2"),
            record_comp("tgt1", "cmp3", expect="compensation_already_recorded"),
            record_comp("tgt2", "cmp4", expect="compensation_already_recorded"),
            *compensated("c3", None, "failed", tgt="tgt1"),
            h("apply_verified_compensation", "invalid_compensation_state_transition", request={"of": "c2"}, result={"reply_to": "c2", "status": UNDONE_STATUS}, **L1),
            h("worker_calls", worker="w1"),
        ],
    ),
    Case(
        "recovery.row-06.grant-drift", "RC-6",
        "a changed grant: a policy from the new grant cannot approve and an earlier approval cannot seal under it; the old policy with the new grant fails the grant check; a grant without compensation budget makes no policy; a worker holding the new grant refuses the old fingerprint",
        [
            *SUCCEEDED_WITH_INTENT,
            policy("pol-v2", "publish-v2"),
            target("tgt-v2", pol="pol-v2", grant="publish-v2"),
            approve("ax", "tgt-v2", expect="compensation_policy_mismatch"),
            approve("a1"),
            prepare("a1", "c1", "tgt-v2", expect="approval_mismatch"),
            target("tgt-mixed", pol="pol", grant="publish-v2"),
            approve("ay", "tgt-mixed", expect="compensation_policy_mismatch"),
            policy("pol-none", "publish-no-comp", expect="compensation_not_granted"),
            worker("s2", "publish-v2"),
            h("driver_compensate", driver="h1", target="tgt", payload=UNDO, request_id="c2", session="s2", as_="c2"),
            h("deliver", "compensation_grant_mismatch", worker="w1", frame="c2", as_="c2-reply"),
        ],
    ),
    Case(
        "recovery.row-07.tenant-drift", "RC-7",
        "a policy for another tenant cannot approve, and an approval cannot seal under it",
        [
            *SUCCEEDED_WITH_INTENT,
            policy("pol-other", tenant="tenant-other"),
            target("tgt-other", pol="pol-other"),
            approve("ax", "tgt-other", expect="compensation_policy_mismatch"),
            approve("a1"),
            prepare("a1", "c1", "tgt-other", expect="approval_mismatch"),
        ],
    ),
    Case(
        "recovery.row-08.tool-drift", "RC-8",
        "a policy for another tool cannot approve or record a compensation of this operation",
        [
            start(), record(), worker(), *dispatched("op", "d1", PUBLISHED),
            policy("pol-notify", "notify"),
            target("tgt-notify", pol="pol-notify", grant="notify"),
            approve("ax", "tgt-notify", expect="compensation_policy_mismatch"),
            record_comp("tgt-notify", expect="compensation_policy_mismatch"),
        ],
    ),
    Case(
        "recovery.row-09.key-drift", "RC-9",
        "an approval for one operation cannot seal another's compensation; a result naming an unknown key or not matching its request is refused",
        [
            start(), record("op", "n1"), record("op2", "n2"), worker(),
            *dispatched("op", "d1", PUBLISHED), *dispatched("op2", "d2", PUBLISHED),
            policy(), target(), target("tgt2", "op2"), record_comp(),
            approve("a1"),
            prepare("a1", "c1", "tgt2", expect="approval_mismatch"),
            h("driver_compensate", driver="h1", target="tgt", payload=UNDO, request_id="c2", session="s1", as_="c2"),
            h("apply_verified_compensation", "unknown_operation", request={"of": "c2", "change": {"operation_key": "op-unknown"}}, result={"reply_to": "c2", "status": UNDONE_STATUS, "change": {"operation_key": "op-unknown"}}, **L1),
            h("apply_verified_compensation", "compensation_request_mismatch", request={"of": "c2"}, result={"reply_to": "c2", "status": UNDONE_STATUS, "change": {"operation_key": "$op2"}}, **L1),
        ],
    ),
    Case(
        "recovery.row-10.input-drift", "RC-10",
        "a different compensation input is refused at approval, at sealing (which uses the approval up) and when a result is applied",
        [
            *SUCCEEDED_WITH_INTENT,
            approve("ax", payload=UNDO_DRIFT, expect="compensation_input_fingerprint_mismatch"),
            approve("a1"),
            prepare("a1", "c1", payload=UNDO_DRIFT, expect="compensation_input_fingerprint_mismatch"),
            prepare("a1", "c2", expect="approval_mismatch"),
            h("driver_compensate", driver="h1", target="tgt", payload=UNDO, request_id="c3", session="s1", as_="c3"),
            h("apply_verified_compensation", "compensation_input_fingerprint_mismatch", request={"of": "c3", "change": {"payload": UNDO_DRIFT}}, result={"reply_to": "c3", "status": UNDONE_STATUS}, **L1),
        ],
    ),
    Case(
        "recovery.row-11.session-or-revision-drift", "RC-11",
        "an approval is bound to its host session and to the ledger revision: another session or any ledger change in between makes it unusable",
        [
            *SUCCEEDED_WITH_INTENT,
            approve("a1"),
            prepare("a1", "c1", session="s2", expect="approval_mismatch"),
            approve("a2"),
            record("op2", "n2"),
            prepare("a2", "c2", expect="approval_mismatch"),
        ],
    ),
    Case(
        "recovery.row-12.lost-worker-response", "RC-12",
        "a lost reply leaves the ledger where it was; in a new session the host re-sends the same intent and the worker answers from its journal without a second effect",
        [
            start(), record(), worker(),
            *dispatched("op", "d1", PUBLISHED, "lost"),
            state(),
            worker("s2"),
            *dispatched("op", "d2", None, session="s2"),
            policy(), target(), record_comp(),
            *compensated("c1", UNDONE, "lost", session="s2"),
            state(),
            worker("s3"),
            *compensated("c2", None, "succeeded", session="s3"),
            state(),
            h("worker_calls", worker="w1"),
        ],
    ),
    Case(
        "recovery.row-13.stale-ledger-loaded", "RC-13",
        "an old record put back under a newer floor is a rollback; an old record with its old floor loads, and only the host's watermark catches it",
        [
            start(), record(),
            h("save_store", as_="v1"),
            worker(), *dispatched("op", "d1", PUBLISHED),
            h("stored"),
            h("restore_store", **{"from": "v1"}),
            h("driver_recover", "rollback_detected", driver="h2", steps=PLAN, watermark=2, engine="e2", plan="p2", ledger="l2"),
            h("restore_store", with_floor=True, **{"from": "v1"}),
            h("driver_recover", "stale_revision", driver="h3", steps=PLAN, watermark=2, engine="e3", plan="p3", ledger="l3"),
            h("driver_recover", driver="h4", steps=PLAN, watermark=1, engine="e4", plan="p4", ledger="l4"),
        ],
    ),
    Case(
        "recovery.row-14.two-recovering-writers", "RC-14",
        "each recovering writer reserves a fence; every older writer's write is refused, leaves storage unchanged and poisons that driver",
        [
            start(), record(),
            h("driver_recover", driver="h2", steps=PLAN, engine="e2", plan="p2", ledger="l2"),
            h("driver_recover", driver="h3", steps=PLAN, engine="e3", plan="p3", ledger="l3"),
            record("op2", "n2", "h2", expect="fencing_token_rejected"),
            state("h2"),
            h("stored"),
            record("op2", "n2", "h3"),
            record("op3", "n3", "h1", expect="fencing_token_rejected"),
            record("op3", "n3", "h2", expect="host_driver_poisoned"),
            h("stored"),
        ],
    ),
    Case(
        "recovery.row-15.terminal-is-not-resume", "RC-15",
        "a succeeded operation is never a reason to skip or resume a step: the external bridge refuses to prepare it again, and a re-dispatch still goes to the worker, which answers from its journal",
        [
            start(), record(), worker(), *dispatched("op", "d1", PUBLISHED),
            h("prepare_external_operation", "operation_already_terminal", step_id="publish", tool=TOOL, input=INPUT, nonce="n1", **L1),
            *dispatched("op", "d2", None),
            state(),
            h("worker_calls", worker="w1"),
        ],
    ),
    Case(
        "recovery.edge-48.fenced-ledger-recovery", "RC-16",
        "RC-16: a mismatching result leaves storage at revision 1; the superseded fence-1 writer is refused with no event; the fence-2 writer commits revision 2; a third writer persisting a repeated running reaches storage revision 3 while the ledger stays at revision 2",
        [
            start(), record(),
            h("driver_recover", driver="h2", steps=PLAN, engine="e2", plan="p2", ledger="l2"),
            h("driver_reconcile", driver="h2", operation_key="$op", input=INPUT, request_id="r0", session="s2", as_="r0"),
            h("worker_reply", session="s2w", to="r0", status={"state": "running"}, change={"request_id": "other"}, as_="r0-reply"),
            h("driver_apply_reconciliation", "reconciliation_mismatch", driver="h2", request="r0", session="s2", frame="r0-reply"),
            h("stored"),
            h("driver_reconcile", driver="h1", operation_key="$op", input=INPUT, request_id="r1", session="s1", as_="r1"),
            h("worker_reply", session="s1w", to="r1", status={"state": "running"}, as_="r1-reply"),
            h("driver_apply_reconciliation", "fencing_token_rejected", driver="h1", request="r1", session="s1", frame="r1-reply"),
            state("h1"),
            h("driver_reconcile", driver="h2", operation_key="$op", input=INPUT, request_id="r2", session="s2", as_="r2"),
            h("worker_reply", session="s2w", to="r2", status={"state": "running"}, as_="r2-reply"),
            h("driver_apply_reconciliation", "running", driver="h2", request="r2", session="s2", frame="r2-reply"),
            h("stored"),
            h("driver_recover", driver="h3", steps=PLAN, engine="e3", plan="p3", ledger="l3"),
            h("driver_reconcile", driver="h3", operation_key="$op", input=INPUT, request_id="r3", session="s3", as_="r3"),
            h("worker_reply", session="s3w", to="r3", status={"state": "running"}, as_="r3-reply"),
            h("driver_apply_reconciliation", "running", driver="h3", request="r3", session="s3", frame="r3-reply"),
            h("stored"),
            state("h3"),
        ],
    ),
]
# fmt: on

RECONCILE_PROFILE = "splash-v5+compensation-reconcile"
# A host session of the extension's profile and its worker peer (the frames' wire profile).
SETUP_RECONCILE = {
    **SETUP,
    "sessions": {
        **SETUP["sessions"],
        "s9": {**_session(9, "host"), "wire": RECONCILE_PROFILE},
        "s9w": {**_session(9, "worker"), "wire": RECONCILE_PROFILE},
    },
}

# fmt: off
EXTENSION_ROWS = [
    Case(
        "recovery.cr-10.reply-of-another-kind", "CR-10",
        "the compensation frame is lost; the host asks about it on a session of the extension's profile without a new approval; a reply sealed as compensation_result (another kind) is refused and leaves the ledger untouched, its sequence used; the reconciled_compensation reply that follows settles the compensation",
        [
            start(), record(), worker(), *dispatched("op", "d1", PUBLISHED),
            policy(), target(), record_comp(),
            h("driver_compensate", driver="h1", target="tgt", payload=UNDO, request_id="c1", session="s1", as_="c1"),
            h("driver_reconcile_compensation", driver="h1", operation_key="$op", payload=UNDO, request_id="rc1", session="s9", as_="rc1"),
            h("worker_reply", session="s9w", to="rc1", status=UNDONE_STATUS, as_="rc1-wrong"),
            h("driver_apply_compensation_reconciliation", "unexpected_compensation_reconciliation_message", driver="h1", request="rc1", session="s9", frame="rc1-wrong"),
            state(),
            h("worker_reply", session="s9w", to="rc1", status=UNDONE_STATUS, kind="reconciled_compensation", as_="rc1-reply"),
            h("driver_apply_compensation_reconciliation", "succeeded", driver="h1", request="rc1", session="s9", frame="rc1-reply"),
            h("driver_reconcile_compensation", "compensation_already_terminal", driver="h1", operation_key="$op", payload=UNDO, request_id="rc2", session="s9", as_="rc2"),
            h("stored"),
        ],
        setup=SETUP_RECONCILE,
        profile=RECONCILE_PROFILE,
    ),
]
# fmt: on
