"""Random interleavings of authorizer and journal calls (Hypothesis stateful testing).

Each run draws a session manifest with random limits, then dispatches, resends, observes,
reconciles and compensates at random, sometimes under a second, narrower grant. After every
step: no terminal state has changed, each original has at most one compensation identity
and it never changes, no budget exceeds its grant, a rejected call changed neither the
journal text nor any authorizer counter, and the journal survives a JSON round trip.
"""

from __future__ import annotations

from typing import Any

from hypothesis import event
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from rescind.reference.errors import RescindError
from rescind.reference.grants import CapabilityGrant, GrantAttenuation
from rescind.reference.manifest import SessionManifest
from rescind.reference.messages import (
    OperationCompensationRequest,
    OperationDispatchRequest,
    OperationReconcileRequest,
    OperationStatus,
)
from rescind.reference.payload import ToolPayload
from rescind.reference.payload_format import PayloadFormat
from rescind.reference.worker.authorized import (
    AuthorizedCompensation,
    AuthorizedDispatch,
    AuthorizedReconciliation,
)
from rescind.reference.worker.authorizer import SessionAuthorizer
from rescind.reference.worker.journal import WorkerOperationJournal
from rescind.tables.operation import OPERATION_LIFECYCLE, Phase

TOOLS = ("t.json", "t.text")
KEYS = ("k1", "k2", "k3", "cmp-k4")
SCOPE = "tenant"
INPUTS = ("a", "bb", "a-much-longer-input-value")


def _payload(fmt: PayloadFormat, text: str) -> ToolPayload:
    if fmt is PayloadFormat.TEXT:
        return ToolPayload.text(text)
    return ToolPayload.python({"v": text})


@st.composite
def grants(draw: st.DrawFn, tool: str, fmt: PayloadFormat) -> CapabilityGrant:
    return CapabilityGrant(
        tool,
        fmt,
        draw(st.integers(1, 6)),
        draw(st.integers(8, 48)),
        draw(st.integers(4, 40)),
        draw(st.integers(0, 2)),
    )


statuses = st.one_of(
    st.just(("running", "")),
    st.just(("cancelled", "")),
    st.tuples(st.just("failed"), st.sampled_from(["", "boom", "other"])),
    st.tuples(st.just("succeeded"), st.sampled_from(["ok", "done", "x" * 30])),
)


class JournalMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.journal = WorkerOperationJournal.new(SCOPE)
        self.authorizer: SessionAuthorizer | None = None
        self.grants: dict[str, CapabilityGrant] = {}
        self.narrow: dict[str, CapabilityGrant] = {}
        self.dispatches: dict[str, AuthorizedDispatch] = {}
        self.compensations: dict[str, AuthorizedCompensation] = {}
        self.terminal: dict[tuple[str, str], str] = {}
        self.identities: dict[str, tuple[str, str, str]] = {}
        self.serial = 0

    @initialize(
        json_grant=grants("t.json", PayloadFormat.JSON),
        text_grant=grants("t.text", PayloadFormat.TEXT),
        narrowing=st.integers(1, 8),
    )
    def open_session(
        self, json_grant: CapabilityGrant, text_grant: CapabilityGrant, narrowing: int
    ) -> None:
        manifest = SessionManifest.new("session-1", [json_grant, text_grant])
        self.authorizer = SessionAuthorizer(manifest)
        self.grants = {grant.tool: grant for grant in manifest.grants}
        for grant in manifest.grants:
            smaller = max(1, grant.max_output_bytes // narrowing)
            self.narrow[grant.tool] = grant.attenuate(GrantAttenuation(max_output_bytes=smaller))

    # -- helpers ----------------------------------------------------------------------------

    def _request_id(self) -> str:
        self.serial += 1
        return f"r{self.serial}"

    def _status(self, tool: str, kind: str, text: str) -> OperationStatus:
        if kind == "running":
            return OperationStatus.running()
        if kind == "cancelled":
            return OperationStatus.cancelled()
        if kind == "failed":
            return OperationStatus.failed(text)
        return OperationStatus.succeeded(_payload(self.grants[tool].format, text))

    def _attempt(self, call: Any) -> Any:
        """Run ``call``; on a protocol error check that nothing changed and return None."""
        assert self.authorizer is not None
        journal_before = self.journal.to_json()
        counters_before = self.authorizer.counters()
        try:
            result = call()
        except RescindError as error:
            event(f"rejected: {error.code}")
            assert self.journal.to_json() == journal_before
            assert self.authorizer.counters() == counters_before
            return None
        event(f"accepted: {type(result).__name__}")
        return result

    def _grant(self, tool: str, narrow: bool) -> CapabilityGrant:
        return self.narrow[tool] if narrow else self.grants[tool]

    # -- rules ------------------------------------------------------------------------------

    @rule(tool=st.sampled_from(TOOLS), key=st.sampled_from(KEYS), text=st.sampled_from(INPUTS))
    def dispatch(self, tool: str, key: str, text: str) -> None:
        assert self.authorizer is not None
        request = OperationDispatchRequest(
            session_id="session-1",
            request_id=self._request_id(),
            tool=tool,
            operation_key=key,
            payload=_payload(self.grants[tool].format, text),
        )
        authorized = self._attempt(lambda: self.authorizer.authorize_operation(request))  # type: ignore[union-attr]
        if authorized is None:
            return
        applied = self._attempt(lambda: self.journal.admit(authorized))
        if applied is not None:
            self.journal = applied.journal
            self.dispatches.setdefault(key, authorized)

    @rule(key=st.sampled_from(KEYS), status=statuses, narrow=st.booleans())
    def observe(self, key: str, status: tuple[str, str], narrow: bool) -> None:
        if key not in self.dispatches:
            return
        original = self.dispatches[key]
        tool = original.request.tool
        authorized = AuthorizedDispatch(original.request, self._grant(tool, narrow))
        applied = self._attempt(
            lambda: self.journal.observe(authorized, self._status(tool, *status))
        )
        if applied is not None:
            self.journal = applied.journal

    @rule(key=st.sampled_from(KEYS), tool=st.sampled_from(TOOLS), status=statuses)
    def reconcile(self, key: str, tool: str, status: tuple[str, str]) -> None:
        assert self.authorizer is not None
        request = OperationReconcileRequest(
            session_id="session-1", request_id=self._request_id(), tool=tool, operation_key=key
        )
        authorized: AuthorizedReconciliation | None = self._attempt(
            lambda: self.authorizer.authorize_reconciliation(request)  # type: ignore[union-attr]
        )
        if authorized is None:
            return
        applied = self._attempt(
            lambda: self.journal.observe_reconciliation(authorized, self._status(tool, *status))
        )
        if applied is not None:
            self.journal = applied.journal

    @rule(
        key=st.sampled_from(KEYS),
        cmp_key=st.sampled_from(["cmp-undo", "cmp-other"]),
        text=st.sampled_from(INPUTS),
        tenant=st.sampled_from([SCOPE, "tenant-other"]),
        narrow=st.booleans(),
    )
    def compensate(self, key: str, cmp_key: str, text: str, tenant: str, narrow: bool) -> None:
        assert self.authorizer is not None
        if key not in self.dispatches:
            return
        tool = self.dispatches[key].request.tool
        grant = self.grants[tool]
        fingerprint = self._grant(tool, narrow).compensation_fingerprint()
        request = OperationCompensationRequest(
            session_id="session-1",
            request_id=self._request_id(),
            tool=tool,
            operation_key=key,
            compensation_key=cmp_key,
            tenant_scope=tenant,
            grant_fingerprint=fingerprint,
            payload=_payload(grant.format, text),
        )
        authorized = self._attempt(lambda: self.authorizer.authorize_compensation(request))  # type: ignore[union-attr]
        if authorized is None:
            return
        applied = self._attempt(lambda: self.journal.admit_compensation(authorized))
        if applied is not None:
            self.journal = applied.journal
            self.compensations.setdefault(key, authorized)

    @rule(key=st.sampled_from(KEYS), status=statuses, narrow=st.booleans())
    def observe_compensation(self, key: str, status: tuple[str, str], narrow: bool) -> None:
        if key not in self.compensations:
            return
        original = self.compensations[key]
        tool = original.request.tool
        authorized = AuthorizedCompensation(original.request, self._grant(tool, narrow))
        applied = self._attempt(
            lambda: self.journal.observe_compensation(authorized, self._status(tool, *status))
        )
        if applied is not None:
            self.journal = applied.journal

    # -- invariants -------------------------------------------------------------------------

    @invariant()
    def terminal_states_never_change(self) -> None:
        for record in self.journal.records:
            states = [("operation", record.state)]
            if record.compensation is not None:
                states.append(("compensation", record.compensation.state))
            for part, state in states:
                slot = (record.operation_key, part)
                if slot in self.terminal:
                    assert state.to_json() == self.terminal[slot], slot
                elif OPERATION_LIFECYCLE.is_terminal(state.phase):
                    self.terminal[slot] = state.to_json()

    @invariant()
    def one_compensation_identity_per_original(self) -> None:
        for record in self.journal.records:
            if record.compensation is None:
                assert record.operation_key not in self.identities
                continue
            assert record.state.phase is Phase.SUCCEEDED
            compensation = record.compensation
            identity = (
                compensation.compensation_key,
                compensation.input_fingerprint,
                compensation.grant_fingerprint,
            )
            assert self.identities.setdefault(record.operation_key, identity) == identity

    @invariant()
    def budgets_stay_within_grants(self) -> None:
        if self.authorizer is None:
            return
        for tool, grant in self.grants.items():
            assert self.authorizer.calls_for(tool) <= grant.max_calls
            assert self.authorizer.compensations_for(tool) <= grant.max_compensations
        assert self.authorizer.request_count <= 1024

    @invariant()
    def journal_round_trips(self) -> None:
        text = self.journal.to_json()
        assert WorkerOperationJournal.from_json_for_scope(text, SCOPE) == self.journal
        assert len(self.journal.records) <= 64


TestJournalMachine = JournalMachine.TestCase
