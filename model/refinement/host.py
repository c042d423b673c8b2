"""Refinement, host side: the workflow ledger and its approvals against the model.

A :class:`HostObservation` is a plain snapshot of one host: the ledger it would recover
(revision, and per operation key its state, tool and compensation intent), the compensation
approvals it has issued, and the grant it builds compensation policies from. It is a
:class:`~rescind.model.refinement.abstraction.Snapshot`, so :meth:`Abstraction.explain` checks
a host step exactly as it checks a worker step: z3 must find a path of the allowed model actions
(or the empty path) from a state matching the first snapshot to one matching the second,
with everything the snapshot does not observe left free.

What maps where:

* ``host.revision`` is the ledger revision; ``host.op``, ``host.tool`` the operation's state
  and tool; ``host.cmp``, ``host.cmp_key``, ``host.cmp_scope``, ``host.cmp_fp`` the intent's
  state, ``cmp-`` key, tenant scope and grant fingerprint (``absent`` where there is none);
* ``host.cmp_count`` (a ghost) is how many *different* intents the observer has ever seen
  for the operation, which the caller keeps across snapshots;
* per approval id (a nonce): ``approval.status`` is ``consumed`` or ``issued`` (and
  ``unissued`` for an id the snapshot does not hold), ``approval.key`` and
  ``approval.revision`` its bound operation key and ledger revision, and ``approval.uses``
  (a ghost) how many prepare calls the observer saw use it up or seal a frame with it;
* ``grant.active`` is the grant the host passes in its compensation targets (the model has
  one grant per tool, shared by host and worker), its fingerprint pinned as on the worker
  side.

Not observed: the wire (any result the lifecycle table accepts is one the worker may have
sent), ``host.cmp_grant``, the worker, the input fingerprints, step ids and plan
fingerprint (the model has none of them), and plan approvals (the model has only
compensation approvals).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import attrs
import z3

from rescind.model.core.logic import (
    APPROVAL_STATUS,
    CKEY,
    FINGERPRINT,
    KEY,
    NONCE,
    SCOPE,
    TOOL,
    Expr,
    phase,
)
from rescind.model.core.prover import Path
from rescind.model.core.system import State
from rescind.model.refinement.abstraction import Abstraction, GrantView

ABSENT = "absent"


@attrs.frozen
class HostCompensationView:
    """The one compensation intent of an operation, as the ledger holds it."""

    key: str
    tenant_scope: str
    grant_fingerprint: str
    phase: str


@attrs.frozen
class HostOperationView:
    tool: str
    phase: str
    compensation: HostCompensationView | None = None
    intents_seen: int = 0
    """Different intents ever observed for this operation (the ``host.cmp_count`` ghost)."""


@attrs.frozen
class ApprovalView:
    """A compensation approval: what it is bound to, and whether it is used up."""

    operation_key: str
    ledger_revision: int
    consumed: bool
    uses: int
    """Prepare calls seen to use it (consume it, or seal a frame with it)."""


@attrs.frozen
class HostObservation:
    revision: int
    operations: Mapping[str, HostOperationView]
    approvals: Mapping[str, ApprovalView]
    grants: Mapping[str, GrantView]

    def index_names(self) -> Mapping[str, frozenset[str]]:
        keys = set(self.operations) | {view.operation_key for view in self.approvals.values()}
        return {"key": frozenset(keys), "nonce": frozenset(self.approvals)}

    def constrain(
        self, abstraction: Abstraction, state: State, names: Mapping[str, Sequence[str]]
    ) -> Expr:
        parts: list[Expr] = [state["host.revision"] == self.revision]
        for key in names.get("key", ()):
            parts.extend(self._operation(abstraction, state, key))
        for nonce in names.get("nonce", ()):
            parts.extend(self._approval(abstraction, state, nonce))
        parts.extend(abstraction.pin_grants(state, self.grants))
        return z3.And(parts)

    def _operation(self, abstraction: Abstraction, state: State, key: str) -> list[Expr]:
        k = abstraction.constant(KEY, key)
        operation = self.operations.get(key)
        if operation is None:
            return [
                state["host.op"][k] == phase(ABSENT),
                state["host.cmp"][k] == phase(ABSENT),
                state["host.cmp_count"][k] == 0,
            ]
        parts = [
            state["host.op"][k] == phase(operation.phase),
            state["host.tool"][k] == abstraction.constant(TOOL, operation.tool),
            state["host.cmp_count"][k] == operation.intents_seen,
        ]
        intent = operation.compensation
        if intent is None:
            parts.append(state["host.cmp"][k] == phase(ABSENT))
            return parts
        parts += [
            state["host.cmp"][k] == phase(intent.phase),
            state["host.cmp_key"][k] == abstraction.constant(CKEY, intent.key),
            state["host.cmp_scope"][k] == abstraction.constant(SCOPE, intent.tenant_scope),
            state["host.cmp_fp"][k] == abstraction.constant(FINGERPRINT, intent.grant_fingerprint),
        ]
        return parts

    def _approval(self, abstraction: Abstraction, state: State, nonce: str) -> list[Expr]:
        n = abstraction.constant(NONCE, nonce)
        approval = self.approvals.get(nonce)
        if approval is None:
            return [
                state["approval.status"][n] == APPROVAL_STATUS["unissued"],
                state["approval.uses"][n] == 0,
            ]
        status = "consumed" if approval.consumed else "issued"
        return [
            state["approval.status"][n] == APPROVAL_STATUS[status],
            state["approval.key"][n] == abstraction.constant(KEY, approval.operation_key),
            state["approval.revision"][n] == approval.ledger_revision,
            state["approval.uses"][n] == approval.uses,
        ]


HOST_STEPS: dict[str, tuple[str, ...]] = {
    "record_operation": ("record_operation",),
    "worker_result": ("apply_result",),
    "record_compensation": ("record_compensation",),
    "approve": ("approve",),
    "prepare": ("prepare",),
    "compensation_result": ("apply_compensation_result",),
    "store_fault": (),
    "restart": (),
    "restart_narrowed": ("attenuate_grant",),
}
"""Which model actions may explain one host step of each kind. Every host call is at most
one model action (a failed write included: it either landed or it did not); arming a store
fault and a restart must change nothing the model sees (the ledger the host recovers is the
one it had), except the grant when the new session opens under a narrower one."""


def explain_host_step(
    abstraction: Abstraction, before: HostObservation, after: HostObservation, kind: str
) -> Path | None:
    """The model's explanation of one host step of ``kind``, or ``None``."""
    actions = HOST_STEPS[kind]
    return abstraction.explain(before, after, actions, depth=1 if actions else 0)


def render(seen: HostObservation) -> list[str]:
    """A snapshot as short lines, for failure messages."""
    lines = [f"revision {seen.revision}"]
    for key, operation in sorted(seen.operations.items()):
        line = f"{key}: {operation.tool} {operation.phase}"
        intent = operation.compensation
        if intent is not None:
            line += f"; intent {intent.key} {intent.phase} (scope {intent.tenant_scope})"
        lines.append(line + f"; intents seen {operation.intents_seen}")
    for nonce, approval in sorted(seen.approvals.items()):
        state = "consumed" if approval.consumed else "issued"
        lines.append(
            f"approval {nonce}: {approval.operation_key} at revision "
            f"{approval.ledger_revision}, {state}, uses {approval.uses}"
        )
    for tool, grant in sorted(seen.grants.items()):
        lines.append(f"grant {tool}: max_compensations {grant.max_compensations}")
    return lines
