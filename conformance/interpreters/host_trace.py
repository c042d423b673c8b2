"""Ledger traces: a small, JSON-described sequence of engine calls and what each returns.

A trace is ``{"setup": {...}, "steps": [{"call": <name>, "args": {...}}, ...]}``. Running it
gives ``{"steps": [{"result": <json>} | {"error": <code>}, ...], "checkpoints": {name:
<ledger json text>}}``. The vocabulary (setup keys, calls, arguments, results) is specified
in docs/spec/ledger.md, section "Ledger traces"; the ``ledger-traces`` vectors are traces and
the reference's outcome, and tests replay them.

Names: setup creates named engines, plans, ledgers, sessions (authenticators), grants and
verifiers; a step's ``as`` argument names what it returns (policy, target, approval, prepared
frame, worker frame, key). A string argument ``"$name"`` is replaced by the string bound to
``name`` (a key returned by an earlier step). Engine ids come from a trace-local counter, so
a trace's outcome does not depend on anything else in the process.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import attrs

from rescind.conformance.interpreters.host_trace_frames import FrameCalls
from rescind.conformance.interpreters.trace_support import (
    Json,
    ScriptedVerifier,
    TraceFormatError,
    bytes_arg,
    grant_arg,
    input_arg,
)
from rescind.reference.errors import RescindError
from rescind.reference.frames import SessionAuthenticator, SessionRole
from rescind.reference.grants import CapabilityGrant
from rescind.reference.host.compensation import (
    WorkflowCompensationPolicy,
    WorkflowCompensationTarget,
)
from rescind.reference.host.engine import WorkflowEngine
from rescind.reference.host.ledger import WorkflowOperationLedger
from rescind.reference.host.plan import WorkflowPlan
from rescind.reference.worker_message import WireProfile


class TraceRun(FrameCalls):
    """One run of one trace. ``run_trace`` is the entry point."""

    # -- setup ---------------------------------------------------------------------------

    def setup(self, setup: Mapping[str, Json]) -> None:
        for name in setup.get("engines", ["engine"]):
            self.names[name] = WorkflowEngine(self.ids)
        for name, spec in setup.get("plans", {}).items():
            engine = self.get(spec["engine"], WorkflowEngine)
            self.names[name] = engine.plan([(step[0], step[1]) for step in spec["steps"]])
        for name, spec in setup.get("sessions", {}).items():
            self.names[name] = SessionAuthenticator(
                spec["session_id"],
                bytes.fromhex(spec["key"]),
                SessionRole(spec["role"]),
                profile=WireProfile(spec.get("wire", WireProfile.UPSTREAM.value)),
            )
        for name, spec in setup.get("grants", {}).items():
            self.names[name] = grant_arg(spec)
        for name, allow in setup.get("verifiers", {}).items():
            self.names[name] = ScriptedVerifier(bool(allow))
        for name, spec in setup.get("ledgers", {}).items():
            engine = self.get(spec["engine"], WorkflowEngine)
            plan = self.get(spec["plan"], WorkflowPlan)
            self.names[name] = engine.operation_ledger(plan)
            self.ledger_names.append(name)

    # -- running -------------------------------------------------------------------------

    def step(self, call: str, args: Mapping[str, Json]) -> Json:
        handler: Callable[[Mapping[str, Json]], Json] | None = getattr(self, f"do_{call}", None)
        if handler is None:
            raise TraceFormatError(f"unknown call {call!r}")
        return handler(args)

    def finish(self) -> None:
        for name in self.ledger_names:
            ledger = self.get(name, WorkflowOperationLedger)
            try:
                self.checkpoints[f"final.{name}"] = ledger.to_json()
            except RescindError as error:
                self.checkpoints[f"final.{name}"] = {"error": error.code}

    # -- plans ---------------------------------------------------------------------------

    def do_plan(self, args: Mapping[str, Json]) -> Json:
        """``steps``: ``[[id, source], ...]`` (a source may be a byte string spec); the plan
        is named ``as``; the result is its fingerprint."""
        engine = self.get(args["engine"], WorkflowEngine)
        steps = [(str(step[0]), bytes_arg(step[1]).decode("utf-8")) for step in args["steps"]]
        plan = engine.plan(steps)
        self.bind(args, plan)
        return plan.fingerprint

    # -- ledgers -------------------------------------------------------------------------

    def do_operation_ledger(self, args: Mapping[str, Json]) -> Json:
        engine = self.get(args["engine"], WorkflowEngine)
        ledger = engine.operation_ledger(self.get(args["plan"], WorkflowPlan))
        self._name_ledger(args, ledger)
        return None

    def _name_ledger(self, args: Mapping[str, Json], ledger: WorkflowOperationLedger) -> None:
        name = str(args["as"])
        self.names[name] = ledger
        if name not in self.ledger_names:
            self.ledger_names.append(name)

    def do_load_ledger(self, args: Mapping[str, Json]) -> Json:
        """``text``: a ledger JSON text; ``from``: another ledger's ``to_json`` text, with
        optional ``edits`` (``{"path": [...], "value": v}``) applied to its parsed form."""
        if "text" in args:
            text = str(args["text"])
        else:
            text = self.get(args["from"], WorkflowOperationLedger).to_json()
            if args.get("edits"):
                document = json.loads(text)
                for edit in args["edits"]:
                    _set_path(document, edit["path"], edit["value"])
                text = json.dumps(document, separators=(",", ":"), ensure_ascii=False)
        self._name_ledger(args, WorkflowOperationLedger.from_json(text))
        return None

    def do_to_json(self, args: Mapping[str, Json]) -> Json:
        return self.get(args["ledger"], WorkflowOperationLedger).to_json()

    def do_checkpoint(self, args: Mapping[str, Json]) -> Json:
        ledger = self.get(args["ledger"], WorkflowOperationLedger)
        self.checkpoints[str(args["name"])] = ledger.to_json()
        return None

    def do_revision(self, args: Mapping[str, Json]) -> Json:
        return self.get(args["ledger"], WorkflowOperationLedger).revision

    def do_validate(self, args: Mapping[str, Json]) -> Json:
        engine, plan, ledger = self.context(args)
        if "minimum_revision" in args:
            engine.validate_operation_ledger_at_or_after(
                plan, ledger, int(args["minimum_revision"])
            )
        else:
            engine.validate_operation_ledger(plan, ledger)
        return None

    def do_matches_input(self, args: Mapping[str, Json]) -> Json:
        ledger = self.get(args["ledger"], WorkflowOperationLedger)
        operation = ledger.require_operation(self.text(args["operation_key"]))
        return operation.matches_input(input_arg(args["input"]))

    def do_verify_input(self, args: Mapping[str, Json]) -> Json:
        ledger = self.get(args["ledger"], WorkflowOperationLedger)
        operation = ledger.require_operation(self.text(args["operation_key"]))
        if args.get("compensation"):
            if operation.compensation is None:
                raise TraceFormatError("the operation has no compensation")
            operation.compensation.verify_input(input_arg(args["input"]))
        else:
            operation.verify_input(input_arg(args["input"]))
        return None

    def do_events(self, args: Mapping[str, Json]) -> Json:
        engine = self.get(args["engine"], WorkflowEngine)
        return [event.to_json() for event in engine.drain_events()]

    # -- operations ----------------------------------------------------------------------

    def do_record_operation(self, args: Mapping[str, Json]) -> Json:
        engine, plan, ledger = self.context(args)
        engine.record_operation(
            plan,
            ledger,
            self.text(args["step_id"]),
            self.text(args["tool"]),
            self.text(args["operation_key"]),
            input_arg(args["input"]),
        )
        return None

    def do_derive_operation_key(self, args: Mapping[str, Json]) -> Json:
        engine = self.get(args["engine"], WorkflowEngine)
        key = engine.derive_operation_key(
            self.get(args["plan"], WorkflowPlan),
            self.text(args["step_id"]),
            self.text(args["tool"]),
            input_arg(args["input"]),
            bytes_arg(args["nonce"]),
        )
        self.bind(args, key)
        return key

    def do_record_derived_operation(self, args: Mapping[str, Json]) -> Json:
        engine, plan, ledger = self.context(args)
        key = engine.record_derived_operation(
            plan,
            ledger,
            self.text(args["step_id"]),
            self.text(args["tool"]),
            input_arg(args["input"]),
            bytes_arg(args["nonce"]),
        )
        self.bind(args, key)
        return key

    def do_prepare_external_operation(self, args: Mapping[str, Json]) -> Json:
        engine, plan, ledger = self.context(args)
        key = engine.prepare_external_operation(
            plan,
            ledger,
            self.text(args["step_id"]),
            self.text(args["tool"]),
            input_arg(args["input"]),
            bytes_arg(args["nonce"]),
        )
        self.bind(args, key)
        return key

    # -- policies, targets, verifiers ----------------------------------------------------

    def do_policy(self, args: Mapping[str, Json]) -> Json:
        policy = WorkflowCompensationPolicy.create(
            self.text(args["tenant_scope"]), self.get(args["grant"], CapabilityGrant)
        )
        self.bind(args, policy)
        return attrs.asdict(policy)

    def do_raw_policy(self, args: Mapping[str, Json]) -> Json:
        policy = WorkflowCompensationPolicy(
            self.text(args["tool"]),
            self.text(args["tenant_scope"]),
            self.text(args["grant_fingerprint"]),
        )
        self.bind(args, policy)
        return None

    def do_grant(self, args: Mapping[str, Json]) -> Json:
        grant = grant_arg(args["grant"])
        self.bind(args, grant)
        return None

    def do_target(self, args: Mapping[str, Json]) -> Json:
        target = WorkflowCompensationTarget(
            self.text(args["operation_key"]),
            self.get(args["policy"], WorkflowCompensationPolicy),
            self.get(args["grant"], CapabilityGrant),
            self.get(args["grant_verifier"], ScriptedVerifier),
            self.get(args["action_verifier"], ScriptedVerifier),
        )
        self.bind(args, target)
        return None

    def do_set_verifier(self, args: Mapping[str, Json]) -> Json:
        self.get(args["verifier"], ScriptedVerifier).allow = bool(args["allow"])
        return None

    def do_verifier_calls(self, args: Mapping[str, Json]) -> Json:
        return self.get(args["verifier"], ScriptedVerifier).calls_json()

    # -- compensation intents ------------------------------------------------------------

    def do_record_compensation(self, args: Mapping[str, Json]) -> Json:
        engine, plan, ledger = self.context(args)
        engine.record_compensation(
            plan,
            ledger,
            self.text(args["operation_key"]),
            self.get(args["policy"], WorkflowCompensationPolicy),
            self.text(args["compensation_key"]),
            input_arg(args["input"]),
        )
        return None

    def do_derive_compensation_key(self, args: Mapping[str, Json]) -> Json:
        engine, plan, ledger = self.context(args)
        key = engine.derive_compensation_key(
            plan,
            ledger,
            self.text(args["operation_key"]),
            self.get(args["policy"], WorkflowCompensationPolicy),
            input_arg(args["input"]),
            bytes_arg(args["nonce"]),
        )
        self.bind(args, key)
        return key

    def do_record_derived_compensation(self, args: Mapping[str, Json]) -> Json:
        engine, plan, ledger = self.context(args)
        key = engine.record_derived_compensation(
            plan,
            ledger,
            self.text(args["operation_key"]),
            self.get(args["policy"], WorkflowCompensationPolicy),
            input_arg(args["input"]),
            bytes_arg(args["nonce"]),
        )
        self.bind(args, key)
        return key

    def do_record_compensation_with_action_verifier(self, args: Mapping[str, Json]) -> Json:
        engine, plan, ledger = self.context(args)
        engine.record_compensation_with_action_verifier(
            plan,
            ledger,
            self.get(args["target"], WorkflowCompensationTarget),
            self.text(args["compensation_key"]),
            input_arg(args["input"]),
        )
        return None

    def do_record_derived_compensation_with_action_verifier(self, args: Mapping[str, Json]) -> Json:
        engine, plan, ledger = self.context(args)
        key = engine.record_derived_compensation_with_action_verifier(
            plan,
            ledger,
            self.get(args["target"], WorkflowCompensationTarget),
            input_arg(args["input"]),
            bytes_arg(args["nonce"]),
        )
        self.bind(args, key)
        return key


def _set_path(document: Any, path: list[Any], value: Any) -> None:
    target = document
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value


def run_trace(trace: Mapping[str, Json]) -> dict[str, Json]:
    """Run a trace and return its outcome: one entry per step, plus the checkpoints (every
    ledger's final text is added as ``final.<name>``)."""
    run = TraceRun()
    run.setup(trace.get("setup", {}))
    outcomes: list[Json] = []
    for step in trace["steps"]:
        try:
            outcomes.append({"result": run.step(str(step["call"]), step.get("args", {}))})
        except RescindError as error:
            outcomes.append({"error": error.code})
    run.finish()
    return {"steps": outcomes, "checkpoints": run.checkpoints}
