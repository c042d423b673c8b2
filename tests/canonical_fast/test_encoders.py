"""The optional orjson encoder is used only when it reproduces the reference encoder."""

from __future__ import annotations

import json
import types
from typing import Any

import pytest

from rescind.reference import canonical_fast


def _fake_orjson(dumps: Any) -> types.SimpleNamespace:
    return types.SimpleNamespace(dumps=dumps, OPT_SORT_KEYS=1)


def test_missing_orjson_leaves_the_stdlib_encoder(monkeypatch: pytest.MonkeyPatch) -> None:
    def unavailable(name: str) -> Any:
        raise ImportError(name)

    monkeypatch.setattr(canonical_fast.importlib, "import_module", unavailable)
    assert canonical_fast._orjson_encoder() is None
    assert "json" in canonical_fast.ENCODERS


@pytest.mark.parametrize(
    "dumps",
    [
        # ASCII escaping, as json.dumps does by default
        lambda value, option: json.dumps(value, sort_keys=True, separators=(",", ":")).encode(),
        # unsorted keys
        lambda value, option: json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode(),
        # spaces after separators
        lambda value, option: json.dumps(value, sort_keys=True, ensure_ascii=False).encode(),
    ],
    ids=["ascii-escapes", "unsorted", "spaced"],
)
def test_an_encoder_that_differs_is_refused(dumps: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(canonical_fast.importlib, "import_module", lambda _: _fake_orjson(dumps))
    assert canonical_fast._orjson_encoder() is None


def test_an_encoder_that_agrees_is_accepted(monkeypatch: pytest.MonkeyPatch) -> None:
    def dumps(value: Any, option: int) -> bytes:
        text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return text.encode("utf-8")

    monkeypatch.setattr(canonical_fast.importlib, "import_module", lambda _: _fake_orjson(dumps))
    assert canonical_fast._orjson_encoder() is not None
