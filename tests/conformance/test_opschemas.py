"""The operation schemas (conformance/schemas/ops/) are real: every vector's input is valid
``args`` of its operation, the reference driver's reply to it is a valid ``result`` (or an
error the schema lists), and the table in docs/driver-protocol.md is generated from them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from rescind.conformance.comparison import INFORMATIVE_KEYS
from rescind.conformance.driver import handle
from rescind.conformance.ops import schemas as opschemas
from rescind.conformance.vector_files import load_vector_files
from rescind.conformance.vectors.checks import operation_of

DOC = Path(__file__).resolve().parents[2] / "docs" / "driver-protocol.md"


def vector_requests() -> Iterator[tuple[str, str, dict[str, Any], dict[str, Any]]]:
    """(test id, op, args, expected) of every vector sent as one request."""
    for document in load_vector_files():
        for group in document["testGroups"]:
            for test in group["tests"]:
                op = operation_of(group, test)
                assert op is not None, f"{test['id']} is not sent as one request"
                yield test["id"], op, test["input"], test["expected"]
                if isinstance(test["expected"].get("f64"), dict):
                    f64 = {**test["input"], "profile": "splash-v5-f64"}
                    yield f"{test['id']}.f64", op, f64, test["expected"]["f64"]


REQUESTS = list(vector_requests())


def test_every_schema_is_a_valid_draft_2020_12_schema() -> None:
    for op, document in opschemas.schemas().items():
        Draft202012Validator.check_schema(document)
        assert set(document["$defs"]) >= {"args", "result"}, op
        assert document["x-rescind"]["capability"] == op.split(".")[0], op


def test_every_operation_the_vectors_use_has_a_schema_and_no_other() -> None:
    assert {op for _, op, _, _ in REQUESTS} == set(opschemas.schemas())


def test_each_group_names_the_capability_its_operations_belong_to() -> None:
    for document in load_vector_files():
        assert document["informativeKeys"] == sorted(INFORMATIVE_KEYS)
        for group in document["testGroups"]:
            for test in group["tests"]:
                op = operation_of(group, test)
                assert op is not None
                assert opschemas.schemas()[op]["x-rescind"]["capability"] == group["capability"]
                assert document["topic"] in opschemas.schemas()[op]["x-rescind"]["topics"]


def test_every_vector_input_is_valid_args() -> None:
    broken = [
        f"{test_id}: {problem}"
        for test_id, op, args, _ in REQUESTS
        for problem in opschemas.problems(op, "args", args)
    ]
    assert not broken, "\n".join(broken[:20])


def test_every_reference_reply_is_a_valid_result_or_a_listed_error() -> None:
    broken = []
    for test_id, op, args, expected in REQUESTS:
        reply = handle({"id": 1, "op": op, "args": args})
        if "ok" in reply:
            broken += [f"{test_id}: {p}" for p in opschemas.problems(op, "result", reply["ok"])]
        else:
            code = reply["error"]["code"]
            assert code == expected.get("error"), f"{test_id}: {reply}"
            if code not in opschemas.schemas()[op]["x-rescind"]["errors"]:
                broken.append(f"{test_id}: error {code} is not listed for {op}")
    assert not broken, "\n".join(broken[:20])


def test_a_wrong_reply_is_caught() -> None:
    assert opschemas.problems("canonical.input", "result", {"size": "7"})
    assert opschemas.problems("canonical.input", "args", {"format": "yaml", "text": "x"})
    assert opschemas.problems("host-keys.operation_key", "result", {"key": "op-123"})


def test_the_operation_table_in_the_doc_is_generated_from_the_schemas() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert opschemas.with_table(text) == text, (
        "docs/driver-protocol.md is stale: run "
        "`python -m rescind.conformance.ops.schemas docs/driver-protocol.md`"
    )


def test_the_table_has_one_row_per_operation() -> None:
    rows = [line for line in opschemas.table().splitlines() if line.startswith("| `")]
    assert len(rows) == len(opschemas.schemas())
    with pytest.raises(ValueError, match="markers"):
        opschemas.with_table("no markers here")
