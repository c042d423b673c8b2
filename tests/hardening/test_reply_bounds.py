"""A reply within the byte cap is still bounded in members and depth, before it is decoded.

A 25 MB line holding one object of two million members decoded in about 2.4 s, every time the
driver sent it: a run of 300 such checks lasted past ten minutes with no report. The bound is
checked on the raw line, so the same run now ends in seconds, as a driver protocol failure
that names the request.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from rescind.conformance.harness import HarnessFailure, SubprocessDriver
from rescind.conformance.harness.limits import MAX_REPLY_DEPTH, MAX_REPLY_MEMBERS, reply_shape
from rescind.conformance.runner import run_checks
from tests.conformance.check_doubles import probe_check

DRIVER = """
import json, sys
HELLO = {"protocol": "rescind-driver/1", "capabilities": ["canonical"]}
BIG = ",".join('"k%d":0' % i for i in range(2_000_000))
for line in sys.stdin:
    request = json.loads(line)
    if request["op"] in ("hello", "bye"):
        body = json.dumps(HELLO if request["op"] == "hello" else {})
    else:
        body = "{" + BIG + "}"
    sys.stdout.write('{"id":%d,"ok":%s}\\n' % (request["id"], body)); sys.stdout.flush()
    if request["op"] == "bye":
        break
"""


def _script(tmp_path: Path) -> list[str]:
    path = tmp_path / "wide.py"
    path.write_text(DRIVER)
    return [sys.executable, str(path)]


def test_two_million_members_is_refused_naming_the_request(tmp_path: Path) -> None:
    driver = SubprocessDriver(_script(tmp_path), timeout=20.0)
    started = time.monotonic()
    with pytest.raises(HarnessFailure) as caught:
        driver.request("canonical.input", {"format": "json", "text": "{}"})
    elapsed = time.monotonic() - started
    driver.close()
    assert caught.value.kind == "reply_too_complex"
    assert "request 2 (canonical.input" in caught.value.message
    assert f"more than {MAX_REPLY_MEMBERS} members" in caught.value.message
    assert elapsed < 10.0


def test_a_run_of_wide_replies_ends_quickly_with_a_report(tmp_path: Path) -> None:
    argv = _script(tmp_path)
    started = time.monotonic()
    report = run_checks(
        [probe_check(i) for i in range(40)], lambda: SubprocessDriver(argv, timeout=20.0)
    )
    # Before the bound: about 2.4 s of decoding per reply, so 40 checks took well over 60 s.
    assert time.monotonic() - started < 40.0
    assert report.exit_code() == 2
    assert "reply_too_complex" in report.harness_failures[0]


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (b'{"id":1,"ok":{"a":"' + b"," * 500_000 + b'"}}', None),  # commas inside a string
        (b'{"id":1,"ok":{"a":"\\"[[[[,"}}', None),  # escaped quote, brackets in a string
        (b"[" * (MAX_REPLY_DEPTH + 1) + b"]" * (MAX_REPLY_DEPTH + 1), "deep"),
        (b"[" * MAX_REPLY_DEPTH + b"]" * MAX_REPLY_DEPTH, None),
        (b"[" + b"0," * MAX_REPLY_MEMBERS + b"0]", "members"),
        (b"[" + b"0," * (MAX_REPLY_MEMBERS - 2) + b"0]", None),
    ],
)
def test_reply_shape_counts_structure_not_string_content(line: bytes, reason: str | None) -> None:
    found = reply_shape(line)
    assert (found is None) if reason is None else (found is not None and reason in found)
