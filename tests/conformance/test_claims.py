"""A pass means what it says: drivers that answer little or nothing of what they declare are
never called conforming, every report opens with the claim, and restrictions excuse exactly
the shapes they name."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest

from rescind.conformance.harness import InProcessDriver
from rescind.conformance.harness.restrictions import CATALOGUE, NAMES, Gap, excused_by
from rescind.conformance.report import run as reports
from rescind.conformance.report.claim import CLASSES, claim_of, class_capabilities
from rescind.conformance.report.merge import merge, plan_section
from rescind.conformance.runner import run_checks
from rescind.conformance.vectors.checks import vector_checks
from tests.cli_process import run_rescind
from tests.conformance.claim_drivers import CLAIM_DRIVERS

ROOT = Path(__file__).resolve().parents[2]
FAST = ["--no-model", "--explore-steps", "10", "--seed", "0", "--example-db", "none"]


def _check(driver: str, *extra: str, tmp: Path) -> tuple[int, list[str], dict[str, Any]]:
    report = tmp / f"{driver}.json"
    completed = run_rescind(
        "check",
        *FAST,
        *("--impl", f"{sys.executable} -m tests.conformance.claim_drivers {driver}"),
        *("--json", str(report), *extra),
    )
    lines = completed.stdout.splitlines()
    return completed.returncode, lines, json.loads(report.read_text(encoding="utf-8"))


@pytest.mark.parametrize("driver", ["silent", "masking", "cutting", "over-restricted"])
def test_drivers_that_leave_checks_unanswered_are_partial_never_passed(
    driver: str, tmp_path: Path
) -> None:
    code, lines, document = _check(driver, tmp=tmp_path)
    assert code == 3, lines[:3]
    first = lines[0]
    assert first.startswith("PARTIAL rescind-reference 0.1.0: "), first
    # the first line names each class left unanswered, with the count
    assert re.search(r"worker partial \(\d+ unanswered", first), first
    assert document["exitCode"] == 3 and not document["passed"]
    assert next(iter(document)) == "claim"
    assert document["claim"]["verdict"] == "PARTIAL"
    assert document["counts"].get("pass", 0) < sum(document["counts"].values())


def test_accept_partial_exits_0_and_still_says_partial(tmp_path: Path) -> None:
    code, lines, document = _check("cutting", "--accept-partial", tmp=tmp_path)
    assert code == 0
    assert lines[0].startswith("PARTIAL (accepted) ")
    assert document["claim"]["verdict"] == "PARTIAL (accepted)" and document["exitCode"] == 0


def test_an_undeclared_capability_and_profile_are_named_not_claimed(tmp_path: Path) -> None:
    code, lines, document = _check("undeclared", tmp=tmp_path)
    assert code == 0
    assert "host not claimed" in lines[0] and "f64 not claimed" in lines[0]
    classes = {part["name"]: part for part in document["claim"]["classes"]}
    assert classes["host"]["missing"] == ["ledger"]
    assert classes["f64"]["missing"] == ["splash-v5-f64"]
    assert classes["canonical"]["status"] == "conforms"
    code, lines, _ = _check("undeclared", "--claim", "host", tmp=tmp_path)
    assert code == 3 and lines[0].startswith("PASS ") is False


def test_claim_runs_only_its_class_and_exits_0_only_when_it_conforms(tmp_path: Path) -> None:
    code, lines, document = _check("cutting", "--claim", "canonical", tmp=tmp_path)
    assert code == 0, lines[:2]
    wanted = class_capabilities("canonical")
    assert {check["capability"] for check in document["checks"]} == wanted
    code, _, document = _check("cutting", "--claim", "worker", tmp=tmp_path)
    assert code == 3
    classes = {part["name"]: part["status"] for part in document["claim"]["classes"]}
    assert classes["worker"] == "partial" and classes["canonical"] == "conforms"
    assert not any(check["capability"] == "model" for check in document["checks"])


def test_every_report_opens_with_the_claim(tmp_path: Path) -> None:
    checks = [c for c in vector_checks() if c.source in ("canonical-input", "journal-traces")]
    report = run_checks(checks, lambda: InProcessDriver(CLAIM_DRIVERS["cutting"]))
    claim = claim_of(report)
    assert claim.verdict == "PARTIAL"
    markdown = reports.to_markdown(report)
    assert markdown.startswith("# Rescind conformance: PARTIAL rescind-reference 0.1.0")
    assert "| worker | partial |" in markdown
    junit = tmp_path / "r.xml"
    reports.write_junit(report, junit)
    properties = {
        p.get("name"): p.get("value") for p in ElementTree.parse(junit).getroot().iter("property")
    }
    assert properties["claim"].startswith("PARTIAL rescind-reference")
    assert properties["claim.class.worker"] == "partial"
    assert properties["claim.class.canonical"] == "conforms"
    document = reports.to_json(report)
    run = {"seed": 0, "shard": "1/1", "plan": plan_section(c["id"] for c in document["checks"])}
    joined, _ = merge([("s.json", {**document, "run": run})])
    assert claim_of(joined).to_json() == document["claim"]


def test_the_documented_restriction_table_is_the_catalogue() -> None:
    documented = (ROOT / "docs/driver-protocol.md").read_text(encoding="utf-8")
    rows = re.findall(
        r"^\| `([a-z0-9-]+)` \| (request|step|member|request or step) \|", documented, re.M
    )
    levels = {name: " or ".join(r.level for r in CATALOGUE if r.name == name) for name in NAMES}
    assert dict(rows) == levels


def test_the_documented_classes_are_the_classes() -> None:
    documented = (ROOT / "docs/driver-protocol.md").read_text(encoding="utf-8")
    for each in CLASSES:
        requires = ", ".join(f"`{name}`" for name in each.requires) or "—"
        assert re.search(
            rf"^\| `{re.escape(each.name)}` \| .* \| {re.escape(requires)} \|", documented, re.M
        ), each.name


# Shapes written out here from the driver protocol's words, not taken from the catalogue.
RAW = {"call": "admit", "args": {"request": {}, "grant": {}}}
AUTHORIZED = {"call": "admit", "args": {"authorized": "a1"}}
RESULT_CHECK = {"call": "validate_operation_result", "args": {"request": {}, "grant": {}}}


@pytest.mark.parametrize(
    ("gap", "declared", "excused"),
    [
        (Gap("step", "journal.trace", step=RAW), "authorized-by-authorizer", True),
        (Gap("step", "authorizer.trace", step=RAW), "authorized-by-authorizer", True),
        (Gap("step", "journal.trace", step=AUTHORIZED), "authorized-by-authorizer", False),
        (Gap("request", "journal.trace", {"steps": [RAW]}), "authorized-by-authorizer", False),
        (Gap("step", "journal.trace", step=RESULT_CHECK), "authorized-by-authorizer", False),
        (
            Gap("step", "journal.trace", step=RESULT_CHECK),
            "result-check-needs-issuing-authorizer",
            True,
        ),
        (
            Gap("member", "journal.trace", pointer="/steps/3/result/request_ids"),
            "authorizer-counters-private",
            True,
        ),
        (
            Gap("member", "journal.trace", pointer="/steps/3/result/calls"),
            "authorizer-counters-private",
            False,
        ),
        (
            Gap("member", "canonical.input", pointer="/hostInputFingerprint"),
            "authorizer-counters-private",
            False,
        ),
        (
            Gap("member", "frames.trace", pointer="/checkpoints/final/host/next_incoming"),
            "authenticator-counters-private",
            True,
        ),
        (
            Gap("member", "frames.tag", pointer="/auth_payload"),
            "authentication-payload-private",
            True,
        ),
        (Gap("member", "frames.tag", pointer="/tag"), "authentication-payload-private", False),
        (Gap("request", "frames.tag", {"sequence": 100_001}), "sequence-start-unreachable", True),
        (Gap("request", "frames.tag", {"sequence": 100_000}), "sequence-start-unreachable", False),
        (Gap("request", "frames.tag", expected={"error": "x"}), "tag-needs-sealable-frame", True),
        (Gap("request", "frames.tag", expected={"tag": "x"}), "tag-needs-sealable-frame", False),
        (Gap("request", "storage.tag", {"revision": 0}), "revision-unreachable", True),
        (Gap("request", "storage.tag", {"revision": 10_000}), "revision-unreachable", False),
        (Gap("request", "storage.tag", {"key_hex": "00" * 31}), "key-length-unrepresentable", True),
        (
            Gap("request", "storage.tag", {"key_hex": "11" * 32}),
            "key-length-unrepresentable",
            False,
        ),
        (
            Gap("step", "storage.trace", step={"op": "replace", "expected": -1}),
            "u64-arguments",
            True,
        ),
        (
            Gap("step", "storage.trace", step={"op": "replace", "expected": 2}),
            "u64-arguments",
            False,
        ),
        (Gap("step", "storage.trace", step={"op": "plant"}), "no-backend-state-injection", True),
        (Gap("step", "storage.trace", step={"op": "load"}), "no-backend-state-injection", False),
        (
            Gap("member", "storage.trace", pointer="/steps/1/ok/key_ids"),
            "keyring-keys-private",
            True,
        ),
    ],
)
def test_a_restriction_excuses_exactly_its_shapes(gap: Gap, declared: str, excused: bool) -> None:
    assert (excused_by(gap, {declared}) == declared) is excused
    assert excused_by(gap, set()) is None


def test_report_compare_puts_claims_side_by_side(tmp_path: Path) -> None:
    _, _, cutting = _check("cutting", tmp=tmp_path)
    _, _, undeclared = _check("undeclared", tmp=tmp_path)
    hostile = json.loads(json.dumps(undeclared))
    hostile["claim"]["implementation"]["name"] = "evil\x1b]0;title\x07"
    paths = []
    for name, document in (("a", cutting), ("b", hostile)):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(document), encoding="utf-8")
        paths.append(str(path))
    markdown = tmp_path / "m.md"
    completed = subprocess.run(
        [sys.executable, "-m", "rescind", "report", "compare", *paths, "--markdown", str(markdown)],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert completed.returncode == 0, completed.stderr
    rows = {line.split("  ")[0]: line for line in completed.stdout.splitlines()}
    assert "PARTIAL" in rows["verdict"] and "PASS" in rows["verdict"]
    assert "partial (" in rows["class worker"] and "conforms" in rows["class worker"]
    assert "not claimed" in rows["class host"]
    assert "\x1b" not in completed.stdout and "evil\\x1b]0;title\\x07" in completed.stdout
    assert "| class host | conforms | not claimed |" in markdown.read_text(encoding="utf-8")
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({**cutting, "claim": {"verdict": 3}}), encoding="utf-8")
    refused = subprocess.run(
        [sys.executable, "-m", "rescind", "report", "compare", str(broken)],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert refused.returncode == 2 and "claim" in refused.stderr


def _f64_host_fingerprint_private(message: Any) -> dict[str, Any]:
    """The reference, except that under splash-v5-f64 it cannot give the host input
    fingerprint (as upstream, whose host side needs arbitrary precision), and says so."""
    from rescind.conformance.driver import handle

    reply = handle(message)
    if message.get("op") == "hello":
        reply["ok"]["restrictions"] = ["host-side-needs-arbitrary-precision"]
    args = message.get("args", {})
    f64 = message.get("op") == "canonical.input" and args.get("profile") == "splash-v5-f64"
    if f64 and "hostInputFingerprint" in reply.get("ok", {}):
        reply["ok"]["hostInputFingerprint"] = {"unsupported": "no f64 host side"}
    return reply


def test_exploration_excuses_members_by_what_the_trace_asked(tmp_path: Path) -> None:
    """A member restriction that depends on the request (here its profile) is applied to
    explored traces too: the f64 number area earns its pass, the same members in the
    splash-v5 area would not be excused."""
    from rescind.conformance.catalogue import SourceOptions
    from rescind.conformance.explore.numbers import F64_NUMBER_AREA
    from rescind.conformance.sources.exploration import _check

    options = SourceOptions(explore_examples=20, seed=0, replay_directory=tmp_path)
    outcome = _check(F64_NUMBER_AREA, 20, options).run(
        InProcessDriver(_f64_host_fingerprint_private)
    )
    assert outcome.status == "pass", outcome


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (b"[" * 100_000 + b"]" * 100_000, "nests containers more than"),
        (b'{"checks": [], "claim": "\xff"}', "not UTF-8"),
        (b'{"checks": [', "not a JSON report"),
    ],
)
def test_report_files_are_bounded_before_they_are_parsed(
    content: bytes, said: str, tmp_path: Path
) -> None:
    hostile = tmp_path / "hostile.json"
    hostile.write_bytes(content)
    for action in ("compare", "merge"):
        completed = subprocess.run(
            [sys.executable, "-m", "rescind", "report", action, str(hostile)],
            capture_output=True,
            text=True,
            check=False,
            cwd=ROOT,
        )
        assert completed.returncode == 2, completed.stderr
        assert said in completed.stderr and "Traceback" not in completed.stderr
        assert len(completed.stderr.splitlines()) == 1


def test_report_merge_holds_the_joined_run_like_check_does(tmp_path: Path) -> None:
    from rescind.cli import main

    checks = [c for c in vector_checks() if c.source in ("canonical-input", "journal-traces")]
    report = run_checks(checks, lambda: InProcessDriver(CLAIM_DRIVERS["cutting"]))
    document = reports.to_json(report)
    run = {"seed": 0, "shard": "1/1", "plan": plan_section(c["id"] for c in document["checks"])}
    shard = tmp_path / "s1.json"
    shard.write_text(json.dumps({**document, "run": run}), encoding="utf-8")
    joined = tmp_path / "all.json"
    assert main(["report", "merge", str(shard), "--json", str(joined)]) == 3
    assert main(["report", "merge", str(shard), "--accept-partial", "--json", str(joined)]) == 0
    assert json.loads(joined.read_text())["claim"]["verdict"] == "PARTIAL (accepted)"
    assert main(["report", "merge", str(shard), "--claim", "canonical"]) == 0
    assert main(["report", "merge", str(shard), "--claim", "worker"]) == 3
