"""Operations of capabilities ``journal`` and ``authorizer`` (whole traces, one request
each; the result holds one outcome per step) and ``frames``."""

from __future__ import annotations

from rescind.conformance.interpreters import frame_trace, worker_trace
from rescind.conformance.interpreters.frame_lines import run_bootstrap, run_message, run_tag
from rescind.conformance.interpreters.journal_load import load_journal
from rescind.conformance.operations import operation, raising

operation("journal.trace", capability="journal")(worker_trace.run_trace)
operation("journal.load", capability="journal")(raising(load_journal))
operation("authorizer.trace", capability="authorizer")(worker_trace.run_trace)
operation("frames.message", capability="frames")(raising(run_message))
operation("frames.tag", capability="frames")(raising(run_tag))
operation("frames.trace", capability="frames")(frame_trace.run_frame_trace)
operation("frames.bootstrap", capability="frames")(raising(run_bootstrap))
