"""The identifier grammar every saga id follows (task, effect, run, binding, item, case ids).

Rescind's grammar is the protocol token grammar widened by the capital letters: 1..128 ASCII
letters, digits, ``.``, ``_`` or ``-`` (SG-95). Every such id can be named in an error detail
without being redacted, and agentctl's own identifiers (``valid_identifier`` in its compiler:
a letter, then letters, digits, ``_`` or ``-``, so ``exportService``) are all among them. The
compile-time check of a task id against agentctl's stricter rule is a diagnostic
(``invalid_task_id``, ``rescind.reference.saga.declarations``), not bad input. The agentctl
wildcard task id ``*`` (the ``compensation_in_progress`` block) is produced by the planner and
never accepted as input.
"""

from __future__ import annotations

import re

import attrs

from rescind.reference.saga.errors import SagaInvalidInput

MAX_IDENTIFIER_CHARS = 128
_IDENTIFIER = re.compile(r"[A-Za-z0-9._\-]{1,128}\Z")
_AGENTCTL = re.compile(r"[A-Za-z][A-Za-z0-9_\-]*\Z")


def is_identifier(value: object) -> bool:
    return isinstance(value, str) and _IDENTIFIER.match(value) is not None


def is_agentctl_identifier(value: str) -> bool:
    """agentctl's ``valid_identifier``: an ASCII letter, then ASCII letters, digits, ``_``
    or ``-``."""
    return _AGENTCTL.match(value) is not None


def require_identifier(field: str, value: object) -> str:
    if not is_identifier(value):
        raise SagaInvalidInput(field=field, reason="not an identifier")
    assert isinstance(value, str)
    return value


def check_identifier(_: object, attribute: attrs.Attribute[str], value: str) -> None:
    """attrs validator form of :func:`require_identifier`."""
    require_identifier(attribute.name, value)


def check_identifiers(
    _: object, attribute: attrs.Attribute[tuple[str, ...]], values: tuple[str, ...]
) -> None:
    for value in values:
        require_identifier(attribute.name, value)
