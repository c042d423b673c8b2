"""Errors are typed, coded, marked definite or not, and never carry payload text."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys

import pytest

from rescind.reference.errors import RescindError, error_registry
from rescind.reference.payload import ToolPayload

SECRET = "private input: card 4111 1111 1111 1111"


def _all_codes() -> dict[str, type[RescindError]]:
    for package in ("rescind.reference", "rescind.conformance", "rescind.model"):
        module = importlib.import_module(package)
        for info in pkgutil.walk_packages(module.__path__, prefix=f"{package}."):
            importlib.import_module(info.name)
    return dict(error_registry())


def test_every_error_class_redacts_free_text() -> None:
    for code, cls in _all_codes().items():
        error = cls(value=SECRET, message=SECRET, operation_key=SECRET)
        assert SECRET not in str(error), code
        assert SECRET not in repr(error.to_wire()), code
        assert error.to_wire()["code"] == code


def test_indefinite_errors_are_the_ones_that_may_have_acted() -> None:
    indefinite = {code for code, cls in _all_codes().items() if not cls.definite}
    assert {"indeterminate_operation", "indeterminate_compensation"} <= indefinite
    assert "serialization" not in indefinite and "write_conflict" not in indefinite


@pytest.mark.parametrize(
    "text",
    [
        '{"note": "' + SECRET + '",}',
        '["' + SECRET + '"] trailing',
        '{"' + SECRET + '": 1, "a": NaN}',
    ],
)
def test_parse_errors_do_not_echo_the_payload(text: str) -> None:
    with pytest.raises(RescindError) as caught:
        ToolPayload.json_text(text)
    assert SECRET not in str(caught.value)


def test_cli_error_line_does_not_echo_the_payload() -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "rescind", "fingerprint"],
        input=('{"note": "' + SECRET + '",}').encode(),
        capture_output=True,
        check=False,
    )
    assert completed.returncode == 2
    assert SECRET.encode() not in completed.stderr + completed.stdout
