"""A small interpreter for journal and authorizer traces (docs/spec/journal.md, "Traces").

A trace is ``{"setup": {..}, "steps": [{"call": .., "args": {..}, "checkpoint"?: ..}, ..]}``.
``run_trace`` executes it against the reference and returns the expected document
``{"steps": [{"result": {..}} | {"error": code, "details": {..}}, ..], "checkpoints": {..}}``.
Every wire value in a trace (grants, requests, statuses, results, journals) is exact JSON
*text*, because number spellings such as ``1.00`` must survive; a text may also be given as
``{"prefix": s, "repeat": s, "count": n, "suffix": s}`` to keep large inputs small.

The interpreter checks two invariants on every rejected step and fails loudly (an
``AssertionError``, a bug in the reference) if either breaks: the journal text is unchanged
and every authorizer's counters are unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs

from rescind.conformance.harness.limits import expand_text
from rescind.reference.errors import RescindError
from rescind.reference.grants import CapabilityGrant
from rescind.reference.manifest import SessionManifest
from rescind.reference.messages import (
    OperationCompensationRequest,
    OperationCompensationResult,
    OperationDispatchRequest,
    OperationReconcileRequest,
    OperationReconcileResult,
    OperationStatus,
)
from rescind.reference.numbers import NumberMode
from rescind.reference.wirejson import read_document
from rescind.reference.worker.authorized import (
    AuthorizedCompensation,
    AuthorizedDispatch,
    AuthorizedReconciliation,
)
from rescind.reference.worker.authorizer import AuthorizerCounters, SessionAuthorizer
from rescind.reference.worker.journal import Admission, Existing, WorkerOperationJournal
from rescind.reference.worker.records import WorkerOperationState

Json = dict[str, Any]
Authorized = AuthorizedDispatch | AuthorizedCompensation | AuthorizedReconciliation

JOURNAL_CALLS = (
    "new",
    "load",
    "to_json",
    "record",
    "admit",
    "admit_many",
    "observe",
    "validate_reconciliation",
    "observe_reconciliation",
    "admit_compensation",
    "observe_compensation",
)
AUTHORIZER_CALLS = (
    "authorize_operation",
    "authorize_reconciliation",
    "authorize_reconciliation_many",
    "authorize_compensation",
    "validate_operation_result",
    "validate_reconciliation_result",
    "validate_compensation_result",
    "counters",
)


# A parser's byte offset is an implementation detail, not part of any rule.
_UNSTABLE_DETAILS = frozenset({"offset"})


class TraceError(ValueError):
    """The trace itself is malformed (an unknown call, a missing name): not a protocol error."""


def text_of(spec: str | Mapping[str, Any]) -> str:
    """A text argument: the string itself, or prefix + repeat * count + suffix."""
    if isinstance(spec, str):
        return spec
    parts = (
        str(spec.get("prefix", "")),
        expand_text(str(spec.get("repeat", "")), spec.get("count", 0)),
        str(spec.get("suffix", "")),
    )
    return "".join(parts)


def _mode(setup: Mapping[str, Any]) -> NumberMode:
    profile = setup.get("profile", NumberMode.AP.profile)
    for mode in NumberMode:
        if mode.profile == profile:
            return mode
    raise TraceError(f"unknown profile {profile!r}")


def _admission(admission: Admission) -> Json:
    if isinstance(admission, Existing):
        return {"admission": "existing", "state": admission.state.to_json()}
    return {"admission": "dispatch"}


def _state(state: WorkerOperationState) -> Json:
    return {"state": state.to_json()}


def _counters(authorizer: SessionAuthorizer) -> Json:
    return _counters_json(authorizer.counters())


def _counters_json(counters: AuthorizerCounters) -> Json:
    return {
        "calls": dict(counters.calls),
        "compensations": dict(counters.compensations),
        "compensation_identities": counters.compensation_identities,
        "request_ids": counters.request_ids,
        "completed_results": counters.completed_results,
    }


class _Run:
    def __init__(self, setup: Mapping[str, Any]) -> None:
        self.mode = _mode(setup)
        self.grants = {
            name: CapabilityGrant.from_json(text_of(text))
            for name, text in setup.get("grants", {}).items()
        }
        self.requests: Mapping[str, Any] = setup.get("requests", {})
        self.authorizers = {
            name: SessionAuthorizer(SessionManifest.from_json(text_of(text)))
            for name, text in setup.get("authorizers", {}).items()
        }
        self.handles: dict[str, Authorized] = {}
        # Decoded request and status texts: a trace names the same few again and again, and
        # the decoded values are immutable.
        self._decoded: dict[tuple[type[Any], str], Any] = {}
        self.journal: WorkerOperationJournal | None = None
        journal = setup.get("journal")
        if journal is not None:
            self.journal = self._load(journal)

    # -- decoding helpers ------------------------------------------------------------------

    def _node(self, spec: str | Mapping[str, Any]) -> Any:
        return read_document(text_of(spec), self.mode)

    def _request_text(self, name: str) -> str:
        if name not in self.requests:
            raise TraceError(f"no request named {name!r}")
        return text_of(self.requests[name])

    def _decode(self, kind: Any, text: str) -> Any:
        decoded = self._decoded.get((kind, text))
        if decoded is None:
            decoded = kind.from_node(self._node(text), self.mode)
            self._decoded[(kind, text)] = decoded
        return decoded

    def dispatch_request(self, name: str) -> OperationDispatchRequest:
        request: OperationDispatchRequest = self._decode(
            OperationDispatchRequest, self._request_text(name)
        )
        return request

    def compensation_request(self, name: str) -> OperationCompensationRequest:
        request: OperationCompensationRequest = self._decode(
            OperationCompensationRequest, self._request_text(name)
        )
        return request

    def reconcile_request(self, name: str) -> OperationReconcileRequest:
        request: OperationReconcileRequest = self._decode(
            OperationReconcileRequest, self._request_text(name)
        )
        return request

    def status(self, args: Mapping[str, Any]) -> OperationStatus:
        status: OperationStatus = self._decode(OperationStatus, text_of(args["status"]))
        return status

    def grant(self, name: str) -> CapabilityGrant:
        if name not in self.grants:
            raise TraceError(f"no grant named {name!r}")
        return self.grants[name]

    def authorizer(self, args: Mapping[str, Any]) -> SessionAuthorizer:
        name = args.get("authorizer") or next(iter(self.authorizers), None)
        if name is None or name not in self.authorizers:
            raise TraceError(f"no authorizer named {name!r}")
        return self.authorizers[name]

    def _handle(self, args: Mapping[str, Any], kind: type[Any]) -> Any:
        handle = self.handles.get(args["authorized"])
        if not isinstance(handle, kind):
            raise TraceError(f"{args['authorized']!r} is not an authorized {kind.__name__}")
        return handle

    def authorized_dispatch(self, args: Mapping[str, Any]) -> AuthorizedDispatch:
        if "authorized" in args:
            handle: AuthorizedDispatch = self._handle(args, AuthorizedDispatch)
            return handle
        return AuthorizedDispatch(self.dispatch_request(args["request"]), self.grant(args["grant"]))

    def authorized_compensation(self, args: Mapping[str, Any]) -> AuthorizedCompensation:
        if "authorized" in args:
            handle: AuthorizedCompensation = self._handle(args, AuthorizedCompensation)
            return handle
        request = self.compensation_request(args["request"])
        return AuthorizedCompensation(request, self.grant(args["grant"]))

    def authorized_reconciliation(self, args: Mapping[str, Any]) -> AuthorizedReconciliation:
        if "authorized" in args:
            handle: AuthorizedReconciliation = self._handle(args, AuthorizedReconciliation)
            return handle
        request = self.reconcile_request(args["request"])
        return AuthorizedReconciliation(request, self.grant(args["grant"]))

    def _load(self, spec: Mapping[str, Any]) -> WorkerOperationJournal:
        if "scope" in spec and "journal" not in spec:
            return WorkerOperationJournal.new(spec["scope"])
        text = text_of(spec["journal"])
        if "scope" in spec:
            return WorkerOperationJournal.from_json_for_scope(text, spec["scope"], self.mode)
        return WorkerOperationJournal.from_json(text, self.mode)

    def current(self) -> WorkerOperationJournal:
        if self.journal is None:
            raise TraceError("the trace has no journal yet (use `new` or `load`)")
        return self.journal

    # -- snapshots ---------------------------------------------------------------------------

    def snapshot(self) -> Json:
        return self.snapshot_of(self.marker())

    def marker(self) -> tuple[WorkerOperationJournal | None, dict[str, AuthorizerCounters]]:
        """What ``snapshot`` shows, kept unencoded: journals and counters are immutable
        values, so the snapshot is encoded only when a rejected step needs it."""
        counters = {name: authorizer.counters() for name, authorizer in self.authorizers.items()}
        return self.journal, counters

    @staticmethod
    def snapshot_of(
        marker: tuple[WorkerOperationJournal | None, dict[str, AuthorizerCounters]],
    ) -> Json:
        journal, counters = marker
        body: Json = {"journal": None if journal is None else journal.encode_unchecked()}
        if counters:
            body["authorizers"] = {name: _counters_json(c) for name, c in counters.items()}
        return body

    # -- journal calls -----------------------------------------------------------------------

    def call_new(self, args: Mapping[str, Any]) -> Json:
        self.journal = WorkerOperationJournal.new(args["scope"])
        return {"journal": self.journal.to_json()}

    def call_load(self, args: Mapping[str, Any]) -> Json:
        self.journal = self._load(args)
        return {"journal": self.journal.to_json()}

    def call_to_json(self, _: Mapping[str, Any]) -> Json:
        return {"journal": self.current().to_json()}

    def call_record(self, args: Mapping[str, Any]) -> Json:
        record = self.current().operation(args["operation_key"])
        return {"record": None if record is None else record.to_json()}

    def call_admit(self, args: Mapping[str, Any]) -> Json:
        applied = self.current().admit(self.authorized_dispatch(args))
        self.journal = applied.journal
        return _admission(applied.result)

    def call_admit_many(self, args: Mapping[str, Any]) -> Json:
        template = self.dispatch_request(args["request"])
        grant = self.grant(args["grant"])
        journal = self.current()
        start = int(args.get("start", 0))
        for index in range(start, start + int(args["count"])):
            request = attrs.evolve(
                template,
                operation_key=f"{template.operation_key}-{index}",
                request_id=f"{template.request_id}-{index}",
            )
            try:
                journal = journal.admit(AuthorizedDispatch(request, grant)).journal
            except RescindError as error:
                raise TraceError(f"admit_many must not fail (index {index})") from error
        self.journal = journal
        return {"admitted": int(args["count"])}

    def call_observe(self, args: Mapping[str, Any]) -> Json:
        applied = self.current().observe(self.authorized_dispatch(args), self.status(args))
        self.journal = applied.journal
        return _state(applied.result)

    def call_validate_reconciliation(self, args: Mapping[str, Any]) -> Json:
        self.current().validate_reconciliation(self.authorized_reconciliation(args))
        return {}

    def call_observe_reconciliation(self, args: Mapping[str, Any]) -> Json:
        authorized = self.authorized_reconciliation(args)
        applied = self.current().observe_reconciliation(authorized, self.status(args))
        self.journal = applied.journal
        return _state(applied.result)

    def call_admit_compensation(self, args: Mapping[str, Any]) -> Json:
        applied = self.current().admit_compensation(self.authorized_compensation(args))
        self.journal = applied.journal
        return _admission(applied.result)

    def call_observe_compensation(self, args: Mapping[str, Any]) -> Json:
        authorized = self.authorized_compensation(args)
        applied = self.current().observe_compensation(authorized, self.status(args))
        self.journal = applied.journal
        return _state(applied.result)

    # -- authorizer calls --------------------------------------------------------------------

    def _keep(self, args: Mapping[str, Any], authorized: Authorized) -> Json:
        if "as" in args:
            self.handles[args["as"]] = authorized
        return {"grant": authorized.grant.to_json()}

    def call_authorize_operation(self, args: Mapping[str, Any]) -> Json:
        request = self.dispatch_request(args["request"])
        return self._keep(args, self.authorizer(args).authorize_operation(request))

    def call_authorize_reconciliation(self, args: Mapping[str, Any]) -> Json:
        request = self.reconcile_request(args["request"])
        return self._keep(args, self.authorizer(args).authorize_reconciliation(request))

    def call_authorize_reconciliation_many(self, args: Mapping[str, Any]) -> Json:
        template = self.reconcile_request(args["request"])
        authorizer = self.authorizer(args)
        for index in range(int(args["count"])):
            request = attrs.evolve(template, request_id=f"{template.request_id}-{index}")
            try:
                authorizer.authorize_reconciliation(request)
            except RescindError as error:
                raise TraceError(f"a *_many call must not fail (index {index})") from error
        return {"authorized": int(args["count"])}

    def call_authorize_compensation(self, args: Mapping[str, Any]) -> Json:
        request = self.compensation_request(args["request"])
        return self._keep(args, self.authorizer(args).authorize_compensation(request))

    def call_validate_operation_result(self, args: Mapping[str, Any]) -> Json:
        result = OperationReconcileResult.from_node(self._node(args["result"]), self.mode)
        self.authorizer(args).validate_operation_result(self.authorized_dispatch(args), result)
        return {}

    def call_validate_reconciliation_result(self, args: Mapping[str, Any]) -> Json:
        result = OperationReconcileResult.from_node(self._node(args["result"]), self.mode)
        authorized = self.authorized_reconciliation(args)
        self.authorizer(args).validate_reconciliation_result(authorized, result)
        return {}

    def call_validate_compensation_result(self, args: Mapping[str, Any]) -> Json:
        result = OperationCompensationResult.from_node(self._node(args["result"]), self.mode)
        authorized = self.authorized_compensation(args)
        self.authorizer(args).validate_compensation_result(authorized, result)
        return {}

    def call_counters(self, args: Mapping[str, Any]) -> Json:
        return _counters(self.authorizer(args))


def run_trace(trace: Mapping[str, Any]) -> Json:
    """Execute ``trace`` and return its expected document (see the module docstring)."""
    run = _Run(trace.get("setup", {}))
    outcomes: list[Json] = []
    checkpoints: Json = {}
    for position, step in enumerate(trace.get("steps", [])):
        call = step.get("call")
        if call not in JOURNAL_CALLS + AUTHORIZER_CALLS:
            raise TraceError(f"step {position}: unknown call {call!r}")
        method: Callable[[Mapping[str, Any]], Json] = getattr(run, f"call_{call}")
        before = run.marker()
        try:
            outcomes.append({"result": method(step.get("args", {}))})
        except RescindError as error:
            details = {k: v for k, v in error.details.items() if k not in _UNSTABLE_DETAILS}
            outcomes.append({"error": error.code, "details": details})
            after = run.snapshot()
            assert after == run.snapshot_of(before), (
                f"step {position} ({call}) was rejected yet changed state"
            )
        if "checkpoint" in step:
            checkpoints[step["checkpoint"]] = run.snapshot()
    checkpoints["final"] = run.snapshot()
    return {"steps": outcomes, "checkpoints": checkpoints}
