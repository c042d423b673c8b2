"""Operations of capabilities ``journal`` and ``authorizer`` (whole traces, one request
each; the result holds one outcome per step) and ``frames``."""

from __future__ import annotations

from rescind.conformance.interpreters import frame_trace, worker_trace
from rescind.conformance.interpreters.frame_lines import run_bootstrap, run_message, run_tag
from rescind.conformance.interpreters.journal_load import load_journal
from rescind.conformance.ops.declaration import Declared, raising

OPERATIONS = (
    Declared("journal.trace", "journal", worker_trace.run_trace),
    Declared("journal.load", "journal", raising(load_journal)),
    Declared("authorizer.trace", "authorizer", worker_trace.run_trace),
    Declared("frames.message", "frames", raising(run_message)),
    Declared("frames.tag", "frames", raising(run_tag)),
    Declared("frames.trace", "frames", frame_trace.run_frame_trace),
    Declared("frames.bootstrap", "frames", raising(run_bootstrap)),
)
