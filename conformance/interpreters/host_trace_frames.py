"""Trace calls for approvals and frames, and the worker side of a trace: replies, edited
requests and tampered frames.

``change`` maps request or result field names to new values (``payload`` takes a payload
spec, ``protocol_version`` an integer, every other field a string, ``"$name"`` allowed).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import attrs

from rescind.conformance.interpreters.trace_support import (
    Json,
    TraceBase,
    TraceFormatError,
    input_arg,
    payload_arg,
    status_arg,
)
from rescind.reference.frames import AuthenticatedFrame, SessionAuthenticator
from rescind.reference.host.approvals import Approval
from rescind.reference.host.compensation import (
    WorkflowCompensationDispatch,
    WorkflowCompensationTarget,
)
from rescind.reference.host.engine import WorkflowEngine
from rescind.reference.host.host_frames import DispatchOutcome, PreparedFrame
from rescind.reference.host.plan import WorkflowPlan
from rescind.reference.messages import (
    OperationCompensationRequest,
    OperationCompensationResult,
    OperationDispatchRequest,
    OperationReconcileRequest,
    OperationReconcileResult,
)
from rescind.reference.worker_message import (
    CloseSession,
    CompensationResult,
    OperationResult,
    ReconciledCompensation,
    ReconciledOperation,
    WorkerMessage,
    message_json,
)
from rescind.tables.operation import Phase

AnyRequest = OperationDispatchRequest | OperationReconcileRequest | OperationCompensationRequest
AnyResult = OperationReconcileResult | OperationCompensationResult
Getter = Callable[[object, type[Any]], Any]
Texter = Callable[[object], str]
Handler = Callable[[WorkflowEngine], Callable[..., Any]]
"""Picks the engine's handler method a trace step calls (the engine is the step's own)."""

_DEFAULT_REPLY = {
    OperationDispatchRequest: "operation_result",
    OperationReconcileRequest: "reconciled_operation",
    OperationCompensationRequest: "compensation_result",
}


def _changes(spec: Mapping[str, Any], text: Texter) -> dict[str, Any]:
    changes: dict[str, Any] = {}
    for field, value in spec.get("change", {}).items():
        if field == "payload":
            changes[field] = payload_arg(value)
        elif field == "protocol_version":
            changes[field] = int(value)
        else:
            changes[field] = text(value)
    return changes


def _reply(request: AnyRequest, kind: str, spec: Mapping[str, Any], text: Texter) -> AnyResult:
    status = status_arg(spec["status"])
    result: AnyResult
    if kind == "compensation_result":
        if not isinstance(request, OperationCompensationRequest):
            raise TraceFormatError("a compensation result needs a compensation request")
        result = OperationCompensationResult.for_request(request, status)
    else:
        result = OperationReconcileResult(
            protocol_version=request.protocol_version,
            session_id=request.session_id,
            request_id=request.request_id,
            tool=request.tool,
            operation_key=request.operation_key,
            status=status,
        )
    return attrs.evolve(result, **_changes(spec, text))


def reply_message(request: AnyRequest, spec: Mapping[str, Any], text: Texter) -> WorkerMessage:
    """The worker's reply to ``request``: by default the matching result kind; ``kind`` may
    name another (``operation_result``, ``reconciled_operation``, ``compensation_result``,
    ``reconciled_compensation`` or ``close_session``) to deliver a wrong-kind frame."""
    kind = str(spec.get("kind", _DEFAULT_REPLY[type(request)]))
    if kind == "close_session":
        return CloseSession(session_id=request.session_id)
    if kind == "reconciled_compensation":
        # The extension's answer (CR-1): a compensation result; sealing it needs a worker
        # authenticator of the profile splash-v5+compensation-reconcile.
        answer = _reply(request, "compensation_result", spec, text)
        assert isinstance(answer, OperationCompensationResult)
        return ReconciledCompensation(answer)
    result = _reply(request, kind, spec, text)
    if kind == "compensation_result":
        assert isinstance(result, OperationCompensationResult)
        return CompensationResult(result)
    assert isinstance(result, OperationReconcileResult)
    if kind == "operation_result":
        return OperationResult(result)
    if kind == "reconciled_operation":
        return ReconciledOperation(result)
    raise TraceFormatError(f"unsupported reply kind {kind!r}")


def request_arg(spec: Mapping[str, Any], get: Getter, text: Texter) -> Any:
    """``{"of": <prepared>, "change": {...}}``: a prepared request, optionally edited."""
    prepared = get(spec["of"], PreparedFrame)
    return attrs.evolve(prepared.request, **_changes(spec, text))


def result_arg(spec: Mapping[str, Any], get: Getter, text: Texter) -> Any:
    """``{"reply_to": <prepared>, "status": ..., "change": {...}}``: the matching result."""
    prepared = get(spec["reply_to"], PreparedFrame)
    kind = _DEFAULT_REPLY[type(prepared.request)]
    return _reply(prepared.request, kind, spec, text)


def tampered(frame: AuthenticatedFrame, spec: Mapping[str, Any]) -> AuthenticatedFrame:
    """``how``: ``flip_tag`` (first tag digit changed) or ``status`` (the result's status
    replaced by ``status`` while the tag is kept)."""
    how = spec["how"]
    if how == "flip_tag":
        first = "1" if frame.auth_tag[0] == "0" else "0"
        return attrs.evolve(frame, auth_tag=first + frame.auth_tag[1:])
    if how == "status":
        message: Any = frame.message
        if not isinstance(message, OperationResult | ReconciledOperation | CompensationResult):
            raise TraceFormatError("only a result frame has a status to replace")
        result: Any = attrs.evolve(message.result, status=status_arg(spec["status"]))
        return attrs.evolve(frame, message=attrs.evolve(message, result=result))
    raise TraceFormatError(f"unknown tampering {how!r}")


class FrameCalls(TraceBase):
    """Approvals, prepared frames, the worker side and every apply call."""

    # -- approvals -----------------------------------------------------------------------

    def do_approve_plan(self, args: Mapping[str, Json]) -> Json:
        engine = self.get(args["engine"], WorkflowEngine)
        self.bind(args, engine.approve_plan(self.get(args["plan"], WorkflowPlan)))
        return {"kind": "plan"}

    def do_approve_compensation(self, args: Mapping[str, Json]) -> Json:
        engine, plan, ledger = self.context(args)
        approval = engine.compensations.approve_compensation(
            plan,
            ledger,
            self.get(args["target"], WorkflowCompensationTarget),
            input_arg(args["input"]),
            self.get(args["session"], SessionAuthenticator),
        )
        self.bind(args, approval)
        binding = approval.binding
        assert binding is not None
        return {"kind": "compensation", **attrs.asdict(binding)}

    # -- frames --------------------------------------------------------------------------

    def _prepared(self, prepared: PreparedFrame[Any], args: Mapping[str, Json]) -> Json:
        self.bind(args, prepared)
        return prepared.frame.to_json()

    def do_prepare_compensation(self, args: Mapping[str, Json]) -> Json:
        engine, plan, ledger = self.context(args)
        prepared = engine.compensations.prepare_authenticated_operation_compensation(
            plan,
            ledger,
            self.get(args["target"], WorkflowCompensationTarget),
            self.get(args["approval"], Approval),
            WorkflowCompensationDispatch(
                self.text(args["request_id"]), payload_arg(args["payload"])
            ),
            self.get(args["session"], SessionAuthenticator),
        )
        return self._prepared(prepared, args)

    def do_prepare_dispatch(self, args: Mapping[str, Json]) -> Json:
        engine, plan, ledger = self.context(args)
        prepared = engine.operations.prepare_authenticated_operation_dispatch(
            plan,
            ledger,
            self.text(args["operation_key"]),
            payload_arg(args["payload"]),
            self.text(args["request_id"]),
            self.get(args["session"], SessionAuthenticator),
        )
        return self._prepared(prepared, args)

    def do_prepare_reconciliation(self, args: Mapping[str, Json]) -> Json:
        engine, plan, ledger = self.context(args)
        prepared = engine.operations.prepare_authenticated_operation_reconciliation(
            plan,
            ledger,
            self.text(args["operation_key"]),
            input_arg(args["input"]),
            self.text(args["request_id"]),
            self.get(args["session"], SessionAuthenticator),
        )
        return self._prepared(prepared, args)

    def do_operation_dispatch_request(self, args: Mapping[str, Json]) -> Json:
        engine, plan, ledger = self.context(args)
        request = engine.operations.operation_dispatch_request(
            plan,
            ledger,
            self.text(args["operation_key"]),
            payload_arg(args["payload"]),
            self.text(args["session_id"]),
            self.text(args["request_id"]),
        )
        return request.to_json()

    def do_operation_reconcile_request(self, args: Mapping[str, Json]) -> Json:
        engine, plan, ledger = self.context(args)
        request = engine.operations.operation_reconcile_request(
            plan,
            ledger,
            self.text(args["operation_key"]),
            input_arg(args["input"]),
            self.text(args["session_id"]),
            self.text(args["request_id"]),
        )
        return request.to_json()

    def do_worker_open(self, args: Mapping[str, Json]) -> Json:
        """The worker side opens a frame (checks the host's tag and sequence)."""
        session = self.get(args["session"], SessionAuthenticator)
        return json.loads(message_json(session.open(self._frame(args["frame"]))))

    def do_worker_reply(self, args: Mapping[str, Json]) -> Json:
        """The worker side seals a reply to a prepared request."""
        session = self.get(args["session"], SessionAuthenticator)
        prepared = self.get(args["to"], PreparedFrame)
        message = reply_message(prepared.request, args, self.text)
        frame = session.seal(message)
        self.bind(args, frame)
        return frame.to_json()

    def do_tamper(self, args: Mapping[str, Json]) -> Json:
        frame = tampered(self._frame(args["frame"]), args)
        self.bind(args, frame)
        return frame.to_json()

    def _frame(self, name: object) -> AuthenticatedFrame:
        value = self.get(name, object)
        if isinstance(value, PreparedFrame):
            return value.frame
        if isinstance(value, AuthenticatedFrame):
            return value
        raise TraceFormatError(f"{name!r} is not a frame")

    def _apply_args(self, args: Mapping[str, Json]) -> tuple[Any, SessionAuthenticator, Any]:
        prepared = self.get(args["request"], PreparedFrame)
        return (
            prepared.request,
            self.get(args["session"], SessionAuthenticator),
            self._frame(args["frame"]),
        )

    def _apply_reply(self, args: Mapping[str, Json], handler: Handler) -> Any:
        """A worker's reply frame to a prepared request, applied by ``handler`` of the engine."""
        engine, plan, ledger = self.context(args)
        request, session, frame = self._apply_args(args)
        return handler(engine)(plan, ledger, request, session, frame)

    def _apply_verified(self, args: Mapping[str, Json], handler: Handler) -> Json:
        """A result applied without a frame (``request`` may be edited), by ``handler``."""
        engine, plan, ledger = self.context(args)
        request = request_arg(args["request"], self.get, self.text)
        result = result_arg(args["result"], self.get, self.text)
        state: Phase = handler(engine)(plan, ledger, request, result)
        return state.value

    def do_apply_dispatch_result(self, args: Mapping[str, Json]) -> Json:
        outcome: DispatchOutcome = self._apply_reply(
            args, lambda e: e.operations.apply_authenticated_operation_dispatch_result
        )
        return outcome.state.value

    def do_apply_reconciliation(self, args: Mapping[str, Json]) -> Json:
        state: Phase = self._apply_reply(
            args, lambda e: e.operations.apply_authenticated_operation_reconciliation
        )
        return state.value

    def do_apply_compensation(self, args: Mapping[str, Json]) -> Json:
        state: Phase = self._apply_reply(
            args, lambda e: e.compensations.apply_authenticated_operation_compensation
        )
        return state.value

    def do_apply_verified_dispatch_result(self, args: Mapping[str, Json]) -> Json:
        return self._apply_verified(
            args, lambda e: e.operations.apply_verified_operation_dispatch_result
        )

    def do_apply_verified_reconciliation(self, args: Mapping[str, Json]) -> Json:
        return self._apply_verified(
            args, lambda e: e.operations.apply_verified_operation_reconciliation
        )

    def do_apply_verified_compensation(self, args: Mapping[str, Json]) -> Json:
        return self._apply_verified(
            args, lambda e: e.compensations.apply_verified_operation_compensation
        )
