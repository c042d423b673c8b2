"""The session authorizer (upstream ``SessionAuthorizer``): budgets and request-id bookkeeping
for one session manifest, applied before the journal sees a request.

State: a call counter and a compensation counter per tool, the set of compensation
identities already paid for, the request ids seen (at most 1,024) and the request ids whose
result was accepted. Every check of a call runs before any state changes, so a rejected call
leaves the authorizer exactly as it was (docs/spec/authorizer.md AU-n).

Budget is spent at authorization, not at effect time: a dispatch resend costs a call even
when the journal answers ``Existing``, so a caller cannot retry past its grant by replaying.
A compensation is paid once per *identity* (tool, operation key, compensation key, tenant
scope, grant fingerprint, canonical input fingerprint), so an exact resend is free and any
other variation needs fresh budget.
"""

from __future__ import annotations

from collections.abc import Callable

import attrs

from rescind.reference.digests import worker_input_fingerprint
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
from rescind.reference.payload import ToolPayload
from rescind.reference.protocol_errors import (
    AuthorizationProvenanceMismatch,
    CallBudgetExhausted,
    CompensationBudgetExhausted,
    CompensationGrantMismatch,
    CompensationNotGranted,
    CompensationResultMismatch,
    DuplicateRequest,
    DuplicateResult,
    InputTooLarge,
    OperationResultMismatch,
    SessionRequestLimitExceeded,
    UnknownSession,
)
from rescind.reference.worker.authorized import (
    AuthorizedCompensation,
    AuthorizedCompensationReconciliation,
    AuthorizedDispatch,
    AuthorizedReconciliation,
    Provenance,
)

MAX_SESSION_REQUEST_IDS = 1024


@attrs.frozen
class CompensationIdentity:
    """What one unit of compensation budget pays for (not hashed: compared as a tuple)."""

    tool: str
    operation_key: str
    compensation_key: str
    tenant_scope: str
    grant_fingerprint: str
    input_fingerprint: str


@attrs.frozen
class AuthorizerCounters:
    """A read-only snapshot of everything an authorizer has spent."""

    calls: tuple[tuple[str, int], ...]
    compensations: tuple[tuple[str, int], ...]
    compensation_identities: int
    request_ids: int
    completed_results: int


class SessionAuthorizer:
    def __init__(self, manifest: SessionManifest) -> None:
        manifest.validate()
        self._manifest = manifest
        self._provenance = Provenance()
        self._calls: dict[str, int] = {}
        self._compensations: dict[str, int] = {}
        self._identities: set[CompensationIdentity] = set()
        self._request_ids: set[str] = set()
        self._completed: set[str] = set()

    @property
    def manifest(self) -> SessionManifest:
        return self._manifest

    @property
    def provenance(self) -> Provenance:
        return self._provenance

    def calls_for(self, tool: str) -> int:
        return self._calls.get(tool, 0)

    def compensations_for(self, tool: str) -> int:
        return self._compensations.get(tool, 0)

    @property
    def compensation_identities(self) -> frozenset[CompensationIdentity]:
        """The compensation identities paid for so far, as an immutable copy."""
        return frozenset(self._identities)

    @property
    def request_count(self) -> int:
        return len(self._request_ids)

    def counters(self) -> AuthorizerCounters:
        return AuthorizerCounters(
            tuple(sorted(self._calls.items())),
            tuple(sorted(self._compensations.items())),
            len(self._identities),
            len(self._request_ids),
            len(self._completed),
        )

    # -- authorization -------------------------------------------------------------------------

    def _require_session(self, session_id: str) -> None:
        if session_id != self._manifest.session_id:
            raise UnknownSession(session_id=session_id)

    def _grant(self, session_id: str, tool: str) -> CapabilityGrant:
        self._require_session(session_id)
        return self._manifest.grant_for(tool)

    @staticmethod
    def _check_input(payload: ToolPayload, grant: CapabilityGrant) -> None:
        payload.validate_for(grant.format, grant.max_input_bytes, InputTooLarge)

    def _require_new_id(self, request_id: str) -> None:
        if request_id in self._request_ids:
            raise DuplicateRequest(request_id=request_id)

    def _require_id_capacity(self) -> None:
        if len(self._request_ids) >= MAX_SESSION_REQUEST_IDS:
            raise SessionRequestLimitExceeded(maximum=MAX_SESSION_REQUEST_IDS)

    def authorize_operation(self, request: OperationDispatchRequest) -> AuthorizedDispatch:
        """Header, session, tool, payload vs grant, input size, new id, call budget, id
        capacity; then the id is reserved and one call is spent."""
        request.validate_header()
        grant = self._grant(request.session_id, request.tool)
        self._check_input(request.payload, grant)
        self._require_new_id(request.request_id)
        calls = self.calls_for(grant.tool)
        if calls >= grant.max_calls:
            raise CallBudgetExhausted(tool=grant.tool, maximum=grant.max_calls)
        self._require_id_capacity()
        self._request_ids.add(request.request_id)
        self._calls[grant.tool] = calls + 1
        return AuthorizedDispatch(request, grant, self._provenance)

    def authorize_reconciliation(
        self, request: OperationReconcileRequest
    ) -> AuthorizedReconciliation:
        """Header, session, tool, new id, id capacity; spends the id only, never budget."""
        request.validate_header()
        grant = self._grant(request.session_id, request.tool)
        self._require_new_id(request.request_id)
        self._require_id_capacity()
        self._request_ids.add(request.request_id)
        return AuthorizedReconciliation(request, grant, self._provenance)

    def authorize_compensation(
        self, request: OperationCompensationRequest
    ) -> AuthorizedCompensation:
        """Header, session, tool, compensation granted, grant fingerprint current, payload
        vs grant, input size, new id, budget for a new identity, id capacity; then the id is
        reserved and a new identity is recorded and paid for."""
        request.validate_header()
        grant = self._grant(request.session_id, request.tool)
        if grant.max_compensations == 0:
            raise CompensationNotGranted(tool=grant.tool)
        if grant.compensation_fingerprint() != request.grant_fingerprint:
            raise CompensationGrantMismatch()
        self._check_input(request.payload, grant)
        self._require_new_id(request.request_id)
        identity = CompensationIdentity(
            request.tool,
            request.operation_key,
            request.compensation_key,
            request.tenant_scope,
            request.grant_fingerprint,
            worker_input_fingerprint(request.payload),
        )
        is_new = identity not in self._identities
        spent = self.compensations_for(grant.tool)
        if is_new and spent >= grant.max_compensations:
            raise CompensationBudgetExhausted(tool=grant.tool, maximum=grant.max_compensations)
        self._require_id_capacity()
        self._request_ids.add(request.request_id)
        if is_new:
            self._identities.add(identity)
            self._compensations[grant.tool] = spent + 1
        return AuthorizedCompensation(request, grant, self._provenance)

    def authorize_compensation_reconciliation(
        self, request: OperationCompensationRequest
    ) -> AuthorizedCompensationReconciliation:
        """Extension (CR-4): the compensation checks up to the input size, then a new id
        and id capacity; spends the id only, never compensation budget (it asks about an
        inverse already paid for, and never runs one)."""
        request.validate_header()
        grant = self._grant(request.session_id, request.tool)
        if grant.max_compensations == 0:
            raise CompensationNotGranted(tool=grant.tool)
        if grant.compensation_fingerprint() != request.grant_fingerprint:
            raise CompensationGrantMismatch()
        self._check_input(request.payload, grant)
        self._require_new_id(request.request_id)
        self._require_id_capacity()
        self._request_ids.add(request.request_id)
        return AuthorizedCompensationReconciliation(request, grant, self._provenance)

    # -- result validation (never reserves a request id) ---------------------------------------
    # Order (AU-10): provenance, the result's own validation, its session against the
    # manifest, correlation with the authorized request, duplicate, status against the grant.
    # The session is compared on its own before correlation although correlation compares it
    # too: a result naming another session is ``unknown_session``, not a mismatch.

    def _require_own(self, provenance: Provenance) -> None:
        if provenance is not self._provenance:
            raise AuthorizationProvenanceMismatch()

    def _accept_result(
        self, request_id: str, status: OperationStatus, grant: CapabilityGrant
    ) -> None:
        if request_id in self._completed:
            raise DuplicateResult(request_id=request_id)
        status.validate_for_grant(grant)
        self._completed.add(request_id)

    def _validate_result(
        self,
        provenance: Provenance,
        result: OperationReconcileResult | OperationCompensationResult,
        correlates: Callable[[], bool],
        mismatch: type[RescindError],
        grant: CapabilityGrant,
    ) -> None:
        """AU-10's order for every kind of result; ``correlates`` is asked only after the
        result's own validation and its session check, and ``mismatch`` is raised when the
        result does not belong to the authorized request."""
        self._require_own(provenance)
        result.validate()
        self._require_session(result.session_id)
        if not correlates():
            raise mismatch()
        self._accept_result(result.request_id, result.status, grant)

    def validate_operation_result(
        self, authorized: AuthorizedDispatch, result: OperationReconcileResult
    ) -> None:
        self._validate_result(
            authorized.provenance,
            result,
            lambda: result.matches_dispatch(authorized.request),
            OperationResultMismatch,
            authorized.grant,
        )

    def validate_reconciliation_result(
        self, authorized: AuthorizedReconciliation, result: OperationReconcileResult
    ) -> None:
        self._validate_result(
            authorized.provenance,
            result,
            lambda: result.matches_request(authorized.request),
            OperationResultMismatch,
            authorized.grant,
        )

    def validate_compensation_result(
        self,
        authorized: AuthorizedCompensation | AuthorizedCompensationReconciliation,
        result: OperationCompensationResult,
    ) -> None:
        """Also the result of a compensation reconciliation (extension CR-4): the same checks."""
        self._validate_result(
            authorized.provenance,
            result,
            lambda: result.matches_request(authorized.request),
            CompensationResultMismatch,
            authorized.grant,
        )

    def validate_compensation_reconciliation_result(
        self, authorized: AuthorizedCompensationReconciliation, result: OperationCompensationResult
    ) -> None:
        self.validate_compensation_result(authorized, result)
