"""Authenticated frames and the private-pipe bootstrap of worker protocol v5.

A frame is ``{"sequence":N,"message":{..},"auth_tag":"<64 hex>"}``. The tag is BLAKE3 keyed
with the session key over the compact auth payload (``digests.frame_auth_payload``) naming
the *sender's* role, the sequence, the authenticator's session id and the message as Rescind
re-encodes the parsed value (never the received bytes: wire spacing and payload key order do
not affect a tag, the number mode does).

``SessionAuthenticator`` is the one stateful object here: two independent counters
(outgoing, incoming), both starting at 1. Every check runs before a counter moves, so a
failed ``seal`` or ``open`` leaves it exactly as it was. A frame opened successfully consumes
its sequence number whatever the caller then does with the message.

Each authenticator and each frame decoding has a ``WireProfile`` (default upstream's): a
message of a kind outside it is refused, before any tag or counter is looked at, with the
error an unknown ``type`` gets (docs/spec/compensation-reconcile.md CR-1).
"""

from __future__ import annotations

import enum
import hmac

import attrs

from rescind.reference.digests import (
    SESSION_KEY_BYTES,
    check_session_key,
    frame_tag,
)
from rescind.reference.errors import RescindError
from rescind.reference.numbers import NumberMode
from rescind.reference.protocol_errors import (
    InvalidAuthenticationTag,
    InvalidSequence,
    SequenceExhausted,
    UnexpectedSequence,
    UnknownSession,
    WeakSessionKey,
)
from rescind.reference.tokens import is_hex64, require_token
from rescind.reference.wirejson import Struct, as_str, as_uint, read_document
from rescind.reference.worker_message import (
    WireProfile,
    WorkerMessage,
    check_frame_size,
    message_from_node,
    message_json,
    text_size,
)

U64_MAX = 2**64 - 1


class SessionRole(enum.Enum):
    HOST = "host"
    WORKER = "worker"

    @property
    def peer(self) -> SessionRole:
        return SessionRole.WORKER if self is SessionRole.HOST else SessionRole.HOST


def compute_tag(
    key: bytes, sender: SessionRole, sequence: int, session_id: str, message: WorkerMessage
) -> str:
    """The tag of ``message`` as sent by ``sender`` at ``sequence`` in ``session_id``."""
    return frame_tag(key, sender.value, sequence, session_id, message_json(message))


@attrs.frozen
class AuthenticatedFrame:
    """One sealed frame (upstream ``AuthenticatedWorkerMessage``)."""

    sequence: int
    message: WorkerMessage
    auth_tag: str

    def validate_syntax(self) -> None:
        """Sequence non-zero, the message valid, the tag 64 lowercase hex (in this order)."""
        if self.sequence == 0:
            raise InvalidSequence()
        self.message.validate()
        if not is_hex64(self.auth_tag):
            raise InvalidAuthenticationTag()

    def to_json(self) -> str:
        return (
            f'{{"sequence":{self.sequence},"message":{message_json(self.message)}'
            f',"auth_tag":"{self.auth_tag}"}}'
        )

    def to_json_line(self) -> str:
        self.validate_syntax()
        encoded = self.to_json()
        check_frame_size(len(encoded.encode("utf-8")))
        return encoded

    @classmethod
    def from_json_line(
        cls,
        text: str | bytes,
        mode: NumberMode = NumberMode.AP,
        profile: WireProfile = WireProfile.UPSTREAM,
    ) -> AuthenticatedFrame:
        """Bound by 1 MiB before parsing, decode (the profile's kinds only), then check the
        syntax (not the tag)."""
        check_frame_size(text_size(text))
        struct = Struct(
            read_document(text, mode),
            ("sequence", "message", "auth_tag"),
            deny_unknown=False,
            what="authenticated frame",
        )
        frame = cls(
            as_uint(struct.required("sequence"), 64),
            message_from_node(struct.required("message"), mode, profile),
            as_str(struct.required("auth_tag")),
        )
        frame.validate_syntax()
        return frame


class SessionAuthenticator:
    """Seals outgoing and opens incoming frames of one session for one role.

    ``next_outgoing``/``next_incoming`` may be given to restore or test a position (upstream
    always starts both at 1); the key never leaves the object and is not printed.
    ``profile`` names the message kinds it seals and opens (upstream's by default)."""

    def __init__(
        self,
        session_id: str,
        key: bytes,
        role: SessionRole,
        *,
        next_outgoing: int = 1,
        next_incoming: int = 1,
        profile: WireProfile = WireProfile.UPSTREAM,
    ) -> None:
        check_session_key(bytes(key))
        require_token("session id", session_id)
        for value in (next_outgoing, next_incoming):
            if not 1 <= value <= U64_MAX:
                raise ValueError("sequence counters are u64 values of at least 1")
        self._session_id = session_id
        self._key = bytes(key)
        self._role = role
        self._next_outgoing = next_outgoing
        self._next_incoming = next_incoming
        self._profile = profile

    def __repr__(self) -> str:
        return (
            f"SessionAuthenticator(session_id={self._session_id!r}, role={self._role.value}, "
            f"next_outgoing={self._next_outgoing}, next_incoming={self._next_incoming}, "
            "key=<redacted>)"
        )

    @property
    def session_id(self) -> str:
        return self._session_id

    @property
    def role(self) -> SessionRole:
        return self._role

    @property
    def profile(self) -> WireProfile:
        return self._profile

    @property
    def next_outgoing(self) -> int:
        return self._next_outgoing

    @property
    def next_incoming(self) -> int:
        return self._next_incoming

    def seal(self, message: WorkerMessage) -> AuthenticatedFrame:
        """The profile's kind gate, validate, check the session, refuse the last u64, tag as
        own role, bound the frame, and only then advance the outgoing counter."""
        self._profile.admit(message)
        message.validate()
        if message.session_id != self._session_id:
            raise UnknownSession(session_id=message.session_id)
        if self._next_outgoing == U64_MAX:
            raise SequenceExhausted()
        sequence = self._next_outgoing
        tag = compute_tag(self._key, self._role, sequence, self._session_id, message)
        frame = AuthenticatedFrame(sequence, message, tag)
        frame.to_json_line()
        self._next_outgoing = sequence + 1
        return frame

    def open(self, frame: AuthenticatedFrame) -> WorkerMessage:
        """The profile's kind gate, syntax, tag (computed as the *peer* sent it), session,
        exact next sequence, the last-u64 guard; the incoming counter moves only when every
        check passed."""
        self._profile.admit(frame.message)
        frame.validate_syntax()
        expected = compute_tag(
            self._key, self._role.peer, frame.sequence, self._session_id, frame.message
        )
        if not hmac.compare_digest(bytes.fromhex(expected), bytes.fromhex(frame.auth_tag)):
            raise InvalidAuthenticationTag()
        if frame.message.session_id != self._session_id:
            raise UnknownSession(session_id=frame.message.session_id)
        if frame.sequence != self._next_incoming:
            raise UnexpectedSequence(expected=self._next_incoming, actual=frame.sequence)
        if self._next_incoming == U64_MAX:
            raise SequenceExhausted()
        self._next_incoming += 1
        return frame.message

    def open_line(self, text: str | bytes, mode: NumberMode = NumberMode.AP) -> WorkerMessage:
        return self.open(AuthenticatedFrame.from_json_line(text, mode, self._profile))


# -- private-pipe bootstrap --------------------------------------------------------------------

BOOTSTRAP_MAGIC = b"SPLPBOOT"
BOOTSTRAP_VERSION = 1
MAX_BOOTSTRAP_SESSION_ID_BYTES = 128


class BootstrapError(RescindError):
    """A malformed private-pipe bootstrap (upstream ``PrivatePipeBootstrapError``)."""


class InvalidBootstrapMagic(BootstrapError):
    code = "invalid_bootstrap_magic"
    upstream = "InvalidMagic"


class UnsupportedBootstrapVersion(BootstrapError):
    code = "unsupported_bootstrap_version"
    upstream = "UnsupportedVersion"


class InvalidSessionIdLength(BootstrapError):
    code = "invalid_session_id_length"
    upstream = "InvalidSessionIdLength"


class InvalidSessionIdEncoding(BootstrapError):
    code = "invalid_session_id_encoding"
    upstream = "InvalidSessionIdEncoding"


class BootstrapTruncated(BootstrapError):
    code = "bootstrap_truncated"
    upstream = "Io"


@attrs.frozen
class PipeBootstrap:
    """What a host writes to a worker's private pipe: the session id and the session key."""

    session_id: str
    key: bytes = attrs.field(repr=False)

    def validate(self) -> None:
        require_token("session id", self.session_id)
        check_session_key(self.key)

    def encode(self) -> bytes:
        """``SPLPBOOT``, version 1, one length byte, the id, the 32 key bytes."""
        self.validate()
        session_id = self.session_id.encode("ascii")
        return BOOTSTRAP_MAGIC + bytes([BOOTSTRAP_VERSION, len(session_id)]) + session_id + self.key

    @classmethod
    def decode(cls, data: bytes) -> tuple[PipeBootstrap, bytes]:
        """Read one bootstrap from the front of ``data``; returns it and the unread rest.

        Checks run in reading order, so a stream cut short reports ``bootstrap_truncated``
        only once every field before the cut has passed."""
        reader = _Reader(bytes(data))
        if reader.take(len(BOOTSTRAP_MAGIC)) != BOOTSTRAP_MAGIC:
            raise InvalidBootstrapMagic()
        version = reader.take(1)[0]
        if version != BOOTSTRAP_VERSION:
            raise UnsupportedBootstrapVersion(version=version)
        length = reader.take(1)[0]
        if not 1 <= length <= MAX_BOOTSTRAP_SESSION_ID_BYTES:
            raise InvalidSessionIdLength(actual=length, maximum=MAX_BOOTSTRAP_SESSION_ID_BYTES)
        try:
            session_id = reader.take(length).decode("utf-8")
        except UnicodeDecodeError:
            raise InvalidSessionIdEncoding() from None
        require_token("session id", session_id)
        key = reader.take(SESSION_KEY_BYTES)
        if not any(key):
            raise WeakSessionKey()
        return cls(session_id, key), reader.rest()


class _Reader:
    def __init__(self, data: bytes) -> None:
        self._data = data
        self._position = 0

    def take(self, count: int) -> bytes:
        end = self._position + count
        if end > len(self._data):
            raise BootstrapTruncated(needed=end, available=len(self._data))
        chunk = self._data[self._position : end]
        self._position = end
        return chunk

    def rest(self) -> bytes:
        return self._data[self._position :]
