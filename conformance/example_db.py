"""Where exploration keeps the disagreements it found (Hypothesis' example database), so
the next run, on this machine or another, replays them first: a local directory, or a
Redis server shared by every machine (``redis://host:port[/db]``, needs the ``redis``
package, as in ``hypothesis[redis]``)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlparse

from hypothesis.database import DirectoryBasedExampleDatabase, ExampleDatabase

DEFAULT_DIRECTORY = Path(".hypothesis") / "rescind-examples"
NONE = "none"


def open_database(spec: str | None) -> ExampleDatabase | None:
    """``None``/``"none"``: no database; ``redis://..``: Redis; anything else: a directory."""
    if spec is None or spec == NONE:
        return None
    if spec.startswith("redis://"):
        return _redis(spec)
    return DirectoryBasedExampleDatabase(str(Path(spec)))


def _redis(url: str) -> ExampleDatabase:
    parsed = urlparse(url)
    if not parsed.hostname:
        raise ValueError(f"a Redis example database is redis://host:port[/db]; got {url!r}")
    try:
        import redis
        from hypothesis.extra.redis import RedisExampleDatabase
    except ImportError as error:
        raise ValueError(
            "--example-db redis://... needs the redis package (pip install 'hypothesis[redis]')"
        ) from error
    path = parsed.path.strip("/")
    client = redis.Redis(
        host=parsed.hostname, port=parsed.port or 6379, db=int(path) if path else 0
    )
    try:
        client.ping()
    except redis.RedisError as error:
        raise ValueError(f"cannot reach the Redis example database at {url}: {error}") from error
    return RedisExampleDatabase(client, key_prefix=b"rescind-examples:")
