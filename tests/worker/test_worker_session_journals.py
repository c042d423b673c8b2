"""The journal texts that upstream's WorkerSession probe printed (out_other.txt, blocks 1-4),
rebuilt with the journal alone: scope ``tenant``, tool ``text.echo``, key ``op-1``, input
``release``, compensation ``cmp-op-1`` with input ``undo`` under the probe grant."""

from __future__ import annotations

import re

from rescind.reference.messages import OperationStatus
from rescind.reference.worker.authorized import (
    AuthorizedCompensation,
    AuthorizedDispatch,
    AuthorizedReconciliation,
)
from rescind.reference.worker.journal import WorkerOperationJournal
from tests.worker.probe_lines import lines
from tests.worker.support import (
    ECHO_GRANT,
    ECHO_GRANT_FP,
    compensate,
    dispatch,
    reconcile,
    text_success,
)


def _journals() -> list[str]:
    found = []
    for line in lines("out_other.txt"):
        match = re.search(r"journal=(\{.*\})$", line)
        if match:
            found.append(match.group(1))
    return found


ECHO = AuthorizedDispatch(dispatch("release", key="op-1", tool="text.echo", text=True), ECHO_GRANT)
UNDO = AuthorizedCompensation(
    compensate(
        "undo",
        key="op-1",
        cmp_key="cmp-op-1",
        tool="text.echo",
        tenant="tenant",
        grant_fp=ECHO_GRANT_FP,
        text=True,
    ),
    ECHO_GRANT,
)
RECONCILE = AuthorizedReconciliation(reconcile(key="op-1", tool="text.echo"), ECHO_GRANT)


def test_probe_session_journals_are_reproduced() -> None:
    printed = set(_journals())
    start = WorkerOperationJournal.new("tenant")
    pending = start.admit(ECHO).journal
    running = pending.observe_reconciliation(RECONCILE, OperationStatus.running()).journal
    ok = running.observe_reconciliation(RECONCILE, text_success("ok")).journal
    done = pending.observe(ECHO, text_success("done")).journal
    undo_pending = done.admit_compensation(UNDO).journal
    undone = undo_pending.observe_compensation(UNDO, text_success("undone")).journal
    rebuilt = {j.to_json() for j in (pending, running, ok, undo_pending, undone)}
    assert rebuilt <= printed
    assert len(rebuilt) == 5
