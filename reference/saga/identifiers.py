"""The identifier grammar every saga id follows (task, effect, run, binding, item, case ids).

Rescind uses the protocol token grammar (lowercase ``a-z 0-9 . _ -``, 1..128 bytes) so an id can
always be named in an error detail without being redacted. The agentctl wildcard task id ``*``
(the ``compensation_in_progress`` block) is produced by the planner and never accepted as input.
"""

from __future__ import annotations

from rescind.reference.saga.errors import SagaInvalidInput
from rescind.reference.tokens import is_token


def is_identifier(value: object) -> bool:
    return isinstance(value, str) and is_token(value)


def require_identifier(field: str, value: object) -> str:
    if not isinstance(value, str) or not is_token(value):
        raise SagaInvalidInput(field=field, reason="not an identifier")
    return value


def check_identifier(_: object, attribute: object, value: object) -> None:
    """attrs validator form of :func:`require_identifier`."""
    require_identifier(getattr(attribute, "name", "id"), value)


def check_identifiers(_: object, attribute: object, values: tuple[object, ...]) -> None:
    name = getattr(attribute, "name", "ids")
    for value in values:
        require_identifier(name, value)
