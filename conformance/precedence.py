"""Error precedence as data: for every operation with two or more refusal codes, the order in
which upstream's code runs its checks (docs/spec/precedence.md, rules EP-n).

One list per operation, earliest check first. A check marked ``per_item`` runs once for each
item of a sequence (each step of a plan, each operation of a ledger, each grant of a
manifest), all per-item checks of one item before the next item's; so beside the adjacent
pairs of the list there is one more pair: the last per-item check of an item before the
first per-item check of the next item.

Every pair is covered by one generated vector (an input that breaks both checks, expecting
the earlier one's code; ``rescind.conformance.vectors.sets._precedence``), unless the
operation excuses it with a reason (no input can break both). Adding a check to a list adds
its vectors. ``python -m rescind.conformance.precedence FILE`` rewrites the generated part of
docs/spec/precedence.md; a test keeps the page and this data equal.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Final

import attrs

SPLASH: Final = "ymote/Splash 623d57c5c524f062ed5ddf8995cbed5b7b98e380"
AGENTCTL: Final = "opensourceops/agentctl 07b0f0827efb8c368e7563ae621a1a5f99639013"
PROTOCOL: Final = "crates/splash-protocol/src/lib.rs"
WORKFLOW: Final = "crates/splash-workflow/src/lib.rs"
BEGIN: Final = "<!-- precedence: generated from conformance/precedence.py, do not edit -->"
END: Final = "<!-- precedence: end -->"


@attrs.frozen
class Check:
    name: str
    code: str
    refuses: str
    """What the check refuses, one phrase."""
    per_item: bool = False
    marker: str = ""
    """For a code several checks of one list share: the value of the reference's detail
    ``marker_key`` that tells this check's refusal apart (the builder asserts it)."""
    marker_key: str = "reason"


@attrs.frozen
class Pair:
    operation: str
    first: Check
    second: Check
    next_item: bool = False
    """The second check runs on the next item (the loop's wrap-around pair)."""

    @property
    def name(self) -> str:
        later = f"next {self.second.name}" if self.next_item else self.second.name
        return f"{self.operation}: {self.first.name} > {later}"

    @property
    def slug(self) -> str:
        later = f"next-{self.second.name}" if self.next_item else self.second.name
        return f"{self.first.name}.{later}".replace("_", "-")


@attrs.frozen
class Operation:
    name: str
    rule: str
    """The EP-n rule that states this order."""
    title: str
    rules: tuple[str, ...]
    """The docs/spec rules that define the checks themselves."""
    citation: str
    """Upstream path and symbol (of ``repository``) whose code runs the checks."""
    checks: tuple[Check, ...]
    item: str = ""
    """What a per-item check loops over."""
    excused: Mapping[tuple[str, str], str] = attrs.field(factory=dict)
    """Adjacent pairs (first, second check name) that no input can break together."""
    note: str = ""
    repository: str = SPLASH
    """The upstream repository and commit the citation is read at."""
    acceptable: str = ""
    """Why upstream's order cannot be observed by code (then every pair vector is
    ``acceptable``: the earlier check's code, or the later one's, conforms)."""

    def pairs(self) -> tuple[Pair, ...]:
        pairs = [
            Pair(self.name, first, second)
            for first, second in zip(self.checks, self.checks[1:], strict=False)
        ]
        looped = [check for check in self.checks if check.per_item]
        if looped:
            pairs.append(Pair(self.name, looped[-1], looped[0], next_item=True))
        return tuple(pairs)

    def covered_pairs(self) -> tuple[Pair, ...]:
        """The pairs a vector must cover: every pair the operation does not excuse."""
        return tuple(p for p in self.pairs() if (p.first.name, p.second.name) not in self.excused)

    def check(self, name: str) -> Check:
        return next(check for check in self.checks if check.name == name)


_EXCLUSIVE_NONCE = "a nonce cannot be both empty and longer than 128 bytes"

OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "host.plan",
        "EP-1",
        "Planning (`WorkflowEngine::plan`, the plan fingerprint)",
        ("HK-3",),
        f"{WORKFLOW} `validate_steps`, called by `WorkflowEngine::plan`",
        (
            Check("non_empty", "invalid_plan", "a plan without steps", marker="empty plan"),
            Check("step_count", "invalid_plan", "more than 1,024 steps", marker="too many steps"),
            Check(
                "source_size",
                "invalid_plan",
                "more than 1,048,576 source bytes in total",
                marker="plan source too large",
            ),
            Check("step_id", "invalid_step_id", "a step id outside the token grammar", True),
            Check(
                "step_unique",
                "invalid_plan",
                "a step id equal to an earlier step's",
                True,
                marker="duplicate step id",
            ),
        ),
        item="step",
        excused={("non_empty", "step_count"): "an empty plan cannot have too many steps"},
        note=(
            "The three size checks share Rescind's `invalid_plan` (upstream: `EmptyPlan`,"
            " `TooManySteps`, `PlanSourceTooLarge`, `DuplicateStepId`); between them the order"
            " shows only in upstream's fields, which Rescind does not compare, so their pair"
            " vectors are observable by code only where the codes differ."
        ),
    ),
    Operation(
        "host.operation_key",
        "EP-2",
        "Deriving an operation key (`WorkflowEngine::derive_operation_key`)",
        ("HK-7", "HK-8"),
        f"{WORKFLOW} `WorkflowEngine::derive_operation_key`",
        (
            Check("plan_owned", "plan_ownership_mismatch", "a plan of another engine"),
            Check("step_known", "unknown_step", "a step the plan does not have"),
            Check("tool", "invalid_tool", "a tool outside the token grammar"),
            Check("input_size", "host_input_too_large", "more than 262,144 input bytes"),
            Check("nonce_empty", "empty_operation_nonce", "an empty nonce"),
            Check("nonce_size", "operation_nonce_too_large", "a nonce over 128 bytes"),
        ),
        excused={
            ("plan_owned", "step_known"): (
                "a vector plans on the engine that derives, so ownership cannot fail through"
                " the host-keys operation (the ledger traces cover a foreign plan)"
            ),
            ("nonce_empty", "nonce_size"): _EXCLUSIVE_NONCE,
        },
    ),
    Operation(
        "host.compensation_key",
        "EP-3",
        "Deriving a compensation key, after the ledger checks of HK-10",
        ("HK-8", "HK-10"),
        f"{WORKFLOW} `WorkflowEngine::derive_compensation_key` (its last three checks)",
        (
            Check("input_size", "host_input_too_large", "more than 262,144 input bytes"),
            Check("nonce_empty", "empty_operation_nonce", "an empty nonce"),
            Check("nonce_size", "operation_nonce_too_large", "a nonce over 128 bytes"),
        ),
        excused={("nonce_empty", "nonce_size"): _EXCLUSIVE_NONCE},
    ),
    Operation(
        "ledger.load",
        "EP-4",
        "Structural validation of a decoded ledger",
        ("HL-3",),
        f"{WORKFLOW} `WorkflowOperationLedger::validate_syntax`,"
        " `WorkflowOperationRecord::validate_syntax`,"
        " `WorkflowCompensationRecord::validate_syntax`",
        (
            Check("version", "ledger_unsupported_version", "a format version other than 2"),
            Check("plan_fingerprint", "invalid_plan_fingerprint", "a plan fingerprint not 64 hex"),
            Check("operation_count", "too_many_operations", "more than 64 operations"),
            Check("step_id", "invalid_step_id", "a step id outside the token grammar", True),
            Check("tool", "invalid_tool", "a tool outside the token grammar", True),
            Check(
                "operation_key",
                "invalid_operation_key",
                "an operation key not a token or starting with `cmp-`",
                True,
            ),
            Check(
                "input_fingerprint",
                "invalid_input_fingerprint",
                "an input fingerprint not 64 hex",
                True,
            ),
            Check(
                "compensation_state",
                "compensation_requires_succeeded_operation",
                "a compensation on an operation that has not succeeded",
                True,
            ),
            Check(
                "compensation_key",
                "invalid_compensation_key",
                "a compensation key not a `cmp-` token",
                True,
            ),
            Check(
                "compensation_input_fingerprint",
                "invalid_input_fingerprint",
                "a compensation input fingerprint not 64 hex",
                True,
            ),
            Check(
                "tenant_scope",
                "invalid_compensation_tenant_scope",
                "a tenant scope outside the token grammar",
                True,
            ),
            Check(
                "grant_fingerprint",
                "invalid_compensation_grant_fingerprint",
                "a grant fingerprint not 64 hex",
                True,
            ),
            Check(
                "operation_key_unique",
                "duplicate_operation_key",
                "an operation key equal to an earlier operation's",
                True,
            ),
        ),
        item="operation",
    ),
    Operation(
        "grants.manifest",
        "EP-5",
        "Validating a session manifest",
        ("GR-24",),
        f"{PROTOCOL} `SessionManifest::validate`",
        (
            Check("version", "unsupported_version", "a protocol version other than 5"),
            Check("grant_count", "too_many_grants", "more than 128 grants"),
            Check(
                "session_id",
                "invalid_token",
                "a session id outside the token grammar",
                marker="session id",
                marker_key="field",
            ),
            Check(
                "grant",
                "invalid_token",
                "a grant that fails its own validation (here: its tool)",
                True,
                marker="tool",
                marker_key="field",
            ),
            Check(
                "grant_unique",
                "duplicate_grant",
                "a grant whose tool an earlier grant has",
                True,
            ),
        ),
        item="grant",
        note=(
            "`session_id` and `grant` share `invalid_token`; the refusal's `field` (`session"
            " id` or `tool`) tells them apart."
        ),
    ),
)

_ZERO_CALLS = "max_calls must be greater than zero"
_ZERO_BYTES = "byte limits must be greater than zero"

OPERATIONS += (
    Operation(
        "grants.grant",
        "EP-6",
        "Validating a capability grant",
        ("GR-11",),
        f"{PROTOCOL} `CapabilityGrant::validate`",
        (
            Check("tool", "invalid_token", "a tool outside the token grammar"),
            Check("max_calls", "invalid_grant", "`max_calls` zero", marker=_ZERO_CALLS),
            Check(
                "byte_limits",
                "invalid_grant",
                "`max_input_bytes` or `max_output_bytes` zero",
                marker=_ZERO_BYTES,
            ),
            Check("resource_count", "too_many_resources", "more than 64 resources"),
            Check(
                "resource_id",
                "invalid_token",
                "a resource id outside the token grammar",
                marker="resource selector",
                marker_key="field",
            ),
        ),
        note=(
            "Upstream keeps resources in a `BTreeSet`, so they are checked in sorted order (kind,"
            " then id), not in the order they are listed; all of them give the same code."
        ),
    ),
)

OPERATIONS += (
    Operation(
        "grants.attenuate",
        "EP-7",
        "Attenuating a capability grant",
        ("GR-17", "GR-19", "GR-20", "GR-21"),
        f"{PROTOCOL} `CapabilityGrant::attenuate`",
        (
            Check("parent", "invalid_token", "a parent grant that fails `validate` (its tool)"),
            Check(
                "zero_limit",
                "invalid_grant",
                "a resulting call or byte limit of zero",
                marker="attenuated limits must be greater than zero",
            ),
            Check("widen", "attenuation_widens_limits", "a limit above the parent's"),
            Check("expand", "attenuation_expands_resources", "selectors outside the parent's"),
        ),
    ),
)


def _token(name: str, field: str, per_item: bool = False) -> Check:
    return Check(
        name,
        "invalid_token",
        f"a {field} outside the token grammar",
        per_item,
        marker=field,
        marker_key="field",
    )


OPERATIONS += (
    Operation(
        "authorizer.dispatch",
        "EP-8",
        "Authorizing an operation dispatch",
        ("WM-5", "AU-2", "AU-4", "AU-9"),
        f"{PROTOCOL} `SessionAuthorizer::authorize_operation`,"
        " `OperationDispatchRequest::validate_header`, `SessionAuthorizer::authorize_payload`,"
        " `ToolPayload::validate_for`, `SessionAuthorizer::reserve_request_id`",
        (
            Check("version", "unsupported_version", "a protocol version other than 5"),
            _token("session_token", "session id"),
            _token("request_id_token", "request id"),
            _token("tool_token", "tool"),
            _token("operation_key_token", "operation key"),
            Check("session", "unknown_session", "a session id other than the manifest's"),
            Check("tool_granted", "unknown_tool", "a tool no grant names"),
            Check("format", "payload_format_mismatch", "a payload format other than the grant's"),
            Check(
                "envelope", "invalid_json_envelope", "a JSON payload that is not object or array"
            ),
            Check("depth", "json_payload_too_deep", "a JSON payload nested deeper than 32"),
            Check("input_size", "input_too_large", "more canonical bytes than `max_input_bytes`"),
            Check("request_new", "duplicate_request", "a request id seen before"),
            Check("call_budget", "call_budget_exhausted", "no call left in the grant"),
            Check(
                "request_capacity",
                "session_request_limit_exceeded",
                "1,024 request ids seen already",
            ),
        ),
        excused={
            ("format", "envelope"): (
                "only a JSON payload has an envelope, and a JSON payload under a JSON grant"
                " matches its format"
            ),
            ("envelope", "depth"): "a scalar JSON payload has no depth to exceed",
            ("call_budget", "request_capacity"): (
                "breaking both needs 1,024 authorized requests in one trace; the capacity's own"
                " vectors (AU-9) show it alone"
            ),
        },
    ),
)

OPERATIONS += (
    Operation(
        "authorizer.reconcile",
        "EP-10",
        "Authorizing an operation reconciliation",
        ("WM-5", "AU-5", "AU-9"),
        f"{PROTOCOL} `SessionAuthorizer::authorize_reconciliation`,"
        " `OperationReconcileRequest::validate`, `SessionAuthorizer::reserve_request_id`",
        (
            Check("version", "unsupported_version", "a protocol version other than 5"),
            _token("session_token", "session id"),
            _token("request_id_token", "request id"),
            _token("tool_token", "tool"),
            _token("operation_key_token", "operation key"),
            Check("session", "unknown_session", "a session id other than the manifest's"),
            Check("tool_granted", "unknown_tool", "a tool no grant names"),
            Check("request_new", "duplicate_request", "a request id seen before"),
            Check(
                "request_capacity",
                "session_request_limit_exceeded",
                "1,024 request ids seen already",
            ),
        ),
        excused={
            ("request_new", "request_capacity"): (
                "breaking both needs 1,024 earlier requests; the hand-written trace"
                " `authorizer.edge-40.request-id-capacity` shows a reused id at capacity is a"
                " duplicate"
            ),
        },
    ),
)

OPERATIONS += (
    Operation(
        "authorizer.compensate",
        "EP-11",
        "Authorizing a compensation",
        ("WM-5", "WM-6", "AU-6", "AU-7", "AU-9"),
        f"{PROTOCOL} `SessionAuthorizer::authorize_compensation`,"
        " `OperationCompensationRequest::validate_header`, `validate_compensation_key`,"
        " `ToolPayload::validate_for`, `SessionAuthorizer::reserve_request_id`",
        (
            Check("version", "unsupported_version", "a protocol version other than 5"),
            _token("session_token", "session id"),
            _token("request_id_token", "request id"),
            _token("tool_token", "tool"),
            _token("operation_key_token", "operation key"),
            _token("compensation_key_token", "compensation key"),
            Check(
                "compensation_key_prefix",
                "invalid_compensation_key",
                "a compensation key without the `cmp-` prefix",
            ),
            _token("tenant_token", "tenant scope"),
            Check(
                "grant_fingerprint_format",
                "invalid_compensation_grant_fingerprint",
                "a grant fingerprint not 64 lowercase hex",
            ),
            Check("session", "unknown_session", "a session id other than the manifest's"),
            Check("tool_granted", "unknown_tool", "a tool no grant names"),
            Check(
                "compensation_granted",
                "compensation_not_granted",
                "a grant with `max_compensations` 0",
            ),
            Check(
                "grant_match",
                "compensation_grant_mismatch",
                "a grant fingerprint other than the grant's current one",
            ),
            Check("format", "payload_format_mismatch", "a payload format other than the grant's"),
            Check(
                "envelope", "invalid_json_envelope", "a JSON payload that is not object or array"
            ),
            Check("depth", "json_payload_too_deep", "a JSON payload nested deeper than 32"),
            Check("input_size", "input_too_large", "more canonical bytes than `max_input_bytes`"),
            Check("request_new", "duplicate_request", "a request id seen before"),
            Check(
                "budget",
                "compensation_budget_exhausted",
                "a new identity with no compensation left in the grant",
            ),
            Check(
                "request_capacity",
                "session_request_limit_exceeded",
                "1,024 request ids seen already",
            ),
        ),
        excused={
            ("format", "envelope"): (
                "only a JSON payload has an envelope, and a JSON payload under a JSON grant"
                " matches its format"
            ),
            ("envelope", "depth"): "a scalar JSON payload has no depth to exceed",
            ("budget", "request_capacity"): (
                "breaking both needs 1,024 authorized requests in one trace; the capacity's own"
                " vectors (AU-9) show it alone"
            ),
        },
    ),
)

OPERATIONS += (
    Operation(
        "journal.load",
        "EP-9",
        "Loading a worker operation journal",
        ("WJ-3", "WJ-4"),
        f"{PROTOCOL} `WorkerOperationJournal::from_json`, `WorkerOperationJournal::"
        "validate_and_bound`, `WorkerOperationRecord::validate`, `WorkerCompensationRecord::"
        "validate`",
        (
            Check("text_size", "operation_journal_too_large", "a text over 262,144 bytes"),
            Check("decode", "serialization", "an unknown member (strict decoding)"),
            Check("version", "unsupported_operation_journal_version", "a format version not 2"),
            _token("scope", "operation journal scope"),
            Check("record_count", "too_many_worker_operations", "more than 64 records"),
            _token("tool", "tool", per_item=True),
            _token("operation_key", "operation key", per_item=True),
            Check(
                "input_fingerprint",
                "invalid_operation_fingerprint",
                "an input fingerprint not 64 hex",
                True,
            ),
            Check(
                "state",
                "operation_failure_too_large",
                "a state that fails WM-7 (a failure message over 4,096 bytes)",
                True,
            ),
            Check(
                "compensation_state",
                "compensation_requires_succeeded_operation",
                "a compensation on a record that has not succeeded",
                True,
            ),
            Check(
                "compensation_key",
                "invalid_compensation_key",
                "a compensation key not a `cmp-` token",
                True,
            ),
            Check(
                "compensation_input_fingerprint",
                "invalid_operation_fingerprint",
                "a compensation input fingerprint not 64 hex",
                True,
            ),
            Check(
                "grant_fingerprint",
                "invalid_compensation_grant_fingerprint",
                "a grant fingerprint not 64 hex",
                True,
            ),
            Check(
                "compensation_state_valid",
                "operation_failure_too_large",
                "a compensation state that fails WM-7",
                True,
            ),
            Check(
                "operation_key_unique",
                "duplicate_operation_key",
                "an operation key equal to an earlier record's",
                True,
            ),
        ),
        item="record",
        note=(
            "Upstream checks the compact encoding's size again after the records; through"
            " loading that check cannot fail first, since a text that large is refused before"
            " it is parsed (`text_size`)."
        ),
    ),
)

OPERATIONS += (
    Operation(
        "frames.bootstrap",
        "EP-12",
        "Decoding the private-pipe bootstrap",
        ("FR-13", "FR-14"),
        f"{PROTOCOL} `PrivatePipeWorkerBootstrap::read_from`",
        (
            Check("magic", "invalid_bootstrap_magic", "other bytes than `SPLPBOOT`"),
            Check("version", "unsupported_bootstrap_version", "a version byte other than 1"),
            Check("length", "invalid_session_id_length", "a session id length of 0 or over 128"),
            Check("utf8", "invalid_session_id_encoding", "a session id that is not UTF-8"),
            Check("token", "invalid_token", "a session id outside the token grammar"),
            Check("weak_key", "weak_session_key", "an all-zero key"),
        ),
        note=(
            "Running out of bytes (`bootstrap_truncated`) can happen at any read, so it has no"
            " place in the list: a truncated record gets it at the first read that finds too"
            " few bytes."
        ),
    ),
    Operation(
        "frames.open",
        "EP-13",
        "Opening an authenticated frame",
        ("FR-7", "FR-10"),
        f"{PROTOCOL} `SessionAuthenticator::open`",
        (
            Check("sequence_zero", "invalid_sequence", "sequence 0"),
            Check(
                "message", "unsupported_version", "a message that fails validation (its version)"
            ),
            Check("tag_format", "invalid_authentication_tag", "a tag not 64 lowercase hex"),
            Check("tag", "invalid_authentication_tag", "a tag computed with another key"),
            Check("session", "unknown_session", "a message for another session"),
            Check("sequence_expected", "unexpected_sequence", "a sequence other than the next"),
            Check("sequence_exhausted", "sequence_exhausted", "a next incoming sequence of 2^64-1"),
        ),
        note=(
            "`tag_format` and `tag` share `invalid_authentication_tag` with no detail, so their"
            " order is not observable; either may run first."
        ),
    ),
)

OPERATIONS += (
    Operation(
        "storage.open",
        "EP-14",
        "Opening a stored record",
        ("ST-7", "ST-8", "ST-9", "ST-10", "ST-11", "ST-12", "ST-13", "ST-14", "ST-15", "ST-16"),
        "crates/splash-storage/src/lib.rs `validate_revision_pair`,"
        " `AuthenticatedStore::open_snapshot`",
        (
            Check("floor", "rollback_detected", "a backend revision below the floor"),
            Check("record_size", "record_too_large", "record bytes over 393,216"),
            Check("envelope", "invalid_envelope", "an envelope with a sixth field"),
            Check("format", "unsupported_format", "a format version other than 1"),
            Check("revision_zero", "invalid_revision", "an envelope revision of 0"),
            Check("revision_match", "revision_mismatch", "an envelope revision not the backend's"),
            Check("key_id", "invalid_key_id", "a key id outside the token grammar"),
            Check("payload_base64", "invalid_envelope", "a payload that is not strict base64"),
            Check("payload_size", "payload_too_large", "a decoded payload over 262,144 bytes"),
            Check(
                "tag_format",
                "storage_invalid_authentication_tag",
                "a tag not 64 lowercase hex",
            ),
            Check("key_known", "unknown_key_id", "a key id the keyring does not hold"),
            Check("tag", "storage_invalid_authentication_tag", "a tag that does not verify"),
        ),
        note=(
            "Step 1 (ST-7) has more outcomes than the one listed (a missing record, revision 0,"
            " a record above the floor); each refuses before the record is read. The payload's"
            " re-encoding check (ST-13) cannot fail after strict decoding succeeds, so it is"
            " not listed."
        ),
    ),
)

_ONE_STATE = "a status is one state: a failure message or a succeeded payload, not both"

OPERATIONS += (
    Operation(
        "journal.observe",
        "EP-15",
        "Observing an operation's status in the worker journal",
        ("WJ-6", "WJ-10"),
        f"{PROTOCOL} `WorkerOperationJournal::observe`, `validate_operation_status_for_grant`,"
        " `ensure_operation_identity`",
        (
            Check("status", "operation_failure_too_large", "a status that fails WM-7"),
            Check("format", "payload_format_mismatch", "a payload format other than the grant's"),
            Check(
                "envelope", "invalid_json_envelope", "a JSON payload that is not object or array"
            ),
            Check("depth", "json_payload_too_deep", "a JSON payload nested deeper than 32"),
            Check("output_size", "output_too_large", "more bytes than `max_output_bytes`"),
            Check("known", "unknown_operation", "a key the journal does not hold"),
            Check("identity", "operation_identity_mismatch", "another input under the same key"),
            Check(
                "transition",
                "invalid_worker_operation_transition",
                "a status the lifecycle table refuses after the stored one",
            ),
        ),
        excused={
            ("status", "format"): _ONE_STATE,
            ("format", "envelope"): "a text payload has no JSON envelope",
            ("envelope", "depth"): "a scalar JSON payload has no depth to exceed",
            ("known", "identity"): "a key the journal does not hold has no identity to compare",
        },
    ),
)

OPERATIONS += (
    Operation(
        "journal.admit_compensation",
        "EP-16",
        "Admitting a compensation in the worker journal",
        ("WJ-13", "WJ-15"),
        f"{PROTOCOL} `WorkerOperationJournal::admit_compensation`, `ensure_compensation_target`,"
        " `ensure_compensation_identity`, `validate_worker_operation_state_for_grant`",
        (
            Check("scope", "operation_journal_scope_mismatch", "a tenant scope not the journal's"),
            Check("known", "unknown_operation", "an original the journal does not hold"),
            Check("tool", "compensation_tool_mismatch", "a tool other than the original's"),
            Check(
                "succeeded",
                "compensation_requires_succeeded_operation",
                "an original that has not succeeded",
            ),
            Check(
                "identity",
                "compensation_identity_mismatch",
                "another key, input or grant than the compensation already attached",
            ),
            Check(
                "stored_state",
                "output_too_large",
                "an attached compensation's state the current grant no longer admits",
            ),
        ),
        excused={
            ("known", "tool"): "an original the journal does not hold has no tool to compare",
            ("succeeded", "identity"): (
                "a compensation is attached only to a succeeded original, which never leaves"
                " that state"
            ),
        },
        note=(
            "`stored_state` (`validate_worker_operation_state_for_grant` on the attached"
            " compensation) is reached only with a grant other than the one whose fingerprint"
            " the compensation carries; through the authorizer a changed grant changes the"
            " fingerprint, so `identity` refuses first, and only the raw spelling has this"
            " pair's vector."
        ),
    ),
)

OPERATIONS += (
    Operation(
        "casehub.compensate",
        "EP-17",
        "Compensating a CaseHub work item",
        ("SG-61",),
        "(mdproctor/work, not Splash) `runtime/src/main/java/io/casehub/work/runtime/service/"
        "WorkItemService.java` `WorkItemService.compensate` (commit not reported;"
        " docs/upstream-readings.md row 40)",
        (
            Check("exists", "saga_work_item_not_found", "an item id no item has"),
            Check("completed", "saga_work_item_not_completed", "an item that is not COMPLETED"),
            Check(
                "active",
                "saga_compensation_already_active",
                "an item with compensation activity already",
            ),
            Check(
                "compensator",
                "saga_compensator_not_compensable",
                "an item that itself compensates another",
            ),
        ),
        excused={("exists", "completed"): "an item that does not exist has no status"},
    ),
)

OPERATIONS += (
    Operation(
        "ledger.record_operation",
        "EP-18",
        "Recording an operation through the host engine",
        ("HL-6", "HL-11"),
        f"{WORKFLOW} `WorkflowEngine::record_operation`,"
        " `WorkflowOperationLedger::validate_for`, `WorkflowOperationLedger::record`",
        (
            Check("plan_owned", "plan_ownership_mismatch", "a plan of another engine"),
            Check("plan_binding", "plan_mismatch", "a ledger written for another plan"),
            Check("step_known", "unknown_step", "a step the plan does not have"),
            Check("input_size", "host_input_too_large", "more than 262,144 input bytes"),
            Check("operation_count", "too_many_operations", "a ledger holding 64 operations"),
            Check("revision", "ledger_revision_exhausted", "a ledger at revision 2^64-1"),
            Check("tool", "invalid_tool", "a tool outside the token grammar"),
            Check(
                "operation_key",
                "invalid_operation_key",
                "a key not a token or starting with `cmp-`",
            ),
            Check(
                "operation_key_unique",
                "duplicate_operation_key",
                "a key the ledger already holds",
            ),
        ),
        excused={
            ("operation_key", "operation_key_unique"): (
                "a key the ledger holds passed the key check when it was recorded, so an"
                " invalid key is never a repeated one"
            ),
        },
        note=(
            "The ledger's own validation (HL-3) runs between `step_known` and `input_size`; a"
            " ledger that loaded is valid, so it cannot refuse here. The step id's grammar is"
            " checked with the other syntax, but a step the plan has is always a token."
        ),
    ),
)

_UNKNOWN_HAS_NO_STATE = "an operation the ledger does not hold has no state to compare"
_LEDGER_STEPS = Check(
    "ledger_steps", "unknown_step", "a ledger operation on a step the plan does not have"
)
_LEDGER_FOR = (
    Check("plan_owned", "plan_ownership_mismatch", "a plan of another engine"),
    Check("plan_binding", "plan_mismatch", "a ledger written for another plan"),
    _LEDGER_STEPS,
)
"""``WorkflowEngine::validate_operation_ledger``: ownership, then ``validate_for``."""

OPERATIONS += (
    Operation(
        "ledger.record_compensation",
        "EP-30",
        "Recording a compensation intent through the host engine (no verifier)",
        ("HL-7", "HL-11"),
        f"{WORKFLOW} `WorkflowEngine::record_compensation`,"
        " `WorkflowOperationLedger::record_compensation`,"
        " `WorkflowCompensationPolicy::validate_syntax`",
        (
            *_LEDGER_FOR,
            Check("policy_tool", "invalid_tool", "a policy tool outside the token grammar"),
            Check(
                "policy_tenant",
                "invalid_compensation_tenant_scope",
                "a policy tenant scope outside the token grammar",
            ),
            Check(
                "policy_grant",
                "invalid_compensation_grant_fingerprint",
                "a policy grant fingerprint not 64 hex",
            ),
            Check("input_size", "host_input_too_large", "more than 262,144 input bytes"),
            Check("known", "unknown_operation", "an operation key the ledger does not hold"),
            Check(
                "succeeded",
                "compensation_requires_succeeded_operation",
                "an original that has not succeeded",
            ),
            Check("tool_match", "compensation_policy_mismatch", "a policy for another tool"),
            Check(
                "not_recorded",
                "compensation_already_recorded",
                "an original with a compensation intent already",
            ),
            Check(
                "compensation_key",
                "invalid_compensation_key",
                "a compensation key not a `cmp-` token",
            ),
            Check("revision", "ledger_revision_exhausted", "a ledger at revision 2^64-1"),
        ),
        excused={("known", "succeeded"): _UNKNOWN_HAS_NO_STATE},
        note=(
            "The ledger's own validation (HL-3) runs first inside `validate_for` and again in"
            " the ledger's `record_compensation`; a ledger that loaded is valid, so neither"
            " refuses here. Upstream's public `WorkflowCompensationPolicy::new` validates the"
            " policy, so the policy checks are reached only through a policy built without"
            " it (the trace call `raw_policy`, which `drivers/splash` answers `unsupported`)."
        ),
    ),
    Operation(
        "ledger.reconcile_request",
        "EP-31",
        "Building a reconciliation request through the host engine",
        ("HL-11", "HL-15"),
        f"{WORKFLOW} `WorkflowEngine::operation_reconcile_request`,"
        " `WorkflowOperationLedger::reconcile_request`, `WorkflowOperation::verify_input`,"
        f" then {PROTOCOL} `OperationReconcileRequest::new`",
        (
            *_LEDGER_FOR,
            Check(
                "operation_key",
                "invalid_operation_key",
                "an operation key outside the token grammar",
            ),
            Check("known", "unknown_operation", "an operation key the ledger does not hold"),
            Check("input_size", "host_input_too_large", "more than 262,144 input bytes"),
            Check(
                "input_match",
                "input_fingerprint_mismatch",
                "an input whose fingerprint is not the recorded one",
            ),
            Check("session_token", "invalid_token", "a session id outside the token grammar"),
            Check("request_id_token", "invalid_token", "a request id outside the token grammar"),
        ),
        note=(
            "A `cmp-` key is a token, so it passes `operation_key` and is then unknown"
            " (`known`). `session_token` and `request_id_token` share `invalid_token`, and a"
            " ledger trace reports the code only, so their order is not observable there;"
            " either may run first."
        ),
    ),
    Operation(
        "ledger.prepare_external_operation",
        "EP-32",
        "Preparing an external operation (the ledger half of"
        " `WorkflowEngine::prepare_next_external_operation`)",
        ("HK-7", "HK-8", "HL-11", "HL-26"),
        f"{WORKFLOW} `WorkflowEngine::prepare_next_external_operation`,"
        " `WorkflowEngine::derive_operation_key`,"
        " `WorkflowEngine::validate_external_operation_binding`",
        (
            Check("plan_owned", "plan_ownership_mismatch", "a plan of another engine"),
            Check("step_known", "unknown_step", "a step the plan does not have"),
            Check("tool", "invalid_tool", "a tool outside the token grammar"),
            Check("input_size", "host_input_too_large", "more than 262,144 input bytes"),
            Check("nonce_empty", "empty_operation_nonce", "an empty nonce"),
            Check("nonce_size", "operation_nonce_too_large", "a nonce over 128 bytes"),
            Check("plan_binding", "plan_mismatch", "a ledger written for another plan"),
            _LEDGER_STEPS,
            Check(
                "binding",
                "operation_binding_mismatch",
                "a recorded operation under the derived key with another step or tool",
            ),
            Check(
                "terminal",
                "operation_already_terminal",
                "a recorded operation under the derived key in a terminal state",
            ),
            Check(
                "input_match",
                "input_fingerprint_mismatch",
                "a recorded operation under the derived key with another input fingerprint",
            ),
        ),
        excused={("nonce_empty", "nonce_size"): _EXCLUSIVE_NONCE},
        note=(
            "Upstream first finds the suspended step and the next queued external tool call"
            " (its runtime half, which Rescind does not model: the step, tool and input are"
            " arguments here), then derives the key (EP-2's checks), then validates the ledger;"
            " a key not yet recorded is recorded (EP-18), a recorded one is checked for drift."
            " `drivers/splash` answers this call `unsupported` (it needs a suspended runtime)."
        ),
    ),
)

_NO_INTENT = "an original without a compensation intent has no stored tenant or grant to compare"

OPERATIONS += (
    Operation(
        "ledger.approve_compensation",
        "EP-33",
        "Approving a compensation (`WorkflowEngine::approve_compensation`)",
        ("HL-11", "HL-17", "HL-22"),
        f"{WORKFLOW} `WorkflowEngine::approve_compensation`,"
        " `WorkflowCompensationTarget::verify_grant_current`,"
        " `WorkflowCompensation::matches_policy`, `WorkflowCompensation::verify_input`,"
        " `WorkflowCompensationTarget::verify_action_current`",
        (
            Check(
                "role",
                "compensation_dispatch_requires_host_authenticator",
                "an authenticator of the worker role",
            ),
            *_LEDGER_FOR,
            Check("policy_tool", "invalid_tool", "a policy tool outside the token grammar"),
            Check(
                "policy_tenant",
                "invalid_compensation_tenant_scope",
                "a policy tenant scope outside the token grammar",
            ),
            Check(
                "policy_grant",
                "invalid_compensation_grant_fingerprint",
                "a policy grant fingerprint not 64 hex",
            ),
            Check(
                "grant_match",
                "compensation_policy_mismatch",
                "a current grant of another tool, without compensations or of another"
                " fingerprint than the policy's",
            ),
            Check("grant_verifier", "compensation_grant_denied", "a grant verifier that denies"),
            Check("known", "unknown_operation", "an operation key the ledger does not hold"),
            Check(
                "succeeded",
                "compensation_requires_succeeded_operation",
                "an original that has not succeeded",
            ),
            Check("tool_match", "compensation_policy_mismatch", "an original of another tool"),
            Check("intent", "unknown_compensation", "an original without a compensation intent"),
            Check(
                "policy_match",
                "compensation_policy_mismatch",
                "an intent recorded under another tenant or grant fingerprint",
            ),
            Check("input_size", "host_input_too_large", "more than 262,144 input bytes"),
            Check(
                "input_match",
                "compensation_input_fingerprint_mismatch",
                "an input whose fingerprint is not the intent's",
            ),
            Check(
                "action_verifier", "compensation_action_denied", "an action verifier that denies"
            ),
        ),
        excused={
            ("known", "succeeded"): _UNKNOWN_HAS_NO_STATE,
            ("intent", "policy_match"): _NO_INTENT,
        },
        note=(
            "The action check (A) also compares the target's key with the operation's"
            " (`operation_binding_mismatch`) and the operation's tool with the policy's; the"
            " operation was looked up under the target's key and its tool compared already"
            " (`tool_match`), so neither can refuse here and they are not listed. The"
            " intent's own state is not looked at. An original that has not succeeded"
            " cannot hold an intent (HL-3), so `succeeded` is broken by an original without"
            " one."
        ),
    ),
)

_UNKNOWN_HAS_NO_TOOL = "an operation the ledger does not hold has no tool to compare"
_APPLY_NOTE = (
    "The request is a prepared one and the result the worker's reply, each optionally"
    " edited (`request_valid`: the request's protocol version; `result_valid`: a result"
    " session id outside the token grammar)."
)

OPERATIONS += (
    Operation(
        "ledger.apply_reconciliation",
        "EP-34",
        "Applying a verified reconciliation result through the host engine",
        ("HL-10", "HL-11", "HL-15"),
        f"{WORKFLOW} `WorkflowEngine::apply_verified_operation_reconciliation`,"
        " `WorkflowOperationLedger::apply_verified_reconciliation`",
        (
            *_LEDGER_FOR,
            Check("request_valid", "unsupported_version", "a request that fails validation"),
            Check("result_valid", "invalid_token", "a result that fails validation"),
            Check(
                "match",
                "reconciliation_mismatch",
                "a result for another request (its request id)",
            ),
            Check("known", "unknown_operation", "an operation key the ledger does not hold"),
            Check("tool", "reconciliation_mismatch", "a recorded operation of another tool"),
            Check(
                "transition",
                "invalid_state_transition",
                "an observed state the lifecycle table refuses after the stored one",
            ),
            Check("revision", "ledger_revision_exhausted", "a ledger at revision 2^64-1"),
        ),
        excused={("known", "tool"): _UNKNOWN_HAS_NO_TOOL},
        note=_APPLY_NOTE
        + " Upstream maps the result's status to a state before it looks the operation up;"
        " that mapping cannot fail.",
    ),
    Operation(
        "ledger.apply_compensation",
        "EP-35",
        "Applying a verified compensation result through the host engine",
        ("HL-10", "HL-11", "HL-21"),
        f"{WORKFLOW} `WorkflowEngine::apply_verified_operation_compensation`,"
        " `WorkflowOperationLedger::apply_verified_compensation`,"
        " `WorkflowCompensation::verify_input`",
        (
            *_LEDGER_FOR,
            Check("request_valid", "unsupported_version", "a request that fails validation"),
            Check("result_valid", "invalid_token", "a result that fails validation"),
            Check(
                "match",
                "compensation_request_mismatch",
                "a result for another request (its request id)",
            ),
            Check("known", "unknown_operation", "an operation key the ledger does not hold"),
            Check("tool", "compensation_request_mismatch", "a recorded operation of another tool"),
            Check("intent", "unknown_compensation", "an operation without a compensation intent"),
            Check(
                "input_size",
                "host_input_too_large",
                "a request payload of more than 262,144 canonical bytes",
            ),
            Check(
                "input_match",
                "compensation_input_fingerprint_mismatch",
                "a request payload whose fingerprint is not the intent's",
            ),
            Check(
                "identity",
                "compensation_request_mismatch",
                "an intent with another compensation key, tenant or grant fingerprint",
            ),
            Check(
                "transition",
                "invalid_compensation_state_transition",
                "an observed state the lifecycle table refuses after the intent's",
            ),
            Check("revision", "ledger_revision_exhausted", "a ledger at revision 2^64-1"),
        ),
        excused={("known", "tool"): _UNKNOWN_HAS_NO_TOOL},
        note=_APPLY_NOTE,
    ),
)

OPERATIONS += (
    Operation(
        "canonical.input",
        "EP-36",
        "Reading a payload for its canonical input bytes and host input fingerprint",
        ("CJ-1", "CJ-9", "CJ-22", "CJ-23", "CJ-24", "CJ-29"),
        f"{PROTOCOL} `ToolPayload::validate_for`, `validate_json_payload_depth`,"
        " `canonical_operation_input_bytes`, after serde_json 1.0.150 `from_slice`",
        (
            Check("parse", "serialization", "a text that is not one JSON value (CJ-1 to CJ-9)"),
            Check("envelope", "invalid_json_envelope", "a root that is not object or array"),
            Check("depth", "json_payload_too_deep", "nesting deeper than 32"),
            Check("size", "input_too_large", "more canonical bytes than the bound"),
        ),
        excused={("envelope", "depth"): "a scalar root has no depth to exceed"},
        note=(
            "Parsing ends at the first fault in text order, whatever its kind (a bad number,"
            " an invalid escape, a trailing comma, invalid UTF-8 inside a string, the 128th"
            " nested container): all are `serialization`, and upstream reports no reason, so"
            " which of two parse faults wins is not observable (the `reason` Rescind gives is"
            " informative). A repeated key is not a fault (CJ-10). Nesting deeper than 127"
            " is therefore `serialization`, and only depths 33 to 127 reach `depth`."
        ),
    ),
)

_AGENTCTL_READ = (
    " Read at the commit of docs/upstream-readings.md (A-ST, A-RT); not re-read at the"
    " newest stored commit."
)

OPERATIONS += (
    Operation(
        "saga.reconcile",
        "EP-37",
        "Appending an agentctl reconciliation record",
        ("SG-7", "SG-83"),
        "crates/agentctl-store/src/lib.rs `reconcile_effect` (docs/upstream-readings.md rows 4"
        " and 5)",
        (
            Check(
                "fields",
                "saga_reconciliation_field_missing",
                "a blank actor or reason, `applied` without a result, `compensated` without a"
                " compensating effect",
            ),
            Check("effect", "saga_unknown_effect", "an effect id no effect has"),
            Check(
                "transition",
                "saga_reconciliation_not_allowed",
                "a first record the raw status does not allow (a later one that contradicts"
                " the latest is `saga_contradictory_reconciliation`)",
            ),
            Check("self", "saga_self_compensation", "a compensating effect that is the effect"),
            Check("inverse_known", "saga_unknown_effect", "a compensating effect no effect is"),
            Check(
                "linked",
                "saga_unrelated_compensation_effect",
                "a compensating effect of neither the effect's run nor one of its compensation"
                " runs",
            ),
            Check(
                "confirmed",
                "saga_unconfirmed_compensation_effect",
                "a compensating effect not confirmed applied",
            ),
        ),
        excused={
            ("effect", "transition"): "an effect that does not exist has no raw status",
            ("self", "inverse_known"): (
                "one compensating effect id cannot name the effect itself and no effect"
            ),
            ("inverse_known", "linked"): "a compensating effect that does not exist has no run",
        },
        note=(
            "The four field checks share one code and a run step reports the code only, so"
            " their order (actor, reason, result, compensating effect) is not observable"
            " there. The compensating effect is checked whenever one is named, whatever the"
            " record's status." + _AGENTCTL_READ
        ),
        repository=AGENTCTL,
    ),
    Operation(
        "saga.plan",
        "EP-38",
        "Planning an agentctl compensation (`plan_compensation`)",
        ("SG-10", "SG-17", "SG-98"),
        "crates/agentctl-runtime/src/lib.rs `plan_compensation` (docs/upstream-readings.md row 6)",
        (
            Check("source_terminal", "saga_source_not_terminal", "a source run not terminal"),
            Check(
                "input_object",
                "saga_compensation_input_not_object",
                "a task whose rendered compensate input is not a JSON object",
            ),
            Check(
                "generated_valid",
                "saga_generated_workflow_invalid",
                "a generated workflow that does not compile (a rendered invalid template)",
            ),
        ),
        note=(
            "Tasks are rendered in reverse compiled order and the first non-object input"
            " refuses the plan; the generated workflow is compiled once, after every task is"
            " rendered. Blocks (SG-12 to SG-17) are not refusals: a blocked task is left out"
            " of the plan." + _AGENTCTL_READ
        ),
        repository=AGENTCTL,
    ),
)

OPERATIONS += (
    Operation(
        "ledger.dispatch_request",
        "EP-52",
        "Building a dispatch request through the host engine",
        ("HL-11", "HL-14"),
        f"{WORKFLOW} `WorkflowEngine::operation_dispatch_request`, then {PROTOCOL}"
        " `OperationDispatchRequest::new`, `WorkflowOperation::verify_input`",
        (
            *_LEDGER_FOR,
            Check("known", "unknown_operation", "an operation key the ledger does not hold"),
            Check("session_token", "invalid_token", "a session id outside the token grammar"),
            Check("request_id_token", "invalid_token", "a request id outside the token grammar"),
            Check(
                "envelope", "invalid_json_envelope", "a JSON payload that is not object or array"
            ),
            Check("depth", "json_payload_too_deep", "a JSON payload nested deeper than 32"),
            Check(
                "input_size",
                "host_input_too_large",
                "a payload of more than 262,144 canonical input bytes",
            ),
            Check(
                "input_match",
                "input_fingerprint_mismatch",
                "a payload whose fingerprint is not the recorded one",
            ),
        ),
        excused={
            ("envelope", "depth"): "a scalar JSON payload has no depth to exceed",
            ("depth", "input_size"): (
                "breaking both needs a deep JSON payload of over 256 KiB written out in the"
                " vector (a trace's `repeat` shorthand expands text payloads only); the"
                " authorizer's EP-8 shows depth before size"
            ),
        },
        note=(
            "`session_token` and `request_id_token` share `invalid_token`, and a ledger trace"
            " reports the code only, so their order is not observable there. The request's"
            " tool and key are the recorded operation's, so they cannot fail. Terminal"
            " operations are not refused."
        ),
    ),
)

OPERATIONS += (
    Operation(
        "ledger.record_compensation_verified",
        "EP-53",
        "Recording a compensation intent with the grant and action verifiers",
        ("HL-7", "HL-17", "HL-18"),
        f"{WORKFLOW} `WorkflowEngine::record_compensation_with_action_verifier`,"
        " `WorkflowCompensationTarget::verify_grant_current`,"
        " `WorkflowCompensationTarget::verify_action_current`,"
        " `WorkflowOperationLedger::record_compensation`",
        (
            *_LEDGER_FOR,
            Check("policy_tool", "invalid_tool", "a policy tool outside the token grammar"),
            Check(
                "policy_tenant",
                "invalid_compensation_tenant_scope",
                "a policy tenant scope outside the token grammar",
            ),
            Check(
                "policy_grant",
                "invalid_compensation_grant_fingerprint",
                "a policy grant fingerprint not 64 hex",
            ),
            Check(
                "grant_match",
                "compensation_policy_mismatch",
                "a current grant of another tool, without compensations or of another"
                " fingerprint than the policy's",
            ),
            Check("grant_verifier", "compensation_grant_denied", "a grant verifier that denies"),
            Check("input_size", "host_input_too_large", "more than 262,144 input bytes"),
            Check("known", "unknown_operation", "an operation key the ledger does not hold"),
            Check("action_tool", "compensation_policy_mismatch", "an original of another tool"),
            Check(
                "action_verifier", "compensation_action_denied", "an action verifier that denies"
            ),
            Check(
                "succeeded",
                "compensation_requires_succeeded_operation",
                "an original that has not succeeded",
            ),
            Check(
                "not_recorded",
                "compensation_already_recorded",
                "an original with a compensation intent already",
            ),
            Check(
                "compensation_key",
                "invalid_compensation_key",
                "a compensation key not a `cmp-` token",
            ),
            Check("revision", "ledger_revision_exhausted", "a ledger at revision 2^64-1"),
        ),
        excused={
            ("known", "action_tool"): "an operation the ledger does not hold has no tool",
            ("succeeded", "not_recorded"): (
                "an original that has not succeeded cannot hold an intent (HL-3)"
            ),
        },
        note=(
            "Both verifiers run before the ledger refuses an original that has not succeeded"
            " or already has an intent (HL-18). The action check also compares the target's"
            " key with the operation's, which the lookup under that key makes equal; the"
            " ledger's own `record_compensation` repeats the policy, size, lookup and tool"
            " checks, which cannot refuse by then."
        ),
    ),
)

OPERATIONS += (
    Operation(
        "casehub.bindings",
        "EP-39",
        "Loading a CaseHub binding set (compensation bindings)",
        ("SG-50", "SG-51", "SG-52", "SG-55", "SG-87"),
        "api/src/main/java/io/casehub/api/model/converter/YamlCaseDefinitionConverter.java"
        " `convert`, `Binding.validateCompensationBindings` (docs/upstream-readings.md rows C-YC,"
        " C-BV and 35)",
        (
            Check(
                "self_reference",
                "saga_binding_self_reference",
                "a binding whose `compensate` names itself",
            ),
            Check(
                "missing_target",
                "saga_binding_missing_target",
                "a later binding whose `compensate` names no binding",
            ),
            Check("cycle", "saga_binding_cycle", "`compensate` references that form a cycle"),
            Check(
                "orphan",
                "saga_binding_orphan",
                "a compensation-only binding no binding names",
            ),
        ),
        note=(
            "Rescind reads the bindings in order (each binding's own reference: itself, then"
            " unknown), then the cycles, then the orphans, and reports the first error's code"
            " with every finding; a self reference and a missing target are therefore in"
            " the order of their bindings, and the list shows them for bindings in that"
            " order."
        ),
        repository="mdproctor/engine ee78965427b6daaad22aef449deae1ec654a4af0",
        acceptable=(
            "upstream collects every error and refuses the definition with one"
            " `IllegalArgumentException` whose message joins them, so no code tells which"
            " comes first"
        ),
    ),
)

OPERATIONS += (
    Operation(
        "casehub.case_compensate",
        "EP-50",
        "Compensating a CaseHub case",
        ("SG-42",),
        "planning/src/main/java/io/casehub/engine/planning/compensation/"
        "CaseCompensationServiceImpl.java (docs/upstream-readings.md row C-SV)",
        (
            Check("exists", "saga_case_not_found", "a case id no case has"),
            Check(
                "entry",
                "saga_case_not_compensable",
                "a case neither COMPLETED nor COMPENSATION_FAULTED",
            ),
        ),
        excused={("exists", "entry"): "a case that does not exist has no status"},
        repository="mdproctor/engine 1a547de656d313c9efc4418a8fa46368fd779dbd",
    ),
    Operation(
        "casehub.work_item_transition",
        "EP-51",
        "A lifecycle call on a CaseHub work item",
        ("SG-60", "SG-88"),
        "runtime/src/main/java/io/casehub/work/runtime/service/WorkItemService.java, every"
        " lifecycle method (commit not reported; docs/upstream-readings.md row W-SV)",
        (
            Check("exists", "saga_work_item_not_found", "an item id no item has"),
            Check(
                "transition",
                "saga_illegal_transition",
                "a call the work-item table refuses from the item's status",
            ),
        ),
        excused={("exists", "transition"): "an item that does not exist has no status"},
        repository="mdproctor/work",
    ),
)

OPERATIONS += (
    Operation(
        "frames.seal",
        "EP-19",
        "Sealing an authenticated frame",
        ("FR-6",),
        f"{PROTOCOL} `SessionAuthenticator::seal`",
        (
            Check(
                "message", "unsupported_version", "a message that fails validation (its version)"
            ),
            Check("session", "unknown_session", "a message for another session"),
            Check("sequence_exhausted", "sequence_exhausted", "a next outgoing sequence of 2^64-1"),
            Check("size", "wire_frame_too_large", "an authenticated text or frame over 1 MiB"),
        ),
    ),
)

_STORAGE: Final = "crates/splash-storage/src/lib.rs"
_HELD_OR_NEW = (
    "the identity and stored-state checks run only for a key the journal holds, the record"
    " limit and the size only for a new key"
)
_NO_RECORD = "a key the journal does not hold has no tool to compare"

OPERATIONS += (
    Operation(
        "journal.admit",
        "EP-20",
        "Admitting an operation in the worker journal",
        ("WJ-8", "WJ-9", "WJ-17"),
        f"{PROTOCOL} `WorkerOperationJournal::admit`, `ensure_operation_identity`,"
        " `validate_worker_operation_state_for_grant`,"
        " `WorkerOperationJournal::validate_and_bound`",
        (
            Check(
                "identity",
                "operation_identity_mismatch",
                "another tool or input under a key the journal holds",
            ),
            Check(
                "stored_state",
                "output_too_large",
                "a held state the current grant no longer admits (here: its output)",
            ),
            Check(
                "record_count", "too_many_worker_operations", "a new key in a journal of 64 records"
            ),
            Check(
                "journal_size",
                "operation_journal_too_large",
                "a new record that takes the journal over 262,144 bytes",
            ),
        ),
        excused={
            ("stored_state", "record_count"): _HELD_OR_NEW,
            ("record_count", "journal_size"): (
                "breaking both needs 64 records within a few bytes of 262,144 (a vector of"
                " about 256 KiB); the limits' own vectors (WJ-9, WJ-3) show each alone"
            ),
        },
        note=(
            "The stored state is checked as a status against the grant (WM-7, then EP-15's"
            " `format` to `output_size`); the size is the whole-journal check (WJ-3) of the"
            " candidate journal."
        ),
    ),
    Operation(
        "journal.reconcile",
        "EP-21",
        "Observing a reconciliation in the worker journal",
        ("WJ-11", "WJ-12"),
        f"{PROTOCOL} `WorkerOperationJournal::validate_reconciliation`,"
        " `WorkerOperationJournal::observe_reconciliation`",
        (
            Check("known", "unknown_operation", "a key the journal does not hold"),
            Check("tool", "operation_identity_mismatch", "a tool other than the record's"),
            Check(
                "stored_state",
                "output_too_large",
                "a stored state the current grant no longer admits (here: its output)",
            ),
            Check("status", "operation_failure_too_large", "a status that fails WM-7"),
            Check(
                "transition",
                "invalid_worker_operation_transition",
                "a status the lifecycle table refuses after the stored one",
            ),
        ),
        excused={("known", "tool"): _NO_RECORD},
        note=(
            "`validate_reconciliation` is the first three checks alone. The status is checked"
            " against the grant as in EP-15 (`status` to `output_size`)."
        ),
    ),
    Operation(
        "journal.observe_compensation",
        "EP-22",
        "Observing a compensation's status in the worker journal",
        ("WJ-14", "WJ-15"),
        f"{PROTOCOL} `WorkerOperationJournal::observe_compensation`,"
        " `validate_operation_status_for_grant`, `ensure_compensation_target`,"
        " `ensure_compensation_identity`",
        (
            Check("status", "operation_failure_too_large", "a status that fails WM-7"),
            Check("scope", "operation_journal_scope_mismatch", "a tenant scope not the journal's"),
            Check("known", "unknown_operation", "an original the journal does not hold"),
            Check("tool", "compensation_tool_mismatch", "a tool other than the original's"),
            Check("attached", "unknown_compensation", "an original with no compensation"),
            Check(
                "identity",
                "compensation_identity_mismatch",
                "another key, input or grant than the compensation attached",
            ),
            Check(
                "transition",
                "invalid_worker_compensation_transition",
                "a status the lifecycle table refuses after the stored one",
            ),
        ),
        excused={
            ("known", "tool"): "an original the journal does not hold has no tool to compare",
            ("attached", "identity"): "no compensation attached, no identity to compare",
        },
        note=(
            "The status is checked against the grant as in EP-15 (`status` to `output_size`)."
            " Rescind's compensation reconciliation (CR-5, an extension) runs the same checks"
            " from `scope` to `identity`, then the stored state against the grant."
        ),
    ),
    Operation(
        "storage.write",
        "EP-23",
        "Writing a stored record without a fence (`create`, `replace`, `compare_and_swap`)",
        ("ST-18", "ST-19", "ST-20", "ST-27"),
        f"{_STORAGE} `AuthenticatedStore::compare_and_swap`, `prepare_compare_and_swap`,"
        " `VolatileMemoryStore::compare_and_swap`",
        (
            Check("payload_size", "payload_too_large", "a payload over 262,144 bytes"),
            Check(
                "current",
                "unknown_key_id",
                "a current record that does not open (EP-14; here: sealed under a retired key)",
            ),
            Check("conflict", "write_conflict", "an expected revision not the current one"),
            Check("exhausted", "storage_revision_exhausted", "a current revision of 2^64-1"),
            Check("fencing_required", "fencing_required", "a key whose fence is set"),
        ),
        note=(
            "The fence is the backend's check, made in its atomic write after the store's own"
            " checks, so every other refusal comes first."
        ),
    ),
    Operation(
        "storage.write_fenced",
        "EP-24",
        "Writing a stored record under a fencing token (`compare_and_swap_fenced`)",
        ("ST-25", "ST-28", "ST-18", "ST-19", "ST-20"),
        f"{_STORAGE} `AuthenticatedStore::compare_and_swap_fenced`,"
        " `VolatileMemoryStore::establish_fence`, `prepare_compare_and_swap`",
        (
            Check("fence_zero", "invalid_fencing_token", "a token of 0"),
            Check("fence_stale", "fencing_token_rejected", "a token below the current fence"),
            Check("payload_size", "payload_too_large", "a payload over 262,144 bytes"),
            Check(
                "current",
                "unknown_key_id",
                "a current record that does not open (EP-14; here: sealed under a retired key)",
            ),
            Check("conflict", "write_conflict", "an expected revision not the current one"),
            Check("exhausted", "storage_revision_exhausted", "a current revision of 2^64-1"),
        ),
        note=(
            "The token is established before the record is read (ST-28), so a stale writer is"
            " refused whatever else is wrong; the backend checks the token again in its"
            " atomic write, where it cannot fail after a successful establishment."
        ),
    ),
    Operation(
        "storage.record_key",
        "EP-25",
        "Naming a stored record (every storage call)",
        ("ST-2",),
        f"{_STORAGE} `StorageRecordKey::new`",
        (
            Check("namespace", "invalid_record_namespace", "a namespace outside the token grammar"),
            Check("name", "invalid_record_name", "a name outside the token grammar"),
        ),
    ),
)

OPERATIONS += (
    Operation(
        "authorizer.result",
        "EP-26",
        "Validating an operation's result in the session authorizer",
        ("AU-10", "WM-12"),
        f"{PROTOCOL} `SessionAuthorizer::validate_operation_result`,"
        " `SessionAuthorizer::ensure_local_authorization`, `validate_operation_status_for_grant`",
        (
            Check(
                "provenance",
                "authorization_provenance_mismatch",
                "an authorized value another authorizer made",
            ),
            Check("result", "unsupported_version", "a result that fails validation (its version)"),
            Check("session", "unknown_session", "a result for another session"),
            Check(
                "correlates",
                "operation_result_mismatch",
                "a result that does not match the authorized request (its operation key)",
            ),
            Check("duplicate", "duplicate_result", "a request id with an accepted result"),
            Check("status", "output_too_large", "a status the grant refuses (here: its output)"),
        ),
        note=(
            "`validate_reconciliation_result` and `validate_compensation_result` run the same"
            " checks in the same order (a compensation result's mismatch is"
            " `compensation_result_mismatch`); the vectors use the dispatch result."
        ),
    ),
)

OPERATIONS += (
    Operation(
        "session.reconcile",
        "EP-27",
        "Handling a reconciliation in a worker session",
        ("WS-13", "WS-14"),
        "crates/splash-worker/src/lib.rs `WorkerSession::handle_reconciliation`,"
        " `WorkerSession::reserve_reconciliation`",
        (
            Check(
                "authorized",
                "duplicate_request",
                "a request the authorizer refuses (EP-10; here: a request id seen before)",
            ),
            Check(
                "journal",
                "unknown_operation",
                "a reconciliation the journal refuses (EP-21; here: a key it does not hold)",
            ),
            Check(
                "session_budget",
                "reconciliation_session_budget_exhausted",
                "no reconciliation left in the session",
            ),
            Check(
                "tool_budget",
                "reconciliation_budget_exhausted",
                "no reconciliation left for the tool",
            ),
        ),
        note=(
            "A refused reconciliation spends no budget, and the adapter is asked only after"
            " both budgets are reserved. Upstream's driver does not drive sessions, so these"
            " vectors are not observed upstream (the session capability is Rescind's)."
        ),
    ),
)

_INVALID_NEVER_HELD = "a key id outside the grammar is never one the keyring holds"

OPERATIONS += (
    Operation(
        "storage.keyring_add",
        "EP-28",
        "Adding a key to a storage keyring (`add_read_key`, `rotate_to`)",
        ("ST-3", "ST-17"),
        f"{_STORAGE} `StorageKeyId::new`, `StorageKeyring::add_read_key`,"
        " `StorageKeyring::rotate_to`",
        (
            Check("key_id", "invalid_key_id", "a key id outside the token grammar"),
            Check("unique", "duplicate_key_id", "a key id the keyring holds"),
        ),
        excused={("key_id", "unique"): _INVALID_NEVER_HELD},
        note=(
            "Upstream takes a `StorageKeyId` already built, so its grammar is checked by the"
            " caller, first. A key of another length than 32 bytes cannot be passed upstream"
            " (a fixed-size array); Rescind checks it when the key is built, before the call."
        ),
    ),
    Operation(
        "storage.keyring_retire",
        "EP-29",
        "Retiring a key from a storage keyring",
        ("ST-3", "ST-17"),
        f"{_STORAGE} `StorageKeyId::new`, `StorageKeyring::retire`",
        (
            Check("key_id", "invalid_key_id", "a key id outside the token grammar"),
            Check("active", "active_key_cannot_be_retired", "the active key's id"),
            Check("known", "unknown_key_id", "a key id the keyring does not hold"),
        ),
        excused={
            ("key_id", "active"): "the active key's id is always inside the grammar",
            ("active", "known"): "the active key is always held",
        },
        note="No input breaks two of these checks; the list states the order all the same.",
    ),
)

_WORKER: Final = "crates/splash-worker/src/lib.rs"

OPERATIONS += (
    Operation(
        "session.open",
        "EP-40",
        "Opening a worker session",
        ("WS-1", "WS-2"),
        f"{_WORKER} `WorkerSession::open`; {PROTOCOL} `SessionAuthenticator::open`,"
        " `WorkerMessage::validate`",
        (
            Check("role", "requires_worker_authenticator", "an authenticator of the host role"),
            Check(
                "frame",
                "unsupported_version",
                "a first frame that does not open (FR-10; here: a message of version 4)",
            ),
            Check("kind", "unexpected_opening_message", "a first message other than open_session"),
            Check("adapters", "missing_adapter", "a granted tool without an adapter"),
            Check("lease", "invalid_journal_lease", "an admission that answers token 0"),
        ),
        excused={
            ("role", "frame"): (
                "a scenario's host seals the opening message, and a message that fails"
                " validation cannot be sealed, so no scenario delivers one to a host-role"
                " worker; each check alone has its vectors (WS-1)"
            ),
        },
        note=(
            "The manifest is validated when the frame's message is (`WorkerMessage::validate`),"
            " so making the authorizer cannot fail after it. An admission that fails"
            " (`admission_failed`) and one that answers 0 are one step's two outcomes. Rescind"
            " checks the authenticator's wire profile (its extensions) between `role` and"
            " `frame`; the scenarios use the upstream profile."
        ),
    ),
    Operation(
        "session.dispatch",
        "EP-41",
        "Handling a dispatch in a worker session",
        ("WS-5", "WS-6"),
        f"{_WORKER} `WorkerSession::handle_operation_dispatch`",
        (
            Check(
                "authorized",
                "call_budget_exhausted",
                "a request the authorizer refuses (EP-8; here: no call left)",
            ),
            Check(
                "contract",
                "durable_operation_contract_not_declared",
                "an adapter without the durable operation contract",
            ),
            Check(
                "journal",
                "operation_identity_mismatch",
                "an admission the journal refuses (EP-20; here: another input under a held key)",
            ),
        ),
        excused={
            ("contract", "journal"): (
                "an adapter's declarations hold for the whole scenario, so a key is journaled"
                " only under an adapter that declares the contract"
            ),
        },
        note=(
            "A compensation (`handle_compensation`, WS-12) runs the same three steps with"
            " EP-11 and EP-16. The call is spent before the contract is checked, so a refused"
            " dispatch still uses up the budget."
        ),
    ),
    Operation(
        "session.handle",
        "EP-43",
        "Handling a frame in a worker session",
        ("WS-3", "WS-4"),
        f"{_WORKER} `WorkerSession::handle`; {PROTOCOL} `SessionAuthenticator::open`",
        (
            Check("poisoned", "session_poisoned", "a session a failed write poisoned"),
            Check(
                "frame",
                "invalid_authentication_tag",
                "a frame that does not open (EP-13; here: a tag computed with another key)",
            ),
            Check("kind", "unexpected_message", "a message that is not a session request"),
        ),
        note=(
            "A poisoned session does not open the frame, so its incoming sequence does not"
            " move; after the frame opens, each request kind runs its own list (EP-41, EP-27)."
        ),
    ),
    Operation(
        "session.limits",
        "EP-42",
        "Making a worker session's reconciliation limits",
        ("WS-14",),
        f"{_WORKER} `WorkerSessionLimits::with_limits`",
        (
            Check("per_tool", "zero_per_tool_reconciliation_limit", "a per-tool limit of 0"),
            Check("per_session", "zero_session_reconciliation_limit", "a session limit of 0"),
        ),
    ),
)

OPERATIONS = tuple(sorted(OPERATIONS, key=lambda operation: int(operation.rule[3:])))
BY_NAME: Final = {operation.name: operation for operation in OPERATIONS}


def all_pairs() -> tuple[Pair, ...]:
    return tuple(pair for operation in OPERATIONS for pair in operation.pairs())


def _check_line(index: int, check: Check) -> str:
    each = " (each item)" if check.per_item else ""
    return f"  {index}. `{check.name}`{each}: {check.refuses} (`{check.code}`)"


def render() -> str:
    """The generated part of docs/spec/precedence.md."""
    lines = [BEGIN, ""]
    for operation in OPERATIONS:
        rules = ", ".join(operation.rules)
        where = "" if operation.repository == SPLASH else f" {operation.repository}"
        lines.append(
            f"- **{operation.rule}** {operation.title} (`{operation.name}`; checks: {rules})."
            f" Upstream:{where} {operation.citation}. In order:"
        )
        lines.extend(_check_line(i, check) for i, check in enumerate(operation.checks, 1))
        if operation.item:
            lines.append(
                f"  The per-item checks run for each {operation.item} in order, all of one"
                f" {operation.item}'s before the next {operation.item}'s."
            )
        for (first, second), reason in operation.excused.items():
            lines.append(f"  No vector for `{first}` > `{second}`: {reason}.")
        if operation.note:
            lines.append(f"  {operation.note}")
        if operation.acceptable:
            lines.append(f"  Either code is `acceptable`: {operation.acceptable}.")
    lines += ["", END]
    return "\n".join(lines)


def rewrite(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    page.write_text(head + render() + tail, encoding="utf-8")


if __name__ == "__main__":  # pragma: no cover - the maintainer's regeneration command
    rewrite(Path(sys.argv[1]))
