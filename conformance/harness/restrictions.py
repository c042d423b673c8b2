"""What a driver declares it cannot express inside a capability it implements: the catalogue of
restriction names a ``hello`` result may list under ``restrictions`` (docs/driver-protocol.md,
"Restrictions").

A restriction is exact. It names the one level it removes (a whole request, a trace step, or
a member of a result) and a predicate over the shapes it removes; an ``unsupported`` answer is
excused only when every gap it left (``Gap``) is one that a declared restriction names. Any
other unsupported answer, or member left unanswered, is *unanswered*: the check stays
``unsupported`` and the driver's claim of that capability is partial, never passed.

Vectors of a restricted shape are still sent: a driver that can run one anyway is compared as
usual. Generators of differential exploration read the restrictions and stay inside what the
driver can express, so exploration compares traces instead of stopping at the first step the
driver cannot build.

An unknown name is refused at the handshake (``bad_handshake``): a restriction changes what the
suite excuses and generates, so a misspelt one would otherwise go unnoticed.

Why the predicates read the vector's own data (the request ``args``, the trace ``step``, the
expected value) and never the driver's reply or reason: what a restriction excuses must be
decided by the suite, not by what the driver says about itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Literal

import attrs

from rescind.reference.errors import RescindError

Level = Literal["request", "step", "member"]


@attrs.frozen
class Gap:
    """One thing a driver left unanswered in one check: a whole request, the trace step it
    stopped at, or one member of a result (its JSON pointer into the vector's ``expected``)."""

    level: Level
    op: str
    """The operation the check sent."""
    args: Mapping[str, Any] = attrs.field(factory=dict, eq=False, repr=False)
    """The request's ``args`` (the vector's input)."""
    step: Mapping[str, Any] | None = attrs.field(default=None, eq=False, repr=False)
    """``level == "step"``: the trace step the driver could not run."""
    pointer: str = ""
    """``level == "member"``: where the member sits in the vector's ``expected``."""
    expected: Mapping[str, Any] = attrs.field(factory=dict, eq=False, repr=False)
    """The vector's expected reply (``level == "request"``)."""
    reason: str = ""

    def where(self) -> str:
        """A short, payload-free name of the gap for reports."""
        if self.level == "member":
            return f"member {self.pointer}"
        if self.level == "step" and self.step is not None:
            return f"step {step_call(self.step)}"
        return "whole request"


@attrs.frozen
class Restriction:
    name: str
    capabilities: tuple[str, ...]
    """The capabilities whose requests it concerns."""
    level: Level
    meaning: str
    """Why an implementation may be unable to express it (upstream's reason)."""
    affected: str
    """The request, step or member shapes it removes, in words (docs/driver-protocol.md)."""
    covers: Callable[[Gap], bool] = attrs.field(eq=False, repr=False)
    """Whether a gap is one of the shapes it removes (only gaps of ``level``)."""

    def excuses(self, gap: Gap) -> bool:
        return gap.level == self.level and self.covers(gap)


def step_call(step: Mapping[str, Any]) -> str:
    """A trace step's call name (journal, authorizer and frame traces say ``call``, storage
    traces ``op``)."""
    for key in ("call", "op"):
        value = step.get(key)
        if isinstance(value, str):
            return value
    return "?"


def _step_args(step: Mapping[str, Any]) -> Mapping[str, Any]:
    args = step.get("args", step)
    return args if isinstance(args, Mapping) else {}


def raw_authorization(step: Mapping[str, Any]) -> bool:
    """A journal/authorizer trace step that names a raw request and grant pair instead of an
    authorized value made by an earlier ``authorize_*`` step."""
    args = step.get("args", {})
    return isinstance(args, Mapping) and "request" in args and "grant" in args


def _last_segment(pointer: str) -> str:
    return pointer.rsplit("/", 1)[-1]


AUTHORIZER_TRACES = frozenset({"journal.trace", "authorizer.trace"})
RESULT_CHECKS = frozenset(
    {"validate_operation_result", "validate_reconciliation_result", "validate_compensation_result"}
)


def _raw_authorizer_step(*, result_check: bool) -> Callable[[Gap], bool]:
    """Authorizer-trace steps that name a raw request and grant: the result checks among
    them, or every other step."""

    def covers(gap: Gap) -> bool:
        assert gap.step is not None
        return (
            gap.op in AUTHORIZER_TRACES
            and (step_call(gap.step) in RESULT_CHECKS) is result_check
            and raw_authorization(gap.step)
        )

    return covers


AUTHORIZER_PRIVATE_COUNTERS = frozenset(
    {"compensation_identities", "request_ids", "completed_results"}
)
AUTHENTICATOR_PRIVATE_COUNTERS = frozenset({"next_outgoing", "next_incoming"})
SEQUENCE_REACH = range(1, 100_001)
"""Sequences an implementation that starts every authenticator at 1 reaches by sealing or
opening frames first (upstream Splash's driver goes up to 100,000)."""
REVISION_REACH = range(1, 10_001)
"""Revisions an implementation that seals only in create and replace reaches by replacing."""
STORAGE_KEY_HEX = 64
U64 = range(0, 2**64)
U64_FIELDS = frozenset(
    {"revision", "expected", "floor", "backend_revision", "fence", "fencing_token", "token"}
)
BACKEND_INJECTION = frozenset(
    {
        "restore",
        "copy_record",
        "delete_record",
        "set_record",
        "set_floor",
        "set_fence",
        "edit_field",
        "plant",
    }
)


def _member_named(ops: frozenset[str], names: frozenset[str]) -> Callable[[Gap], bool]:
    return lambda gap: gap.op in ops and _last_segment(gap.pointer) in names


def _unreachable_sequence(gap: Gap) -> bool:
    if gap.op == "frames.tag":
        return _outside(gap.args.get("sequence"), SEQUENCE_REACH)
    if gap.op != "frames.trace":
        return False
    setup = gap.args.get("setup", {})
    authenticators = setup.get("authenticators", {}) if isinstance(setup, Mapping) else {}
    if not isinstance(authenticators, Mapping):
        return False
    return any(
        _outside(each.get(counter, 1), SEQUENCE_REACH)
        for each in authenticators.values()
        if isinstance(each, Mapping)
        for counter in AUTHENTICATOR_PRIVATE_COUNTERS
    )


def _outside(value: Any, reach: range) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value not in reach


def _unsealable_frame(gap: Gap) -> bool:
    return gap.op == "frames.tag" and "error" in gap.expected


def _unreachable_revision(gap: Gap) -> bool:
    return gap.op == "storage.tag" and _outside(gap.args.get("revision"), REVISION_REACH)


def _storage_keys(values: Mapping[str, Any]) -> Iterable[Any]:
    yield values.get("key_hex")
    keyring = values.get("keyring")
    if isinstance(keyring, list):
        yield from (entry.get("key_hex") for entry in keyring if isinstance(entry, Mapping))


def _bad_key_length(values: Mapping[str, Any]) -> bool:
    return any(
        isinstance(key, str) and len(key) != STORAGE_KEY_HEX for key in _storage_keys(values)
    )


def _storage_arguments(predicate: Callable[[Mapping[str, Any]], bool]) -> Callable[[Gap], bool]:
    """Storage gaps whose arguments (a step's own at step level, the test's otherwise)
    satisfy ``predicate``."""

    def covers(gap: Gap) -> bool:
        if not gap.op.startswith("storage."):
            return False
        if gap.level == "step":
            assert gap.step is not None
            return predicate(_step_args(gap.step))
        return predicate(gap.args)

    return covers


def _not_u64(values: Mapping[str, Any]) -> bool:
    return any(
        field in values
        and values[field] is not None
        and not (
            isinstance(values[field], int)
            and not isinstance(values[field], bool)
            and values[field] in U64
        )
        for field in U64_FIELDS
    )


def _injection_step(gap: Gap) -> bool:
    assert gap.step is not None
    return gap.op == "storage.trace" and step_call(gap.step) in BACKEND_INJECTION


def _both_levels(request: Restriction) -> tuple[Restriction, Restriction]:
    return request, attrs.evolve(request, level="step")


AUTHORIZED_BY_AUTHORIZER = Restriction(
    name="authorized-by-authorizer",
    capabilities=("journal", "authorizer"),
    level="step",
    meaning=(
        "the driver builds an authorized dispatch, compensation or reconciliation only through "
        "the session authorizer (upstream Splash: SessionAuthorizer::authorize_operation, "
        "authorize_compensation, authorize_reconciliation); it cannot build one from a raw "
        "request and grant pair that the authorizer would refuse"
    ),
    affected=(
        "journal.trace and authorizer.trace steps other than validate_*_result that name a raw "
        "`request` and `grant` instead of an `authorized` value made by an earlier authorize_* "
        "step"
    ),
    covers=_raw_authorizer_step(result_check=False),
)
RESULT_CHECK_NEEDS_ISSUING_AUTHORIZER = Restriction(
    name="result-check-needs-issuing-authorizer",
    capabilities=("journal", "authorizer"),
    level="step",
    meaning=(
        "result validation accepts only an authorization issued by that same authorizer "
        "(upstream: ensure_local_authorization), so a raw pair cannot be validated"
    ),
    affected=(
        "validate_operation_result, validate_reconciliation_result and "
        "validate_compensation_result steps that name a raw `request` and `grant`"
    ),
    covers=_raw_authorizer_step(result_check=True),
)
AUTHORIZER_COUNTERS_PRIVATE = Restriction(
    name="authorizer-counters-private",
    capabilities=("journal", "authorizer"),
    level="member",
    meaning=(
        "the authorizer's sets of compensation identities, seen and completed request ids are "
        "private (upstream: SessionAuthorizer fields without accessors)"
    ),
    affected=(
        "members `compensation_identities`, `request_ids` and `completed_results` of "
        "journal.trace and authorizer.trace counters steps and checkpoints"
    ),
    covers=_member_named(AUTHORIZER_TRACES, AUTHORIZER_PRIVATE_COUNTERS),
)
AUTHENTICATOR_COUNTERS_PRIVATE = Restriction(
    name="authenticator-counters-private",
    capabilities=("frames",),
    level="member",
    meaning=(
        "the next outgoing and incoming sequence of an authenticator are private (upstream: "
        "SessionAuthenticator fields without accessors)"
    ),
    affected="members `next_outgoing` and `next_incoming` of frames.trace steps and checkpoints",
    covers=_member_named(frozenset({"frames.trace"}), AUTHENTICATOR_PRIVATE_COUNTERS),
)
AUTHENTICATION_PAYLOAD_PRIVATE = Restriction(
    name="authentication-payload-private",
    capabilities=("frames",),
    level="member",
    meaning="the authenticated payload is serialized only inside a private tag computation",
    affected="member `auth_payload` of frames.tag",
    covers=lambda gap: gap.op == "frames.tag" and gap.pointer == "/auth_payload",
)
SEQUENCE_START_UNREACHABLE = Restriction(
    name="sequence-start-unreachable",
    capabilities=("frames",),
    level="request",
    meaning=(
        "an authenticator starts at sequence 1 and reaches a later start only by sealing or "
        "opening frames first, so a start beyond 100,000 (or below 1) cannot be set up"
    ),
    affected=(
        "frames.trace whose setup starts an authenticator outside 1..=100000; frames.tag at a "
        "sequence outside 1..=100000"
    ),
    covers=_unreachable_sequence,
)
TAG_NEEDS_SEALABLE_FRAME = Restriction(
    name="tag-needs-sealable-frame",
    capabilities=("frames",),
    level="request",
    meaning="the tag is public only inside a frame the implementation agreed to seal",
    affected="frames.tag whose vector expects a refusal (the frame cannot be sealed)",
    covers=_unsealable_frame,
)
REVISION_UNREACHABLE = Restriction(
    name="revision-unreachable",
    capabilities=("storage",),
    level="request",
    meaning=(
        "records are sealed only by create (revision 1) and replace (one more), so a tag at "
        "revision 0 or beyond 10,000 cannot be produced"
    ),
    affected="storage.tag at a revision outside 1..=10000",
    covers=_unreachable_revision,
)
KEY_LENGTH_UNREPRESENTABLE = _both_levels(
    Restriction(
        name="key-length-unrepresentable",
        capabilities=("storage",),
        level="request",
        meaning="storage keys are typed as exactly 32 bytes; another length cannot be passed",
        affected=(
            "storage requests (or storage.trace steps) carrying a `key_hex` that is not 64 hex "
            "digits, in the arguments or the keyring"
        ),
        covers=_storage_arguments(_bad_key_length),
    ),
)
U64_ARGUMENTS = _both_levels(
    Restriction(
        name="u64-arguments",
        capabilities=("storage",),
        level="request",
        meaning=(
            "revisions, floors and fencing tokens are typed u64; another value cannot be passed "
            "(the refusal of such values is a driver-boundary convention)"
        ),
        affected=(
            "storage requests (or storage.trace steps) whose revision, expected, floor, "
            "backend_revision, fence, fencing_token or token is not an integer in 0..2^64"
        ),
        covers=_storage_arguments(_not_u64),
    ),
)
NO_BACKEND_STATE_INJECTION = Restriction(
    name="no-backend-state-injection",
    capabilities=("storage",),
    level="step",
    meaning=(
        "the implementation's storage backend has no public way to write a raw record, floor "
        "or fence, so faults cannot be injected beneath the store"
    ),
    affected="storage.trace steps " + ", ".join(f"`{name}`" for name in sorted(BACKEND_INJECTION)),
    covers=_injection_step,
)
KEYRING_KEYS_PRIVATE = Restriction(
    name="keyring-keys-private",
    capabilities=("storage",),
    level="member",
    meaning="only the active key id of a keyring is public, not the list of its key ids",
    affected="member `key_ids` of storage.trace keyring steps",
    covers=_member_named(frozenset({"storage.trace"}), frozenset({"key_ids"})),
)

HOST_INPUT_BOUND = 262_144
"""Bytes of canonical input an operation ledger records (upstream Splash:
MAX_WORKFLOW_OPERATION_INPUT_BYTES); the host input fingerprint is public only through it."""
LEDGER_TRACE = frozenset({"ledger.trace"})


def _byte_string_size(value: Any) -> int | None:
    """The size of a byte-string argument (a string, ``{"hex"}`` or ``{"repeat", "count"}``),
    or ``None`` for a payload spec or another shape."""
    if isinstance(value, str):
        return len(value.encode("utf-8", "surrogatepass"))
    if isinstance(value, Mapping):
        if isinstance(value.get("hex"), str):
            return len(value["hex"]) // 2
        repeat, count = value.get("repeat"), value.get("count")
        if isinstance(repeat, str) and isinstance(count, int):
            return len(repeat.encode("utf-8", "surrogatepass")) * count
    return None


def _host_input_above_bound(gap: Gap) -> bool:
    if gap.op == "host-keys.host_input_fingerprint":
        size = _byte_string_size(gap.args.get("input"))
        return size is not None and size > HOST_INPUT_BOUND
    return False


def _ledger_step(*calls: str) -> Callable[[Gap], bool]:
    names = frozenset(calls)

    def covers(gap: Gap) -> bool:
        assert gap.step is not None
        return gap.op in LEDGER_TRACE and step_call(gap.step) in names

    return covers


def _consumed_approval(gap: Gap) -> bool:
    """A prepare_compensation step naming an approval that an earlier prepare_compensation of
    the same trace named, with no successful-looking re-approval bound to that name between
    them (decided from the trace's steps: an approve step with ``as`` rebinds the name)."""
    assert gap.step is not None
    if gap.op not in LEDGER_TRACE or step_call(gap.step) != "prepare_compensation":
        return False
    approval = _step_args(gap.step).get("approval")
    steps = gap.args.get("steps", [])
    consumed = False
    for step in steps if isinstance(steps, list) else []:
        if step is gap.step:
            return consumed
        if not isinstance(step, Mapping):
            continue
        args = _step_args(step)
        if step_call(step) == "prepare_compensation" and args.get("approval") == approval:
            consumed = True
        elif (
            step_call(step) in ("approve_compensation", "approve_plan")
            and args.get("as") == approval
        ):
            consumed = False
    return consumed


HOST_INPUT_ABOVE_LEDGER_BOUND = Restriction(
    name="host-input-above-ledger-bound",
    capabilities=("host-keys",),
    level="request",
    meaning=(
        "the host input fingerprint is public only through an operation ledger that records "
        "the bytes (upstream Splash: WorkflowOperationLedger::record, then "
        "WorkflowOperation::input_fingerprint), which refuses more than 262,144 bytes"
    ),
    affected="host-keys.host_input_fingerprint of a byte string above 262,144 bytes",
    covers=_host_input_above_bound,
)
HOST_SIDE_NEEDS_ARBITRARY_PRECISION = Restriction(
    name="host-side-needs-arbitrary-precision",
    capabilities=("canonical",),
    level="member",
    meaning=(
        "the host side exists only in the arbitrary_precision number mode (upstream Splash: "
        "splash-schema, a dependency of splash-workflow, enables serde_json's "
        "arbitrary_precision for every crate of the build), so an f64 build has no host input "
        "fingerprint"
    ),
    affected="member `hostInputFingerprint` of canonical.input in profile splash-v5-f64",
    covers=lambda gap: (
        gap.op == "canonical.input"
        and gap.pointer == "/hostInputFingerprint"
        and gap.args.get("profile") == "splash-v5-f64"
    ),
)
RAW_COMPENSATION_POLICY = Restriction(
    name="raw-compensation-policy",
    capabilities=("ledger",),
    level="step",
    meaning=(
        "a compensation policy is built only from a grant (upstream Splash: "
        "WorkflowCompensationPolicy::new; its fields are private), so a policy whose tool, "
        "tenant scope or grant fingerprint is given as text cannot be built"
    ),
    affected="ledger.trace steps `raw_policy`",
    covers=_ledger_step("raw_policy"),
)
OPERATION_INPUT_CHECK_PRIVATE = Restriction(
    name="operation-input-check-private",
    capabilities=("ledger",),
    level="step",
    meaning=(
        "whether input matches an operation is public (upstream Splash: "
        "WorkflowOperation::matches_input), the checking variant that reports why is not "
        "(verify_input is private)"
    ),
    affected="ledger.trace steps `verify_input`",
    covers=_ledger_step("verify_input"),
)
APPROVAL_CONSUMED_ON_USE = Restriction(
    name="approval-consumed-on-use",
    capabilities=("ledger",),
    level="step",
    meaning=(
        "an approval given to the compensation preparer is moved into it and gone, whatever "
        "the outcome (upstream Splash: WorkflowEngine::prepare_authenticated_operation_"
        "compensation takes Approval by value), so it cannot be presented again"
    ),
    affected=(
        "ledger.trace steps `prepare_compensation` naming an `approval` that an earlier "
        "`prepare_compensation` step named, with no approve step binding that name between them"
    ),
    covers=_consumed_approval,
)

CATALOGUE: tuple[Restriction, ...] = (
    AUTHORIZED_BY_AUTHORIZER,
    RESULT_CHECK_NEEDS_ISSUING_AUTHORIZER,
    AUTHORIZER_COUNTERS_PRIVATE,
    AUTHENTICATOR_COUNTERS_PRIVATE,
    AUTHENTICATION_PAYLOAD_PRIVATE,
    SEQUENCE_START_UNREACHABLE,
    TAG_NEEDS_SEALABLE_FRAME,
    REVISION_UNREACHABLE,
    *KEY_LENGTH_UNREPRESENTABLE,
    *U64_ARGUMENTS,
    NO_BACKEND_STATE_INJECTION,
    KEYRING_KEYS_PRIVATE,
    HOST_INPUT_ABOVE_LEDGER_BOUND,
    HOST_SIDE_NEEDS_ARBITRARY_PRECISION,
    RAW_COMPENSATION_POLICY,
    OPERATION_INPUT_CHECK_PRIVATE,
    APPROVAL_CONSUMED_ON_USE,
)
"""Every restriction a driver may declare (a name may stand for one shape at two levels); the
driver protocol schema lists the same names."""

NAMES: tuple[str, ...] = tuple(dict.fromkeys(restriction.name for restriction in CATALOGUE))


def named(name: str) -> tuple[Restriction, ...]:
    return tuple(restriction for restriction in CATALOGUE if restriction.name == name)


class UnknownRestriction(RescindError):
    """A hello result names a restriction that is not in the catalogue."""

    code = "unknown_restriction"


def parse(names: Iterable[str]) -> frozenset[str]:
    """The declared names, every one of them known (else ``UnknownRestriction``)."""
    declared = frozenset(names)
    for name in sorted(declared):
        if name not in NAMES:
            raise UnknownRestriction(name=name, known=", ".join(sorted(NAMES)))
    return declared


def excused_by(gap: Gap, declared: Iterable[str]) -> str | None:
    """The declared restriction that excuses ``gap``, or ``None``."""
    for name in sorted(set(declared)):
        if any(restriction.excuses(gap) for restriction in named(name)):
            return name
    return None


def all_excused(gaps: Iterable[Gap], declared: frozenset[str]) -> bool:
    """Whether the driver's gaps are all excused by its declared restrictions (and there is at
    least one: an ``unsupported`` answer with no gap recorded is never excused)."""
    listed = list(gaps)
    return bool(listed) and all(excused_by(gap, declared) is not None for gap in listed)
