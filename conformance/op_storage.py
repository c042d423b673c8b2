"""Operations of capability ``storage``: record tags, envelope opening, and CAS/fencing
traces (each trace is one request; its result holds one outcome per step)."""

from __future__ import annotations

from rescind.conformance.operations import operation, raising
from rescind.conformance.vectorsets import _storage_harness as harness

operation("storage.tag", capability="storage")(raising(harness.run_tag))
operation("storage.open", capability="storage")(raising(harness.run_open))
operation("storage.trace", capability="storage")(harness.run_trace)
