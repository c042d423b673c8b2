"""The Node.js driver in drivers/node passes every check of its capabilities, AP profile.

The driver was written from docs/ alone; these tests keep it honest against the vectors and
check its hand-written BLAKE3 against the ``blake3`` package. Both need ``node``."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from blake3 import blake3

from rescind.conformance.diagnose import diagnose
from rescind.conformance.harness import SubprocessDriver
from rescind.conformance.vector_files import load_vector_files
from tests.cli_process import WIRE_ONLY, run_rescind

NODE = shutil.which("node")
DRIVER_DIR = Path(__file__).resolve().parents[2] / "drivers" / "node"
TOPICS = ("canonical-input", "host-keys", "grants")

pytestmark = pytest.mark.skipif(
    NODE is None, reason="node is not on PATH, so the Node.js driver in drivers/node cannot run"
)


def _vector_ids() -> tuple[set[str], set[str]]:
    """Every test id of the three topics, and those that also carry an f64 reading."""
    ids: set[str] = set()
    with_f64: set[str] = set()
    for document in load_vector_files():
        if document["topic"] not in TOPICS:
            continue
        for group in document["testGroups"]:
            for test in group["tests"]:
                ids.add(test["id"])
                if "f64" in test["expected"]:
                    with_f64.add(test["id"])
    return ids, with_f64


def _check_report() -> dict[str, Any]:
    selection = [arg for topic in TOPICS for arg in ("--select", topic)]
    completed = run_rescind(
        "check", *WIRE_ONLY, "--json", "--impl", f"{NODE} {DRIVER_DIR / 'driver.mjs'}", *selection
    )
    assert completed.returncode == 0, completed.stderr[-2000:]
    report: dict[str, Any] = json.loads(completed.stdout)
    return report


def test_every_check_of_its_capabilities_passes() -> None:
    report = _check_report()
    ids, with_f64 = _vector_ids()
    assert sorted(report["capabilities"]) == ["canonical", "grants", "host-keys"]
    assert report["harnessFailures"] == []
    statuses = {check["id"]: check["status"] for check in report["checks"]}
    passed = {check_id for check_id, status in statuses.items() if status == "pass"}
    assert passed == ids
    # Only the informative splash-v5-f64 twin of a vector may be skipped: the driver
    # declares the normative profile alone.
    skipped = {check_id for check_id, status in statuses.items() if status != "pass"}
    assert skipped == {f"{check_id}.f64" for check_id in with_f64}
    assert all(statuses[check_id] == "not-applicable" for check_id in skipped)


@pytest.mark.parametrize("length", [0, 1, 63, 64, 65, 1023, 1024, 1025, 2048, 2049, 8193, 31744])
def test_blake3_matches_the_reference_implementation(length: int) -> None:
    message = bytes(i % 251 for i in range(length))  # the official test-vector input pattern
    script = (
        f"import {{ blake3Hex }} from {json.dumps((DRIVER_DIR / 'blake3.mjs').as_uri())};"
        "const bytes = Buffer.from(process.argv[1], 'hex');"
        "console.log(blake3Hex(bytes));"
    )
    completed = subprocess.run(
        [str(NODE), "--input-type=module", "-e", script, message.hex()],
        capture_output=True,
        text=True,
        check=True,
    )
    assert completed.stdout.strip() == blake3(message).hexdigest()


def test_the_node_driver_reads_every_hazard_as_upstream() -> None:
    driver = SubprocessDriver(f"{NODE} {DRIVER_DIR / 'driver.mjs'}")
    try:
        diagnosis = diagnose(driver)
    finally:
        driver.close()
    assert diagnosis.implementation == "rescind-node-driver"
    assert all(line.matches_upstream for line in diagnosis.lines)


# A canonicalizer the way a JavaScript program writes one with the standard library (RFC 8785
# style): JSON.parse, keys sorted by JavaScript's default (UTF-16) order, JSON.stringify for
# scalars. V8 computes these bytes, so the diagnosis checks diagnose's own predictions of the
# ECMAScript number layout and UTF-16 key order against an independent implementation.
JCS_STYLE_DRIVER = r"""
import { createInterface } from 'node:readline';
const write = (v) => Array.isArray(v) ? `[${v.map(write).join(',')}]`
  : v !== null && typeof v === 'object'
    ? `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${write(v[k])}`).join(',')}}`
    : JSON.stringify(v);
const depth = (v) => v !== null && typeof v === 'object'
  ? 1 + Math.max(0, ...Object.values(v).map(depth)) : 1;
function canonical(args) {
  const raw = args.hex !== undefined ? Buffer.from(args.hex, 'hex') : Buffer.from(args.text);
  let body = raw;
  if (args.format === 'json') {
    let value;
    try { value = JSON.parse(raw.toString('utf8')); } catch { return { error: 'serialization' }; }
    if (value === null || typeof value !== 'object') return { error: 'invalid_json_envelope' };
    if (depth(value) > 32) return { error: 'json_payload_too_deep' };
    body = Buffer.from(write(value));
  }
  const length = Buffer.alloc(8);
  length.writeBigUInt64BE(BigInt(body.length));
  return { ok: { canonicalInputHex: Buffer.concat([Buffer.from(args.format), length, body]).toString('hex') } };
}
const hello = { protocol: 'rescind-driver/1', capabilities: ['canonical'],
  implementation: { name: 'jcs-style', version: '1' } };
createInterface({ input: process.stdin }).on('line', (line) => {
  const { id, op, args } = JSON.parse(line);
  let reply = { ok: {} };
  if (op === 'hello') reply = { ok: hello };
  else if (op === 'canonical.input') {
    const result = canonical(args);
    reply = result.ok ? result : { error: { code: result.error, definite: true } };
  }
  process.stdout.write(JSON.stringify({ id, ...reply }) + '\n');
  if (op === 'bye') process.exit(0);
});
"""


def test_a_javascript_canonicalizer_is_diagnosed_as_such(tmp_path: Path) -> None:
    script = tmp_path / "jcs_style.mjs"
    script.write_text(JCS_STYLE_DRIVER)
    driver = SubprocessDriver(f"{NODE} {script}")
    try:
        diagnosis = diagnose(driver)
    finally:
        driver.close()
    readings = {line.aspect: line.reading for line in diagnosis.lines}
    assert readings["number-mode"] == ("binary-f64",)
    assert readings["f64-parse"] == ("correctly-rounded",)
    assert readings["f64-layout"] == ("ecmascript",)
    assert readings["key-order"] == ("utf-16",)
    assert readings["duplicate-keys"] == ("last-wins",)
    assert readings["lone-surrogates"] == ("accepted",)
    assert readings["nesting"] == ("no-limit",)
    assert readings["reserved-number-key"] == ("ordinary-key",)
    assert readings["string-escapes"] == ("minimal",)


def test_the_node_driver_bounds_repeat_count_before_allocating() -> None:
    # docs/bounds.md: one expansion stays within 2 MiB; before, 'a'.repeat(3e9) threw a
    # RangeError that ended the driver.
    driver = SubprocessDriver([str(NODE), str(DRIVER_DIR / "driver.mjs")], timeout=10.0)
    try:
        huge = {"input": {"repeat": "a", "count": 3_000_000_000}}
        assert driver.request("host-keys.canonical_input", huge).error_code == "bad_request"
        small = {"input": {"repeat": "a", "count": 3}}
        assert driver.request("host-keys.canonical_input", small).ok == {
            "canonical_input_hex": "616161"
        }
    finally:
        driver.close()
