"""Operations of capability ``session``: whole worker-session and host-driver scenarios
(scripted adapter outcomes and store faults in, per-step outcomes and counters out)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rescind.conformance.interpreters.host_scenario import run_host_scenario
from rescind.conformance.interpreters.worker_scenario import run_scenario
from rescind.conformance.ops.declaration import Declared, arg


def worker_scenario(args: Mapping[str, Any]) -> dict[str, Any]:
    return run_scenario(arg(args, "scenario", dict))


def host_scenario(args: Mapping[str, Any]) -> dict[str, Any]:
    return run_host_scenario(arg(args, "scenario", dict))


OPERATIONS = (
    Declared("session.worker", "session", worker_scenario),
    Declared("session.host", "session", host_scenario),
)
