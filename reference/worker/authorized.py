"""Authorized requests: what a ``SessionAuthorizer`` hands to the journal and the result checks.

Each value pairs a request with the grant it was authorized under and the *provenance* of the
authorizer that issued it. The journal never looks at provenance (a value issued by a fresh
authorizer after a restart is accepted: cross-session recovery rests on the identity and
grant checks); only the authorizer's own result validators do, and they refuse a value issued
by any other authorizer instance (``authorization_provenance_mismatch``).
"""

from __future__ import annotations

import itertools

import attrs

from rescind.reference.grants import CapabilityGrant
from rescind.reference.messages import (
    OperationCompensationRequest,
    OperationDispatchRequest,
    OperationReconcileRequest,
)

_SERIAL = itertools.count(1)


@attrs.frozen(eq=False)
class Provenance:
    """Identity of one authorizer instance: equal only to itself. ``serial`` is for display."""

    serial: int = attrs.field(factory=lambda: next(_SERIAL))

    def __repr__(self) -> str:
        return f"Provenance(#{self.serial})"


@attrs.frozen
class AuthorizedDispatch:
    request: OperationDispatchRequest
    grant: CapabilityGrant
    provenance: Provenance = attrs.field(factory=Provenance, eq=False)


@attrs.frozen
class AuthorizedCompensation:
    request: OperationCompensationRequest
    grant: CapabilityGrant
    provenance: Provenance = attrs.field(factory=Provenance, eq=False)


@attrs.frozen
class AuthorizedReconciliation:
    request: OperationReconcileRequest
    grant: CapabilityGrant
    provenance: Provenance = attrs.field(factory=Provenance, eq=False)


@attrs.frozen
class AuthorizedCompensationReconciliation:
    """Extension (CR-4): a compensation reconciliation, authorized without budget. Its own
    type, so it can never be used to attach or run a compensation."""

    request: OperationCompensationRequest
    grant: CapabilityGrant
    provenance: Provenance = attrs.field(factory=Provenance, eq=False)
