"""What a driver declares it cannot express inside a capability it implements: the catalogue of
restriction names a ``hello`` result may list under ``restrictions`` (docs/driver-protocol.md,
"Restrictions").

A restriction never hides a behaviour: vectors of the restricted shape are still sent, and a
driver that cannot run one answers ``unsupported`` (reported as such, never as a pass).
Generators of differential exploration read the restrictions and stay inside what the driver
can express, so exploration compares traces instead of stopping at the first step the
driver cannot build.

An unknown name is refused at the handshake (``bad_handshake``): a restriction changes what
the suite generates, so a misspelt one would otherwise go unnoticed while most generated
traces are discarded as inexpressible.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from rescind.reference.errors import RescindError


@attrs.frozen
class Restriction:
    name: str
    capabilities: tuple[str, ...]
    """The capabilities whose requests it concerns."""
    meaning: str
    affected: str
    """The request or step shapes it makes inexpressible."""


AUTHORIZED_BY_AUTHORIZER = Restriction(
    name="authorized-by-authorizer",
    capabilities=("journal", "authorizer"),
    meaning=(
        "the driver builds an authorized dispatch, compensation or reconciliation only through "
        "the session authorizer (upstream Splash: SessionAuthorizer::authorize_operation, "
        "authorize_compensation, authorize_reconciliation); it cannot build one from a raw "
        "request and grant pair that the authorizer would refuse"
    ),
    affected=(
        "journal.trace and authorizer.trace steps that name a raw `request` and `grant` "
        "instead of an `authorized` value made by an earlier authorize_* step"
    ),
)

HOST_INPUT_ABOVE_LEDGER_BOUND = Restriction(
    name="host-input-above-ledger-bound",
    capabilities=("host-keys", "canonical"),
    meaning=(
        "the driver reaches the host input fingerprint only by recording the bytes in an "
        "operation ledger (upstream Splash: WorkflowOperationLedger::record, then "
        "WorkflowOperation::input_fingerprint), which refuses inputs above 262,144 bytes"
    ),
    affected=(
        "host-keys.host_input_fingerprint of canonical input bytes above 262,144 bytes (the "
        "whole request) and the hostInputFingerprint member of canonical.input for such a payload"
    ),
)

COMPENSATION_KEY_FROM_FINGERPRINTS = Restriction(
    name="compensation-key-from-fingerprints",
    capabilities=("host-keys",),
    meaning=(
        "the driver derives a cmp- key only from a plan its engine made and a policy built from "
        "a grant (upstream Splash: WorkflowEngine::derive_compensation_key, "
        "WorkflowCompensationPolicy::new), never from a plan fingerprint and a grant "
        "fingerprint given as text"
    ),
    affected="host-keys.compensation_key (the whole request)",
)

RAW_COMPENSATION_POLICY = Restriction(
    name="raw-compensation-policy",
    capabilities=("ledger",),
    meaning=(
        "the driver builds a compensation policy only from a grant (upstream Splash: "
        "WorkflowCompensationPolicy::new; its fields are private), so a policy whose tool, "
        "tenant scope or grant fingerprint is given as text cannot be built"
    ),
    affected="ledger.trace steps `raw_policy` (the trace stops there)",
)

EXTERNAL_OPERATION_NEEDS_RUNTIME = Restriction(
    name="external-operation-needs-runtime",
    capabilities=("ledger",),
    meaning=(
        "the driver prepares an external operation only for a script suspended at an external "
        "tool call (upstream Splash: WorkflowEngine::prepare_next_external_operation), which "
        "Rescind's traces do not run"
    ),
    affected="ledger.trace steps `prepare_external_operation` (the trace stops there)",
)

OPERATION_INPUT_CHECK_PRIVATE = Restriction(
    name="operation-input-check-private",
    capabilities=("ledger",),
    meaning=(
        "the driver can ask whether input matches an operation (upstream Splash: "
        "WorkflowOperation::matches_input) but not run the checking variant that reports why "
        "(verify_input is private)"
    ),
    affected="ledger.trace steps `verify_input` (the trace stops there)",
)

APPROVAL_CONSUMED_ON_USE = Restriction(
    name="approval-consumed-on-use",
    capabilities=("ledger",),
    meaning=(
        "an approval passed to the compensation preparer is moved into it and gone, whatever "
        "the outcome (upstream Splash: WorkflowEngine::prepare_authenticated_operation_"
        "compensation takes Approval by value), so the driver cannot present it again"
    ),
    affected=(
        "ledger.trace steps `prepare_compensation` naming an `approval` that an earlier "
        "`prepare_compensation` step already named (the trace stops there)"
    ),
)

CATALOGUE: tuple[Restriction, ...] = (
    AUTHORIZED_BY_AUTHORIZER,
    HOST_INPUT_ABOVE_LEDGER_BOUND,
    COMPENSATION_KEY_FROM_FINGERPRINTS,
    RAW_COMPENSATION_POLICY,
    EXTERNAL_OPERATION_NEEDS_RUNTIME,
    OPERATION_INPUT_CHECK_PRIVATE,
    APPROVAL_CONSUMED_ON_USE,
)
"""Every restriction a driver may declare; the driver protocol schema lists the same names."""

BY_NAME: Mapping[str, Restriction] = {restriction.name: restriction for restriction in CATALOGUE}


class UnknownRestriction(RescindError):
    """A hello result names a restriction that is not in the catalogue."""

    code = "unknown_restriction"


def parse(names: Iterable[str]) -> frozenset[str]:
    """The declared names, every one of them known (else ``UnknownRestriction``)."""
    declared = frozenset(names)
    for name in sorted(declared):
        if name not in BY_NAME:
            raise UnknownRestriction(name=name, known=", ".join(sorted(BY_NAME)))
    return declared


def raw_authorization(step: Mapping[str, Any]) -> bool:
    """A journal/authorizer trace step of the shape ``authorized-by-authorizer`` restricts: it
    names a raw request and grant pair instead of an authorized value."""
    args = step.get("args", {})
    return isinstance(args, Mapping) and "request" in args and "grant" in args
