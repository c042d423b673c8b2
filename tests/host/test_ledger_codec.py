"""Ledger format version 2 (HL-1, HL-2, HL-8, HL-9): byte layout, round trips, size bounds
and the encoder's estimate, checked against independently written expectations."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rescind.conformance.vectors.sets._ledger_texts import (
    estimate_of,
    ledger,
    max_field_operations,
    text,
)
from rescind.reference.errors import RescindError
from rescind.reference.host.ledger import WorkflowOperationLedger
from rescind.reference.host.ledger_codec import size_estimate
from rescind.reference.host.ledger_records import CompensationRecord, OperationRecord
from rescind.tables.operation import Phase

PLAN_FP = "0b261b22f61c0dbd5c290a54cf1ee60f4a5bb598f480f32c5d637d5de0b68d20"
DOC_EXAMPLE = (
    '{"format_version":2,"revision":1,"plan_fingerprint":"'
    + PLAN_FP
    + '","operations":[{"step_id":"publish","tool":"release.publish","operation_key":'
    '"op-a6d9d328a46ad9d5a8ed39963fda367dd8cca56b67999b055cd2466a760e1584",'
    '"input_fingerprint":"f17665c665a8f47f05875a69b373118616db461c2df93da5eaeb8aaf656e55ef",'
    '"state":"pending","compensation":null}]}'
)


def _code(call: object) -> str:
    assert callable(call)
    with pytest.raises(RescindError) as caught:
        call()
    return caught.value.code


def test_the_doc_example_round_trips_byte_for_byte() -> None:
    decoded = WorkflowOperationLedger.from_json(DOC_EXAMPLE)
    assert decoded.to_json() == DOC_EXAMPLE
    assert list(json.loads(DOC_EXAMPLE)) == [
        "format_version",
        "revision",
        "plan_fingerprint",
        "operations",
    ]


def test_bytes_input_and_invalid_utf8() -> None:
    assert WorkflowOperationLedger.from_json(DOC_EXAMPLE.encode()).revision == 1
    bad = DOC_EXAMPLE.encode().replace(b"publish", b"publ\xffsh", 1)
    assert _code(lambda: WorkflowOperationLedger.from_json(bad)) == "ledger_invalid_encoding"


def test_size_bound_counts_bytes_not_characters() -> None:
    # Non-ASCII padding in an unknown member: fewer than 65,537 characters but 65,537 bytes.
    # The size error must win over the unknown-member error.
    head = DOC_EXAMPLE[:-1] + ',"x":"'
    filler = "\u00e9" * ((65_537 - len(head.encode()) - 2) // 2)
    body = head + filler + '"}'
    body += " " * (65_537 - len(body.encode()))
    assert len(body.encode()) == 65_537 and len(body) < 65_537
    assert _code(lambda: WorkflowOperationLedger.from_json(body)) == "ledger_too_large"


def test_estimate_matches_an_independent_computation() -> None:
    for count in (0, 1, 46, 47):
        document = ledger(max_field_operations(count), revision=count)
        decoded = WorkflowOperationLedger.from_json(text(document))
        assert size_estimate(decoded.operations) == estimate_of(document["operations"])
    assert estimate_of(max_field_operations(47)) == 66_400


def test_estimate_refuses_a_ledger_whose_text_fits() -> None:
    source = text(ledger(max_field_operations(47), revision=47))
    assert 45_000 < len(source) < 65_536
    decoded = WorkflowOperationLedger.from_json(source)
    assert _code(decoded.to_json) == "ledger_too_large"


_TOKEN = st.text("abcdefghijklmnopqrstuvwxyz0123456789._-", min_size=1, max_size=12)
_HEX = st.text("0123456789abcdef", min_size=64, max_size=64)
_PHASE = st.sampled_from(list(Phase))


@st.composite
def _operations(draw: st.DrawFn) -> tuple[OperationRecord, ...]:
    keys = draw(st.lists(_TOKEN.map(lambda t: "op-" + t), unique=True, max_size=5))
    operations = []
    for key in keys:
        state = draw(_PHASE)
        compensation = None
        if state is Phase.SUCCEEDED and draw(st.booleans()):
            compensation = CompensationRecord(
                "cmp-" + draw(_TOKEN), draw(_HEX), draw(_TOKEN), draw(_HEX), draw(_PHASE)
            )
        operations.append(
            OperationRecord(draw(_TOKEN), draw(_TOKEN), key, draw(_HEX), state, compensation)
        )
    return tuple(operations)


@given(operations=_operations(), revision=st.integers(0, 2**64 - 1), plan=_HEX)
def test_round_trip(operations: tuple[OperationRecord, ...], revision: int, plan: str) -> None:
    original = WorkflowOperationLedger(plan, revision=revision, operations=operations)
    encoded = original.to_json()
    decoded = WorkflowOperationLedger.from_json(encoded)
    assert decoded == original
    assert decoded.to_json() == encoded
    # The stdlib agrees on the content and the member order.
    document = json.loads(encoded)
    assert document["revision"] == revision
    for operation, member in zip(operations, document["operations"], strict=True):
        assert list(member) == [
            "step_id",
            "tool",
            "operation_key",
            "input_fingerprint",
            "state",
            "compensation",
        ]
        assert member["state"] == operation.state.value
        if operation.compensation is not None:
            assert list(member["compensation"]) == [
                "compensation_key",
                "input_fingerprint",
                "tenant_scope",
                "grant_fingerprint",
                "state",
            ]
