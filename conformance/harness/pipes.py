"""Reading a driver's pipes in bounded time and memory, whatever the driver writes.

``LineReader`` splits a non-blocking stdout into lines. Every byte is copied and scanned a
constant number of times (a chunk is searched for a newline once; a partial line is only
split when its newline arrives), so a 50 MB line costs what 50 MB of short lines cost, and
a line longer than the limit is refused as soon as the limit is passed, not after it ends.

``StderrTail`` drains stderr in large reads on a thread and keeps only the last bytes: a
driver that logs faster than the runner reads would otherwise block on a full pipe and look
like a driver that stopped answering. ``LineWriter`` writes requests with a deadline.
"""

from __future__ import annotations

import collections
import contextlib
import os
import selectors
import threading
import time

_READ_SIZE = 1 << 20


class EndOfStream(Exception):
    """The writer closed the pipe before a complete line arrived."""


class DeadlinePassed(Exception):
    """No complete line arrived before the deadline."""


class LineTooLong(Exception):
    """A line (its newline not counted) is longer than the reader's limit."""

    def __init__(self, size: int, maximum: int) -> None:
        super().__init__(f"a line of at least {size} bytes exceeds {maximum} bytes")
        self.size = size
        self.maximum = maximum


class LineReader:
    """Complete, non-blank lines from a pipe, each at most ``max_line_bytes`` long."""

    def __init__(self, fd: int, max_line_bytes: int) -> None:
        self._fd = fd
        self._max = max_line_bytes
        os.set_blocking(fd, False)
        self._selector = selectors.DefaultSelector()
        self._selector.register(fd, selectors.EVENT_READ)
        self._partial = bytearray()
        self._lines: collections.deque[bytes] = collections.deque()

    def read_line(self, deadline: float) -> bytes:
        """The next line (without its newline); waits until ``deadline`` (monotonic)."""
        while not self._lines:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise DeadlinePassed()
            if not self._selector.select(remaining):
                continue
            try:
                chunk = os.read(self._fd, _READ_SIZE)
            except BlockingIOError:
                continue
            if not chunk:
                raise EndOfStream()
            self._take(chunk)
        return self._lines.popleft()

    def _take(self, chunk: bytes) -> None:
        if b"\n" not in chunk:
            self._partial += chunk
            if len(self._partial) > self._max:
                raise LineTooLong(len(self._partial), self._max)
            return
        first, *middle, last = chunk.split(b"\n")
        self._partial += first
        for line in (bytes(self._partial), *middle):
            if len(line) > self._max:
                raise LineTooLong(len(line), self._max)
            if line.strip():
                self._lines.append(line)
        self._partial = bytearray(last)
        if len(self._partial) > self._max:
            raise LineTooLong(len(self._partial), self._max)

    def close(self) -> None:
        self._selector.close()


class LineWriter:
    """Writes to a non-blocking pipe, giving up at a deadline (a driver that stops reading
    its stdin must not hang the runner on a large request)."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        os.set_blocking(fd, False)
        self._selector = selectors.DefaultSelector()
        self._selector.register(fd, selectors.EVENT_WRITE)

    def write(self, data: bytes, deadline: float) -> None:
        """All of ``data``, or ``DeadlinePassed``; a closed reader raises ``BrokenPipeError``."""
        view = memoryview(data)
        while view:
            with contextlib.suppress(BlockingIOError):  # the pipe is full right now
                view = view[os.write(self._fd, view) :]
            if not view:
                return
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise DeadlinePassed()
            self._selector.select(remaining)

    def close(self) -> None:
        self._selector.close()


class StderrTail:
    """Drains ``fd`` on a daemon thread; ``lines()`` gives the last lines that were kept."""

    def __init__(self, fd: int, max_bytes: int = 1 << 16, max_lines: int = 200) -> None:
        self._fd = fd
        self._max_bytes = max_bytes
        self._max_lines = max_lines
        self._tail = bytearray()
        self._trimmed = False
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._drain, daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        while True:
            try:
                chunk = os.read(self._fd, _READ_SIZE)
            except OSError:
                return
            if not chunk:
                return
            with self._lock:
                self._tail += chunk
                excess = len(self._tail) - self._max_bytes
                if excess > 0:
                    del self._tail[:excess]  # amortised O(1): bytearray keeps a start offset
                    self._trimmed = True

    def finish(self, timeout: float) -> None:
        """Wait (at most ``timeout`` s) for the writer's last bytes, once it has exited."""
        self._thread.join(timeout)

    def lines(self) -> list[str]:
        with self._lock:
            data, trimmed = bytes(self._tail), self._trimmed
        lines = data.decode("utf-8", "replace").split("\n")
        if trimmed:
            lines = lines[1:]  # the first kept line lost its beginning
        if lines and not lines[-1]:
            lines.pop()
        return lines[-self._max_lines :]
