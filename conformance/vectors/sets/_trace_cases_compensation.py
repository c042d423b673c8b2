"""Ledger traces for compensation: intents, verifiers, approvals, frames (docs/spec/ledger.md
HL-3 to HL-28) and the crash/recovery table (docs/spec/recovery.md RC rules)."""

from __future__ import annotations

from typing import Any

from rescind.conformance.fixtures.trace_dsl import (
    CANCELLED,
    FAILED,
    KEY_0E,
    RUNNING,
    SUCCEEDED,
    SUCCEEDED_EMPTY,
    TOOL,
    UNDO,
    UNDO_DRIFT,
    UNDO_NONCE,
    VERSION,
    approve,
    call,
    checkpoint,
    compensated,
    dispatch_and_observe,
    grant,
    on,
    policy_and_target,
    prepare,
    reconcile,
    record_intent,
    record_op,
    revision,
    session,
    setup,
)

Case = tuple[str, str, tuple[str, ...], str, dict[str, Any]]


def _trace(steps: list[dict[str, Any]], **setup_args: Any) -> dict[str, Any]:
    return {"setup": setup(**setup_args), "steps": steps}


def _calls() -> list[dict[str, Any]]:
    return [call("verifier_calls", verifier="gv"), call("verifier_calls", verifier="av")]


def _reply(tag: str, status: dict[str, Any], worker: str = "worker", **args: Any) -> dict[str, Any]:
    return call(
        "worker_reply", session=worker, to=tag, status=status, **{"as": f"{tag}-reply"}, **args
    )


def _apply(tag: str, host: str = "host", context: dict[str, str] | None = None) -> dict[str, Any]:
    return on("apply_compensation", context, request=tag, session=host, frame=f"{tag}-reply")


def _verified(
    tag: str, status: dict[str, Any], change: dict[str, Any] | None = None
) -> dict[str, Any]:
    request: dict[str, Any] = {"of": tag}
    result: dict[str, Any] = {"reply_to": tag, "status": status}
    if change:
        request["change"] = change
        # A result has no payload: it echoes every other changed binding field.
        echoed = {field: value for field, value in change.items() if field != "payload"}
        if echoed:
            result["change"] = echoed
    return on("apply_verified_compensation", request=request, result=result)


SECOND = [record_op("op2", nonce="release-42:publish:2"), *dispatch_and_observe("$op2", tag="d2")]
OTHER_KEY = "cmp-" + "e" * 64
OTHER_OP = "op-" + "f" * 64
FULL = {"engine": "engine", "plan": "plan", "ledger": "full"}
OTHER_GRANT_FP = "0" * 64

# fmt: off
CASES: list[Case] = [
    ("ledger.trace.compensation-happy-path", "HL-23", ("KnownAnswer",), "Record (1 action-verifier call), approve (2), prepare with drifted input fails without a call and consumes the approval, approve again (3), prepare (4); the worker sees the same cmp- key; a succeeded result is applied and observed (edges 17, 18).", _trace([
        *compensated(),
        *_calls(),
        approve("a1"),
        prepare("c0", "a1", payload=UNDO_DRIFT),
        *_calls(),
        prepare("c0", "a1"),
        approve("a2"),
        prepare("c1", "a2"),
        call("worker_open", session="worker", frame="c1"),
        _reply("c1", SUCCEEDED_EMPTY),
        _apply("c1"),
        *_calls(),
        call("events", engine="engine"),
    ])),
    ("ledger.trace.compensation-input-check", "HL-29", (), "The compensation's input check: its own input passes, another input is compensation_input_fingerprint_mismatch, and input of 262,145 bytes is host_input_too_large before any fingerprint comparison.", _trace([
        *compensated(),
        call("verify_input", ledger="ledger", operation_key="$op", compensation=True, input=UNDO),
        call("verify_input", ledger="ledger", operation_key="$op", compensation=True, input=UNDO_DRIFT),
        call("verify_input", ledger="ledger", operation_key="$op", compensation=True, input={"repeat": "a", "count": 262_145}),
    ])),
    ("ledger.trace.reload-compensated-running", "HL-3", (), "A persisted ledger whose compensated operation was edited to running does not decode (edge 19).", _trace([
        *compensated(),
        call("load_ledger", edits=[{"path": ["operations", 0, "state"], "value": "running"}], **{"from": "ledger", "as": "edited"}),
    ])),
    ("ledger.trace.grant-verifier-denies-first", "HL-18", ("CheckOrder",), "A denying grant verifier wins over an unknown operation at approve and over a plan approval at prepare (edge 21); the plan approval is consumed by that prepare.", _trace([
        call("policy", tenant_scope="tenant-release", grant="grant", **{"as": "pol"}),
        call("target", operation_key="op-unknown", policy="pol", grant="grant", grant_verifier="deny", action_verifier="av", **{"as": "tgt"}),
        approve("a1"),
        call("approve_plan", engine="engine", plan="plan", **{"as": "plan-approval"}),
        prepare("c1", "plan-approval"),
        call("set_verifier", verifier="deny", allow=True),
        prepare("c1", "plan-approval"),
        call("approve_plan", engine="engine", plan="plan", **{"as": "plan-approval-2"}),
        prepare("c1", "plan-approval-2"),
        call("verifier_calls", verifier="deny"),
    ], verifiers={"deny": False})),
    ("ledger.trace.action-verifier-denies", "HL-18", (), "A denying action verifier stops the record with no change and one call; allowed, record and approve pass; denying again stops prepare with the intent unchanged and four calls in all (edge 22).", _trace([
        record_op(),
        *dispatch_and_observe(),
        *policy_and_target(),
        call("set_verifier", verifier="av", allow=False),
        record_intent(),
        revision(),
        call("verifier_calls", verifier="av"),
        call("set_verifier", verifier="av", allow=True),
        record_intent(),
        approve("a1"),
        call("set_verifier", verifier="av", allow=False),
        prepare("c1", "a1"),
        checkpoint("intent-unchanged"),
        call("verifier_calls", verifier="av"),
    ])),
    ("ledger.trace.second-intent-refused", "HL-7", ("CheckOrder",), "A second intent for the same original is refused by every record variant and the revision stays 3; the verified variants have already called both verifiers (edge 23).", _trace([
        *compensated(),
        *_calls(),
        on("record_derived_compensation", operation_key="$op", policy="pol", input=UNDO, nonce="release-42:publish:undo:2"),
        on("record_compensation", operation_key="$op", policy="pol", compensation_key=OTHER_KEY, input=UNDO),
        on("record_compensation_with_action_verifier", target="tgt", compensation_key=OTHER_KEY, input=UNDO),
        on("record_derived_compensation_with_action_verifier", target="tgt", input=UNDO, nonce="release-42:publish:undo:2"),
        record_intent(),
        *_calls(),
        revision(),
    ])),
    ("ledger.trace.approval-revision-drift", "HL-23", (), "A record or a state-changing observation between approve and prepare invalidates the approval; an idempotent observation does not (edge 24).", _trace([
        *compensated(),
        approve("a1"),
        record_op("op2", nonce="release-42:publish:2"),
        prepare("c1", "a1"),
        approve("a2"),
        *reconcile("$op2", RUNNING, "rc1"),
        prepare("c2", "a2"),
        approve("a3"),
        *reconcile("$op2", RUNNING, "rc2"),
        prepare("c3", "a3"),
    ])),
    ("ledger.trace.approval-session-drift", "HL-23", (), "An approval made under session worker-1 does not prepare under a host authenticator of session worker-2 (edge 25).", _trace([
        *compensated(),
        approve("a1"),
        prepare("c1", "a1", session_name="host-b"),
        approve("a2", session_name="host-b"),
        prepare("c2", "a2", session_name="host-b"),
    ], sessions={"host-b": session("worker-2", KEY_0E)})),
    ("ledger.trace.approval-other-engine", "HL-23", (), "An approval from one engine is refused by another engine, even for an identical plan (edge 26); another engine's plan is refused outright.", _trace([
        *compensated(),
        approve("a1"),
        prepare("c1", "a1", context={"engine": "other", "plan": "other-plan", "ledger": "ledger"}),
        approve("a2"),
        prepare("c2", "a2", context={"engine": "other", "plan": "plan", "ledger": "ledger"}),
    ], engines=("engine", "other"), plans={"other-plan": {"engine": "other", "steps": [["publish", "let release = true"]]}})),
    ("ledger.trace.approval-one-use", "HL-22", ("ApprovalReuse",), "An approval prepares once; it is used up by a successful prepare, by a role failure and by a request-id failure alike (edge 27).", _trace([
        *compensated(),
        approve("a1"),
        prepare("c1", "a1"),
        prepare("c1-again", "a1"),
        approve("a2"),
        prepare("c2", "a2", session_name="worker"),
        prepare("c2", "a2"),
        approve("a3"),
        prepare("c3", "a3", request_id="Undo 3"),
        prepare("c3", "a3"),
    ])),
    ("ledger.trace.compensation-result-tenant", "HL-21", ("CheckOrder",), "A result whose tenant differs from its request, and a request whose tenant differs from the record (with a matching result), are request mismatches (edge 28).", _trace([
        *compensated(),
        approve("a1"),
        prepare("c1", "a1"),
        _reply("c1", SUCCEEDED_EMPTY, change={"tenant_scope": "tenant-other"}),
        _apply("c1"),
        _verified("c1", SUCCEEDED_EMPTY, {"tenant_scope": "tenant-other"}),
        revision(),
    ])),
    ("ledger.trace.compensation-result-input-first", "HL-21", ("CheckOrder",), "A request whose payload differs from the intent is an input mismatch even when its key, tenant and grant differ too: the input is checked first (edge 29).", _trace([
        *compensated(),
        approve("a1"),
        prepare("c1", "a1"),
        _verified("c1", SUCCEEDED_EMPTY, {"payload": UNDO_DRIFT, "compensation_key": OTHER_KEY, "tenant_scope": "tenant-other", "grant_fingerprint": OTHER_GRANT_FP}),
        _verified("c1", SUCCEEDED_EMPTY, {"compensation_key": OTHER_KEY}),
        _verified("c1", SUCCEEDED_EMPTY, {"grant_fingerprint": OTHER_GRANT_FP}),
        revision(),
    ])),
    ("ledger.trace.compensation-transitions", "HL-10", ("KindOnlyIdempotence",), "Compensation pending, running (+1), running (no change), succeeded (+1), succeeded again (no change), failed contradicts; the original stays succeeded (edge 30).", _trace([
        *compensated(),
        approve("a1"),
        prepare("c1", "a1"),
        _verified("c1", RUNNING),
        revision(),
        _verified("c1", RUNNING),
        revision(),
        _verified("c1", SUCCEEDED),
        revision(),
        _verified("c1", SUCCEEDED_EMPTY),
        revision(),
        _verified("c1", FAILED),
        _verified("c1", RUNNING),
        revision(),
        call("events", engine="engine"),
    ])),
    ("ledger.trace.compensation-result-wrong-operation", "HL-21", (), "A result for an operation without an intent is an unknown compensation; for a key not in the ledger an unknown operation; for another tool a request mismatch (edges 31, key drift).", _trace([
        *compensated(),
        *SECOND,
        approve("a1"),
        prepare("c1", "a1"),
        _verified("c1", SUCCEEDED_EMPTY, {"operation_key": "$op2"}),
        _verified("c1", SUCCEEDED_EMPTY, {"operation_key": "op-missing"}),
        _verified("c1", SUCCEEDED_EMPTY, {"tool": "release.promote"}),
        revision(),
    ])),
    ("ledger.trace.compensation-wrong-kind-frame", "HL-20", ("WrongKindConsumesSequence",), "A reconciled_operation frame given to the compensation apply is refused and the ledger is untouched, but the sequence is used: the genuine result must carry the next number (edge 32).", _trace([
        *compensated(),
        approve("a1"),
        prepare("c1", "a1"),
        call("worker_reply", session="worker", to="c1", status=SUCCEEDED_EMPTY, kind="reconciled_operation", **{"as": "wrong"}),
        on("apply_compensation", request="c1", session="host", frame="wrong"),
        revision(),
        _reply("c1", SUCCEEDED_EMPTY),
        _apply("c1"),
        revision(),
    ])),
    ("ledger.trace.policy-creation", "HL-16", ("CheckOrder",), "A grant without compensation budget cannot form a policy; an uppercase tenant is refused first; an invalid grant gives its protocol error (edge 33).", _trace([
        call("policy", tenant_scope="tenant-release", grant="zero"),
        call("policy", tenant_scope="Tenant", grant="zero"),
        call("policy", tenant_scope="tenant-release", grant="no-calls"),
        call("policy", tenant_scope="tenant-release", grant="grant"),
    ], grants={"zero": grant(max_compensations=0), "no-calls": grant(max_calls=0)})),
    *(
        (
            f"ledger.trace.raw-policy.{label}",
            "HL-7",
            ("CheckOrder",),
            f"A compensation policy built raw ({comment}) is refused by its syntax check when a "
            "compensation is derived or recorded for it, before the operation is looked up (the "
            "operation exists and succeeded, or is missing); nothing is recorded.",
            _trace([
                record_op(),
                *dispatch_and_observe(),
                call("raw_policy", tool=tool, tenant_scope=tenant, grant_fingerprint=fingerprint, **{"as": "raw"}),
                on("derive_compensation_key", operation_key="$op", policy="raw", input=UNDO, nonce=UNDO_NONCE),
                on("record_compensation", operation_key="$op", policy="raw", compensation_key=OTHER_KEY, input=UNDO),
                on("record_derived_compensation", operation_key="op-missing", policy="raw", input=UNDO, nonce=UNDO_NONCE),
                revision(),
            ]),
        )
        for label, comment, tool, tenant, fingerprint in (
            ("uppercase-grant-fingerprint", "an uppercase grant fingerprint", TOOL, "tenant-release", "AB" * 32),
            ("short-grant-fingerprint", "a 63-digit grant fingerprint", TOOL, "tenant-release", "ab" * 31 + "a"),
            ("bad-tenant", "an uppercase tenant scope", TOOL, "Tenant", "ab" * 32),
            ("tenant-before-fingerprint", "a bad tenant and a bad fingerprint: the tenant is named first", TOOL, "Tenant", "xyz"),
            ("tool-before-tenant", "a bad tool, tenant and fingerprint: the tool is named first", "Release.Publish", "Tenant", "xyz"),
        )
    ),
    ("ledger.trace.revision-exhausted-among-other-checks", "HL-6", ("CheckOrder",), "A ledger at revision 2^64-1 (loaded with that revision): recording an operation with a bad key, a bad tool or a repeated key is refused as ledger_revision_exhausted (the revision comes before those checks), while an unknown step or an oversized input is refused for that (they come first); recording a compensation with a bad compensation key or for a missing operation names that fault (HL-7 checks the revision last); nothing changes.", _trace([
        record_op(),
        *dispatch_and_observe(),
        call("load_ledger", edits=[{"path": ["revision"], "value": 2**64 - 1}], **{"from": "ledger", "as": "full"}),
        on("record_operation", FULL, step_id="publish", tool=TOOL, operation_key="Bad Key", input=VERSION),
        on("record_operation", FULL, step_id="publish", tool="Release", operation_key=OTHER_OP, input=VERSION),
        on("record_operation", FULL, step_id="publish", tool=TOOL, operation_key="$op", input=VERSION),
        on("record_operation", FULL, step_id="ghost", tool=TOOL, operation_key="Bad Key", input=VERSION),
        on("record_operation", FULL, step_id="publish", tool=TOOL, operation_key="Bad Key", input={"format": "text", "value": {"repeat": "x", "count": 262145}}),
        on("record_operation", FULL, step_id="publish", tool=TOOL, operation_key=OTHER_OP, input=VERSION),
        *policy_and_target(),
        on("record_compensation", FULL, operation_key="$op", policy="pol", compensation_key="not-a-cmp-key", input=UNDO),
        on("record_compensation", FULL, operation_key="op-missing", policy="pol", compensation_key=OTHER_KEY, input=UNDO),
        on("record_compensation", FULL, operation_key="$op", policy="pol", compensation_key=OTHER_KEY, input=UNDO),
        revision("full"),
    ])),
    ("ledger.trace.grant-drift", "HL-17", (), "After recording, a changed grant (lower output limit, higher compensation budget, an added resource) fails approve with a policy mismatch, whether the policy is rebuilt from it or kept; an earlier approval then fails prepare (edge 34, recovery row: grant drift).", _trace([
        *compensated(),
        approve("a1"),
        *policy_and_target(name="t-lowered", policy="p-lowered", grant_name="lowered"),
        approve("x1", target="t-lowered"),
        call("target", operation_key="$op", policy="pol", grant="lowered", grant_verifier="gv", action_verifier="av", **{"as": "t-old-policy"}),
        approve("x2", target="t-old-policy"),
        *policy_and_target(name="t-raised", policy="p-raised", grant_name="raised"),
        approve("x3", target="t-raised"),
        *policy_and_target(name="t-resource", policy="p-resource", grant_name="resource"),
        approve("x4", target="t-resource"),
        prepare("c1", "a1", target="t-lowered"),
        call("policy", tenant_scope="tenant-release", grant="zero"),
        *_calls(),
    ], grants={"lowered": grant(max_output_bytes=1024), "raised": grant(max_compensations=2), "resource": grant(resources=[{"kind": "secret", "id": "release-token"}]), "zero": grant(max_compensations=0)})),
    ("ledger.trace.tool-drift", "HL-17", (), "A policy for another tool, with a grant that matches that policy: record (every variant) and approve give a policy mismatch (edge 35, recovery row: tool drift).", _trace([
        record_op(),
        *dispatch_and_observe(),
        *policy_and_target(name="t-promote", policy="p-promote", grant_name="promote"),
        on("record_compensation_with_action_verifier", target="t-promote", compensation_key=OTHER_KEY, input=UNDO),
        on("record_derived_compensation", operation_key="$op", policy="p-promote", input=UNDO, nonce=UNDO_NONCE),
        on("record_compensation", operation_key="$op", policy="p-promote", compensation_key=OTHER_KEY, input=UNDO),
        *policy_and_target(),
        record_intent(),
        approve("x1", target="t-promote"),
        call("verifier_calls", verifier="av"),
    ], grants={"promote": grant("release.promote")})),
    ("ledger.trace.compensation-worker-role", "HL-20", (), "A worker-role authenticator is refused by approve, prepare and apply compensation, and by reconciliation (edge 36).", _trace([
        *compensated(),
        approve("x1", session_name="worker"),
        approve("a1"),
        prepare("c1", "a1", session_name="worker"),
        approve("a2"),
        prepare("c2", "a2"),
        _reply("c2", SUCCEEDED_EMPTY),
        _apply("c2", host="worker"),
        on("prepare_reconciliation", operation_key="$op", input=VERSION, request_id="reconcile-1", session="worker", **{"as": "rc1"}),
        revision(),
    ])),
    ("ledger.trace.plain-verified-record-calls-verifier", "HL-18", ("CheckOrder",), "The plain-key verified record calls both verifiers before the ledger refuses a pending original; the derived variant refuses first, without calls (edge 50).", _trace([
        record_op(),
        *policy_and_target(),
        on("record_compensation_with_action_verifier", target="tgt", compensation_key=OTHER_KEY, input=UNDO),
        *_calls(),
        record_intent(),
        *_calls(),
        revision(),
    ])),
    # -- crash and recovery (RC rules) ---------------------------------------------------
    ("ledger.recovery.original-not-succeeded", "HL-28", (), "Recovery row 1: with the original pending, running, failed or cancelled, deriving, recording and approving a compensation are refused; reconciliation works in every state.", _trace([
        record_op("p"),
        record_op("r", nonce="n-running"),
        *reconcile("$r", RUNNING, "rc-r"),
        record_op("f", nonce="n-failed"),
        *reconcile("$f", FAILED, "rc-f"),
        record_op("c", nonce="n-cancelled"),
        *reconcile("$c", CANCELLED, "rc-c"),
        call("policy", tenant_scope="tenant-release", grant="grant", **{"as": "pol"}),
        *[step for key in ("$p", "$r", "$f", "$c") for step in (
            on("derive_compensation_key", operation_key=key, policy="pol", input=UNDO, nonce=UNDO_NONCE),
            on("record_compensation", operation_key=key, policy="pol", compensation_key=OTHER_KEY, input=UNDO),
            call("target", operation_key=key, policy="pol", grant="grant", grant_verifier="gv", action_verifier="av", **{"as": f"t{key[1:]}"}),
            on("record_derived_compensation_with_action_verifier", target=f"t{key[1:]}", input=UNDO, nonce=UNDO_NONCE),
            approve(f"a{key[1:]}", target=f"t{key[1:]}"),
            on("operation_reconcile_request", operation_key=key, input=VERSION, session_id="worker-1", request_id="reconcile-any"),
        )],
        revision(),
    ])),
    ("ledger.recovery.record-persist-approve", "HL-24", (), "Recovery row 2: the verified record runs both verifiers, records a pending intent and bumps the revision; the host persists, then approves; the approval binds the in-memory revision.", _trace([
        record_op(),
        *dispatch_and_observe(),
        *policy_and_target(),
        record_intent(),
        *_calls(),
        call("to_json", ledger="ledger"),
        approve("a1"),
        prepare("c1", "a1"),
    ])),
    ("ledger.recovery.pending-after-crash", "HL-24", (), "Recovery row 3: after a crash with the intent pending and a frame sent, a new engine rebuilds the plan, reloads and validates the ledger, rebuilds the policy from the current grant, opens a new session, re-approves the existing intent and seals it again with the same cmp- key; a new intent is refused.", _trace([
        *compensated(),
        approve("a1"),
        prepare("c1", "a1"),
        call("load_ledger", **{"from": "ledger", "as": "recovered"}),
        call("validate", engine="restarted", plan="rebuilt", ledger="recovered", minimum_revision=3),
        call("policy", tenant_scope="tenant-release", grant="grant", **{"as": "pol2"}),
        call("target", operation_key="$op", policy="pol2", grant="grant", grant_verifier="gv", action_verifier="av", **{"as": "tgt2"}),
        on("record_derived_compensation_with_action_verifier", {"engine": "restarted", "plan": "rebuilt", "ledger": "recovered"}, target="tgt2", input=UNDO, nonce=UNDO_NONCE),
        on("approve_compensation", {"engine": "restarted", "plan": "rebuilt", "ledger": "recovered"}, target="tgt2", input=UNDO, session="host-2", **{"as": "r1"}),
        prepare("rc1", "r1", target="tgt2", session_name="host-2", request_id="undo-after-restart", context={"engine": "restarted", "plan": "rebuilt", "ledger": "recovered"}),
        call("worker_open", session="worker-2", frame="rc1"),
        _reply("rc1", SUCCEEDED_EMPTY, worker="worker-2"),
        _apply("rc1", host="host-2", context={"engine": "restarted", "plan": "rebuilt", "ledger": "recovered"}),
    ], engines=("engine", "restarted"), plans={"rebuilt": {"engine": "restarted", "steps": [["publish", "let release = true"]]}}, sessions={"host-2": session("worker-2", KEY_0E), "worker-2": session("worker-2", KEY_0E, "worker")})),
    ("ledger.recovery.compensation-succeeded", "HL-22", (), "Recovery row 4: after a succeeded compensation a new intent is refused, a duplicate succeeded result is idempotent, a contradictory one is refused; the host API would still approve and seal a re-send.", _trace([
        *compensated(),
        approve("a1"),
        prepare("c1", "a1"),
        _reply("c1", SUCCEEDED_EMPTY),
        _apply("c1"),
        record_intent(),
        _verified("c1", SUCCEEDED),
        revision(),
        _verified("c1", CANCELLED),
        approve("a2"),
        prepare("c2", "a2"),
        revision(),
    ])),
    ("ledger.recovery.compensation-failed-or-cancelled", "HL-10", (), "Recovery row 5: a failed or cancelled compensation stays terminal; there is no second intent and no reset.", _trace([
        *compensated(),
        *SECOND,
        *policy_and_target(op="$op2", name="tgt2"),
        record_intent(target="tgt2", name="cmp2", nonce="release-42:publish:undo:2"),
        approve("a1"),
        prepare("c1", "a1"),
        approve("a2", target="tgt2"),
        prepare("c2", "a2", target="tgt2"),
        _verified("c1", FAILED),
        _verified("c2", CANCELLED),
        _verified("c1", RUNNING),
        _verified("c1", SUCCEEDED_EMPTY),
        _verified("c2", FAILED),
        _verified("c1", FAILED),
        record_intent(),
        record_intent(target="tgt2", nonce="release-42:publish:undo:3"),
        revision(),
    ])),
    ("ledger.recovery.tenant-drift", "HL-22", (), "Recovery row 7: a policy for another tenant fails approve with a policy mismatch; an approval made for the recorded tenant fails prepare under the other tenant's target.", _trace([
        *compensated(),
        *policy_and_target(name="t-other", policy="p-other", tenant="tenant-other"),
        approve("x1", target="t-other"),
        approve("a1"),
        prepare("c1", "a1", target="t-other"),
    ])),
    ("ledger.recovery.key-drift", "HL-23", (), "Recovery row 9: an approval for one operation does not prepare another's compensation; a result for another operation's intent is a request mismatch.", _trace([
        *compensated(),
        *SECOND,
        *policy_and_target(op="$op2", name="tgt2"),
        record_intent(target="tgt2", name="cmp2", nonce="release-42:publish:undo:2"),
        approve("a1"),
        prepare("c1", "a1", target="tgt2"),
        approve("a2"),
        prepare("c2", "a2"),
        _verified("c2", SUCCEEDED_EMPTY, {"operation_key": "$op2"}),
    ])),
    ("ledger.recovery.input-drift", "HL-22", (), "Recovery row 10: drifted input fails approve and prepare with an input mismatch (the approval is consumed), and so does applying a result for a drifted request.", _trace([
        *compensated(),
        approve("x1", input=UNDO_DRIFT),
        approve("a1"),
        prepare("c0", "a1", payload=UNDO_DRIFT),
        prepare("c0", "a1"),
        approve("a2"),
        prepare("c1", "a2"),
        _verified("c1", SUCCEEDED_EMPTY, {"payload": UNDO_DRIFT}),
        approve("x2", input={"repeat": "a", "count": 262_145}),
    ])),
    ("ledger.recovery.lost-response", "HL-24", (), "Recovery row 12: a lost worker response leaves the ledger as it was; a later reply in the same session is out of sequence; the host re-approves and re-sends the same intent in a new session.", _trace([
        *compensated(),
        approve("a1"),
        prepare("c1", "a1"),
        call("worker_open", session="worker", frame="c1"),
        call("worker_reply", session="worker", to="c1", status=SUCCEEDED_EMPTY, **{"as": "lost"}),
        revision(),
        approve("a2"),
        prepare("c2", "a2"),
        call("worker_open", session="worker", frame="c2"),
        _reply("c2", SUCCEEDED_EMPTY),
        _apply("c2"),
        approve("a3", session_name="host-2"),
        prepare("c3", "a3", session_name="host-2"),
        call("worker_open", session="worker-2", frame="c3"),
        _reply("c3", SUCCEEDED_EMPTY, worker="worker-2"),
        _apply("c3", host="host-2"),
        revision(),
    ], sessions={"host-2": session("worker-2", KEY_0E), "worker-2": session("worker-2", KEY_0E, "worker")})),
    ("ledger.recovery.stale-ledger", "HL-13", (), "Recovery row 13: a ledger loaded from an older state fails the watermark check; a newer one passes, also above the watermark.", _trace([
        record_op(),
        call("load_ledger", **{"from": "ledger", "as": "old"}),
        *dispatch_and_observe(),
        *policy_and_target(),
        record_intent(),
        call("validate", engine="engine", plan="plan", ledger="old", minimum_revision=3),
        call("validate", engine="engine", plan="plan", ledger="ledger", minimum_revision=3),
        call("validate", engine="engine", plan="plan", ledger="ledger", minimum_revision=2),
    ])),
]
# fmt: on

__all__ = ["CASES", "TOOL"]
