"""Checks that the reference's fast canonical path (``rescind.reference.canonical_fast``)
answers every ``canonical-input`` vector without a size bound or another profile exactly as
the vector says: the same canonical input bytes and worker fingerprint, or the same error
code. JSON and text payloads both go through it (a text payload must never take the JSON
fast path), in splash-v5 and, against each vector's ``f64`` answer (or its main answer when
the modes agree), in splash-v5-f64. One check per encoder the installation has (the default
choice, the stdlib C encoder, and orjson when installed) and number mode.

No vector request reaches the fast path (a driver is asked for the reference's answer, and the
reference driver computes it with the exact parser), so without these checks a broken fast
path would pass ``rescind check``. Like the saga refinement checks they run Rescind's own code
in process and need ``REFERENCE_CAPABILITY``: for any other implementation they are
not-applicable.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from rescind.conformance.driver import REFERENCE_CAPABILITY
from rescind.conformance.harness import Driver
from rescind.conformance.runner_check import Check, Outcome
from rescind.conformance.sources.options import DriverFactory, SourceOptions
from rescind.conformance.vector_files import load_vector_files
from rescind.reference.canonical_fast import (
    ENCODERS,
    EncoderName,
    fast_canonical_input,
    fast_worker_fingerprint,
)
from rescind.reference.errors import RescindError
from rescind.reference.numbers import NumberMode
from rescind.reference.payload_format import PayloadFormat

_MODE_SUFFIX = {NumberMode.AP: "", NumberMode.F64: ".f64"}


def _vectors() -> Iterator[Mapping[str, Any]]:
    for document in load_vector_files():
        if document["topic"] != "canonical-input":
            continue
        for group in document["testGroups"]:
            for test in group["tests"]:
                # Size bounds and profiles are the payload's checks, not the canonical form's.
                if set(test["input"]) <= {"format", "text", "hex"}:
                    yield test


def _data(test: Mapping[str, Any]) -> bytes:
    case = test["input"]
    return bytes.fromhex(case["hex"]) if "hex" in case else str(case["text"]).encode("utf-8")


def _answer(test: Mapping[str, Any], encoder: EncoderName, mode: NumberMode) -> dict[str, str]:
    data = _data(test)
    payload_format = PayloadFormat(test["input"].get("format", "json"))
    try:
        if encoder == "auto":  # the default: asked for without naming it, as callers do
            canonical = fast_canonical_input(data, payload_format, mode)
            fingerprint = fast_worker_fingerprint(data, payload_format, mode)
        else:
            canonical = fast_canonical_input(data, payload_format, mode, encoder=encoder)
            fingerprint = fast_worker_fingerprint(data, payload_format, mode, encoder=encoder)
        return {"canonicalInputHex": canonical.hex(), "workerInputFingerprint": fingerprint}
    except RescindError as error:
        return {"error": error.code}


def _wanted(test: Mapping[str, Any], mode: NumberMode) -> dict[str, str]:
    expected = test["expected"]
    if mode is NumberMode.F64:
        expected = expected.get("f64", expected)  # absent when both modes agree
    if "error" in expected:
        return {"error": expected["error"]}
    return {key: expected[key] for key in ("canonicalInputHex", "workerInputFingerprint")}


def _runner(encoder: EncoderName, mode: NumberMode) -> Callable[[Driver], Outcome]:
    def run(_: Driver) -> Outcome:
        begin = time.monotonic()
        tests = list(_vectors())
        wrong = [
            test["id"] for test in tests if _answer(test, encoder, mode) != _wanted(test, mode)
        ]
        elapsed = time.monotonic() - begin
        if wrong:
            return Outcome("fail", f"{len(wrong)} vectors differ: {', '.join(wrong[:5])}", elapsed)
        return Outcome("pass", f"{len(tests)} vectors", elapsed)

    return run


def canonical_fast_checks(_: DriverFactory, __: SourceOptions) -> list[Check]:
    # "auto" is what callers get by default: it names whichever encoder passed the self-check.
    encoders: list[EncoderName] = ["auto", *(n for n in ("json", "orjson") if n in ENCODERS)]
    return [
        Check(
            id=f"reference.canonical-fast.{encoder}{_MODE_SUFFIX[mode]}",
            tier="must",
            rule="CJ-25",
            capability=REFERENCE_CAPABILITY,
            source="reference-canonical-fast",
            run=_runner(encoder, mode),
            description=f"the fast canonical path with the {encoder} encoder answers every "
            f"canonical-input vector as the vector says ({mode.value} numbers)",
        )
        for mode in (NumberMode.AP, NumberMode.F64)
        for encoder in encoders
    ]
