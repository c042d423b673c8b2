"""Small builders for ledger traces (docs/spec/ledger.md, "Ledger traces").

The standard setup has one engine ``engine`` with plan ``plan`` (the upstream doc step
``publish``), a ledger ``ledger``, a host session ``host`` and its worker peer ``worker``
(session ``worker-1``, key 32 x 0x0d), the grant ``grant`` (json ``release.publish``, one
compensation) and two allowing verifiers ``gv`` (grant) and ``av`` (action).
"""

from __future__ import annotations

from typing import Any

KEY_0D = "0d" * 32
KEY_0E = "0e" * 32
PLAN = [["publish", "let release = true"]]
TOOL = "release.publish"
VERSION = {"format": "json", "value": {"version": "1.2.3"}}
VERSION_2 = {"format": "json", "value": {"version": "1.2.4"}}
UNDO = {"format": "json", "value": {"undo": "release"}}
UNDO_DRIFT = {"format": "json", "value": {"undo": "other"}}
NONCE = "release-42:publish:1"
UNDO_NONCE = "release-42:publish:undo:1"
OUTPUT = {"format": "json", "value": {"url": "https://releases.example/secret-output-1.2.3"}}
RUNNING = {"state": "running"}
SUCCEEDED = {"state": "succeeded", "payload": OUTPUT}
SUCCEEDED_EMPTY = {"state": "succeeded", "payload": {"format": "json", "value": {}}}
FAILED = {"state": "failed", "message": "deploy failed: secret-failure-text"}
CANCELLED = {"state": "cancelled"}


def grant(tool: str = TOOL, **changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "tool": tool,
        "format": "json",
        "max_calls": 1,
        "max_input_bytes": 16384,
        "max_output_bytes": 65536,
        "max_compensations": 1,
    }
    body.update(changes)
    return body


def session(session_id: str = "worker-1", key: str = KEY_0D, role: str = "host") -> dict[str, Any]:
    return {"session_id": session_id, "key": key, "role": role}


def setup(
    engines: tuple[str, ...] = ("engine",),
    plans: dict[str, Any] | None = None,
    sessions: dict[str, Any] | None = None,
    grants: dict[str, Any] | None = None,
    verifiers: dict[str, bool] | None = None,
    ledgers: dict[str, Any] | None = None,
) -> dict[str, Any]:
    return {
        "engines": list(engines),
        "plans": {"plan": {"engine": "engine", "steps": PLAN}, **(plans or {})},
        "sessions": {
            "host": session(),
            "worker": session(role="worker"),
            **(sessions or {}),
        },
        "grants": {"grant": grant(), **(grants or {})},
        "verifiers": {"gv": True, "av": True, **(verifiers or {})},
        "ledgers": {"ledger": {"engine": "engine", "plan": "plan"}, **(ledgers or {})},
    }


CTX = {"engine": "engine", "plan": "plan", "ledger": "ledger"}


def call(name: str, /, **args: Any) -> dict[str, Any]:
    return {"call": name, "args": args}


def on(name: str, context: dict[str, str] | None = None, /, **args: Any) -> dict[str, Any]:
    """A call with engine, plan and ledger arguments (the standard ones by default)."""
    return {"call": name, "args": {**(context or CTX), **args}}


def record_op(
    name: str = "op", nonce: str = NONCE, input: Any = None, step: str = "publish"
) -> dict[str, Any]:
    return on(
        "record_derived_operation",
        step_id=step,
        tool=TOOL,
        input=VERSION if input is None else input,
        nonce=nonce,
        **{"as": name},
    )


def dispatch_and_observe(
    op: str = "$op",
    status: dict[str, Any] | None = None,
    tag: str = "d1",
    input: Any = None,
    host: str = "host",
    worker: str = "worker",
) -> list[dict[str, Any]]:
    """Seal a dispatch, let the worker open it and reply, apply the reply."""
    return [
        on(
            "prepare_dispatch",
            operation_key=op,
            payload=VERSION if input is None else input,
            request_id=f"dispatch-{tag}",
            session=host,
            **{"as": tag},
        ),
        call("worker_open", session=worker, frame=tag),
        call(
            "worker_reply",
            session=worker,
            to=tag,
            status=SUCCEEDED if status is None else status,
            **{"as": f"{tag}-reply"},
        ),
        on("apply_dispatch_result", request=tag, session=host, frame=f"{tag}-reply"),
    ]


def reconcile(
    op: str,
    status: dict[str, Any],
    tag: str,
    input: Any = None,
    host: str = "host",
    worker: str = "worker",
    context: dict[str, str] | None = None,
) -> list[dict[str, Any]]:
    return [
        on(
            "prepare_reconciliation",
            context,
            operation_key=op,
            input=VERSION if input is None else input,
            request_id=f"reconcile-{tag}",
            session=host,
            **{"as": tag},
        ),
        call("worker_reply", session=worker, to=tag, status=status, **{"as": f"{tag}-reply"}),
        on("apply_reconciliation", context, request=tag, session=host, frame=f"{tag}-reply"),
    ]


def policy_and_target(
    op: str = "$op",
    name: str = "tgt",
    policy: str = "pol",
    grant_name: str = "grant",
    tenant: str = "tenant-release",
) -> list[dict[str, Any]]:
    return [
        call("policy", tenant_scope=tenant, grant=grant_name, **{"as": policy}),
        call(
            "target",
            operation_key=op,
            policy=policy,
            grant=grant_name,
            grant_verifier="gv",
            action_verifier="av",
            **{"as": name},
        ),
    ]


def record_intent(
    target: str = "tgt", name: str = "cmp", nonce: str = UNDO_NONCE
) -> dict[str, Any]:
    return on(
        "record_derived_compensation_with_action_verifier",
        target=target,
        input=UNDO,
        nonce=nonce,
        **{"as": name},
    )


def compensated() -> list[dict[str, Any]]:
    """Record, succeed and record one compensation intent for ``op`` (revision 3)."""
    return [record_op(), *dispatch_and_observe(), *policy_and_target(), record_intent()]


def approve(
    name: str, target: str = "tgt", session_name: str = "host", input: Any = None
) -> dict[str, Any]:
    return on(
        "approve_compensation",
        target=target,
        input=UNDO if input is None else input,
        session=session_name,
        **{"as": name},
    )


def prepare(
    name: str,
    approval: str,
    target: str = "tgt",
    session_name: str = "host",
    payload: Any = None,
    request_id: str | None = None,
    context: dict[str, str] | None = None,
) -> dict[str, Any]:
    return on(
        "prepare_compensation",
        context,
        target=target,
        approval=approval,
        request_id=request_id or f"undo-{name}",
        payload=UNDO if payload is None else payload,
        session=session_name,
        **{"as": name},
    )


def checkpoint(name: str, ledger: str = "ledger") -> dict[str, Any]:
    return call("checkpoint", ledger=ledger, name=name)


def revision(ledger: str = "ledger") -> dict[str, Any]:
    return call("revision", ledger=ledger)
