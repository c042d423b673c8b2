"""Compensation policy, target and the two host verifier hooks (HL-16 .. HL-19).

A *policy* names the tool, the tenant scope and the fingerprint of the grant a compensation
is approved under; it never holds the grant itself. A *target* bundles the operation key, the
policy, the current grant and two host-supplied verifiers:

* the grant verifier (step G) decides whether this tenant may compensate under this grant;
* the action verifier (step A) decides whether this exact inverse action is acceptable.

Where each engine API runs G and A, and in which order relative to its own checks, is a
table in docs/spec/ledger.md (HL-18); the engine calls ``check_grant`` / ``check_action``
exactly there. A verifier denies by raising (conventionally ``CompensationGrantDenied`` /
``CompensationActionDenied``); the engine passes its error through unchanged.
"""

from __future__ import annotations

from typing import Protocol

import attrs

from rescind.reference.grants import CapabilityGrant
from rescind.reference.host.errors import (
    CompensationNotGranted,
    CompensationPolicyMismatch,
    InvalidCompensationGrantFingerprint,
    InvalidCompensationTenantScope,
    InvalidTool,
    OperationBindingMismatch,
)
from rescind.reference.host.ledger_records import OperationRecord
from rescind.reference.payload import ToolPayload
from rescind.reference.tokens import is_hex64, is_token

VERIFIER_PLACEHOLDER = "<host verifier>"


@attrs.frozen
class WorkflowCompensationPolicy:
    """(tool, tenant scope, grant fingerprint). ``create`` is the checked constructor; the
    plain constructor exists so an ill-formed policy can be represented and rejected by
    ``validate_syntax`` wherever upstream re-checks it."""

    tool: str
    tenant_scope: str
    grant_fingerprint: str

    @classmethod
    def create(cls, tenant_scope: str, grant: CapabilityGrant) -> WorkflowCompensationPolicy:
        """Tenant token, then grant validation (a protocol error), then a non-zero
        compensation budget, then the fingerprint (HL-16)."""
        if not is_token(tenant_scope):
            raise InvalidCompensationTenantScope(tenant_scope=tenant_scope)
        grant.validate()
        if grant.max_compensations == 0:
            raise CompensationNotGranted(tool=grant.tool)
        return cls(grant.tool, tenant_scope, grant.compensation_fingerprint())

    def validate_syntax(self) -> None:
        if not is_token(self.tool):
            raise InvalidTool(tool=self.tool)
        if not is_token(self.tenant_scope):
            raise InvalidCompensationTenantScope(tenant_scope=self.tenant_scope)
        if not is_hex64(self.grant_fingerprint):
            raise InvalidCompensationGrantFingerprint()


@attrs.frozen(repr=False)
class WorkflowCompensationAction:
    """What the action verifier sees. The raw canonical compensation input is there for the
    verifier to inspect, but ``repr`` shows only its length, so logging an action never
    logs a payload (HL-19)."""

    plan_fingerprint: str
    operation_key: str
    step_id: str
    tool: str
    """The original's tool, which is also the inverse action's tool."""
    operation_input_fingerprint: str
    """The original's input fingerprint; the original's raw input is never available."""
    tenant_scope: str
    grant: CapabilityGrant
    compensation_input: bytes

    def __repr__(self) -> str:
        return (
            f"WorkflowCompensationAction(plan_fingerprint={self.plan_fingerprint!r}, "
            f"operation_key={self.operation_key!r}, step_id={self.step_id!r}, "
            f"tool={self.tool!r}, tenant_scope={self.tenant_scope!r}, "
            f"compensation_input_len={len(self.compensation_input)})"
        )

    __str__ = __repr__


class CompensationGrantVerifier(Protocol):
    def verify_compensation_grant(self, tenant_scope: str, grant: CapabilityGrant) -> None:
        """Return to allow; raise (conventionally ``CompensationGrantDenied``) to deny."""


class CompensationActionVerifier(Protocol):
    def verify_compensation_action(self, action: WorkflowCompensationAction) -> None:
        """Return to allow; raise (conventionally ``CompensationActionDenied``) to deny."""


@attrs.frozen(repr=False)
class WorkflowCompensationTarget:
    """Which operation to compensate, under which policy and grant, checked by whom."""

    operation_key: str
    policy: WorkflowCompensationPolicy
    grant: CapabilityGrant
    grant_verifier: CompensationGrantVerifier = attrs.field(eq=False)
    action_verifier: CompensationActionVerifier = attrs.field(eq=False)

    def __repr__(self) -> str:
        return (
            f"WorkflowCompensationTarget(operation_key={self.operation_key!r}, "
            f"policy={self.policy!r}, grant={self.grant!r}, "
            f"grant_verifier={VERIFIER_PLACEHOLDER!r}, "
            f"action_verifier={VERIFIER_PLACEHOLDER!r})"
        )

    def check_grant(self) -> None:
        """Step G: policy syntax, policy against the current grant (tool, non-zero budget,
        recomputed fingerprint; an invalid grant raises its protocol error), then the host's
        grant verifier."""
        policy = self.policy
        policy.validate_syntax()
        grant = self.grant
        if grant.tool != policy.tool or grant.max_compensations == 0:
            raise CompensationPolicyMismatch(operation_key=self.operation_key)
        if grant.compensation_fingerprint() != policy.grant_fingerprint:
            raise CompensationPolicyMismatch(operation_key=self.operation_key)
        self.grant_verifier.verify_compensation_grant(policy.tenant_scope, grant)

    def check_action(
        self, plan_fingerprint: str, operation: OperationRecord, compensation_input: bytes
    ) -> None:
        """Step A: the target names this ledger operation, the operation's tool is the
        policy's, then the host's action verifier sees the exact inverse action."""
        if self.operation_key != operation.operation_key:
            raise OperationBindingMismatch(operation_key=self.operation_key)
        if operation.tool != self.policy.tool:
            raise CompensationPolicyMismatch(operation_key=operation.operation_key)
        self.action_verifier.verify_compensation_action(
            WorkflowCompensationAction(
                plan_fingerprint=plan_fingerprint,
                operation_key=operation.operation_key,
                step_id=operation.step_id,
                tool=operation.tool,
                operation_input_fingerprint=operation.input_fingerprint,
                tenant_scope=self.policy.tenant_scope,
                grant=self.grant,
                compensation_input=compensation_input,
            )
        )


@attrs.frozen(repr=False)
class WorkflowCompensationDispatch:
    """A request id and the compensation payload to seal; nothing is checked here (the
    request id is checked as a token when the request is built)."""

    request_id: str
    payload: ToolPayload

    def __repr__(self) -> str:
        return f"WorkflowCompensationDispatch(request_id={self.request_id!r})"
