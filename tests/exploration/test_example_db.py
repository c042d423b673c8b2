"""Found disagreements carry between runs and machines through Hypothesis' example
database: a local directory, or a real Redis server (``hypothesis[redis]``) shared by two
shards. The server is Debian's ``redis-server``, installed by this set-up when absent (as
root, through apt-get) or the Redis test is skipped saying why."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rescind.cli import main

BROKEN = f"{sys.executable} -m tests.conformance.broken_drivers skips-persistence-before-effect"
AREA = "explore.session-worker"
ROOT = Path(__file__).resolve().parents[2]


def _redis_server() -> str | None:
    found = shutil.which("redis-server")
    if found or os.geteuid() != 0 or not shutil.which("apt-get"):
        return found
    subprocess.run(
        ["apt-get", "install", "-y", "-q", "redis-server"],
        capture_output=True,
        check=False,
        timeout=600,
        env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
    )
    return shutil.which("redis-server")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    pytest.importorskip("redis", reason="the redis package (hypothesis[redis]) is not installed")
    server = _redis_server()
    if server is None:
        pytest.skip("redis-server is absent and could not be installed with apt-get (not root?)")
    port = _free_port()
    directory = tmp_path_factory.mktemp("redis")
    process = subprocess.Popen(
        [server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir", str(directory)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    import redis

    client = redis.Redis(port=port)
    try:
        for _ in range(100):
            try:
                client.ping()
                break
            except redis.ConnectionError:
                time.sleep(0.05)
        else:
            pytest.fail("redis-server did not answer")
        yield f"redis://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=10)


def _check(capsys: pytest.CaptureFixture[str], db: str, *extra: str) -> tuple[int, Any]:
    code = main(
        [
            "check",
            "--no-model",
            "--select",
            AREA,
            "--impl",
            BROKEN,
            "--example-db",
            db,
            "--json",
            *extra,
        ]
    )
    return code, json.loads(capsys.readouterr().out)


def _status(report: Any) -> str:
    (entry,) = report["checks"]
    return str(entry["status"])


def _carries_over(capsys: pytest.CaptureFixture[str], db: str, tmp_path: Path) -> None:
    # Two shards of one run explore with the shared database.
    paths = []
    for index in (1, 2):
        code, report = _check(
            capsys, db, "--seed", "3", "--shard", f"{index}/2", "--explore-steps", "200"
        )
        paths.append(tmp_path / f"shard{index}.json")
        paths[-1].write_text(json.dumps(report), encoding="utf-8")
    merged = tmp_path / "merged.json"
    assert main(["report", "merge", *map(str, paths), "--json", str(merged)]) == 1
    (joined,) = json.loads(merged.read_text())["checks"]
    assert joined["id"] == AREA and joined["status"] == "fail"
    # Another run with another seed and a one-trace budget: without the database it misses
    # the disagreement, with it the saved trace is replayed first and fails again.
    code, report = _check(capsys, "none", "--seed", "4", "--explore-steps", "1")
    assert code == 0 and _status(report) == "pass"
    code, report = _check(capsys, db, "--seed", "4", "--explore-steps", "1")
    assert code == 1 and _status(report) == "fail"


def test_a_directory_database_carries_failures(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the default database and replays land here, not in the tree
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # the broken driver lives in tests/
    _carries_over(capsys, str(tmp_path / "examples"), tmp_path)
    assert any((tmp_path / "examples").rglob("*"))


def test_redis_carries_failures_between_two_shards(
    redis_url: str,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import redis

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    client = redis.Redis.from_url(redis_url)
    client.flushall()
    _carries_over(capsys, redis_url, tmp_path)
    assert client.keys(b"rescind-examples:*")


def test_an_unreachable_redis_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("redis", reason="the redis package (hypothesis[redis]) is not installed")
    port = _free_port()
    code = main(["check", "--no-model", "--example-db", f"redis://127.0.0.1:{port}"])
    assert code == 2 and "cannot reach the Redis example database" in capsys.readouterr().err


PASSWORD = "s3cret-pa55word"


def _start_redis(directory: Path, password: str) -> tuple[subprocess.Popen[bytes], int]:
    pytest.importorskip("redis", reason="the redis package (hypothesis[redis]) is not installed")
    server = _redis_server()
    if server is None:
        pytest.skip("redis-server is absent and could not be installed with apt-get (not root?)")
    port = _free_port()
    arguments = ["--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir", str(directory)]
    process = subprocess.Popen(
        [server, *arguments, "--requirepass", password],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    import redis

    client = redis.Redis(port=port, password=password)
    for _ in range(100):
        try:
            client.ping()
            return process, port
        except redis.ConnectionError:
            time.sleep(0.05)
    process.kill()
    pytest.fail("redis-server did not answer")


def test_redis_killed_mid_run_the_run_continues_and_says_so(tmp_path: Path) -> None:
    """The server dies as soon as exploration saved its first disagreement (Hypothesis keeps
    saving while it shrinks, and the next area reads it first): the run finishes without the
    database, with the same verdicts, says so on stderr and in the report, and never shows
    the password."""
    import redis

    process, port = _start_redis(tmp_path, PASSWORD)
    url = f"redis://:{PASSWORD}@127.0.0.1:{port}"
    report_file = tmp_path / "report.md"
    command = [
        sys.executable,
        "-m",
        "rescind",
        "check",
        "--no-model",
        *("--select", AREA, "--select", "explore.session-host"),
        *("--impl", BROKEN, "--example-db", url, "--seed", "3", "--explore-steps", "200"),
        *("--markdown", str(report_file), "--json"),
    ]
    run = subprocess.Popen(
        command,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    client = redis.Redis(port=port, password=PASSWORD)
    try:
        deadline = time.monotonic() + 120
        while not client.keys(b"rescind-examples:*"):
            assert run.poll() is None, "the run ended before exploration saved anything"
            assert time.monotonic() < deadline
            time.sleep(0.005)
        process.kill()
        process.wait(timeout=10)
        out, err = run.communicate(timeout=600)
    finally:
        process.kill()
        run.kill()
    stdout, stderr = out.decode(), err.decode()
    assert PASSWORD not in stdout + stderr + report_file.read_text(encoding="utf-8")
    report = json.loads(stdout)
    # The same verdicts as with a live database: the broken driver fails session-worker.
    statuses = {check["id"]: check["status"] for check in report["checks"]}
    assert statuses == {AREA: "fail", "explore.session-host": statuses["explore.session-host"]}
    assert run.returncode == report["exitCode"] == 1
    (note,) = report["notes"]
    assert "stopped answering" in note and f"redis://***@127.0.0.1:{port}" in note
    assert "stopped answering" in stderr
    assert "## Notes" in report_file.read_text(encoding="utf-8")


def test_redis_password_never_shown_when_unreachable(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("redis", reason="the redis package (hypothesis[redis]) is not installed")
    port = _free_port()
    code = main(["check", "--no-model", "--example-db", f"redis://:{PASSWORD}@127.0.0.1:{port}"])
    captured = capsys.readouterr()
    assert code == 2 and "cannot reach the Redis example database" in captured.err
    assert PASSWORD not in captured.err + captured.out and "://***@" in captured.err
