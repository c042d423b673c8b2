"""AU-10: every result validator compares the result's session with the manifest's on its own,
after the result's own validation and before correlation, duplicate and grant checks.

Expected codes are read off upstream's source (ymote/Splash 623d57c,
crates/splash-protocol/src/lib.rs, ``SessionAuthorizer::validate_operation_result``,
``validate_reconciliation_result``, ``validate_compensation_result``): each returns
``UnknownSession`` right after ``result.validate()``, ahead of ``matches_dispatch`` /
``matches_request``. Before the fix the reference folded the session into correlation and
answered ``operation_result_mismatch`` / ``compensation_result_mismatch``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs
import pytest

from rescind.reference.errors import RescindError
from rescind.reference.messages import (
    OperationCompensationResult,
    OperationReconcileResult,
    OperationStatus,
)
from rescind.reference.protocol_errors import (
    AuthorizationProvenanceMismatch,
    DuplicateResult,
    InvalidOperationFailure,
    UnknownSession,
)
from rescind.reference.worker.authorizer import SessionAuthorizer
from tests.worker.support import MATH_GRANT, compensate, dispatch, manifest, reconcile

FOREIGN = "session-2"


@attrs.frozen
class ResultPath:
    """One result validator: how to authorize its request, build a matching result, and
    which field to change for a result that also fails correlation."""

    name: str
    authorize: Callable[[SessionAuthorizer], Any]
    result_for: Callable[[Any, OperationStatus], Any]
    validate: Callable[[SessionAuthorizer, Any, Any], None]
    other_field: dict[str, str]


PATHS = [
    ResultPath(
        "operation",
        lambda authorizer: authorizer.authorize_operation(dispatch()),
        lambda authorized, status: OperationReconcileResult.for_request(authorized.request, status),
        lambda authorizer, authorized, result: authorizer.validate_operation_result(
            authorized, result
        ),
        {"operation_key": "release-43-add"},
    ),
    ResultPath(
        "reconciliation",
        lambda authorizer: authorizer.authorize_reconciliation(reconcile()),
        lambda authorized, status: OperationReconcileResult.for_request(authorized.request, status),
        lambda authorizer, authorized, result: authorizer.validate_reconciliation_result(
            authorized, result
        ),
        {"tool": "math.sub"},
    ),
    ResultPath(
        "compensation",
        lambda authorizer: authorizer.authorize_compensation(compensate()),
        lambda authorized, status: OperationCompensationResult.for_request(
            authorized.request, status
        ),
        lambda authorizer, authorized, result: authorizer.validate_compensation_result(
            authorized, result
        ),
        {"tenant_scope": "tenant-other"},
    ),
]


def _raises(path: ResultPath, authorizer: SessionAuthorizer, authorized: Any, result: Any) -> str:
    with pytest.raises(RescindError) as caught:
        path.validate(authorizer, authorized, result)
    return caught.value.code


@pytest.mark.parametrize("path", PATHS, ids=lambda path: path.name)
def test_a_foreign_session_is_unknown_session_and_changes_nothing(path: ResultPath) -> None:
    authorizer = SessionAuthorizer(manifest(MATH_GRANT))
    authorized = path.authorize(authorizer)
    good = path.result_for(authorized, OperationStatus.running())
    before = authorizer.counters()
    with pytest.raises(UnknownSession) as caught:
        path.validate(authorizer, authorized, attrs.evolve(good, session_id=FOREIGN))
    assert caught.value.details == {"session_id": FOREIGN}
    assert authorizer.counters() == before
    path.validate(authorizer, authorized, good)
    assert authorizer.counters().completed_results == before.completed_results + 1


@pytest.mark.parametrize("path", PATHS, ids=lambda path: path.name)
def test_the_session_is_compared_before_correlation(path: ResultPath) -> None:
    authorizer = SessionAuthorizer(manifest(MATH_GRANT))
    authorized = path.authorize(authorizer)
    good = path.result_for(authorized, OperationStatus.running())
    foreign_and_uncorrelated = attrs.evolve(good, session_id=FOREIGN, **path.other_field)
    assert _raises(path, authorizer, authorized, foreign_and_uncorrelated) == "unknown_session"


@pytest.mark.parametrize("path", PATHS, ids=lambda path: path.name)
def test_the_session_is_compared_before_the_duplicate_check(path: ResultPath) -> None:
    authorizer = SessionAuthorizer(manifest(MATH_GRANT))
    authorized = path.authorize(authorizer)
    good = path.result_for(authorized, OperationStatus.running())
    path.validate(authorizer, authorized, good)
    with pytest.raises(UnknownSession):
        path.validate(authorizer, authorized, attrs.evolve(good, session_id=FOREIGN))
    with pytest.raises(DuplicateResult):
        path.validate(authorizer, authorized, good)


@pytest.mark.parametrize("path", PATHS, ids=lambda path: path.name)
def test_provenance_and_own_validation_come_before_the_session(path: ResultPath) -> None:
    authorizer = SessionAuthorizer(manifest(MATH_GRANT))
    stranger = SessionAuthorizer(manifest(MATH_GRANT))
    authorized = path.authorize(authorizer)
    foreign = attrs.evolve(
        path.result_for(authorized, OperationStatus.running()), session_id=FOREIGN
    )
    with pytest.raises(AuthorizationProvenanceMismatch):
        path.validate(stranger, authorized, foreign)
    invalid_and_foreign = attrs.evolve(foreign, status=OperationStatus.failed(""))
    with pytest.raises(InvalidOperationFailure):
        path.validate(authorizer, authorized, invalid_and_foreign)
