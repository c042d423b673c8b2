# ruff: noqa: E501  (trace tables keep one step per line)
"""Vectors for the worker operation journal as traces of calls (docs/spec/journal.md).

Each test is a trace (setup + steps) run by ``rescind.conformance.interpreters.worker_trace``; the expected
outcome of every step and the journal text at checkpoints are computed by the reference,
after ``_trace_cases.vector`` has checked them against the outcome each step's author
intended. Traces cover worker edge cases 12, 13 and 15-36 and reproduce upstream's probe
sequences; the probe's journal texts are checked byte for byte by tests/worker.
"""

from __future__ import annotations

from typing import Any

from rescind.conformance.provenance import (
    Provenance,
    derived,
    edge_case_note,
    observed,
    splash_test,
)
from rescind.conformance.vectorformat import Flag, VectorFile, VectorGroup, VectorTest
from rescind.conformance.vectorsets._journal_requests import (
    BODY_64,
    BODY_200,
    DEPTH_32,
    DEPTH_33,
    REQUESTS,
    TOTAL_42,
)
from rescind.conformance.vectorsets._trace_cases import (
    TRACE_EXPECTED_SCHEMA,
    TRACE_INPUT_SCHEMA,
    Case,
    Step,
    s,
    vector,
)
from rescind.conformance.vectorsets._worker_fixtures import (
    CANCELLED,
    RUNNING,
    TENANT,
    big_text_success,
    failed,
    repeat_text,
    succeeded,
)

TOPIC = "journal-traces"

ON_TENANT = {"scope": TENANT}
ON_PROBE_TENANT = {"scope": "tenant"}

PROBE = ("UpstreamProbe",)
ORDER = ("CheckOrder",)
TERMINAL = ("TerminalImmutable",)
GRANT = ("GrantRecheck",)
ONE_UNDO = ("SingleCompensation",)

OBS = "invalid_worker_operation_transition"
CMP_OBS = "invalid_worker_compensation_transition"


# One step per trace line where it fits: these are data tables, easier to review unwrapped.
# fmt: off
def _case(id: str, rule: str, comment: str, steps: list[Step], flags: tuple[str, ...] = (), journal: dict[str, Any] | None = None, profile: str | None = None) -> Case:
    return Case(id, rule, comment, steps, REQUESTS, flags, ON_TENANT if journal is None else journal, None, profile)


PROBE_LIFECYCLE = _case(
    "journal.probe.upstream-lifecycle",
    "WJ-8",
    "upstream probe sequence: admission, observations, compensation and every identity check; checkpoints are the probe's journal texts",
    [
        s("to_json", checkpoint="empty"),
        s("admit", request="add", grant="math", checkpoint="pending"),
        s("admit", request="add", grant="math"),
        s("observe", request="add", grant="math", status=RUNNING, checkpoint="running"),
        s("observe", request="add", grant="math", status=RUNNING),
        s("observe", request="add", grant="math", status=TOTAL_42, checkpoint="succeeded"),
        s("observe", OBS, request="add", grant="math", status=succeeded('{"total":43}')),
        s("observe", OBS, request="add", grant="math", status=RUNNING),
        s("observe_compensation", "unknown_compensation", request="undo", grant="math", status=failed("boom")),
        s("admit_compensation", request="undo", grant="math", checkpoint="compensation-pending"),
        s("observe_compensation", request="undo", grant="math", status=failed("boom"), checkpoint="compensation-failed"),
        s("observe_compensation", request="undo", grant="math", status=failed("boom")),
        s("observe_compensation", CMP_OBS, request="undo", grant="math", status=failed("boom2")),
        s("observe_compensation", CMP_OBS, request="undo", grant="math", status=CANCELLED),
        s("admit_compensation", request="undo", grant="math"),
        s("admit_compensation", "compensation_identity_mismatch", request="undo-other-key", grant="math"),
        s("admit_compensation", "compensation_tool_mismatch", request="undo-other-tool", grant="math-sub"),
        s("admit_compensation", "unknown_operation", request="undo-unknown-op", grant="math"),
        s("admit_compensation", "operation_journal_scope_mismatch", request="undo-wrong-scope-unknown-op", grant="math"),
        s("admit", "operation_identity_mismatch", request="add-as-sub", grant="math-sub"),
    ],
    PROBE,
)

ADMISSION = [
    PROBE_LIFECYCLE,
    _case(
        "journal.edge-15.duplicate-lifecycle",
        "WJ-8",
        "edge case 15: duplicates report the stored state at every phase and never add a record; key order and whitespace of the input do not matter",
        [
            s("admit", request="add", grant="math"),
            s("admit", request="add", grant="math"),
            s("observe", request="add", grant="math", status=RUNNING),
            s("admit", request="add-reordered", grant="math"),
            s("observe", request="add", grant="math", status=TOTAL_42),
            s("admit", request="add-spaced", grant="math"),
            s("observe", request="add-reordered", grant="math", status=succeeded('{ "total" : 42 }')),
            s("to_json", checkpoint="one-record"),
        ],
    ),
    _case(
        "journal.edge-16.changed-input",
        "WJ-8",
        "edge case 16: same key, input right 22 to 23, on admit and on observe",
        [s("admit", request="add", grant="math"), s("admit", "operation_identity_mismatch", request="add-23", grant="math"), s("observe", "operation_identity_mismatch", request="add-23", grant="math", status=RUNNING)],
        ORDER,
    ),
    _case(
        "journal.edge-17.other-tool",
        "WJ-8",
        "edge case 17: same key and input under another tool",
        [s("admit", request="add", grant="math"), s("admit", "operation_identity_mismatch", request="add-as-sub", grant="math-sub"), s("observe", "operation_identity_mismatch", request="add-as-sub", grant="math-sub", status=RUNNING)],
    ),
    _case(
        "journal.edge-25.record-limit-after-lookup",
        "WJ-9",
        "edge case 25: a full journal (64 records) refuses a new key but still answers a duplicate",
        [s("admit_many", request="add", grant="math", count=64), s("admit", "too_many_worker_operations", request="other-key", grant="math"), s("admit", request="add-5", grant="math"), s("record", operation_key="release-43-add")],
        ("RecordLimit",),
    ),
    _case("journal.operation-key-may-start-with-cmp", "WJ-18", "the worker layer accepts an operation key starting cmp- (only the host ledger refuses it)", [s("admit", request="cmp-prefixed-key", grant="math")], ("PrefixPolicy",)),
    _case("journal.new.invalid-scope", "WJ-2", "new journal scope must be a token", [s("new", "invalid_token", scope="Bad Scope"), s("new", scope="tenant-release")], journal={}),
]

OBSERVATION = [
    _case("journal.edge-24.observe-unknown-key", "WJ-10", "edge case 24: observing a key that was never admitted", [s("observe", "unknown_operation", request="add", grant="math", status=RUNNING)], PROBE),
    _case(
        "journal.status-checked-before-lookup",
        "WJ-10",
        "observe checks the status against the grant before looking the key up",
        [
            s("observe", "output_too_large", request="add", grant="math", status=BODY_200),
            s("observe", "invalid_operation_failure", request="add", grant="math", status=failed("")),
            s("observe", "payload_format_mismatch", request="add", grant="math", status=succeeded("x", "text")),
            s("observe", "unknown_operation", request="add", grant="math", status=CANCELLED),
        ],
        ORDER,
    ),
    _case("journal.edge-18.failed-after-succeeded", "WJ-6", "edge case 18", [s("admit", request="add", grant="math"), s("observe", request="add", grant="math", status=TOTAL_42), s("observe", OBS, request="add", grant="math", status=failed("late"))], TERMINAL),
    _case(
        "journal.edge-19.succeeded-then-other-payload-or-running",
        "WJ-6",
        "edge case 19: a different success payload and a late running are both contradictions",
        [
            s("admit", request="add", grant="math"),
            s("observe", request="add", grant="math", status=TOTAL_42),
            s("observe", OBS, request="add", grant="math", status=succeeded('{"total":41}')),
            s("observe", OBS, request="add", grant="math", status=RUNNING),
            s("observe", OBS, request="add", grant="math", status=CANCELLED),
            s("record", operation_key="release-42-add"),
        ],
        TERMINAL,
    ),
    _case(
        "journal.edge-20.cancelled-and-failed",
        "WJ-6",
        "edge case 20: pending to cancelled, cancelled again is a no-op; failed boom then boom2 or cancelled are contradictions",
        [
            s("admit", request="add", grant="math"),
            s("observe", request="add", grant="math", status=CANCELLED),
            s("observe", request="add", grant="math", status=CANCELLED),
            s("admit", request="add", grant="math"),
            s("observe", OBS, request="add", grant="math", status=RUNNING),
            s("admit", request="other-key", grant="math"),
            s("observe", request="other-key", grant="math", status=failed("boom")),
            s("observe", request="other-key", grant="math", status=failed("boom")),
            s("observe", OBS, request="other-key", grant="math", status=failed("boom2")),
            s("observe", OBS, request="other-key", grant="math", status=CANCELLED),
        ],
        TERMINAL,
    ),
    _case(
        "journal.pending-straight-to-terminal",
        "WJ-6",
        "pending may move straight to any terminal state",
        [s("admit", request="add", grant="math"), s("observe", request="add", grant="math", status=failed("no")), s("admit", request="other-key", grant="math"), s("observe", request="other-key", grant="math", status=TOTAL_42)],
    ),
    _case(
        "journal.edge-23.success-format-mismatch",
        "WJ-10",
        "edge case 23: a text success under a json grant; the record stays pending",
        [s("admit", request="add", grant="math"), s("observe", "payload_format_mismatch", request="add", grant="math", status=succeeded("x", "text")), s("record", operation_key="release-42-add")],
    ),
    _case("journal.edge-12.scalar-success-root", "WJ-10", "edge case 12: a success payload must be an object or array", [s("admit", request="add", grant="math"), s("observe", "invalid_json_envelope", request="add", grant="math", status=succeeded("42"))]),
    _case(
        "journal.edge-13.success-depth",
        "WJ-10",
        "edge case 13: 32 arrays around {} are too deep, 31 are accepted",
        [s("admit", request="add", grant="math"), s("observe", "json_payload_too_deep", request="add", grant="math", status=DEPTH_33), s("observe", request="add", grant="math", status=DEPTH_32)],
    ),
    _case(
        "journal.failure-message-bounds",
        "WJ-10",
        "a failure message needs 1..4096 bytes and is not bounded by the grant's 16-byte output limit",
        [
            s("admit", request="echo", grant="echo"),
            s("observe", "invalid_operation_failure", request="echo", grant="echo", status=failed("")),
            s("observe", "operation_failure_too_large", request="echo", grant="echo", status=repeat_text('{"state":"failed","message":"', "x", 4097, '"}')),
            s("observe", request="echo", grant="echo", status=repeat_text('{"state":"failed","message":"', "x", 4096, '"}')),
        ],
        PROBE,
        ON_PROBE_TENANT,
    ),
    _case("journal.json-success-on-text-grant", "WJ-10", "probe: a json success under a text grant", [s("admit", request="echo", grant="echo"), s("observe", "payload_format_mismatch", request="echo", grant="echo", status=succeeded('{"a":1}'))], PROBE, ON_PROBE_TENANT),
    _case(
        "journal.edge-26.bound-on-observation",
        "WJ-7",
        "edge case 26: a success that would push the journal past 256 KiB is refused and the record stays pending",
        [s("admit", request="echo", grant="echo-wide"), s("observe", "operation_journal_too_large", request="echo", grant="echo-wide", status=big_text_success(262100)), s("record", operation_key="op-1"), s("observe", request="echo", grant="echo-wide", status=RUNNING)],
        ("BoundAfterMutation",),
        ON_PROBE_TENANT,
    ),
    _case(
        "journal.edge-22.narrower-grant-replay",
        "WJ-17",
        "edge case 22: a stored 75-byte success replayed under a grant with max_output_bytes 16",
        [
            s("admit", request="add", grant="math"),
            s("observe", request="add", grant="math", status=BODY_64),
            s("admit", "output_too_large", request="add", grant="math-out-16"),
            s("validate_reconciliation", "output_too_large", request="rec", grant="math-out-16"),
            s("admit", request="add", grant="math"),
        ],
        GRANT,
    ),
]

_TERMINAL_ROWS = [("negative-zero", '{"a":0.0}', '{"a":-0.0}'), ("integer-then-float", '{"a":1}', '{"a":1.0}'), ("fraction-spelling", '{"a":1.0}', '{"a":1.00}'), ("key-order", '{"b":1,"a":2}', '{"a":2,"b":1}')]
_TERMINAL_INTENT = {
    ("splash-v5", "negative-zero"): OBS,
    ("splash-v5", "integer-then-float"): OBS,
    ("splash-v5", "fraction-spelling"): OBS,
    ("splash-v5", "key-order"): "ok",
    ("splash-v5-f64", "negative-zero"): "ok",
    ("splash-v5-f64", "integer-then-float"): OBS,
    ("splash-v5-f64", "fraction-spelling"): "ok",
    ("splash-v5-f64", "key-order"): "ok",
}


def _terminal_case(profile: str, name: str, first: str, second: str) -> Case:
    label = "ap" if profile == "splash-v5" else "f64"
    flags = ("UpstreamProbe", "StructuralEquality") + (("F64Profile",) if label == "f64" else ())
    return _case(
        f"journal.terminal-equality.{label}.{name}",
        "WJ-6",
        f"probe row: terminal {first} then {second} ({profile}); the stored payload never changes",
        [s("admit", request="add", grant="math"), s("observe", request="add", grant="math", status=succeeded(first)), s("observe", _TERMINAL_INTENT[(profile, name)], request="add", grant="math", status=succeeded(second)), s("record", operation_key="release-42-add")],
        flags,
        profile=profile,
    )


TERMINAL_EQUALITY = [_terminal_case(profile, name, first, second) for profile in ("splash-v5", "splash-v5-f64") for name, first, second in _TERMINAL_ROWS]

RECONCILIATION = [
    _case(
        "journal.reconciliation.checks-and-transitions",
        "WJ-12",
        "reconciliation needs a journaled key under the same tool, checks the status after the lookup and follows the same state rule",
        [
            s("admit", request="add", grant="math"),
            s("validate_reconciliation", request="rec", grant="math"),
            s("validate_reconciliation", "unknown_operation", request="rec-unknown", grant="math"),
            s("validate_reconciliation", "operation_identity_mismatch", request="rec-sub", grant="math-sub"),
            s("observe_reconciliation", "unknown_operation", request="rec-unknown", grant="math", status=BODY_200),
            s("observe_reconciliation", request="rec", grant="math", status=RUNNING),
            s("observe_reconciliation", request="rec", grant="math", status=RUNNING),
            s("observe_reconciliation", "output_too_large", request="rec", grant="math", status=BODY_200),
            s("observe_reconciliation", request="rec", grant="math", status=TOTAL_42),
            s("observe_reconciliation", request="rec", grant="math", status=TOTAL_42),
            s("observe_reconciliation", OBS, request="rec", grant="math", status=failed("late")),
        ],
        ORDER,
    )
]

COMPENSATION = [
    _case(
        "journal.edge-33.compensation-requires-success",
        "WJ-13",
        "edge case 33: compensation is refused while the original is pending or running, admitted after success; its own terminal state is final",
        [
            s("admit", request="add", grant="math"),
            s("admit_compensation", "compensation_requires_succeeded_operation", request="undo", grant="math"),
            s("observe", request="add", grant="math", status=RUNNING),
            s("admit_compensation", "compensation_requires_succeeded_operation", request="undo", grant="math"),
            s("observe", request="add", grant="math", status=TOTAL_42),
            s("admit_compensation", request="undo", grant="math"),
            s("observe_compensation", request="undo", grant="math", status=succeeded('{"undone":true}')),
            s("observe_compensation", CMP_OBS, request="undo", grant="math", status=failed("late")),
        ],
        TERMINAL,
    ),
    _case(
        "journal.compensation-on-failed-or-cancelled-original",
        "WJ-13",
        "a failed or cancelled original can never be compensated",
        [
            s("admit", request="add", grant="math"),
            s("observe", request="add", grant="math", status=failed("no")),
            s("admit_compensation", "compensation_requires_succeeded_operation", request="undo", grant="math"),
            s("admit", request="other-key", grant="math"),
            s("observe", request="other-key", grant="math", status=CANCELLED),
            s("admit_compensation", "compensation_requires_succeeded_operation", request="undo-other-key-op", grant="math"),
        ],
    ),
    _case(
        "journal.edge-34.compensation-duplicates",
        "WJ-15",
        "edge case 34: duplicates of a compensation report its state; changed input and another tenant are refused",
        [
            s("admit", request="add", grant="math"),
            s("observe", request="add", grant="math", status=TOTAL_42),
            s("admit_compensation", request="undo", grant="math"),
            s("admit_compensation", request="undo", grant="math"),
            s("admit_compensation", request="undo-spaced", grant="math"),
            s("observe_compensation", request="undo", grant="math", status=RUNNING),
            s("observe_compensation", request="undo-spaced", grant="math", status=succeeded('{"undone":true}')),
            s("admit_compensation", request="undo", grant="math"),
            s("admit_compensation", "compensation_identity_mismatch", request="undo-changed", grant="math"),
            s("admit_compensation", "operation_journal_scope_mismatch", request="undo-wrong-scope", grant="math"),
        ],
        ONE_UNDO,
    ),
    _case(
        "journal.edge-35.compensation-mismatches",
        "WJ-13",
        "edge case 35: second cmp- key, other tool, unknown original, wrong scope before unknown original",
        [
            s("admit", request="add", grant="math"),
            s("observe", request="add", grant="math", status=TOTAL_42),
            s("admit_compensation", request="undo", grant="math"),
            s("admit_compensation", "compensation_identity_mismatch", request="undo-other-key", grant="math"),
            s("admit_compensation", "compensation_tool_mismatch", request="undo-other-tool", grant="math-sub"),
            s("admit_compensation", "unknown_operation", request="undo-unknown-op", grant="math"),
            s("admit_compensation", "operation_journal_scope_mismatch", request="undo-wrong-scope-unknown-op", grant="math"),
        ],
        ("ScopeIsolation", *ONE_UNDO),
    ),
    _case("journal.edge-36.observe-compensation-before-admission", "WJ-14", "edge case 36", [s("admit", request="add", grant="math"), s("observe", request="add", grant="math", status=TOTAL_42), s("observe_compensation", "unknown_compensation", request="undo", grant="math", status=RUNNING)]),
    _case(
        "journal.observe-compensation-check-order",
        "WJ-14",
        "observe_compensation: status, then scope, then original, tool, compensation, identity",
        [
            s("admit", request="add", grant="math"),
            s("observe", request="add", grant="math", status=TOTAL_42),
            s("observe_compensation", "invalid_operation_failure", request="undo-wrong-scope-unknown-op", grant="math", status=failed("")),
            s("observe_compensation", "operation_journal_scope_mismatch", request="undo-wrong-scope-unknown-op", grant="math", status=RUNNING),
            s("observe_compensation", "unknown_operation", request="undo-unknown-op", grant="math", status=RUNNING),
            s("observe_compensation", "compensation_tool_mismatch", request="undo-other-tool", grant="math-sub", status=RUNNING),
            s("observe_compensation", "unknown_compensation", request="undo", grant="math", status=RUNNING),
            s("admit_compensation", request="undo", grant="math"),
            s("observe_compensation", "compensation_identity_mismatch", request="undo-other-key", grant="math", status=RUNNING),
        ],
        ORDER,
    ),
    _case(
        "journal.compensation-grant-drift",
        "WJ-15",
        "a compensation carrying a newer grant's fingerprint than the stored one is refused by the journal (the authorizer passes it)",
        [
            s("admit", request="add", grant="math"),
            s("observe", request="add", grant="math", status=TOTAL_42),
            s("admit_compensation", request="undo", grant="math"),
            s("admit_compensation", "compensation_identity_mismatch", request="undo-new-grant", grant="math"),
            s("observe_compensation", "compensation_identity_mismatch", request="undo-new-grant", grant="math", status=RUNNING),
        ],
        ONE_UNDO,
    ),
    _case(
        "journal.compensation-recheck-under-current-grant",
        "WJ-17",
        "a stored compensation success is re-checked against the grant of the duplicate",
        [
            s("admit", request="add", grant="math"),
            s("observe", request="add", grant="math", status=TOTAL_42),
            s("admit_compensation", request="undo", grant="math"),
            s("observe_compensation", request="undo", grant="math", status=BODY_64),
            s("admit_compensation", "output_too_large", request="undo", grant="math-out-16"),
        ],
        GRANT,
    ),
    _case(
        "journal.probe.text-compensation",
        "WJ-13",
        "probe journal with a text compensation pending, as a session leaves it after an indeterminate compensation",
        [
            s("admit", request="echo", grant="echo"),
            s("observe", request="echo", grant="echo", status=succeeded("done", "text")),
            s("admit_compensation", request="echo-undo", grant="echo", checkpoint="compensation-pending"),
            s("observe_compensation", request="echo-undo", grant="echo", status=succeeded("undone", "text")),
        ],
        PROBE,
        ON_PROBE_TENANT,
    ),
]
# fmt: on


NOTES = [
    Flag(
        "UpstreamProbe",
        "divergence from observed upstream behaviour",
        "journals written by one implementation are rejected or read differently by the other",
    ),
    Flag(
        "CheckOrder",
        "checks run in another order",
        "a different error is reported, and an error can reveal which keys a journal holds",
    ),
    Flag(
        "TerminalImmutable",
        "a terminal state is overwritten by a later observation",
        "a duplicate request receives a result other than the first one, or a failed effect is later reported as succeeded",
    ),
    Flag(
        "StructuralEquality",
        "terminal results compared by bytes, by text or with a loose numeric equality",
        "a faithful resend is refused, or a contradicting result is accepted as a duplicate",
    ),
    Flag(
        "F64Profile",
        "informative splash-v5-f64 profile (numbers held as u64/i64/f64)",
        "only implementations of that profile must match; splash-v5 implementations skip these",
    ),
    Flag(
        "GrantRecheck",
        "a stored result is replayed without re-checking it against the current grant",
        "an attenuated session receives output larger or of another format than its grant allows",
    ),
    Flag(
        "RecordLimit",
        "the 64-record limit checked before the duplicate lookup",
        "a full journal refuses duplicates, pushing hosts towards redispatching an effect",
    ),
    Flag(
        "BoundAfterMutation",
        "the size bound checked after the state was replaced",
        "a journal that can no longer be stored, or a success recorded that was never persisted",
    ),
    Flag(
        "SingleCompensation",
        "a second compensation identity attached to one original",
        "the same effect is undone twice",
    ),
    Flag(
        "ScopeIsolation",
        "the tenant scope compared after the key lookup, or not at all",
        "one tenant compensates another tenant's operation, or learns which keys exist",
    ),
    Flag(
        "PrefixPolicy",
        "the host ledger's cmp- key rule applied at the worker layer",
        "operation keys that upstream workers accept are refused",
    ),
]


# Probe labels of journal.probe.upstream-lifecycle: its checkpoints' journal texts, then the
# outcome of each step in order.
LIFECYCLE_ROWS = (
    "empty",
    "pending",
    "running",
    "succeeded",
    "with compensation pending",
    "with compensation failed",
    "admit",
    "admit again",
    "observe running",
    "observe running again",
    "observe succeeded",
    "observe succeeded different payload",
    "observe running after success",
    "observe_compensation before admission",
    "admit_compensation",
    "observe_compensation failed",
    "observe_compensation failed same msg",
    "observe_compensation failed other msg",
    "observe_compensation cancelled",
    "admit_compensation existing",
    "second cmp key",
    "compensation with other tool",
    "compensation unknown op",
    "compensation wrong scope + unknown op",
    "same key other tool",
)
_SETUP = "the steps before it are the setup that row needs"


def _terminal_row(case: Case) -> Provenance:
    first, second = next((a, b) for name, a, b in _TERMINAL_ROWS if case.id.endswith("." + name))
    section = "after `--- AP eq`" if case.profile == "splash-v5" else "before `--- AP eq`"
    return observed(
        "out_other.txt",
        f"terminal {first} then {second}",
        scope=f"the row {section}: step 2 and the stored payload; {_SETUP}",
    )


EVIDENCE: dict[str, Provenance] = {
    PROBE_LIFECYCLE.id: observed("out_ap.txt", *LIFECYCLE_ROWS),
    "journal.edge-24.observe-unknown-key": observed("out_ap.txt", "observe unknown op"),
    "journal.new.invalid-scope": observed(
        "out_ap.txt", "new invalid scope", "empty", scope="`empty` is a new tenant-release journal"
    ),
    "journal.edge-25.record-limit-after-lookup": observed(
        "out_ap.txt",
        "65th admit",
        "existing admit when full",
        scope=f"steps 1 and 2, {_SETUP}; the record text of step 3 computed (WJ-9)",
    ),
    "journal.json-success-on-text-grant": observed(
        "out_other.txt", "observe json on text grant", scope=f"both sections; {_SETUP}"
    ),
    "journal.probe.text-compensation": observed(
        "out_other.txt",
        "compensate indeterminate",
        "compensate same identity new id after success (budget 1 already reserved by c1)",
        scope="the journal texts printed under these rows (blocks 4 and 3) are the checkpoint "
        "and the final journal; the step outcomes are the calls that produced them",
    ),
    "journal.edge-18.failed-after-succeeded": splash_test(
        "crates/splash-protocol/src/lib.rs",
        "worker_operation_journal_rejects_identity_drift_and_terminal_rewrites",
        note="its late failure message differs; the outcome does not depend on it",
    ),
    "journal.edge-26.bound-on-observation": derived(
        "WJ-7",
        note="steps 1 and 2 are out_ap.txt rows `observe #4 large payload` and `record state "
        "after failed observe`; the later observation (step 3) was not run upstream",
    ),
    "journal.failure-message-bounds": derived(
        "WJ-10",
        note="out_other.txt rows `observe failed empty` and `observe failed 4096 msg with grant "
        "output 65536` show steps 1 and 3 under a wider grant than this trace's",
    ),
}
"""Traces whose outcomes upstream printed or asserted; the others are derived from their rule."""


def provenance_of(case: Case) -> Provenance:
    if case in TERMINAL_EQUALITY:
        return _terminal_row(case)
    return EVIDENCE.get(case.id) or derived(case.rule, note=edge_case_note(case.id))


def _vectors(cases: list[Case]) -> list[VectorTest]:
    return [vector(case, provenance_of(case)) for case in cases]


def build() -> VectorFile:
    groups = [
        VectorGroup("journal-admission", _vectors(ADMISSION)),
        VectorGroup("journal-observation", _vectors(OBSERVATION)),
        VectorGroup("journal-terminal-equality", _vectors(TERMINAL_EQUALITY)),
        VectorGroup("journal-reconciliation", _vectors(RECONCILIATION)),
        VectorGroup("journal-compensation", _vectors(COMPENSATION)),
    ]
    return VectorFile(
        topic=TOPIC,
        header=(
            "Worker operation journal traces (docs/spec/journal.md, rules WJ-n).",
            "Replay each step in order; compare `error` codes (details are informative) and journal texts byte for byte.",
            "Tests flagged F64Profile apply to the splash-v5-f64 profile only.",
        ),
        notes=NOTES,
        groups=groups,
        test_schema={"input": TRACE_INPUT_SCHEMA, "expected": TRACE_EXPECTED_SCHEMA},
    )
