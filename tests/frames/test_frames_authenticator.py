"""SessionAuthenticator behaviour: check order, counters that never move on failure,
reflection, replay, and random tampering (Hypothesis)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rescind.reference.errors import RescindError
from rescind.reference.frames import U64_MAX, AuthenticatedFrame, SessionAuthenticator, SessionRole
from rescind.reference.protocol_errors import (
    InvalidAuthenticationTag,
    InvalidSequence,
    InvalidSessionKeyLength,
    InvalidToken,
    SequenceExhausted,
    UnexpectedSequence,
    UnknownSession,
    WeakSessionKey,
)
from rescind.reference.worker_message import CloseSession, DispatchOperation, WorkerMessage
from tests.worker.support import dispatch

KEY = bytes([0x07]) * 32
CLOSE = CloseSession(session_id="session-1")


def _pair(**worker_counters: int) -> tuple[SessionAuthenticator, SessionAuthenticator]:
    return (
        SessionAuthenticator("session-1", KEY, SessionRole.HOST),
        SessionAuthenticator("session-1", KEY, SessionRole.WORKER, **worker_counters),
    )


def _counters(party: SessionAuthenticator) -> tuple[int, int]:
    return party.next_outgoing, party.next_incoming


def test_constructor_checks() -> None:
    with pytest.raises(InvalidSessionKeyLength):
        SessionAuthenticator("session-1", KEY[:31], SessionRole.HOST)
    with pytest.raises(WeakSessionKey):
        SessionAuthenticator("session-1", bytes(32), SessionRole.HOST)
    with pytest.raises(InvalidToken):
        SessionAuthenticator("Session-1", KEY, SessionRole.HOST)
    assert "07" not in repr(SessionAuthenticator("session-1", KEY, SessionRole.HOST))


def test_reflection_replay_and_recovery() -> None:
    host, worker = _pair()
    first, second = host.seal(CLOSE), host.seal(CLOSE)
    with pytest.raises(InvalidAuthenticationTag):
        host.open(first)
    assert _counters(host) == (3, 1)
    with pytest.raises(UnexpectedSequence) as caught:
        worker.open(second)
    assert dict(caught.value.details) == {"expected": 1, "actual": 2}
    worker.open(first)
    with pytest.raises(UnexpectedSequence) as caught:
        worker.open(first)
    assert dict(caught.value.details) == {"expected": 2, "actual": 1}
    worker.open(second)
    assert _counters(worker) == (1, 3)


def test_syntax_errors_come_before_the_tag() -> None:
    host, worker = _pair()
    frame = host.seal(CLOSE)
    with pytest.raises(InvalidSequence):
        worker.open(AuthenticatedFrame(0, frame.message, "zz"))
    with pytest.raises(InvalidAuthenticationTag):
        worker.open(AuthenticatedFrame(1, frame.message, frame.auth_tag.upper()))
    other = CloseSession(session_id="session-2")
    with pytest.raises(UnknownSession):
        host.seal(other)
    assert _counters(worker) == (1, 1) and _counters(host) == (2, 1)


def test_sequence_exhaustion() -> None:
    host = SessionAuthenticator("session-1", KEY, SessionRole.HOST, next_outgoing=U64_MAX - 1)
    assert host.seal(CLOSE).sequence == U64_MAX - 1
    with pytest.raises(SequenceExhausted):
        host.seal(CLOSE)
    assert host.next_outgoing == U64_MAX


messages = st.lists(
    st.one_of(
        st.just(CLOSE),
        st.builds(
            lambda left, right: DispatchOperation(dispatch(f'{{"left":{left},"right":{right}}}')),
            st.integers(-(10**20), 10**20),
            st.integers(0, 99),
        ),
    ),
    min_size=1,
    max_size=6,
)


@given(messages)
def test_frames_open_in_order(sent: list[WorkerMessage]) -> None:
    host, worker = _pair()
    lines = [host.seal(message).to_json_line() for message in sent]
    assert [worker.open_line(line) for line in lines] == sent
    assert _counters(worker) == (1, len(sent) + 1)


@given(st.data())
def test_tampering_never_opens_a_different_message(data: st.DataObject) -> None:
    host, worker = _pair()
    message = DispatchOperation(dispatch('{"left":20,"right":22}'))
    line = host.seal(message).to_json_line()
    position = data.draw(st.integers(0, len(line) - 1))
    replacement = data.draw(st.characters(codec="ascii").filter(lambda c: c != line[position]))
    tampered = line[:position] + replacement + line[position + 1 :]
    try:
        opened = worker.open_line(tampered)
    except RescindError:
        assert _counters(worker) == (1, 1)
        return
    # Only a change the parser cannot see (whitespace) may still open, and then it is the
    # same message at the same sequence.
    assert opened == message
    assert _counters(worker) == (1, 2)
