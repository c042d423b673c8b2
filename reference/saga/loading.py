"""Parse the JSON descriptions a spec author writes (docs/saga.md) into saga value objects.

Input is already-parsed JSON (this module does no I/O). Unknown keys, wrong types and unknown
enum values are refused with ``saga_invalid_input`` naming the field path (in snake_case, so
the path survives error redaction) and a short reason.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable
from typing import Any, TypeVar

from rescind.reference.saga.bindings import Binding, CaseDefinition, TargetKind
from rescind.reference.saga.declarations import Structure, TaskDefinition, WorkflowDefinition
from rescind.reference.saga.effects import Effect, EffectClass
from rescind.reference.saga.errors import SagaInvalidInput
from rescind.reference.saga.identifiers import require_identifier
from rescind.reference.saga.lineage import CompensationRun, CompensationTask, Lineage
from rescind.reference.saga.reconciliation import Overlay, reconcile
from rescind.reference.saga.workflow import (
    ApprovalMode,
    CompensateDeclaration,
    CompensationPolicy,
    OnFailure,
    PolicyApproval,
    RetryPolicy,
    RunMode,
    SourceRun,
    SourceTask,
    canonical_json,
)
from rescind.tables.saga import (
    EffectStatus,
    ReconciliationStatus,
    RunState,
    TaskState,
)

E = TypeVar("E", bound=enum.Enum)
_UPPER = re.compile(r"(?<!^)(?=[A-Z])")


class Reader:
    """A cursor into parsed JSON that knows its own path for error reports."""

    def __init__(self, value: Any, path: str = "file") -> None:
        self.value = value
        self.path = path

    def fail(self, reason: str) -> SagaInvalidInput:
        return SagaInvalidInput(field=self.path, reason=reason)

    def child(self, key: str | int) -> Reader:
        name = key if isinstance(key, int) else _UPPER.sub("_", key).lower()
        return Reader(self.value[key], f"{self.path}.{name}")

    def object(self, required: tuple[str, ...], optional: tuple[str, ...] = ()) -> Reader:
        if not isinstance(self.value, dict):
            raise self.fail("must be an object")
        for key in self.value:
            if key not in required and key not in optional:
                raise SagaInvalidInput(field=f"{self.path}.{_snake(key)}", reason="unknown key")
        for key in required:
            if key not in self.value:
                raise SagaInvalidInput(field=f"{self.path}.{_snake(key)}", reason="missing")
        return self

    def has(self, key: str) -> bool:
        return isinstance(self.value, dict) and key in self.value and self.value[key] is not None

    def get(self, key: str) -> Reader | None:
        return self.child(key) if self.has(key) else None

    def items(self) -> list[Reader]:
        if not isinstance(self.value, list):
            raise self.fail("must be an array")
        return [self.child(index) for index in range(len(self.value))]

    def members(self) -> list[tuple[str, Reader]]:
        """Each key of an object with its reader (the keys are the data, none is unknown)."""
        if not isinstance(self.value, dict):
            raise self.fail("must be an object")
        return [(key, self.child(key)) for key in self.value]

    def text(self) -> str:
        if not isinstance(self.value, str):
            raise self.fail("must be a string")
        return self.value

    def identifier(self) -> str:
        return require_identifier(self.path, self.text())

    def identifier_list(self) -> tuple[str, ...]:
        """Identifiers, repeats allowed."""
        return tuple(item.identifier() for item in self.items())

    def identifiers(self) -> tuple[str, ...]:
        values = self.identifier_list()
        if len(set(values)) != len(values):
            raise self.fail("repeats a value")
        return values

    def flag(self) -> bool:
        if not isinstance(self.value, bool):
            raise self.fail("must be true or false")
        return self.value

    def integer(self) -> int:
        if isinstance(self.value, bool) or not isinstance(self.value, int):
            raise self.fail("must be an integer")
        return self.value

    def choice(self, kind: type[E]) -> E:
        for member in kind:
            if member.value == self.value:
                return member
        allowed = " ".join(str(member.value).lower() for member in kind)
        raise self.fail(f"must be one of: {allowed}")

    def json_text(self) -> str:
        try:
            return canonical_json(self.value)
        except ValueError:
            # An integer past Python's digit limit (only an in-process caller can hand one
            # over: the CLI and the driver refuse such a number while parsing).
            raise self.fail("number out of range") from None


def _snake(key: str) -> str:
    return _UPPER.sub("_", key).lower() if _is_plain(key) else "<key>"


def _is_plain(key: str) -> bool:
    return re.fullmatch(r"[A-Za-z0-9_]{1,60}", key) is not None


def _opt(reader: Reader, key: str, default: Any, parse: Any) -> Any:
    found = reader.get(key)
    return default if found is None else parse(found)


def _attempt_order(effects: Iterable[Effect]) -> tuple[Effect, ...]:
    """agentctl's store lists a task's effects by attempt, then ordinal (``list_effects``,
    SG-99): the file's order is kept within an attempt (that is the ordinal order) and the
    attempts are sorted, so "the last effect" is always the latest attempt's."""
    return tuple(sorted(effects, key=lambda effect: effect.attempt))


def read_effect(reader: Reader, run_id: str, task_id: str) -> Effect:
    reader.object(("id", "status"), ("confirmed", "class", "attempt"))
    status = reader.child("status").choice(EffectStatus)
    confirmed = _opt(reader, "confirmed", status is EffectStatus.SUCCEEDED, Reader.flag)
    if confirmed and status is not EffectStatus.SUCCEEDED:
        raise reader.child("confirmed").fail("only a succeeded effect is confirmed")
    return Effect(
        effect_id=reader.child("id").identifier(),
        run_id=run_id,
        task_id=task_id,
        status=status,
        effect_class=_opt(reader, "class", EffectClass.WORKSPACE, lambda r: r.choice(EffectClass)),
        confirmed=confirmed,
        attempt=_opt(reader, "attempt", 1, Reader.integer),
    )


def read_compensate(reader: Reader) -> CompensateDeclaration:
    reader.object(("uses",), ("with", "retry", "timeoutSeconds"))
    retry = RetryPolicy()
    found = reader.get("retry")
    if found is not None:
        found.object((), ("maxAttempts", "backoffMs"))
        retry = RetryPolicy(
            max_attempts=_opt(found, "maxAttempts", 1, Reader.integer),
            backoff_ms=_opt(found, "backoffMs", 0, Reader.integer),
        )
    return CompensateDeclaration(
        uses=reader.child("uses").text(),
        with_json=_opt(reader, "with", "{}", Reader.json_text),
        retry=retry,
        timeout_seconds=_opt(reader, "timeoutSeconds", None, Reader.integer),
    )


def _read_task(reader: Reader, run_id: str) -> SourceTask:
    reader.object(("id",), ("needs", "compensate", "effects", "state", "output", "vars"))
    task_id = reader.child("id").identifier()
    effects = reader.get("effects")
    return SourceTask(
        task_id=task_id,
        needs=_opt(reader, "needs", (), Reader.identifiers),
        compensate=_opt(reader, "compensate", None, read_compensate),
        effects=()
        if effects is None
        else _attempt_order(read_effect(item, run_id, task_id) for item in effects.items()),
        state=_opt(reader, "state", TaskState.SUCCEEDED, lambda r: r.choice(TaskState)),
        output_json=_opt(reader, "output", None, Reader.json_text),
        vars_json=_opt(reader, "vars", "{}", Reader.json_text),
    )


def read_source_run(reader: Reader) -> SourceRun:
    reader.object(
        ("runId", "state", "tasks"),
        ("workflow", "mode", "compensation", "policyApproval", "inputs", "memory"),
    )
    run_id = reader.child("runId").identifier()
    policy = CompensationPolicy()
    found = reader.get("compensation")
    if found is not None:
        found.object((), ("onFailure", "approval"))
        policy = CompensationPolicy(
            on_failure=_opt(found, "onFailure", OnFailure.MANUAL, lambda r: r.choice(OnFailure)),
            approval=_opt(found, "approval", ApprovalMode.POLICY, lambda r: r.choice(ApprovalMode)),
        )
    return SourceRun(
        run_id=run_id,
        state=reader.child("state").choice(RunState),
        tasks=tuple(_read_task(item, run_id) for item in reader.child("tasks").items()),
        workflow_name=_opt(reader, "workflow", "workflow", Reader.identifier),
        policy=policy,
        policy_approval=_opt(
            reader, "policyApproval", PolicyApproval.MUTATIONS, lambda r: r.choice(PolicyApproval)
        ),
        mode=_opt(reader, "mode", RunMode.EXECUTE, lambda r: r.choice(RunMode)),
        inputs_json=_opt(reader, "inputs", "{}", Reader.json_text),
        memory_json=_opt(reader, "memory", "{}", Reader.json_text),
    )


def _read_run(reader: Reader, source_run_id: str) -> CompensationRun:
    reader.object(("runId", "state", "tasks"), ("approvalRequired",))
    run_id = reader.child("runId").identifier()
    tasks = []
    for item in reader.child("tasks").items():
        item.object(("sourceTaskId", "sourceEffectIds"), ("state", "effects", "action"))
        source_task_id = item.child("sourceTaskId").identifier()
        task_id = "compensate--" + source_task_id
        effects = item.get("effects")
        tasks.append(
            CompensationTask(
                source_task_id=source_task_id,
                source_effect_ids=item.child("sourceEffectIds").identifiers(),
                action=_opt(item, "action", "undo", Reader.text),
                state=_opt(item, "state", TaskState.SUCCEEDED, lambda r: r.choice(TaskState)),
                effects=()
                if effects is None
                else _attempt_order(read_effect(e, run_id, task_id) for e in effects.items()),
            )
        )
    return CompensationRun(
        run_id=run_id,
        source_run_id=source_run_id,
        state=reader.child("state").choice(RunState),
        tasks=tuple(tasks),
        approval_required=_opt(reader, "approvalRequired", False, Reader.flag),
    )


def apply_reconciliation(lineage: Lineage, reader: Reader) -> Lineage:
    """One operator reconciliation, checked by every overlay rule."""
    reader.object(("effectId", "status"), ("actor", "reason", "result", "compensationEffectId"))
    found = reader.get("result")
    overlay = reconcile(
        lineage.overlay,
        lineage.registry,
        effect_id=reader.child("effectId").identifier(),
        status=reader.child("status").choice(ReconciliationStatus),
        actor=_opt(reader, "actor", "operator", Reader.text),
        reason=_opt(reader, "reason", "operator statement", Reader.text),
        result_json=None if found is None else found.json_text(),
        compensation_effect_id=_opt(reader, "compensationEffectId", None, Reader.identifier),
    )
    return Lineage(lineage.source, lineage.runs, overlay)


def read_lineage(document: Any) -> tuple[Lineage, tuple[str, ...]]:
    """A plan input file: the lineage (overlay replayed in order) and the ``--task`` selection."""
    reader = Reader(document).object(
        ("sourceRun",), ("compensationRuns", "reconciliations", "selection")
    )
    source = read_source_run(reader.child("sourceRun"))
    runs = _opt(
        reader,
        "compensationRuns",
        (),
        lambda r: tuple(_read_run(item, source.run_id) for item in r.items()),
    )
    lineage = Lineage(source, runs, Overlay())
    found = reader.get("reconciliations")
    for item in [] if found is None else found.items():
        lineage = apply_reconciliation(lineage, item)
    # SG-82: the selection is a sorted set; a repeated id collapses rather than being refused.
    return lineage, _opt(reader, "selection", (), Reader.identifier_list)


def read_binding(reader: Reader) -> Binding:
    reader.object(
        ("name",),
        ("target", "capability", "worker", "compensate", "compensation", "produces", "consumes"),
    )
    return Binding(
        name=reader.child("name").identifier(),
        target=_opt(reader, "target", TargetKind.CAPABILITY, lambda r: r.choice(TargetKind)),
        capability=_opt(reader, "capability", "", Reader.identifier),
        worker=_opt(reader, "worker", "", Reader.identifier),
        compensate=_opt(reader, "compensate", None, Reader.identifier),
        compensation=_opt(reader, "compensation", False, Reader.flag),
        produces=_opt(reader, "produces", (), Reader.identifiers),
        consumes=_opt(reader, "consumes", (), Reader.identifiers),
    )


def read_definition(document: Any, path: str = "file") -> CaseDefinition:
    """A binding-set file: ``bindings`` (declaration order = plan-item order) and ``workers``."""
    reader = Reader(document, path).object(("bindings",), ("workers",))
    bindings = tuple(read_binding(item) for item in reader.child("bindings").items())
    names = [binding.name for binding in bindings]
    if len(set(names)) != len(names):
        raise reader.child("bindings").fail("two bindings share a name")
    return CaseDefinition(bindings, _opt(reader, "workers", (), Reader.identifiers))


def read_workflow(document: Any) -> WorkflowDefinition:
    """A workflow-definition file for the compile-time checks (SG-31..SG-33)."""
    reader = Reader(document).object(("tasks",), ("actions", "agents"))
    actions = reader.get("actions")
    agents = reader.get("agents")
    tasks = []
    for item in reader.child("tasks").items():
        item.object(("id",), ("uses", "needs", "compensate", "structure", "foreach"))
        tasks.append(
            TaskDefinition(
                task_id=item.child("id").identifier(),
                uses=_opt(item, "uses", "", Reader.text),
                needs=_opt(item, "needs", (), Reader.identifiers),
                compensate=_opt(item, "compensate", None, read_compensate),
                structure=_opt(item, "structure", Structure.NONE, lambda r: r.choice(Structure)),
                foreach=_opt(item, "foreach", (), Reader.identifiers),
            )
        )
    return WorkflowDefinition(
        tasks=tuple(tasks),
        actions=()
        if actions is None
        else tuple((name, action.text()) for name, action in actions.members()),
        agents=()
        if agents is None
        else tuple(
            (name, tuple(tool.text() for tool in agent.items())) for name, agent in agents.members()
        ),
    )
