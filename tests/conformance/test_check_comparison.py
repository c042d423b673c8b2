"""A failing vector check carries a bounded comparison: the vector's expectation, the driver's
reply and every differing JSON pointer. The differing values are computed here from the vector
file and each broken driver's known wrong answer, not read back from the comparison code."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
from blake3 import blake3
from hypothesis import given
from hypothesis import strategies as st

from rescind.conformance import comparison as cmp
from rescind.conformance.comparison import INFORMATIVE_KEYS
from rescind.conformance.driver import handle as reference
from rescind.conformance.explore.sharding import Shard
from rescind.conformance.harness import InProcessDriver, Reply
from rescind.conformance.harness.text import visible
from rescind.conformance.report import html as report_html
from rescind.conformance.report import merge as report_merge
from rescind.conformance.report import run as report
from rescind.conformance.runner import RunReport, run_checks
from rescind.conformance.vectors.checks import vector_checks
from rescind.conformance.verdict import judge
from rescind.reference.digests import host_input_fingerprint_of_bytes
from tests.conformance.broken_drivers import BROKEN
from tests.report.html_page import read

ROOT = Path(__file__).resolve().parents[2]
PROBE = "canon.object.probe.bmp-vs-astral"
JOURNAL = "journal.edge-34.compensation-duplicates"
REFUSAL = "compensation_identity_mismatch"

Handler = Callable[[Mapping[str, Any]], dict[str, Any]]


def _vector(topic: str, check_id: str) -> dict[str, Any]:
    document = json.loads((ROOT / "vectors" / f"{topic}.json").read_text(encoding="utf-8"))
    (test,) = (t for g in document["testGroups"] for t in g["tests"] if t["id"] == check_id)
    return test  # type: ignore[no-any-return]


def _run(handler: Handler, *check_ids: str) -> RunReport:
    checks = [check for check in vector_checks() if check.id in check_ids]
    assert {check.id for check in checks} == set(check_ids)
    return run_checks(checks, lambda: InProcessDriver(handler))


def _entry(run: RunReport, check_id: str) -> dict[str, Any]:
    (entry,) = (c for c in report.to_json(run)["checks"] if c["id"] == check_id)
    return entry  # type: ignore[no-any-return]


def _utf16_answer(text: str) -> dict[str, str]:
    """What a JCS-style encoder (keys in UTF-16 code-unit order) answers for a flat object."""
    members = json.loads(text)
    keys = sorted(members, key=lambda key: key.encode("utf-16-be"))
    body = "{" + ",".join(f"{json.dumps(k, ensure_ascii=False)}:{members[k]}" for k in keys) + "}"
    canonical = b"json" + len(body.encode("utf-8")).to_bytes(8, "big") + body.encode("utf-8")
    return {
        "canonicalJson": body,
        "canonicalInputHex": canonical.hex(),
        "workerInputFingerprint": blake3(
            b"splash-worker-operation-input-v1" + canonical
        ).hexdigest(),
        "hostInputFingerprint": host_input_fingerprint_of_bytes(canonical),
    }


def test_broken_canonical_driver_over_a_pipe_lists_each_differing_field() -> None:
    test = _vector("canonical-input", PROBE)
    wrong = _utf16_answer(test["input"]["text"])
    command = f"{sys.executable} -m tests.conformance.broken_drivers utf16-key-order"
    done = subprocess.run(
        [
            *(sys.executable, "-m", "rescind", "check", "--no-model", "--explore-steps", "0"),
            *("--impl", command, "--json", "--select", PROBE),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    (entry,) = (c for c in json.loads(done.stdout)["checks"] if c["id"] == PROBE)
    comparison = entry["comparison"]
    expected = test["expected"]
    assert comparison["at"] == "" and comparison["truncated"] is False
    assert comparison["expected"] == expected
    assert comparison["actual"] == {**expected, **wrong}
    assert comparison["differences"] == [
        {"path": f"/{key}", "expected": expected[key], "actual": wrong[key]}
        for key in expected
        if key in wrong and wrong[key] != expected[key]
    ]
    assert comparison["omittedDifferences"] == 0
    assert [d["path"] for d in comparison["differences"]] == [
        "/canonicalJson",
        "/canonicalInputHex",
        "/workerInputFingerprint",
        "/hostInputFingerprint",
    ]


def test_broken_journal_driver_shows_each_admitted_refusal() -> None:
    test = _vector("journal-traces", JOURNAL)
    entry = _entry(_run(BROKEN["second-compensation-key"], JOURNAL), JOURNAL)
    assert entry["status"] == "fail"
    refused = [
        i for i, step in enumerate(test["expected"]["steps"]) if step.get("error") == REFUSAL
    ]
    assert refused
    # The driver answers an admission where the vector refuses: no error there at all, and
    # none of the refusal's normative details (its operation_key, ER-1).
    assert entry["comparison"]["differences"] == [
        difference
        for i in refused
        for difference in (
            {"path": f"/steps/{i}/error", "expected": REFUSAL},
            {
                "path": f"/steps/{i}/details",
                "expected": {
                    "operation_key": test["expected"]["steps"][i]["details"]["operation_key"]
                },
            },
        )
    ]
    assert entry["message"].startswith(f"/steps/{refused[0]}/error")


def _strings(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return [value] if isinstance(value, str) else []


def test_long_vector_strings_are_shown_as_a_prefix_and_their_length() -> None:
    test = _vector("journal-traces", JOURNAL)
    comparison = _entry(_run(BROKEN["second-compensation-key"], JOURNAL), JOURNAL)["comparison"]
    long = [text for text in _strings(test["expected"]) if len(text) > cmp.MAX_STRING]
    assert long, "the vector has no long string to shorten"
    shown = set(_strings(comparison["expected"]))
    assert comparison["truncated"] is True
    assert not shown & set(long)
    markers = {text[: cmp.STRING_PREFIX] + f"…({len(text)} chars)" for text in long}
    assert shown & markers
    assert all(len(text) <= cmp.MAX_STRING + 20 for text in shown)


def _compact_size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def _flooding(message: Mapping[str, Any]) -> dict[str, Any]:
    """Answers canonical input with megabytes: a long string, a long list, deep nesting."""
    reply = reference(message)
    if message.get("op") == "canonical.input" and "ok" in reply:
        deep: Any = "bottom"
        for _ in range(200):
            deep = {"d": deep}
        reply["ok"] = {
            **reply["ok"],
            "canonicalJson": "x" * 1_000_000,
            "canonicalInputHex": ["ab" * 50] * 100_000,
            "size": deep,
        }
    return reply


def test_a_flooding_reply_stays_within_the_bounds() -> None:
    entry = _entry(_run(_flooding, PROBE), PROBE)
    comparison = entry["comparison"]
    assert comparison["truncated"] is True
    assert _compact_size(comparison["expected"]) <= cmp.MAX_VALUE_BYTES
    assert _compact_size(comparison["actual"]) <= cmp.MAX_VALUE_BYTES
    for difference in comparison["differences"]:
        for side in ("expected", "actual"):
            assert _compact_size(difference[side]) <= cmp.MAX_DIFFERENCE_BYTES
    by_path = {d["path"]: d for d in comparison["differences"]}
    assert by_path["/canonicalJson"]["actual"] == "x" * cmp.STRING_PREFIX + "…(1000000 chars)"
    assert comparison["actual"]["canonicalJson"] == by_path["/canonicalJson"]["actual"]
    assert list(by_path) == ["/canonicalJson", "/canonicalInputHex", "/size"]
    # The worst case: both values, every listed difference and the keys around them.
    bound = 2 * cmp.MAX_VALUE_BYTES + cmp.MAX_DIFFERENCES * (2 * cmp.MAX_DIFFERENCE_BYTES + 200)
    assert _compact_size(comparison) <= bound
    assert len(json.dumps(entry)) < bound + 2000


def test_differing_paths_past_the_limit_are_counted_not_listed() -> None:
    expected = {"a": list(range(40)), "b/c~": 1}
    found = judge(expected, Reply(ok={"a": [n + 1 for n in range(40)], "b/c~": 2})).comparison()
    assert found is not None
    assert len(found.differences) == cmp.MAX_DIFFERENCES
    assert found.omitted == 41 - cmp.MAX_DIFFERENCES
    assert [d.path for d in found.differences[:2]] == ["/a/0", "/a/1"]
    whole = judge({"b/c~": 1}, Reply(ok={"b/c~": 2})).comparison()
    assert whole is not None and [d.path for d in whole.differences] == ["/b~1c~0"]


def _escaping(message: Mapping[str, Any]) -> dict[str, Any]:
    reply = reference(message)
    if message.get("op") == "canonical.input" and "ok" in reply:
        reply["ok"]["canonicalJson"] = "<script>alert(1)</script>"
    return reply


def test_html_escapes_reply_values_and_shows_each_difference_row() -> None:
    run = _run(_escaping, PROBE)
    comparison = _entry(run, PROBE)["comparison"]
    text = report_html.to_html(run, vectors={})
    page = read(text)
    assert "script" not in page.tags
    assert "<script>" not in text
    article = page.articles[PROBE]
    assert article.paths == [d["path"] for d in comparison["differences"]] == ["/canonicalJson"]
    assert article.actual == [json.dumps("<script>alert(1)</script>")]
    # The vector's U+FFFF (a noncharacter) is shown escaped, as every invisible character is.
    expected = json.dumps(
        _vector("canonical-input", PROBE)["expected"]["canonicalJson"], ensure_ascii=False
    )
    assert "\uffff" in expected
    assert article.expected == [expected.replace("\uffff", "\\uffff")]
    assert json.loads(article.values["actual"])["canonicalJson"] == "<script>alert(1)</script>"
    assert json.loads(article.values["expected"]) == comparison["expected"]


def test_html_rows_of_a_broken_driver_match_its_json_comparison() -> None:
    run = _run(BROKEN["utf16-key-order"], PROBE)
    comparison = _entry(run, PROBE)["comparison"]
    article = read(report_html.to_html(run, vectors={})).articles[PROBE]
    differences = comparison["differences"]
    # The page shows each value as visible text (drivertext.visible: U+FFFF reads \\uffff).
    compact = lambda value: visible(json.dumps(value, ensure_ascii=False, separators=(",", ":")))  # noqa: E731
    assert article.paths == [d["path"] for d in differences]
    assert article.expected == [compact(d["expected"]) for d in differences]
    assert article.actual == [compact(d["actual"]) for d in differences]
    assert json.loads(article.values["actual"]) == comparison["actual"]


def test_markdown_lists_the_differing_paths() -> None:
    run = _run(BROKEN["second-compensation-key"], JOURNAL)
    test = _vector("journal-traces", JOURNAL)
    refused = [
        i for i, step in enumerate(test["expected"]["steps"]) if step.get("error") == REFUSAL
    ]
    lines = report.to_markdown(run).splitlines()
    (row,) = (line for line in lines if JOURNAL in line and line.startswith("|"))
    paths = [f"`/steps/{i}/{member}`" for i in refused for member in ("error", "details")]
    shown = row.rstrip(" |")
    assert shown.endswith(", ".join(paths[: report.MARKDOWN_PATHS])) or shown.endswith("more")
    assert paths[0] in shown


def _shard(run: RunReport, index: int, ids: list[str]) -> dict[str, Any]:
    document = report.to_json(run)
    document["checks"] = [c for c in document["checks"] if c["id"] in ids[index - 1 :: 2]]
    plan = report_merge.plan_section(ids)
    document["run"] = report_merge.run_section(0, Shard(index, 2), plan)
    return document


def test_report_merge_carries_the_comparison() -> None:
    run = _run(BROKEN["utf16-key-order"], PROBE, "canon.object.duplicate-three")
    ids = [result.check.id for result in run.results]
    whole = {c["id"]: c for c in report.to_json(run)["checks"]}
    assert whole[PROBE]["comparison"]["differences"]
    merged, _ = report_merge.merge([(f"s{i}", _shard(run, i, ids)) for i in (1, 2)])
    again = {c["id"]: c for c in report.to_json(merged)["checks"]}
    for check_id, entry in whole.items():
        assert again[check_id].get("comparison") == entry.get("comparison"), check_id
    assert "`/canonicalJson`" in report.to_markdown(merged)


def test_report_merge_refuses_a_malformed_comparison() -> None:
    run = _run(BROKEN["utf16-key-order"], PROBE, "canon.object.duplicate-three")
    ids = [result.check.id for result in run.results]
    shards = [_shard(run, i, ids) for i in (1, 2)]
    for document in shards:
        for entry in document["checks"]:
            if "comparison" in entry:
                entry["comparison"] = {"at": 3}
    with pytest.raises(report_merge.NotAShardReport):
        report_merge.merge([(f"s{i}", doc) for i, doc in enumerate(shards, 1)])


_KEYS = st.sampled_from(["a", "b", "error", "reason", "unsupported"])
_SCALARS = st.none() | st.booleans() | st.integers(-2, 2) | st.sampled_from(["x", '<&"', ""])
_MARKERS = st.sampled_from(["private", "x"]).map(lambda reason: {"unsupported": reason})
_JSON = st.recursive(
    _SCALARS | _MARKERS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=3),
    max_leaves=12,
)
_CODES = st.sampled_from(["code_a", "code_b"])


_EXPECTATIONS = st.one_of(_JSON.map(lambda v: {"v": v}), _CODES.map(lambda code: {"error": code}))
_REPLIES = st.one_of(
    _JSON.map(lambda v: Reply(ok={"v": v})),
    _CODES.map(lambda code: Reply(error_code=code)),
    st.just(Reply(unsupported="op")),
)


def _is_marker(value: Any) -> bool:
    return isinstance(value, dict) and len(value) == 1 and isinstance(value.get("unsupported"), str)


def _matches(expected: Any, actual: Any) -> bool:
    """The comparison rules of docs/driver-protocol.md as one yes/no, written apart from the
    walk: informative keys are not compared, a differing error code alone decides, a member
    answered with the marker is no difference, lists match item for item."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return False
        if "error" in expected and "error" in actual and expected["error"] != actual["error"]:
            return False
        return all(
            key in actual
            and ((_is_marker(actual[key]) and actual[key] != value) or _matches(value, actual[key]))
            for key, value in expected.items()
            if key not in INFORMATIVE_KEYS
        )
    if isinstance(expected, list):
        return (
            isinstance(actual, list)
            and len(actual) == len(expected)
            and all(_matches(left, right) for left, right in zip(expected, actual, strict=True))
        )
    return type(expected) is type(actual) and expected == actual


def _agrees(expectation: Mapping[str, Any], reply: Reply) -> bool:
    if "error" in expectation:
        return reply.kind == "error" and reply.error_code == expectation["error"]
    return reply.kind == "ok" and _matches(expectation, reply.ok)


def _near(draw: st.DrawFn, value: Any) -> Any:
    """``value`` with some parts kept, some dropped, answered with the marker or replaced, and
    some keys added: replies that differ from an expectation in one place or none."""
    if isinstance(value, dict):
        near: dict[str, Any] = {}
        for key, item in value.items():
            choice = draw(st.sampled_from(["keep", "keep", "keep", "drop", "marker", "other"]))
            if choice == "keep":
                near[key] = _near(draw, item)
            elif choice == "marker":
                near[key] = {"unsupported": "private"}
            elif choice == "other":
                near[key] = draw(_JSON)
        if draw(st.booleans()):
            near.setdefault(draw(_KEYS), draw(_JSON))
        return near
    if isinstance(value, list):
        items = [_near(draw, item) for item in value]
        return items[: draw(st.integers(0, len(items)))] if draw(st.booleans()) else items
    return draw(_SCALARS) if draw(st.integers(0, 3)) == 0 else value


@st.composite
def _expectation_and_reply(draw: st.DrawFn) -> tuple[dict[str, Any], Reply]:
    expectation = draw(_EXPECTATIONS)
    if "error" in expectation or draw(st.booleans()):
        return expectation, draw(_REPLIES)
    return expectation, Reply(ok=_near(draw, expectation))


@given(_expectation_and_reply())
def test_the_verdict_follows_the_comparison_rules(pair: tuple[dict[str, Any], Reply]) -> None:
    expectation, reply = pair
    assert (judge(expectation, reply).problem is None) is _agrees(expectation, reply)


@given(_EXPECTATIONS, _REPLIES)
def test_one_walk_gives_the_verdict_and_the_report_detail(
    expectation: dict[str, Any], reply: Reply
) -> None:
    """A reason exactly when some path differs, naming a place at or above the first
    differing path; the report's comparison lists what the walk found, unanswered members
    included, and is absent only when nothing differs and everything was answered."""
    judged = judge(expectation, reply)
    found = judged.comparison()
    assert (judged.problem is None) is (not judged.differences)
    assert (found is None) is (not judged.differences and not judged.unanswered)
    if found is not None:
        assert [d.path for d in found.differences] == [
            cmp.pointer(path) for path, _, _ in judged.differences[: cmp.MAX_DIFFERENCES]
        ]
        assert [m.path for m in found.unanswered] == [p for p, _ in judged.unanswered_pointers]
    if judged.problem is not None:
        first = cmp.pointer(judged.differences[0][0])
        named = judged.problem.split(" ", 1)[0].removesuffix(":")
        assert first.startswith(named) if named.startswith("/") else first in ("", "/error")


def test_a_list_of_another_length_is_named_at_the_list_before_its_items() -> None:
    judged = judge({"a": [1, 2]}, Reply(ok={"a": [3]}))
    assert judged.problem == "/a has another length"
    assert [path for path, _, _ in judged.differences] == [("a", 0), ("a", 1)]


_ANY_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=8) | st.dictionaries(st.text(), inner, max_size=8),
    max_leaves=60,
)


@given(_ANY_JSON, st.integers(64, 1024))
def test_bounded_values_stay_within_their_budget(value: Any, budget: int) -> None:
    copied, cut = cmp.bounded(value, budget)
    assert _compact_size(copied) <= budget
    if not cut:
        assert copied == value


def _wrong_state_beside_errors(message: Mapping[str, Any]) -> dict[str, Any]:
    """The reference, except that every compensation-reconcile step refused with an error
    reports one more inverse call in the state beside the (right) code."""
    reply = reference(message)
    if message.get("op") != "session.compensation-reconcile" or "ok" not in reply:
        return reply
    steps = [dict(step) for step in reply["ok"]["steps"]]
    for step in steps:
        if "error" in step and "state" in step:
            step["state"] = {**step["state"], "inverse_calls": step["state"]["inverse_calls"] + 1}
    return {**reply, "ok": {**reply["ok"], "steps": steps}}


def test_a_wrong_state_beside_the_right_error_code_fails() -> None:
    check_id = "cr.gate.upstream-profile-refuses"
    test = _vector("compensation-reconcile", check_id)
    refused = [i for i, step in enumerate(test["expected"]["steps"]) if "error" in step]
    assert refused  # the vector refuses steps and states what the worker holds beside
    assert _entry(_run(reference, check_id), check_id)["status"] == "pass"
    entry = _entry(_run(_wrong_state_beside_errors, check_id), check_id)
    assert entry["status"] == "fail"
    assert [d["path"] for d in entry["comparison"]["differences"]] == [
        f"/steps/{i}/state/inverse_calls" for i in refused
    ]
    assert entry["message"].startswith(f"/steps/{refused[0]}/state/inverse_calls")


@pytest.mark.parametrize("informative", ["details", "reason", "note"])
def test_informative_keys_beside_an_error_code_are_still_not_compared(informative: str) -> None:
    expected = {"steps": [{"error": "e", informative: 1, "state": 2}]}
    assert (
        judge(expected, Reply(ok={"steps": [{"error": "e", informative: 9, "state": 2}]})).problem
        is None
    )
    assert judge(expected, Reply(ok={"steps": [{"error": "e", "state": 3}]})).problem is not None
    assert judge(expected, Reply(ok={"steps": [{"error": "e"}]})).problem == (
        "/steps/0/state missing"
    )
