"""The identifier grammar every saga id follows (task, effect, run, binding, item, case ids).

Rescind uses the protocol token grammar (lowercase ``a-z 0-9 . _ -``, 1..128 bytes) so an id can
always be named in an error detail without being redacted. The agentctl wildcard task id ``*``
(the ``compensation_in_progress`` block) is produced by the planner and never accepted as input.
"""

from __future__ import annotations

import attrs

from rescind.reference.saga.errors import SagaInvalidInput
from rescind.reference.tokens import is_token


def is_identifier(value: object) -> bool:
    return isinstance(value, str) and is_token(value)


def require_identifier(field: str, value: object) -> str:
    if not isinstance(value, str) or not is_token(value):
        raise SagaInvalidInput(field=field, reason="not an identifier")
    return value


def check_identifier(_: object, attribute: attrs.Attribute[str], value: str) -> None:
    """attrs validator form of :func:`require_identifier`."""
    require_identifier(attribute.name, value)


def check_identifiers(
    _: object, attribute: attrs.Attribute[tuple[str, ...]], values: tuple[str, ...]
) -> None:
    for value in values:
        require_identifier(attribute.name, value)
