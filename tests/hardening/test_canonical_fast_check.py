"""The reference-only check that the fast canonical path answers every canonical-input vector
(conformance/sources/canonical_fast.py): it passes on the reference and fails when the fast
path changes one byte of its answer, which before it no vector or check noticed."""

from __future__ import annotations

import pytest

from rescind.conformance.sources import canonical_fast as source_canonical_fast
from rescind.conformance.sources.options import SourceOptions
from rescind.reference import canonical_fast
from rescind.reference.numbers import NumberMode
from rescind.reference.payload_format import PayloadFormat


def _run() -> list[str]:
    checks = source_canonical_fast.canonical_fast_checks(lambda: None, SourceOptions())  # type: ignore[arg-type,return-value]
    assert {check.id for check in checks} >= {"reference.canonical-fast.json"}
    return [check.run(None).status for check in checks]  # type: ignore[arg-type]


def test_passes_on_the_reference() -> None:
    assert set(_run()) == {"pass"}


def test_fails_when_the_fast_path_drifts(monkeypatch: pytest.MonkeyPatch) -> None:
    original = canonical_fast.fast_canonical_input

    def drifted(data: bytes, *args: object, **kwargs: object) -> bytes:
        answer = original(data, *args, **kwargs)  # type: ignore[arg-type]
        return answer[:-1] + bytes([answer[-1] ^ 1])  # one bit of the last byte

    monkeypatch.setattr(source_canonical_fast, "fast_canonical_input", drifted)
    assert set(_run()) == {"fail"}


def _checks() -> dict[str, str]:
    checks = source_canonical_fast.canonical_fast_checks(lambda: None, SourceOptions())  # type: ignore[arg-type,return-value]
    return {check.id: check.run(None).status for check in checks}  # type: ignore[arg-type]


def test_fails_when_a_text_payload_takes_the_json_path(monkeypatch: pytest.MonkeyPatch) -> None:
    original = canonical_fast.fast_canonical_input

    def json_only(data: bytes, payload_format: object = None, *args: object, **kw: object) -> bytes:
        return original(data, PayloadFormat.JSON, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(source_canonical_fast, "fast_canonical_input", json_only)
    assert set(_checks().values()) == {"fail"}


def test_only_the_f64_checks_fail_when_the_number_mode_is_ignored(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    original = canonical_fast.fast_canonical_input

    def ap_only(data: bytes, payload_format: object, *_: object, **kw: object) -> bytes:
        return original(data, payload_format, NumberMode.AP, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(source_canonical_fast, "fast_canonical_input", ap_only)
    statuses = _checks()
    assert {status for name, status in statuses.items() if name.endswith(".f64")} == {"fail"}
    assert {status for name, status in statuses.items() if not name.endswith(".f64")} == {"pass"}
