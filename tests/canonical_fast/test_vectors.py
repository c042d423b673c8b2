"""Every canonical-input vector, answered through the fast path (splash-v5)."""

from __future__ import annotations

import importlib.resources
import json
from typing import Any

import pytest

from rescind.reference.canonical_fast import (
    ENCODERS,
    EncoderName,
    fast_canonical_input,
    fast_worker_fingerprint,
)
from rescind.reference.errors import RescindError
from rescind.reference.payload_format import PayloadFormat


def _vector_tests() -> list[dict[str, Any]]:
    document = json.loads(
        importlib.resources.files("rescind.vectors").joinpath("canonical-input.json").read_text()
    )
    assert document["profile"] == "splash-v5"
    return [test for group in document["testGroups"] for test in group["tests"]]


VECTORS = _vector_tests()


def _inputs(test: dict[str, Any]) -> list[str | bytes]:
    """The payload as the vector gives it, and also as UTF-8 bytes when it is text."""
    given = test["input"]
    if "hex" in given:
        return [bytes.fromhex(given["hex"])]
    return [given["text"], given["text"].encode("utf-8")]


def _answer(
    data: str | bytes, payload_format: PayloadFormat, encoder: EncoderName
) -> dict[str, Any]:
    """The fast path's answer in the vector's ``expected`` vocabulary."""
    try:
        canonical = fast_canonical_input(data, payload_format, encoder=encoder)
    except RescindError as error:
        return {"error": error.code, "reason": error.details.get("reason")}
    return {
        "canonicalInputHex": canonical.hex(),
        "size": len(canonical) - 12,
        "workerInputFingerprint": fast_worker_fingerprint(data, payload_format, encoder=encoder),
    }


def test_the_vector_file_is_complete() -> None:
    # The registry records every published id with its topic; none of them may be missing here.
    registry = json.loads(
        importlib.resources.files("rescind.vectors").joinpath("registry.json").read_text()
    )
    published = {
        test_id
        for test_id, entry in registry["ids"].items()
        if entry["topic"] == "canonical-input" and test_id not in registry["retired"]
    }
    assert len(VECTORS) > 250 and {test["id"] for test in VECTORS} == published


@pytest.mark.parametrize("encoder", sorted(ENCODERS))
@pytest.mark.parametrize("test", VECTORS, ids=[test["id"] for test in VECTORS])
def test_vector(test: dict[str, Any], encoder: EncoderName) -> None:
    expected = test["expected"]
    payload_format = PayloadFormat(test["input"]["format"])
    maximum = test["input"].get("maxInputBytes")
    for data in _inputs(test):
        answer = _answer(data, payload_format, encoder)
        if maximum is not None and "error" not in answer and answer["size"] > maximum:
            answer = {"error": "input_too_large", "reason": None}
        if "error" in expected:
            assert answer["error"] == expected["error"]
            if "reason" in expected:
                assert answer["reason"] == expected["reason"]
        else:
            assert "error" not in answer, answer
            assert answer["canonicalInputHex"] == expected["canonicalInputHex"]
            assert answer["size"] == expected["size"]
            assert answer["workerInputFingerprint"] == expected["workerInputFingerprint"]
            if "canonicalJson" in expected:
                body = bytes.fromhex(answer["canonicalInputHex"])[12:]
                assert body == expected["canonicalJson"].encode("utf-8")
