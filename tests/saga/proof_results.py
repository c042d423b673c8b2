"""How the saga model and refinement tests read a refuted proof."""

from __future__ import annotations

import re

from rescind.model.core.proof_check import CheckResult


def violated(result: CheckResult, *fragments: str) -> None:
    """``result`` is a violation whose counterexample is numbered 1., 2., ... and names
    every fragment."""
    assert result.status == "violated", result
    assert result.counterexample and all(
        re.match(rf"{index}\. ", line) for index, line in enumerate(result.counterexample, 1)
    )
    text = "\n".join(result.counterexample)
    for fragment in fragments:
        assert fragment in text, text
