"""``WorkerSession``: one authenticated worker session that turns host frames into effects
in an order that survives crashes (upstream ``splash-worker`` ``WorkerSession``).

The ordering rules (docs/spec/session.md WS-n) in one place:

* **Persist before every effect.** A new admission is made durable first; the adapter is
  called only after that write returned a greater revision. If the write fails, the adapter
  is never called.
* **Persist after every effect, or poison.** The observed outcome is persisted before the
  reply is sealed. If that write fails, the in-memory journal goes back to the last durable
  one (the admission, still ``pending``) and the session refuses every later frame: only a
  new session over a freshly loaded journal, with a fresh lease, may continue, and it
  reaches the key through reconciliation.
* **Existing is never a second execution.** An exact duplicate answers from the journal:
  the stored result, or ``pending_*`` while the outcome is unknown. The adapter is not
  called and nothing is written.

The session is sans-IO apart from the two objects it is handed: the adapters and the
journal store. Frames in, sealed frames or typed errors out.

Under the profile ``splash-v5+compensation-reconcile`` a ``reconcile_compensation`` frame is
answered with a sealed ``reconciled_compensation`` frame (CR-1); the session's authenticator
must then decode that profile's kinds. Without the profile the kind never decodes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import attrs

from rescind.reference.errors import RescindError
from rescind.reference.frames import AuthenticatedFrame, SessionAuthenticator, SessionRole
from rescind.reference.messages import (
    OperationCompensationRequest,
    OperationCompensationResult,
    OperationDispatchRequest,
    OperationReconcileRequest,
    OperationReconcileResult,
    OperationStatus,
)
from rescind.reference.numbers import NumberMode
from rescind.reference.protocol_errors import ProtocolError, Serialization
from rescind.reference.worker.adapter import CompensationReconcilingAdapter, WorkerAdapter
from rescind.reference.worker.authorizer import SessionAuthorizer
from rescind.reference.worker.extension import (
    CompensationReconciliationNotDeclared,
    WireProfileMismatch,
    WorkerExtensions,
)
from rescind.reference.worker.journal import Applied, Dispatch, Existing, WorkerOperationJournal
from rescind.reference.worker.journal_store import (
    JournalLease,
    JournalStore,
    WorkerAdmission,
    issue_lease,
)
from rescind.reference.worker.records import WorkerOperationState
from rescind.reference.worker.session_errors import (
    AdapterFailed,
    AdapterIndeterminate,
    AdmissionFailed,
    DurableOperationContractNotDeclared,
    IndeterminateCompensation,
    IndeterminateOperation,
    InvalidJournalLease,
    InvalidJournalRevision,
    InvocationNotModelled,
    InvocationSafetyNotDeclared,
    JournalPersistenceFailed,
    MissingAdapter,
    PendingCompensation,
    PendingOperation,
    ReconciliationBudgetExhausted,
    ReconciliationSessionBudgetExhausted,
    RequiresWorkerAuthenticator,
    SessionPoisoned,
    UnexpectedMessage,
    UnexpectedOpeningMessage,
    WorkerAdapterError,
    ZeroPerToolReconciliationLimit,
    ZeroSessionReconciliationLimit,
    wrap_protocol,
)
from rescind.reference.worker_message import (
    CompensateOperation,
    CompensationResult,
    DispatchOperation,
    Invoke,
    OpenSession,
    OperationResult,
    ReconcileCompensation,
    ReconciledCompensation,
    ReconciledOperation,
    ReconcileOperation,
    WireProfile,
    WorkerMessage,
)

DEFAULT_PER_TOOL_RECONCILIATIONS = 16
DEFAULT_SESSION_RECONCILIATIONS = 64

PersistFailure = JournalPersistenceFailed | InvalidJournalRevision
ADAPTER_RAISED = "adapter_raised"
"""The ``cause`` of an indeterminate outcome whose adapter raised something other than a
``WorkerAdapterError`` during an effect call, and the ``error`` of the ``adapter_failed``
reported when it does so during reconciliation."""


@attrs.frozen
class WorkerSessionLimits:
    """Reconciliation budgets: per tool and per session, both greater than 0."""

    per_tool_reconciliations: int = DEFAULT_PER_TOOL_RECONCILIATIONS
    session_reconciliations: int = DEFAULT_SESSION_RECONCILIATIONS

    def __attrs_post_init__(self) -> None:
        if self.per_tool_reconciliations <= 0:
            raise ZeroPerToolReconciliationLimit()
        if self.session_reconciliations <= 0:
            raise ZeroSessionReconciliationLimit()


def _cause_of(failure: PersistFailure) -> tuple[str, str]:
    if isinstance(failure, InvalidJournalRevision):
        return "invalid_journal_revision", failure.code
    return "journal", str(failure.details.get("cause"))


class WorkerSession:
    """Use ``WorkerSession.open``; the constructor takes already checked parts."""

    def __init__(
        self,
        *,
        authenticator: SessionAuthenticator,
        authorizer: SessionAuthorizer,
        adapters: Mapping[str, WorkerAdapter],
        journal: WorkerOperationJournal,
        revision: int,
        lease: JournalLease,
        limits: WorkerSessionLimits,
        extensions: WorkerExtensions | None = None,
    ) -> None:
        self._extensions = extensions or WorkerExtensions()
        self._authenticator = authenticator
        self._authorizer = authorizer
        self._adapters = dict(adapters)
        self._journal = journal
        self._revision = revision
        self._lease = lease
        self._limits = limits
        self._poisoned = False
        self._reconciliations: dict[str, int] = {}
        self._reconciliation_total = 0

    # -- opening ---------------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        authenticator: SessionAuthenticator,
        frame: AuthenticatedFrame,
        adapters: Mapping[str, WorkerAdapter],
        journal: WorkerOperationJournal,
        revision: int,
        admission: WorkerAdmission,
        limits: WorkerSessionLimits | None = None,
        extensions: WorkerExtensions | None = None,
    ) -> WorkerSession:
        """Role, the authenticator's wire profile against the session's, the opening frame (as
        sequence 1), its kind, the authorizer, an adapter for every grant, then admission (its
        token becomes the lease; 0 is refused). The journal and revision are the caller's,
        loaded together; they are not re-checked here."""
        if authenticator.role is not SessionRole.WORKER:
            raise RequiresWorkerAuthenticator(role=authenticator.role.value)
        wire = (extensions or WorkerExtensions()).wire_profile
        if authenticator.profile is not wire:
            # One flag says it all: with two profiles, the authenticator has the other one.
            raise WireProfileMismatch(session_extended=wire is not WireProfile.UPSTREAM)
        try:
            message = authenticator.open(frame)
        except ProtocolError as error:
            raise wrap_protocol(error) from error
        if not isinstance(message, OpenSession):
            raise UnexpectedOpeningMessage(kind=message.kind)
        try:
            authorizer = SessionAuthorizer(message.manifest)
        except ProtocolError as error:
            raise wrap_protocol(error) from error
        for grant in message.manifest.grants:
            if grant.tool not in adapters:
                raise MissingAdapter(tool=grant.tool)
        try:
            token = admission.admit(message.manifest, journal.scope)
        except RescindError as error:
            raise AdmissionFailed(cause=error.code) from error
        if token == 0:
            raise InvalidJournalLease()
        return cls(
            authenticator=authenticator,
            authorizer=authorizer,
            adapters=adapters,
            journal=journal,
            revision=revision,
            lease=issue_lease(token),
            limits=limits or WorkerSessionLimits(),
            extensions=extensions,
        )

    # -- inspection ------------------------------------------------------------------------

    @property
    def poisoned(self) -> bool:
        return self._poisoned

    @property
    def extensions(self) -> WorkerExtensions:
        return self._extensions

    @property
    def journal(self) -> WorkerOperationJournal:
        return self._journal

    @property
    def revision(self) -> int:
        return self._revision

    @property
    def authorizer(self) -> SessionAuthorizer:
        return self._authorizer

    @property
    def authenticator(self) -> SessionAuthenticator:
        return self._authenticator

    def reconciliations_for(self, tool: str) -> int:
        return self._reconciliations.get(tool, 0)

    @property
    def reconciliation_total(self) -> int:
        return self._reconciliation_total

    # -- handling --------------------------------------------------------------------------

    def handle(self, frame: AuthenticatedFrame, store: JournalStore) -> AuthenticatedFrame:
        """Poison check (the frame is not even opened), open, route, answer sealed.

        A refusal that is not a persistence failure leaves the session usable; the frame's
        sequence number is used up once it opened."""
        if self._poisoned:
            raise SessionPoisoned()
        try:
            message = self._authenticator.open(frame)
            return self._route(message, store)
        except ProtocolError as error:
            raise wrap_protocol(error) from error

    def handle_line(
        self, text: str | bytes, store: JournalStore, mode: NumberMode = NumberMode.AP
    ) -> AuthenticatedFrame:
        """``handle`` for a frame still in its wire text: poison check, then decoding with the
        session's message kinds (an extension kind outside the profile is refused there, as
        any unknown ``type`` is, before a sequence number is used)."""
        if self._poisoned:
            raise SessionPoisoned()
        try:
            frame = AuthenticatedFrame.from_json_line(text, mode, self._authenticator.profile)
        except ProtocolError as error:
            raise wrap_protocol(error) from error
        return self.handle(frame, store)

    def _route(self, message: WorkerMessage, store: JournalStore) -> AuthenticatedFrame:
        if isinstance(message, DispatchOperation):
            return self._dispatch(message.request, store)
        if isinstance(message, CompensateOperation):
            return self._compensate(message.request, store)
        if isinstance(message, ReconcileOperation):
            return self._reconcile(message.request, store)
        if isinstance(message, ReconcileCompensation):
            self._extensions.require_compensation_reconcile()
            result = self._reconcile_compensation(message.request, store)
            return self._authenticator.seal(ReconciledCompensation(result))
        if isinstance(message, Invoke):
            self._invoke(message)
        raise UnexpectedMessage(kind=message.kind)

    def _adapter(self, tool: str) -> WorkerAdapter:
        adapter = self._adapters.get(tool)
        if adapter is None:
            raise MissingAdapter(tool=tool)
        return adapter

    def _durable_adapter(self, tool: str) -> WorkerAdapter:
        adapter = self._adapter(tool)
        if not adapter.declarations.durable_operations:
            raise DurableOperationContractNotDeclared(tool=tool)
        return adapter

    def _invoke(self, message: Invoke) -> None:
        tool = dict(message.invocation.members).get("tool")
        if not isinstance(tool, str):
            raise Serialization(reason="missing_field", field="tool")
        self._authorizer.manifest.grant_for(tool)
        if not self._adapter(tool).declarations.invocation_safety:
            raise InvocationSafetyNotDeclared(tool=tool)
        raise InvocationNotModelled(tool=tool)

    # -- persistence -----------------------------------------------------------------------

    def _persist(self, store: JournalStore, snapshot: WorkerOperationJournal) -> None:
        """Write the in-memory journal; on any failure put ``snapshot`` back (the last
        durable journal), poison, and raise ``journal_persistence_failed`` or
        ``invalid_journal_revision``. The revision moves only on success."""
        try:
            revision = store.persist(self._journal, self._revision, self._lease)
        except RescindError as error:
            self._restore(snapshot)
            raise JournalPersistenceFailed(cause=error.code) from error
        except BaseException:
            # Not a store refusal but a bug or an interrupt: still never keep an
            # unpersisted journal in a usable session.
            self._restore(snapshot)
            raise
        if revision <= self._revision:
            self._restore(snapshot)
            raise InvalidJournalRevision(expected=self._revision, actual=revision)
        self._revision = revision

    def _restore(self, snapshot: WorkerOperationJournal) -> None:
        self._journal = snapshot
        self._poisoned = True

    # -- dispatch --------------------------------------------------------------------------

    def _dispatch(
        self, request: OperationDispatchRequest, store: JournalStore
    ) -> AuthenticatedFrame:
        authorized = self._authorizer.authorize_operation(request)
        adapter = self._durable_adapter(request.tool)
        key = request.operation_key

        def indeterminate(kind: str, cause: str) -> RescindError:
            return IndeterminateOperation(operation_key=key, cause_kind=kind, cause=cause)

        snapshot = self._journal
        admitted = snapshot.admit(authorized)
        if isinstance(admitted.result, Existing):
            status = _existing_status(admitted.result.state, PendingOperation(operation_key=key))
        else:
            assert isinstance(admitted.result, Dispatch)
            self._journal = admitted.journal
            self._persist(store, snapshot)
            try:
                reported = adapter.dispatch_operation(request)
            except WorkerAdapterError as error:
                raise _adapter_outcome(error, request.tool, indeterminate) from error
            except Exception as error:
                # An adapter that breaks its contract mid-effect may have acted.
                raise indeterminate("adapter", ADAPTER_RAISED) from error
            status = self._observe_effect(
                lambda journal: journal.observe(authorized, reported), store, indeterminate
            )
        result = OperationReconcileResult.for_request(request, status)
        self._authorizer.validate_operation_result(authorized, result)
        return self._authenticator.seal(OperationResult(result))

    def _observe_effect(
        self, observe: _Observe, store: JournalStore, indeterminate: _Indeterminate
    ) -> OperationStatus:
        """After an effect: observe into the journal, then persist. An observation the grant
        refuses leaves the record pending (not poisoned); a failed write restores the pending
        journal and poisons. Both are indeterminate: the adapter has acted."""
        snapshot = self._journal
        try:
            applied = observe(snapshot)
        except ProtocolError as error:
            raise indeterminate("protocol", error.code) from error
        self._journal = applied.journal
        try:
            self._persist(store, snapshot)
        except (JournalPersistenceFailed, InvalidJournalRevision) as failure:
            raise indeterminate(*_cause_of(failure)) from failure
        status = applied.result.as_status()
        assert status is not None  # an observation is never ``pending``
        return status

    # -- compensation ----------------------------------------------------------------------

    def _compensate(
        self, request: OperationCompensationRequest, store: JournalStore
    ) -> AuthenticatedFrame:
        authorized = self._authorizer.authorize_compensation(request)
        adapter = self._durable_adapter(request.tool)
        key, compensation_key = request.operation_key, request.compensation_key

        def indeterminate(kind: str, cause: str) -> RescindError:
            return IndeterminateCompensation(
                operation_key=key, compensation_key=compensation_key, cause_kind=kind, cause=cause
            )

        snapshot = self._journal
        admitted = snapshot.admit_compensation(authorized)
        if isinstance(admitted.result, Existing):
            status = _existing_status(admitted.result.state, PendingCompensation(operation_key=key))
        else:
            self._journal = admitted.journal
            self._persist(store, snapshot)
            try:
                reported = adapter.compensate_operation(request)
            except WorkerAdapterError as error:
                raise _adapter_outcome(error, request.tool, indeterminate) from error
            except Exception as error:
                # An adapter that breaks its contract mid-effect may have acted.
                raise indeterminate("adapter", ADAPTER_RAISED) from error
            status = self._observe_effect(
                lambda journal: journal.observe_compensation(authorized, reported),
                store,
                indeterminate,
            )
        result = OperationCompensationResult.for_request(request, status)
        self._authorizer.validate_compensation_result(authorized, result)
        return self._authenticator.seal(CompensationResult(result))

    # -- reconciliation --------------------------------------------------------------------

    def _reconcile(
        self, request: OperationReconcileRequest, store: JournalStore
    ) -> AuthenticatedFrame:
        authorized = self._authorizer.authorize_reconciliation(request)
        self._journal.validate_reconciliation(authorized)
        self._reserve_reconciliation(request.tool)
        adapter = self._adapter(request.tool)
        try:
            reported = adapter.reconcile_operation(request)
        except WorkerAdapterError as error:
            raise AdapterFailed(tool=request.tool, error=error.kind) from error
        except Exception as error:
            # Reconciliation only asks; nothing was admitted or written, so unlike an effect
            # call this stays the definite adapter failure.
            raise AdapterFailed(tool=request.tool, error=ADAPTER_RAISED) from error
        snapshot = self._journal
        self._journal = snapshot.observe_reconciliation(authorized, reported).journal
        # Always written, even when nothing changed: the write proves this session's lease
        # is still current before the host is told anything.
        self._persist(store, snapshot)
        result = OperationReconcileResult.for_request(request, reported)
        self._authorizer.validate_reconciliation_result(authorized, result)
        return self._authenticator.seal(ReconciledOperation(result))

    # -- extension: compensation reconciliation (CR-n) -------------------------------------

    def reconcile_compensation(
        self, request: OperationCompensationRequest, store: JournalStore
    ) -> OperationCompensationResult:
        """Profile ``splash-v5+compensation-reconcile`` only (docs/spec/compensation-reconcile.md).

        The original's reconcile, for an attached compensation: gate, authorize (no budget),
        the journal's identity and grant checks, the shared reconciliation budget, then ask
        the adapter to *look up* the inverse effect (never to run it), observe its answer
        through the lifecycle table and persist, always, before answering."""
        if self._poisoned:
            raise SessionPoisoned()
        self._extensions.require_compensation_reconcile()
        try:
            return self._reconcile_compensation(request, store)
        except ProtocolError as error:
            raise wrap_protocol(error) from error

    def _reconcile_compensation(
        self, request: OperationCompensationRequest, store: JournalStore
    ) -> OperationCompensationResult:
        authorized = self._authorizer.authorize_compensation_reconciliation(request)
        self._journal.validate_compensation_reconciliation(authorized)
        adapter = self._durable_adapter(request.tool)
        if not adapter.declarations.compensation_reconciliation or not isinstance(
            adapter, CompensationReconcilingAdapter
        ):
            raise CompensationReconciliationNotDeclared(tool=request.tool)
        self._reserve_reconciliation(request.tool)
        try:
            reported = adapter.reconcile_compensation(request)
        except WorkerAdapterError as error:
            raise AdapterFailed(tool=request.tool, error=error.kind) from error
        except Exception as error:
            # A lookup runs no effect: like the original's reconcile, a definite failure.
            raise AdapterFailed(tool=request.tool, error=ADAPTER_RAISED) from error
        snapshot = self._journal
        self._journal = snapshot.observe_compensation(authorized, reported).journal
        # Always written: the write proves this session's lease before the host is told.
        self._persist(store, snapshot)
        result = OperationCompensationResult.for_request(request, reported)
        self._authorizer.validate_compensation_reconciliation_result(authorized, result)
        return result

    def _reserve_reconciliation(self, tool: str) -> None:
        """Session budget first, then the tool's; spent before the adapter is asked."""
        if self._reconciliation_total >= self._limits.session_reconciliations:
            raise ReconciliationSessionBudgetExhausted(maximum=self._limits.session_reconciliations)
        spent = self.reconciliations_for(tool)
        if spent >= self._limits.per_tool_reconciliations:
            raise ReconciliationBudgetExhausted(
                tool=tool, maximum=self._limits.per_tool_reconciliations
            )
        self._reconciliations[tool] = spent + 1
        self._reconciliation_total += 1


_Observe = Callable[[WorkerOperationJournal], Applied[WorkerOperationState]]
_Indeterminate = Callable[[str, str], RescindError]


def _existing_status(state: WorkerOperationState, pending: RescindError) -> OperationStatus:
    """What an exact duplicate is told: the stored outcome (already re-checked against the
    current grant by the journal), or ``pending`` as an error while it is unknown."""
    status = state.as_status()
    if status is None:
        raise pending
    return status


def _adapter_outcome(
    error: WorkerAdapterError, tool: str, indeterminate: _Indeterminate
) -> RescindError:
    """An effect call's error: ``indeterminate`` stays indeterminate, anything else is the
    adapter's definite refusal. The admission is durable either way: the record stays
    ``pending`` and only reconciliation can move it."""
    if isinstance(error, AdapterIndeterminate):
        return indeterminate("adapter", error.code)
    return AdapterFailed(tool=tool, error=error.kind)
