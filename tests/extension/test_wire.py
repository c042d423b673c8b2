"""Compensation reconciliation on the wire (docs/spec/compensation-reconcile.md CR-1): the two
message kinds, their authenticated frames through a worker session and the host engine, and
the profile gate that keeps ``splash-v5`` decoding, sealing and opening exactly as upstream."""

from __future__ import annotations

import pytest

from rescind.reference.errors import RescindError
from rescind.reference.frames import AuthenticatedFrame, SessionAuthenticator, SessionRole
from rescind.reference.manifest import SessionManifest
from rescind.reference.messages import OperationCompensationResult
from rescind.reference.worker.extension import (
    COMPENSATION_RECONCILE_PROFILE,
    WireProfileMismatch,
    WorkerExtensions,
)
from rescind.reference.worker.session import WorkerSession
from rescind.reference.worker_message import (
    MESSAGE_KINDS,
    OpenSession,
    ReconcileCompensation,
    ReconciledCompensation,
    WireProfile,
    decode_message_line,
    encode_message_line,
    message_json,
)
from tests.extension.support import GRANT, KEY, UNDONE, Worker

ON = WorkerExtensions.for_profile(COMPENSATION_RECONCILE_PROFILE)
EXTENDED = WireProfile.COMPENSATION_RECONCILE
UPSTREAM = WireProfile.UPSTREAM


def refusal(call: object) -> tuple[type[RescindError], str, dict[str, object]]:
    with pytest.raises(RescindError) as refused:
        call()  # type: ignore[operator]
    return type(refused.value), refused.value.code, dict(refused.value.details)


def invented(line: str, kind: str) -> str:
    return line.replace(f'"type":"{kind}"', '"type":"no_such_kind"')


def lines(worker: Worker) -> tuple[str, str]:
    request = worker.compensation()
    result = OperationCompensationResult.for_request(request, UNDONE)
    return (
        message_json(ReconcileCompensation(request)),
        message_json(ReconciledCompensation(result)),
    )


def stuck_session(worker: Worker, extensions: WorkerExtensions | None) -> WorkerSession:
    """An original, a compensation whose inverse ran but whose answer was lost, a restart."""
    session = worker.open(extensions)
    worker.dispatch(session)
    worker.adapter.inverse_answer = None
    with pytest.raises(RescindError):
        worker.compensate(session, worker.compensation())
    worker.adapter.inverse_answer = UNDONE
    return worker.open(extensions)


# -- the codec ----------------------------------------------------------------------------------


def test_upstream_decoding_refuses_both_kinds_exactly_like_an_unknown_kind() -> None:
    """Fails if the gate in ``message_from_node`` is removed: the kinds would then decode."""
    worker = Worker()
    worker.open()
    for line, kind in zip(
        lines(worker), ("reconcile_compensation", "reconciled_compensation"), strict=True
    ):
        other = invented(line, kind)
        unknown = refusal(lambda text=other: decode_message_line(text))
        assert unknown[1] == "serialization"
        assert refusal(lambda text=line: decode_message_line(text)) == unknown
        assert refusal(lambda text=line: decode_message_line(text, profile=UPSTREAM)) == unknown
        decoded = decode_message_line(line, profile=EXTENDED)
        assert decoded.kind == kind


def test_upstream_knows_exactly_upstreams_kinds() -> None:
    assert UPSTREAM.kinds == MESSAGE_KINDS
    assert set(EXTENDED.kinds) - set(MESSAGE_KINDS) == {
        "reconcile_compensation",
        "reconciled_compensation",
    }


def test_the_kinds_round_trip_under_the_profile_and_do_not_encode_without_it() -> None:
    worker = Worker()
    worker.open()
    for line in lines(worker):
        message = decode_message_line(line, profile=EXTENDED)
        assert encode_message_line(message, EXTENDED) == line
        spaced = line.replace(",", " , ").replace(":", " : ")
        assert decode_message_line(spaced, profile=EXTENDED) == message
        _, code, details = refusal(lambda m=message: encode_message_line(m))
        assert (code, details) == ("serialization", {"reason": "unknown_variant"})


def test_an_upstream_authenticator_neither_seals_nor_opens_the_kinds() -> None:
    worker = Worker()
    worker.open()
    request = worker.compensation()
    host = SessionAuthenticator(worker.session_id, KEY, SessionRole.HOST)
    assert refusal(lambda: host.seal(ReconcileCompensation(request)))[1] == "serialization"
    assert host.next_outgoing == 1
    speaking = SessionAuthenticator(worker.session_id, KEY, SessionRole.HOST, profile=EXTENDED)
    frame = speaking.seal(ReconcileCompensation(request))
    upstream_worker = SessionAuthenticator(worker.session_id, KEY, SessionRole.WORKER)
    assert refusal(lambda: upstream_worker.open(frame))[1] == "serialization"
    assert refusal(lambda: upstream_worker.open_line(frame.to_json_line()))[1] == "serialization"
    assert upstream_worker.next_incoming == 1
    extended_worker = SessionAuthenticator(
        worker.session_id, KEY, SessionRole.WORKER, profile=EXTENDED
    )
    assert extended_worker.open_line(frame.to_json_line()) == frame.message


def test_a_frame_line_is_gated_before_its_tag_is_looked_at() -> None:
    worker = Worker()
    worker.open()
    speaking = SessionAuthenticator(worker.session_id, KEY, SessionRole.HOST, profile=EXTENDED)
    line = speaking.seal(ReconcileCompensation(worker.compensation())).to_json_line()
    unknown = refusal(
        lambda: AuthenticatedFrame.from_json_line(invented(line, "reconcile_compensation"))
    )
    assert refusal(lambda: AuthenticatedFrame.from_json_line(line)) == unknown
    assert AuthenticatedFrame.from_json_line(line, profile=EXTENDED).to_json_line() == line


# -- the worker session -------------------------------------------------------------------------


def test_the_session_answers_a_reconcile_compensation_frame_with_a_sealed_reply() -> None:
    worker = Worker()
    session = stuck_session(worker, ON)
    request = worker.compensation()
    line = worker.host.seal(ReconcileCompensation(request)).to_json_line()
    reply = session.handle_line(line, worker.bridge)
    message = worker.host.open_line(reply.to_json_line())
    assert isinstance(message, ReconciledCompensation)
    assert message.result == OperationCompensationResult.for_request(request, UNDONE)
    assert worker.stored_compensation() == "succeeded"
    assert (worker.adapter.inverse_calls, worker.adapter.lookups) == (1, 1)
    assert session.authorizer.compensations_for(request.tool) == 0


def test_an_upstream_session_refuses_the_frame_as_an_unknown_kind_and_goes_on() -> None:
    worker = Worker()
    session = stuck_session(worker, None)
    copy = SessionAuthenticator(
        worker.session_id,
        KEY,
        SessionRole.HOST,
        next_outgoing=worker.host.next_outgoing,
        profile=EXTENDED,
    )
    line = copy.seal(ReconcileCompensation(worker.compensation())).to_json_line()
    before = (worker.bridge.load(), session.authenticator.next_incoming)
    refused = refusal(lambda: session.handle_line(line, worker.bridge))
    unknown = refusal(
        lambda: session.handle_line(invented(line, "reconcile_compensation"), worker.bridge)
    )
    assert refused == unknown and refused[1] == "serialization"
    assert refused[2] == {"reason": "unknown_variant", "layer": "protocol"}
    assert (worker.bridge.load(), session.authenticator.next_incoming) == before
    assert worker.adapter.lookups == 0 and not session.poisoned
    # The refused frame used no sequence number: the host's next frame is still accepted.
    with pytest.raises(RescindError) as pending:
        worker.compensate(session, worker.compensation())
    assert pending.value.code == "pending_compensation"


def test_a_session_refuses_an_authenticator_of_another_profile() -> None:
    worker = Worker()
    host = SessionAuthenticator("worker-9", KEY, SessionRole.HOST)
    frame = host.seal(OpenSession(SessionManifest.new("worker-9", [GRANT])))
    journal, revision = worker.bridge.load()
    for authenticator_profile, extensions in ((UPSTREAM, ON), (EXTENDED, None)):
        authenticator = SessionAuthenticator(
            "worker-9", KEY, SessionRole.WORKER, profile=authenticator_profile
        )
        with pytest.raises(WireProfileMismatch):
            WorkerSession.open(
                authenticator,
                frame,
                {"text.echo": worker.adapter},
                journal,
                revision,
                worker.bridge.admission(),
                extensions=extensions,
            )
        assert authenticator.next_incoming == 1
