"""Operations of capability ``storage``: record tags, envelope opening, and CAS/fencing
traces (each trace is one request; its result holds one outcome per step)."""

from __future__ import annotations

from rescind.conformance.interpreters import storage_harness as harness
from rescind.conformance.ops.declaration import Declared, raising

OPERATIONS = (
    Declared("storage.tag", "storage", raising(harness.run_tag)),
    Declared("storage.open", "storage", raising(harness.run_open)),
    Declared("storage.trace", "storage", harness.run_trace),
)
