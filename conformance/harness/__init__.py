"""The runner's side of the driver protocol: one implementation process, spoken to in NDJSON.

The harness never hangs and never guesses: every wait has a deadline, and every way a
driver can misbehave has a name (``HarnessFailure.kind``): ``non_json_output`` (stdout
carried a line that is not a JSON object), ``timeout`` (no reply, or the request not read,
in time), ``reply_too_large`` (a stdout line longer than ``max_reply_bytes``),
``duplicate_reply`` (an id answered twice), ``unexpected_reply`` (an id that was never
asked), ``crashed`` (the process exited, or could not start; also when a child it forked still
holds stdout), ``stdout_closed`` (stdout closed while the process kept running),
``reply_beyond_limits`` (valid JSON the runner cannot decode: nested deeper than its decoder
follows, or an integer past Python's digit limit), ``reply_too_complex`` (a line within the
byte cap with more members or deeper nesting than ``limits`` allows, refused before it is
decoded), ``bad_handshake`` and ``malformed_reply``.
After any of them the process is killed with its whole process group: the driver runs in a
session of its own, so children it forked never outlive the run. stderr, the driver's log
channel, is drained all the time and its last 64 KiB are kept for the report.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from rescind.conformance.harness import restrictions as restriction_catalogue
from rescind.conformance.harness.limits import MAX_REPLY_DEPTH, MAX_REPLY_MEMBERS, reply_shape
from rescind.conformance.harness.pipes import (
    DeadlinePassed,
    EndOfStream,
    LineReader,
    LineTooLong,
    LineWriter,
    StderrTail,
)

DRIVER_PROTOCOL = "rescind-driver/1"
DEFAULT_TIMEOUT = 30.0
DEFAULT_MAX_REPLY_BYTES = 32 * 1024 * 1024
"""The longest stdout line the runner reads; the largest reply any check asks for is a few
MiB (canonical bytes of a 1 MiB payload, hex-encoded)."""
_EXIT_GRACE = 1.0
_EXIT_POLL = 0.25
"""While waiting for a reply, how often the runner looks whether the driver has exited."""


class DeadlineReached(Exception):
    """The run's overall deadline (``rescind check --deadline``) passed: nothing more is sent.
    Not the driver's fault, so not a ``HarnessFailure``; the runner marks what is left
    ``not-run``."""


class HarnessFailure(Exception):
    """The driver broke the protocol; ``kind`` names how."""

    def __init__(self, kind: str, message: str, stderr_tail: Sequence[str] = ()) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind = kind
        self.message = message
        self.stderr_tail = tuple(stderr_tail)


@attrs.frozen
class Reply:
    """A driver's answer: ``ok`` (a result object), ``error`` (code + definite), or
    ``unsupported`` (the driver does not implement the operation)."""

    ok: Mapping[str, Any] | None = None
    error_code: str | None = None
    definite: bool | None = None
    unsupported: str | None = None

    @property
    def kind(self) -> str:
        if self.unsupported is not None:
            return "unsupported"
        return "error" if self.error_code is not None else "ok"

    @classmethod
    def parse(cls, message: Mapping[str, Any]) -> Reply:
        if "ok" in message:
            result = message["ok"]
            if not isinstance(result, dict):
                raise ValueError("'ok' must be an object")
            return cls(ok=result)
        if "error" in message:
            error = message["error"]
            if not isinstance(error, dict) or not isinstance(error.get("code"), str):
                raise ValueError("'error' must be an object with a string 'code'")
            definite = error.get("definite")
            if definite is not None and not isinstance(definite, bool):
                raise ValueError("'error.definite' must be a boolean")
            return cls(error_code=error["code"], definite=definite)
        if "unsupported" in message:
            return cls(unsupported=str(message["unsupported"]))
        raise ValueError("a reply needs one of 'ok', 'error' or 'unsupported'")


@attrs.frozen
class Upstream:
    """The upstream source a driver is built from (``implementation.upstream`` in hello)."""

    repository: str
    commit: str


@attrs.frozen
class Hello:
    implementation: str
    version: str
    capabilities: frozenset[str]
    profiles: frozenset[str] = frozenset({"splash-v5"})
    restrictions: frozenset[str] = frozenset()
    """Names from ``rescind.conformance.harness.restrictions.CATALOGUE``: shapes the driver cannot
    express inside a capability it declares."""
    upstream: Upstream | None = None


class Driver:
    """Anything that answers protocol requests: a subprocess or an in-process adapter."""

    hello: Hello
    stop_at: float | None = None
    """The run's deadline (``time.monotonic``): past it, ``request`` raises ``DeadlineReached``
    instead of sending, and a reply still awaited is given up at that moment."""

    def request(self, op: str, args: Mapping[str, Any]) -> Reply:
        raise NotImplementedError

    def close(self) -> None:
        return None

    def abandon(self) -> None:
        """End the driver now, without the polite ``bye`` (a request may be half answered)."""
        self.close()

    def _stop_if_late(self, op: str) -> None:
        if self.stop_at is not None and time.monotonic() >= self.stop_at:
            raise DeadlineReached(f"the run's deadline passed before {op} was sent")


class InProcessDriver(Driver):
    """Calls a handler function directly (the pytest plugin and fast exploration use it)."""

    def __init__(self, handle: Callable[[Mapping[str, Any]], Mapping[str, Any]]) -> None:
        self._handle = handle
        self._next_id = 0
        self.hello = _parse_hello(self._call("hello", {"protocol": DRIVER_PROTOCOL}))

    def _call(self, op: str, args: Mapping[str, Any]) -> Reply:
        self._stop_if_late(op)
        self._next_id += 1
        try:
            message = self._handle({"id": self._next_id, "op": op, "args": args})
        except Exception as error:
            # The in-process counterpart of a driver process that died mid-request.
            kind = type(error).__name__
            raise HarnessFailure("crashed", f"adapter raised {kind} on {op}") from error
        if not isinstance(message, Mapping):
            raise HarnessFailure("non_json_output", f"adapter answered {op} with a non-object")
        try:
            return Reply.parse(message)
        except ValueError as error:
            raise HarnessFailure("malformed_reply", f"{op}: {error}") from None

    def request(self, op: str, args: Mapping[str, Any]) -> Reply:
        return self._call(op, args)


class SubprocessDriver(Driver):
    """An implementation's driver process, started from a shell-style command line."""

    def __init__(
        self,
        command: str | Sequence[str],
        timeout: float = DEFAULT_TIMEOUT,
        cwd: str | None = None,
        *,
        max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES,
        max_reply_members: int = MAX_REPLY_MEMBERS,
        max_reply_depth: int = MAX_REPLY_DEPTH,
    ) -> None:
        argv = shlex.split(command) if isinstance(command, str) else list(command)
        self.timeout = timeout
        self.max_reply_bytes = max_reply_bytes
        self._shape_bounds = (max_reply_members, max_reply_depth)
        try:
            self.process = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=cwd,
                bufsize=0,
                # A session (and process group) of its own: killing the group ends any child
                # the driver forked, even one that outlived the driver holding its pipes.
                start_new_session=True,
            )
        except OSError as error:
            raise HarnessFailure("crashed", f"could not start driver: {error}") from None
        assert self.process.stdin and self.process.stdout and self.process.stderr
        self._writer = LineWriter(self.process.stdin.fileno())
        self._reader = LineReader(self.process.stdout.fileno(), max_reply_bytes)
        self._stderr = StderrTail(self.process.stderr.fileno())
        self._answered: set[int] = set()
        self._next_id = 0
        reply = self.request("hello", {"protocol": DRIVER_PROTOCOL})
        try:
            self.hello = _parse_hello(reply)
        except HarnessFailure:
            self.close()
            raise

    @property
    def stderr_tail(self) -> list[str]:
        """The last lines the driver wrote to stderr (its log channel), at most 64 KiB."""
        return self._stderr.lines()

    def _fail(self, kind: str, message: str) -> HarnessFailure:
        self._kill()
        self._stderr.finish(
            timeout=_EXIT_GRACE
        )  # the dead driver's last words belong in the report
        return HarnessFailure(kind, message, self.stderr_tail)

    def request(self, op: str, args: Mapping[str, Any]) -> Reply:
        self._stop_if_late(op)
        self._next_id += 1
        request_id = self._next_id
        line = json.dumps({"id": request_id, "op": op, "args": args}, separators=(",", ":"))
        deadline = time.monotonic() + self.timeout
        if self.stop_at is not None and self.stop_at < deadline:
            deadline = self.stop_at
        try:
            self._writer.write(line.encode("utf-8") + b"\n", deadline)
        except DeadlinePassed:
            self._stop_if_late(op)
            raise self._fail(
                "timeout", f"driver did not read request {op} within {self.timeout:g} s"
            ) from None
        except OSError:
            raise self._fail("crashed", f"driver closed its input before request {op}") from None
        while True:
            message = self._read_message(deadline, op)
            reply_id = message.get("id")
            if not isinstance(reply_id, int) or isinstance(reply_id, bool):
                raise self._fail("malformed_reply", f"reply without an integer id to {op}")
            if reply_id in self._answered:
                raise self._fail("duplicate_reply", f"request {reply_id} was answered twice")
            if reply_id != request_id:
                raise self._fail(
                    "unexpected_reply", f"got a reply for id {reply_id} while waiting for {op}"
                )
            self._answered.add(reply_id)
            try:
                return Reply.parse(message)
            except ValueError as error:
                raise self._fail("malformed_reply", f"{op}: {error}") from None

    def _read_line(self, deadline: float, op: str) -> bytes:
        """The next stdout line; a driver that exited while a child it forked keeps stdout
        open is ``crashed`` at once, not a ``timeout`` after the whole wait."""
        while True:
            slice_end = min(deadline, time.monotonic() + _EXIT_POLL)
            try:
                return self._reader.read_line(slice_end)
            except DeadlinePassed:
                code = self.process.poll()
                if code is not None:
                    raise self._fail(
                        "crashed",
                        f"driver exited (code {code}) while answering {op}; "
                        "a process it started still holds its stdout",
                    ) from None
                if time.monotonic() >= deadline:
                    raise

    def _read_message(self, deadline: float, op: str) -> dict[str, Any]:
        try:
            raw = self._read_line(deadline, op)
        except DeadlinePassed:
            self._stop_if_late(op)
            raise self._fail("timeout", f"no reply to {op} within {self.timeout:g} s") from None
        except LineTooLong as error:
            raise self._fail(
                "reply_too_large",
                f"a stdout line near {op} exceeds {error.maximum} bytes",
            ) from None
        except EndOfStream:
            raise self._stdout_ended(op) from None
        # Before decoding: decoding a line costs in proportion to its members, not its bytes.
        beyond = reply_shape(raw, *self._shape_bounds)
        if beyond is not None:
            raise self._fail(
                "reply_too_complex",
                f"the reply to request {self._next_id} ({op}, {len(raw)} bytes) {beyond}",
            )
        try:
            message = json.loads(raw)
        except RecursionError:
            raise self._fail(
                "reply_beyond_limits",
                f"a stdout line near {op} nests JSON deeper than the runner decodes "
                f"(about {sys.getrecursionlimit()} levels; RecursionError)",
            ) from None
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise self._fail(
                "non_json_output", f"stdout line is not JSON ({len(raw)} bytes) near {op}"
            ) from None
        except ValueError:
            # Valid JSON: an integer literal longer than Python's int conversion limit.
            raise self._fail(
                "reply_beyond_limits",
                f"a stdout line near {op} holds an integer of more than "
                f"{sys.get_int_max_str_digits()} digits (the runner's integer limit)",
            ) from None
        if not isinstance(message, dict):
            raise self._fail("non_json_output", f"stdout line is not a JSON object near {op}")
        return message

    def _stdout_ended(self, op: str) -> HarnessFailure:
        try:
            code = self.process.wait(timeout=_EXIT_GRACE)
        except subprocess.TimeoutExpired:
            return self._fail("stdout_closed", f"driver closed stdout but kept running ({op})")
        return self._fail("crashed", f"driver exited (code {code}) while answering {op}")

    def _kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=5)
        self._kill_group()

    def _kill_group(self) -> None:
        """End every process left in the driver's group (the driver is its leader, so the
        group id is its pid; it exists only while a member is alive)."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)

    def abandon(self) -> None:
        self._kill()
        self._reader.close()
        self._writer.close()

    def close(self) -> None:
        if self.stop_at is not None and time.monotonic() >= self.stop_at:
            self.abandon()  # past the run's deadline: no bye, no grace period
            return
        if self.process.poll() is None:
            with contextlib.suppress(HarnessFailure, DeadlineReached):
                self.request("bye", {})
            try:
                assert self.process.stdin is not None
                self.process.stdin.close()
                self.process.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self._kill()
        self._reader.close()
        self._writer.close()


def _parse_hello(reply: Reply) -> Hello:
    if reply.ok is None:
        raise HarnessFailure("bad_handshake", "the driver did not accept 'hello'")
    protocol = reply.ok.get("protocol")
    if protocol != DRIVER_PROTOCOL:
        raise HarnessFailure(
            "bad_handshake", f"driver speaks {protocol!r}, the runner {DRIVER_PROTOCOL!r}"
        )
    capabilities = reply.ok.get("capabilities")
    if not isinstance(capabilities, list) or not all(isinstance(c, str) for c in capabilities):
        raise HarnessFailure("bad_handshake", "'capabilities' must be a list of strings")
    implementation = reply.ok.get("implementation", {})
    if not isinstance(implementation, dict):
        implementation = {}
    profiles = reply.ok.get("profiles", ["splash-v5"])
    if not isinstance(profiles, list) or not all(isinstance(p, str) for p in profiles):
        raise HarnessFailure("bad_handshake", "'profiles' must be a list of strings")
    restrictions = reply.ok.get("restrictions", [])
    if not isinstance(restrictions, list) or not all(isinstance(r, str) for r in restrictions):
        raise HarnessFailure("bad_handshake", "'restrictions' must be a list of strings")
    try:
        declared = restriction_catalogue.parse(restrictions)
    except restriction_catalogue.UnknownRestriction as error:
        raise HarnessFailure("bad_handshake", str(error)) from None
    return Hello(
        implementation=str(implementation.get("name", "unnamed")),
        version=str(implementation.get("version", "unknown")),
        capabilities=frozenset(capabilities),
        profiles=frozenset(profiles),
        restrictions=declared,
        upstream=_upstream(implementation.get("upstream")),
    )


def _upstream(value: Any) -> Upstream | None:
    if value is None:
        return None
    if not isinstance(value, dict) or not all(
        isinstance(value.get(key), str) and value.get(key) for key in ("repository", "commit")
    ):
        raise HarnessFailure(
            "bad_handshake", "'implementation.upstream' must be {repository, commit} strings"
        )
    return Upstream(value["repository"], value["commit"])
