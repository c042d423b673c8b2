"""Published vector IDs that are no longer exported, each with its reason and its replacement.

The registry keeps every published ID with its meaning digest forever, so a vector whose
expectation was wrong cannot be edited in place: the corrected case gets a new ID and the old
one is retired here. ``rescind vectors export`` copies this list into the registry's
``retired`` section; ``rescind vectors check`` accepts a published ID that no longer exports
only when it is retired, and refuses a retired ID that is exported again. Retirements are
permanent too: once the registry records one, it may not be withdrawn or reworded.
"""

from __future__ import annotations

import attrs


@attrs.frozen
class Retirement:
    test_id: str
    replaced_by: str
    reason: str

    def to_json(self) -> dict[str, str]:
        return {"replacedBy": self.replaced_by, "reason": self.reason}


RETIRED: tuple[Retirement, ...] = (
    Retirement(
        "authorizer.result-check-order",
        "authorizer.operation-result-check-order",
        "expected operation_result_mismatch for an operation result naming another session;"
        " upstream compares the session first and answers unknown_session (issue 14)",
    ),
)


def retired_by_id(retirements: tuple[Retirement, ...] = RETIRED) -> dict[str, Retirement]:
    found: dict[str, Retirement] = {}
    for retirement in retirements:
        if retirement.test_id in found:
            raise ValueError(f"test id {retirement.test_id} is retired twice")
        found[retirement.test_id] = retirement
    return found
