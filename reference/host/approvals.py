"""Approvals: process-local, one-use permissions issued by an engine (HL-22, HL-23).

Upstream's ``Approval`` cannot be serialized, cloned or built outside the crate, and the
compensation preparer takes it *by value*, so the Rust compiler guarantees one use. Python has
no moves, so the port makes the same guarantees explicit:

* construction needs a module-private token, so only ``issue_approval`` (called by the
  engine) can make one;
* pickling, copying and attribute assignment raise ``TypeError``;
* ``consume`` marks the approval used and raises ``ApprovalMismatch`` on a second use. The
  preparer consumes on entry, before any other check, so an approval is used up whatever the
  outcome of the preparation (also when the role, the grant or the sealing fails).

An approval binds the engine id, the plan id and a per-engine nonce (never 0). A compensation
approval also binds the ledger revision, operation key, compensation key, compensation input
fingerprint, tenant scope, grant fingerprint and the host authenticator's session id.
"""

from __future__ import annotations

import enum
from typing import Any, NoReturn

import attrs

from rescind.reference.host.errors import ApprovalMismatch


class ApprovalKind(enum.Enum):
    PLAN = "plan"
    COMPENSATION = "compensation"


@attrs.frozen
class CompensationBinding:
    """Everything a compensation approval is bound to besides engine, plan and nonce."""

    ledger_revision: int
    operation_key: str
    compensation_key: str
    input_fingerprint: str
    tenant_scope: str
    grant_fingerprint: str
    session_id: str


_ISSUE = object()


class Approval:
    """A one-use, in-memory approval. Obtain one from the engine; there is no other way."""

    __slots__ = ("_binding", "_consumed", "_engine_id", "_kind", "_nonce", "_plan_id")
    _engine_id: int
    _plan_id: int
    _nonce: int
    _kind: ApprovalKind
    _binding: CompensationBinding | None
    _consumed: bool

    def __init__(
        self,
        issue_token: object,
        *,
        engine_id: int,
        plan_id: int,
        nonce: int,
        kind: ApprovalKind,
        binding: CompensationBinding | None,
    ) -> None:
        if issue_token is not _ISSUE:
            raise TypeError("approvals are issued by a WorkflowEngine only")
        if (binding is None) != (kind is ApprovalKind.PLAN):
            raise TypeError("a compensation approval, and only it, carries a binding")
        object.__setattr__(self, "_engine_id", engine_id)
        object.__setattr__(self, "_plan_id", plan_id)
        object.__setattr__(self, "_nonce", nonce)
        object.__setattr__(self, "_kind", kind)
        object.__setattr__(self, "_binding", binding)
        object.__setattr__(self, "_consumed", False)

    @property
    def engine_id(self) -> int:
        return self._engine_id

    @property
    def plan_id(self) -> int:
        return self._plan_id

    @property
    def nonce(self) -> int:
        return self._nonce

    @property
    def kind(self) -> ApprovalKind:
        return self._kind

    @property
    def binding(self) -> CompensationBinding | None:
        return self._binding

    @property
    def consumed(self) -> bool:
        return self._consumed

    def consume(self) -> None:
        """Use the approval up; a second use is an ``ApprovalMismatch`` (Rust: a move)."""
        if self._consumed:
            raise ApprovalMismatch(reason="approval already used")
        object.__setattr__(self, "_consumed", True)

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise TypeError("an approval cannot be changed")

    def __delattr__(self, name: str) -> NoReturn:
        raise TypeError("an approval cannot be changed")

    def __reduce__(self) -> NoReturn:
        raise TypeError("an approval is process-local and cannot be serialized")

    def __reduce_ex__(self, protocol: Any) -> NoReturn:
        raise TypeError("an approval is process-local and cannot be serialized")

    def __copy__(self) -> NoReturn:
        raise TypeError("an approval cannot be copied")

    def __deepcopy__(self, memo: object) -> NoReturn:
        raise TypeError("an approval cannot be copied")

    def __repr__(self) -> str:
        return (
            f"Approval(kind={self.kind.value}, engine_id={self.engine_id}, "
            f"plan_id={self.plan_id}, consumed={self.consumed})"
        )


def issue_approval(
    *,
    engine_id: int,
    plan_id: int,
    nonce: int,
    kind: ApprovalKind,
    binding: CompensationBinding | None = None,
) -> Approval:
    """The only way to make an approval (the engine calls it)."""
    return Approval(
        _ISSUE, engine_id=engine_id, plan_id=plan_id, nonce=nonce, kind=kind, binding=binding
    )
