"""Compensation reconciliation scenarios (extension ``splash-v5+compensation-reconcile``,
docs/spec/compensation-reconcile.md, CR-n).

A scenario is one worker over an in-memory authenticated journal store with one text tool,
an original already dispatched and succeeded, then steps:

* ``{"step": "compensate", "inverse": <answer>}``: the host's compensation, sent in the
  current session; ``<answer>`` is what the inverse call reports, or ``"lost"``: the inverse
  ran but its answer never arrived (``indeterminate_compensation``, as if the worker died
  right after the effect);
* ``{"step": "restart"}``: a new session (next lease) over the stored journal;
* ``{"step": "reconcile", "lookup": <answer>, "request": {..overrides..}}``: a compensation
  reconciliation, the recorded compensation with some fields changed;
* ``{"step": "resend"}``: the recorded compensation sent again as a compensation;
* ``{"step": "reconcile_frame", "lookup": <answer>, "request": {..}}``: the same request as
  ``reconcile``, but on the wire (CR-1): the host seals a ``reconcile_compensation`` frame and
  the worker session gets its line (``handle_line``, decoded with the session's message
  kinds) and answers a sealed ``reconciled_compensation`` frame, which the host opens. The
  outcome adds ``sent`` (the frame line) and ``reply`` (the answer's line), and
  ``worker_next_incoming``: a frame refused before it opened used no sequence number;
* ``{"step": "message_line", "line": <text>}``: decode a worker message line with the
  session's message kinds and re-encode it (``{"result": <encoding>}``).

``<answer>`` is a status JSON text. The scenario's ``profile`` picks what the session runs
(``splash-v5`` refuses every reconciliation; any other name is refused before the run starts,
``unknown_worker_profile``), ``declared`` whether the adapter declares compensation
reconciliation, the optional ``limits`` (``{"perTool", "session"}``) the session's
reconciliation budgets (a zero is refused before the run starts) and the optional
``maxCompensations`` the tool grant's compensation budget (default 2; 0 denies
compensation). Each step reports its outcome (``{"result": <status JSON>}`` or
``{"error": code}``) and the state after it: the stored compensation state, inverse calls,
lookups, compensation budget spent and reconciliations spent in the session.

The host side always speaks the extension (its authenticator seals and opens the two kinds);
the worker's authenticator has the session's profile, so under ``splash-v5`` the worker
refuses the kind exactly as it refuses any unknown ``type``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from rescind.reference.errors import RescindError
from rescind.reference.frames import SessionAuthenticator, SessionRole
from rescind.reference.grants import CapabilityGrant
from rescind.reference.manifest import SessionManifest
from rescind.reference.messages import (
    OperationCompensationRequest,
    OperationDispatchRequest,
    OperationReconcileRequest,
    OperationStatus,
)
from rescind.reference.payload import ToolPayload
from rescind.reference.payload_format import PayloadFormat
from rescind.reference.storage.authenticated import AuthenticatedStore
from rescind.reference.storage.keyring import Keyring
from rescind.reference.storage.memory import MemoryBackend
from rescind.reference.storage.tag import StorageKey
from rescind.reference.wirejson import read_document
from rescind.reference.worker.adapter import AdapterDeclarations
from rescind.reference.worker.extension import WorkerExtensions
from rescind.reference.worker.journal_store import AuthenticatedWorkerJournalStore
from rescind.reference.worker.session import (
    DEFAULT_PER_TOOL_RECONCILIATIONS,
    DEFAULT_SESSION_RECONCILIATIONS,
    WorkerSession,
    WorkerSessionLimits,
)
from rescind.reference.worker.session_errors import AdapterIndeterminate
from rescind.reference.worker_message import (
    CompensateOperation,
    CompensationResult,
    DispatchOperation,
    OpenSession,
    ReconcileCompensation,
    ReconciledCompensation,
    WireProfile,
    decode_message_line,
    encode_message_line,
)

Json = Any
TOOL = "text.echo"
SCOPE = "tenant"
KEY = "op-1"
SESSION_KEY = bytes([0x07]) * 32
KEYRING = Keyring.single("storage-v1", StorageKey(bytes([0x1D]) * 32))
GRANT = CapabilityGrant(TOOL, PayloadFormat.TEXT, 100, 1024, 64, 2)
LOST = "lost"
STEPS = ("compensate", "restart", "reconcile", "resend", "reconcile_frame", "message_line")
HOST_PROFILE = WireProfile.COMPENSATION_RECONCILE


class ReconcileScenarioError(ValueError):
    """The scenario is malformed (a bug in the scenario, never an outcome)."""


def _status(text: str) -> OperationStatus:
    return OperationStatus.from_node(read_document(text))


@attrs.define
class _Adapter:
    declarations: AdapterDeclarations
    inverse: str | None = None
    lookup: str | None = None
    inverse_calls: int = 0
    lookups: int = 0

    def dispatch_operation(self, request: OperationDispatchRequest) -> OperationStatus:
        return OperationStatus.succeeded(ToolPayload.text("done"))

    def compensate_operation(self, request: OperationCompensationRequest) -> OperationStatus:
        self.inverse_calls += 1
        answer, self.inverse = self.inverse, None
        if answer is None:
            raise ReconcileScenarioError("the inverse was called with nothing scripted")
        if answer == LOST:
            # The inverse ran and its answer was lost, as when the worker dies right after the
            # effect: the admission stays pending, exactly what a restart reloads.
            raise AdapterIndeterminate()
        return _status(answer)

    def reconcile_operation(self, request: OperationReconcileRequest) -> OperationStatus:
        raise ReconcileScenarioError("no original is reconciled in these scenarios")

    def reconcile_compensation(self, request: OperationCompensationRequest) -> OperationStatus:
        self.lookups += 1
        answer, self.lookup = self.lookup, None
        if answer is None:
            raise ReconcileScenarioError("a lookup was made with nothing scripted")
        return _status(answer)


def _count(value: Json, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ReconcileScenarioError(f"{name} must be a count")
    return value


class _Run:
    def __init__(self, scenario: Mapping[str, Json]) -> None:
        self.extensions = WorkerExtensions.for_profile(str(scenario["profile"]))
        limits = scenario.get("limits", {})
        if not isinstance(limits, Mapping) or set(limits) - {"perTool", "session"}:
            raise ReconcileScenarioError("limits takes perTool and session")
        self.limits = WorkerSessionLimits(
            per_tool_reconciliations=_count(
                limits.get("perTool", DEFAULT_PER_TOOL_RECONCILIATIONS), "limits.perTool"
            ),
            session_reconciliations=_count(
                limits.get("session", DEFAULT_SESSION_RECONCILIATIONS), "limits.session"
            ),
        )
        self.grant = attrs.evolve(
            GRANT,
            max_compensations=_count(scenario.get("maxCompensations", 2), "maxCompensations"),
        )
        declared = bool(scenario.get("declared", True))
        self.adapter = _Adapter(AdapterDeclarations(compensation_reconciliation=declared))
        self.bridge = AuthenticatedWorkerJournalStore(
            AuthenticatedStore(MemoryBackend(), KEYRING), "worker-journal", SCOPE
        )
        self.sessions = 0
        self.requests = 0
        self.restart()
        dispatch = OperationDispatchRequest(
            session_id=self.session_id,
            request_id=self._request_id(),
            tool=TOOL,
            operation_key=KEY,
            payload=ToolPayload.text("do"),
        )
        self.host.open(
            self.session.handle(self.host.seal(DispatchOperation(dispatch)), self.bridge)
        )

    def _request_id(self) -> str:
        self.requests += 1
        return f"r{self.requests}"

    def restart(self) -> None:
        self.sessions += 1
        self.session_id = f"worker-{self.sessions}"
        self.host = SessionAuthenticator(
            self.session_id, SESSION_KEY, SessionRole.HOST, profile=HOST_PROFILE
        )
        journal, revision = self.bridge.load()
        self.session = WorkerSession.open(
            SessionAuthenticator(
                self.session_id,
                SESSION_KEY,
                SessionRole.WORKER,
                profile=self.extensions.wire_profile,
            ),
            self.host.seal(OpenSession(SessionManifest.new(self.session_id, [self.grant]))),
            {TOOL: self.adapter},
            journal,
            revision,
            self.bridge.admission(),
            extensions=self.extensions,
            limits=self.limits,
        )

    def compensation(self, overrides: Mapping[str, Json]) -> OperationCompensationRequest:
        values: dict[str, Json] = {
            "session_id": self.session_id,
            "request_id": self._request_id(),
            "tool": TOOL,
            "operation_key": KEY,
            "compensation_key": f"cmp-{KEY}",
            "tenant_scope": SCOPE,
            "grant_fingerprint": self.grant.compensation_fingerprint(),
            "payload": "undo",
        }
        unknown = set(overrides) - set(values)
        if unknown:
            raise ReconcileScenarioError(f"unknown request fields {sorted(unknown)}")
        values.update(overrides)
        values["payload"] = ToolPayload.text(str(values["payload"]))
        return OperationCompensationRequest(**values)

    def send(self, request: OperationCompensationRequest) -> Json:
        sealed = self.host.seal(CompensateOperation(request))
        reply = self.host.open(self.session.handle(sealed, self.bridge))
        assert isinstance(reply, CompensationResult)
        return {"result": reply.result.status.to_json()}

    def send_frame(self, request: OperationCompensationRequest) -> Json:
        """Sealed by a copy of the host, adopted only once the worker used the sequence
        number: a frame the worker could not decode leaves both counters where they were."""
        copy = SessionAuthenticator(
            self.session_id,
            SESSION_KEY,
            SessionRole.HOST,
            next_outgoing=self.host.next_outgoing,
            next_incoming=self.host.next_incoming,
            profile=HOST_PROFILE,
        )
        line = copy.seal(ReconcileCompensation(request)).to_json_line()
        worker = self.session.authenticator
        before = worker.next_incoming
        outcome: dict[str, Json] = {"sent": line}
        try:
            reply = self.session.handle_line(line, self.bridge).to_json_line()
        except RescindError as error:
            outcome["error"] = error.code
        else:
            message = copy.open_line(reply)
            assert isinstance(message, ReconciledCompensation)
            outcome.update(result=message.result.status.to_json(), reply=reply)
        if worker.next_incoming != before:
            self.host = copy
        outcome["worker_next_incoming"] = worker.next_incoming
        return outcome

    def message_line(self, line: str) -> Json:
        profile = self.extensions.wire_profile
        try:
            return {
                "result": encode_message_line(decode_message_line(line, profile=profile), profile)
            }
        except RescindError as error:
            return {"error": error.code, "details": dict(error.details)}

    def step(self, spec: Mapping[str, Json]) -> Json:
        kind = spec.get("step")
        if kind not in STEPS:
            raise ReconcileScenarioError(f"unknown step {kind!r}")
        if kind == "restart":
            self.restart()
            return {"result": "restarted"}
        if kind == "message_line":
            return self.message_line(str(spec["line"]))
        if kind == "compensate":
            self.adapter.inverse = str(spec["inverse"])
        if kind in ("reconcile", "reconcile_frame"):
            self.adapter.lookup = None if spec.get("lookup") is None else str(spec["lookup"])
        request = self.compensation(spec.get("request", {}))
        try:
            if kind == "reconcile_frame":
                outcome = self.send_frame(request)
            elif kind == "reconcile":
                result = self.session.reconcile_compensation(request, self.bridge)
                outcome = {"result": result.status.to_json()}
            else:
                outcome = self.send(request)
        except RescindError as error:
            outcome = {"error": error.code}
        if self.adapter.inverse is not None or self.adapter.lookup is not None:
            raise ReconcileScenarioError(f"step {kind} left a scripted answer unused")
        return outcome

    def state(self) -> Json:
        journal, _ = self.bridge.load()
        record = journal.operation(KEY)
        stored = None
        if record is not None and record.compensation is not None:
            stored = record.compensation.state.kind
        return {
            "stored_compensation": stored,
            "inverse_calls": self.adapter.inverse_calls,
            "lookups": self.adapter.lookups,
            "compensation_budget_spent": self.session.authorizer.compensations_for(TOOL),
            "reconciliations_spent": self.session.reconciliation_total,
        }


def run_compensation_reconcile(scenario: Mapping[str, Json]) -> dict[str, Json]:
    run = _Run(scenario)
    steps = [{**run.step(spec), "state": run.state()} for spec in scenario["steps"]]
    return {"steps": steps}


ReconcileRun = _Run
"""One live scenario run, step by step (the exploration generator drives it closed-loop)."""
