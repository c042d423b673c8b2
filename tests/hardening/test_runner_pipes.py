"""The runner survives drivers that abuse their pipes, and names what each one did.

Every driver here is a real subprocess. Timeouts are generous: each case either finishes far
inside them now, or (before the pipes were read linearly and in large chunks) ran into them.
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import pytest

from rescind.conformance.harness import HarnessFailure, SubprocessDriver

PRELUDE = """
import json, os, sys, time
def reply(request, **body):
    sys.stdout.write(json.dumps({"id": request["id"], **body}) + "\\n"); sys.stdout.flush()
HELLO = {"protocol": "rescind-driver/1", "capabilities": ["canonical"]}
for line in sys.stdin:
    request = json.loads(line)
    if request["op"] == "hello":
        reply(request, ok=HELLO); continue
    if request["op"] == "bye":
        reply(request, ok={}); break
"""

PROBE = ("canonical.input", {"format": "json", "text": "{}"})


def _start(tmp_path: Path, body: str, **options: float | int) -> SubprocessDriver:
    script = tmp_path / "driver.py"
    script.write_text(PRELUDE + body + "\n")
    return SubprocessDriver([sys.executable, str(script)], **options)  # type: ignore[arg-type]


def _failure(driver: SubprocessDriver) -> HarnessFailure:
    """The failure the driver's first request raises; the driver is closed and not left
    running."""
    with pytest.raises(HarnessFailure) as caught:
        driver.request(*PROBE)
    driver.close()
    assert driver.process.poll() is not None
    return caught.value


def test_a_30_mb_reply_line_is_read_linearly(tmp_path: Path) -> None:
    # Under the default limit. Quadratic reading took ~5 s for this line on the development
    # machine (a timeout here); linear reading takes ~0.2 s.
    body = "    reply(request, ok={'text': 'x' * 30_000_000})"
    driver = _start(tmp_path, body, timeout=4.0)
    reply = driver.request(*PROBE)
    assert reply.ok is not None and len(reply.ok["text"]) == 30_000_000
    driver.close()


def test_a_reply_line_over_the_limit_is_reply_too_large(tmp_path: Path) -> None:
    body = "    reply(request, ok={'text': 'x' * 5000})"
    driver = _start(tmp_path, body, timeout=10.0, max_reply_bytes=4096)
    assert _failure(driver).kind == "reply_too_large"


def test_the_default_limit_refuses_a_50_mb_line(tmp_path: Path) -> None:
    body = "    reply(request, ok={'text': 'x' * 50_000_000})"
    assert _failure(_start(tmp_path, body, timeout=20.0)).kind == "reply_too_large"


def test_a_line_that_never_ends_is_refused_once_past_the_limit(tmp_path: Path) -> None:
    # The driver never writes the newline: the answer comes from the size, not the timeout.
    body = "    sys.stdout.write('[' + ' ' * 300_000); sys.stdout.flush(); time.sleep(60)"
    driver = _start(tmp_path, body, timeout=30.0, max_reply_bytes=100_000)
    started = time.monotonic()
    assert _failure(driver).kind == "reply_too_large"
    assert time.monotonic() - started < 20.0


def test_a_driver_flooding_stderr_is_drained(tmp_path: Path) -> None:
    # 30 MB of log before the reply: at one byte per read that took ~12 s (a timeout here).
    body = (
        "    chunk = 'noise ' * 1000 + '\\n'\n"
        "    for _ in range(5000): sys.stderr.write(chunk)\n"
        "    sys.stderr.write('last words\\n'); sys.stderr.flush()\n"
        "    reply(request, ok={})"
    )
    driver = _start(tmp_path, body, timeout=8.0)
    assert driver.request(*PROBE).kind == "ok"
    deadline = time.monotonic() + 10.0  # the drain runs beside the reply; let it catch up
    while driver.stderr_tail[-1:] != ["last words"] and time.monotonic() < deadline:
        time.sleep(0.01)
    tail = driver.stderr_tail
    assert tail[-1] == "last words"
    assert sum(len(line) + 1 for line in tail) <= 64 * 1024
    driver.close()


def test_stderr_tail_is_kept_with_a_failure(tmp_path: Path) -> None:
    body = "    sys.stderr.write('about to fail\\n'); sys.stderr.flush(); sys.exit(3)"
    failure = _failure(_start(tmp_path, body, timeout=5.0))
    assert failure.kind == "crashed"
    assert "about to fail" in failure.stderr_tail


def test_closing_stdout_but_running_on_is_named(tmp_path: Path) -> None:
    body = "    os.close(1); time.sleep(60)"
    assert _failure(_start(tmp_path, body, timeout=10.0)).kind == "stdout_closed"


def test_exiting_is_still_crashed_with_its_code(tmp_path: Path) -> None:
    body = "    os.close(1); sys.exit(4)"
    failure = _failure(_start(tmp_path, body, timeout=10.0))
    assert failure.kind == "crashed" and "code 4" in failure.message


def test_a_reply_nested_too_deeply_names_the_limit(tmp_path: Path) -> None:
    # Valid JSON, 10^5 levels deep: not "not JSON", but past the runner's depth bound, which
    # is checked before decoding (docs/bounds.md).
    body = "    sys.stdout.write('[' * 100_000 + ']' * 100_000 + '\\n'); sys.stdout.flush()"
    failure = _failure(_start(tmp_path, body, timeout=10.0))
    assert failure.kind == "reply_too_complex" and "128 deep" in failure.message


def test_past_the_depth_bound_the_decoder_limit_is_still_named(tmp_path: Path) -> None:
    body = "    sys.stdout.write('[' * 100_000 + ']' * 100_000 + '\\n'); sys.stdout.flush()"
    failure = _failure(_start(tmp_path, body, timeout=10.0, max_reply_depth=10**6))
    assert failure.kind == "reply_beyond_limits" and "deeper than the runner" in failure.message


def test_a_5000_digit_id_names_the_integer_limit(tmp_path: Path) -> None:
    body = "    sys.stdout.write('{\"id\": ' + '7' * 5000 + ', \"ok\": {}}\\n'); sys.stdout.flush()"
    failure = _failure(_start(tmp_path, body, timeout=10.0))
    assert failure.kind == "reply_beyond_limits"
    assert f"{sys.get_int_max_str_digits()} digits" in failure.message


def test_invalid_json_is_still_non_json_output(tmp_path: Path) -> None:
    body = "    sys.stdout.write('{nope\\n'); sys.stdout.flush()"
    assert _failure(_start(tmp_path, body, timeout=10.0)).kind == "non_json_output"


def test_a_driver_whose_child_holds_stdout_is_crashed_and_the_child_is_killed(
    tmp_path: Path,
) -> None:
    # The driver forks a child that keeps stdout open, then exits without answering.
    pid_file = tmp_path / "child.pid"
    body = (
        "    if os.fork() == 0:\n"
        f"        open({str(pid_file)!r}, 'w').write(str(os.getpid())); time.sleep(120)\n"
        "    os._exit(3)"
    )
    driver = _start(tmp_path, body, timeout=30.0)
    started = time.monotonic()
    failure = _failure(driver)
    assert failure.kind == "crashed" and "code 3" in failure.message
    assert time.monotonic() - started < 10  # not a 30 s timeout
    child = int(pid_file.read_text())
    for _ in range(100):
        if not _alive(child):
            break
        time.sleep(0.05)
    assert not _alive(child), "the forked child outlived the driver"


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state != "Z"


def test_a_driver_that_stops_reading_stdin_times_out(tmp_path: Path) -> None:
    # The driver answers one request, then never reads again: a 16 MB request fills the pipe.
    body = "    reply(request, ok={}); time.sleep(60)"
    driver = _start(tmp_path, body, timeout=3.0)
    driver.request(*PROBE)
    outcome: list[str] = []

    def send() -> None:
        try:
            driver.request("canonical.input", {"format": "text", "text": "x" * 16_000_000})
            outcome.append("ok")
        except HarnessFailure as failure:
            outcome.append(failure.kind)

    sender = threading.Thread(target=send, daemon=True)
    sender.start()
    sender.join(30.0)
    assert outcome == ["timeout"]
    driver.close()
