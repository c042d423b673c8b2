"""Where exploration keeps the disagreements it found (Hypothesis' example database), so
the next run, on this machine or another, replays them first: a local directory, or a
Redis server shared by every machine (``redis://[:password@]host:port[/db]``, needs the
``redis`` package, as in ``hypothesis[redis]``).

The database is an aid, never a reason to lose a run: a Redis server that stops answering
mid-run (killed, restarted, network gone) is dropped, the run continues without it, and the
loss is said once on stderr and in every report (``GuardedDatabase.lost``). No secret of the
URL appears in a message: URLs are shown through ``harness.redact.url_shown`` (user info and
every query parameter hidden; a malformed URL as its scheme only), and ``redact.scrub`` cuts
them from any error text that quotes them. A URL of another scheme is refused, never taken
for a directory name.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TypeVar
from urllib.parse import urlparse

from hypothesis.database import DirectoryBasedExampleDatabase, ExampleDatabase

from rescind.conformance.harness.redact import is_url, scrub, url_shown

DEFAULT_DIRECTORY = Path(".hypothesis") / "rescind-examples"
NONE = "none"
REDIS_TIMEOUT = 5.0
"""Seconds a Redis call may take before the database counts as gone (a hung server must
not hang the run: redis-py waits forever by default)."""

_T = TypeVar("_T")


def redacted(url: str) -> str:
    """``url`` as every message shows it (``harness.redact.url_shown``)."""
    return url_shown(url)


def _scrub(text: str, url: str) -> str:
    return scrub(text, url)


class GuardedDatabase(ExampleDatabase):
    """An example database that stops being used, instead of failing the run, at the first
    error of its backend; ``lost`` then says what happened (no password)."""

    def __init__(
        self,
        inner: ExampleDatabase,
        where: str,
        failures: tuple[type[BaseException], ...],
        *,
        announce: Callable[[str], None] | None = None,
    ) -> None:
        super().__init__()
        self._inner = inner
        self._where = where
        self._failures = failures
        self._announce = announce if announce is not None else _to_stderr
        self.lost: str | None = None

    def __repr__(self) -> str:
        return f"GuardedDatabase({redacted(self._where)})"

    def _guard(self, call: Callable[[], _T], fallback: _T) -> _T:
        if self.lost is not None:
            return fallback
        try:
            return call()
        except self._failures as error:
            detail = _scrub(f"{type(error).__name__}: {error}", self._where)
            self.lost = (
                f"the example database {redacted(self._where)} stopped answering ({detail}); "
                "the run continued without it: disagreements found after that were not saved "
                "to it and saved ones were not all replayed"
            )
            self._announce(self.lost)
            return fallback

    def fetch(self, key: bytes) -> Iterable[bytes]:
        # Read eagerly: a lazy generator would raise inside Hypothesis, past this guard.
        return self._guard(lambda: list(self._inner.fetch(key)), [])

    def save(self, key: bytes, value: bytes) -> None:
        self._guard(lambda: self._inner.save(key, value), None)

    def delete(self, key: bytes, value: bytes) -> None:
        self._guard(lambda: self._inner.delete(key, value), None)

    def move(self, src: bytes, dest: bytes, value: bytes) -> None:
        self._guard(lambda: self._inner.move(src, dest, value), None)


def _to_stderr(message: str) -> None:
    print(f"rescind: {message}", file=sys.stderr, flush=True)


def open_database(spec: str | None) -> ExampleDatabase | None:
    """``None``/``"none"``: no database; ``redis://..``: Redis; anything else: a directory."""
    if spec is None or spec == NONE:
        return None
    if spec.startswith("redis://"):
        return _redis(spec)
    if is_url(spec):
        raise ValueError(f"{url_shown(spec)} is neither a directory nor a redis:// URL")
    return DirectoryBasedExampleDatabase(str(Path(spec)))


def lost(database: ExampleDatabase | None) -> str | None:
    """What happened to a guarded database that was dropped mid-run, if it was."""
    return database.lost if isinstance(database, GuardedDatabase) else None


def _redis(url: str) -> ExampleDatabase:
    shown = redacted(url)
    if shown.endswith("://…"):
        raise ValueError(f"a Redis example database is redis://host:port[/db]; got {shown!r}")
    parsed = urlparse(url)
    if not parsed.hostname:
        raise ValueError(f"a Redis example database is redis://host:port[/db]; got {shown!r}")
    try:
        import redis
        from hypothesis.extra.redis import RedisExampleDatabase
    except ImportError as error:
        raise ValueError(
            "--example-db redis://... needs the redis package (pip install 'hypothesis[redis]')"
        ) from error
    try:
        client = redis.Redis.from_url(
            url, socket_timeout=REDIS_TIMEOUT, socket_connect_timeout=REDIS_TIMEOUT
        )
    except ValueError as error:
        raise ValueError(f"not a Redis URL: {shown} ({_scrub(str(error), url)})") from None
    try:
        client.ping()
    except redis.RedisError as error:
        detail = _scrub(str(error), url)
        raise ValueError(f"cannot reach the Redis example database at {shown}: {detail}") from None
    database = RedisExampleDatabase(client, key_prefix=b"rescind-examples:")
    return GuardedDatabase(database, url, (redis.RedisError, OSError))
