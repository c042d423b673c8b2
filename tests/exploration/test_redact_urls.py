"""Every URL the suite shows goes through one redaction: user info and every query parameter
hidden, a URL that does not parse shown as its scheme only, whatever the form."""

from __future__ import annotations

import socket

import pytest

from rescind.cli import main
from rescind.conformance.explore.example_db import GuardedDatabase
from rescind.conformance.harness.redact import scrub, url_shown

SECRET = "S3CRETpw"


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (f"redis://127.0.0.1:6379/0?password={SECRET}", "redis://127.0.0.1:6379/0?***"),
        (f"redis://h/0?db=1&token={SECRET}#x", "redis://h/0?***#***"),
        (f"redis://user:{SECRET}@h:1/0", "redis://***@h:1/0"),
        (f"redis://:{SECRET}@h", "redis://***@h"),
        (f"redis://{SECRET}@h", "redis://***@h"),
        (f"redis://user:pa/{SECRET}@host/0", "redis://…"),  # '/' in the password
        (f"redis://user:pa#{SECRET}@host/0", "redis://…"),  # '#'
        (f"redis://user:pa?{SECRET}@host/0", "redis://…"),  # '?'
        (f"redis://user:{SECRET}@host:port/0", "redis://…"),  # a port that is not one
        (f"redis://[::1:{SECRET}/0", "redis://…"),  # an unclosed IPv6 host
        (f"REDIS://u:{SECRET}@h\x1b]0;x\x07/", "redis://…"),  # not printable ASCII
        ("redis://h:6379/0", "redis://h:6379/0"),
        (".hypothesis/rescind-examples", ".hypothesis/rescind-examples"),  # a path
    ],
)
def test_url_shown(url: str, shown: str) -> None:
    assert url_shown(url) == shown


@pytest.mark.parametrize(
    "url",
    [f"redis://user:pa/{SECRET}@host/0", f"redis://h/0?password={SECRET}", f"x://u:{SECRET}@h"],
)
def test_scrub_cuts_every_secret_from_an_error_text(url: str) -> None:
    message = f"could not connect to {url} (password {SECRET!r}, host part {url[8:]})"
    assert SECRET not in scrub(message, url)


@pytest.mark.parametrize(
    "form",
    [
        "redis://127.0.0.1:{port}/0?password={secret}",
        "redis://user:pa/{secret}@127.0.0.1:{port}/0",
        "redis://user:pa#{secret}@127.0.0.1:{port}/0",
        "redis://user:pa?{secret}@127.0.0.1:{port}/0",
        "redis://:{secret}@127.0.0.1:{port}",
        "https://user:{secret}@example.invalid/db",
    ],
)
def test_example_db_never_echoes_a_secret(form: str, capsys: pytest.CaptureFixture[str]) -> None:
    url = form.format(port=_closed_port(), secret=SECRET)
    code = main(["check", "--no-model", "--select", "canon.text.release", "--example-db", url])
    captured = capsys.readouterr()
    assert code == 2 and "--example-db" in captured.err
    assert SECRET not in captured.err + captured.out


def test_a_guarded_database_shows_the_redacted_url() -> None:
    database = GuardedDatabase(
        inner=None,  # type: ignore[arg-type]
        where=f"redis://u:{SECRET}@h/0?x=1",
        failures=(),
    )
    assert SECRET not in repr(database) and "redis://***@h/0?***" in repr(database)
