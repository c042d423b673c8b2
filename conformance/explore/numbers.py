"""Exploration of number texts (``canonical.input``, docs/spec/canonical.md CJ-5, CJ-16 to
CJ-18): Hypothesis writes JSON arrays of number lexemes, spelled every way the JSON grammar
allows (signs, leading zeros in exponents, ``E``/``e``, explicit ``+``, long digit runs,
fractions with trailing zeros), and the driver's canonical answer must equal the reference's.

A trace is the ``canonical.input`` request itself; its steps are the array's lexemes (a
lexeme never holds a comma), so a disagreement shrinks to the fewest numbers that show it.
``canonical-numbers`` runs the splash-v5 profile (its bytes keep number text, which is what
the lexemes probe). ``canonical-numbers-f64`` asks the same operation under the informative
``splash-v5-f64`` profile (CJ-19 to CJ-21: integers kept, floats re-rendered, overflow refused)
with long runs of zeros in exponents and fractions, where a parse that counts exponent digits
wrongly, or gives up on a long run, shows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hypothesis import strategies as st

from rescind.conformance.explore.engine import Area
from rescind.reference.numbers import NumberMode

_DIGITS = "0123456789"


@st.composite
def number_lexemes(draw: st.DrawFn) -> str:
    """One JSON number (RFC 8259 grammar), biased towards the spellings CJ-16 rewrites."""
    sign = draw(st.sampled_from(("", "", "-")))
    whole = draw(
        st.one_of(
            st.just("0"),
            st.from_regex(r"[1-9][0-9]{0,3}", fullmatch=True),
            st.from_regex(r"[1-9][0-9]{15,24}", fullmatch=True),  # around u64/i64 range
            st.sampled_from(
                ("18446744073709551615", "18446744073709551616", "9223372036854775808")
            ),
        )
    )
    fraction = draw(st.one_of(st.just(""), st.text(_DIGITS, min_size=1, max_size=20)))
    exponent = ""
    if draw(st.booleans()):
        marker = draw(st.sampled_from(("e", "E")))
        exponent_sign = draw(st.sampled_from(("", "+", "-")))
        zeros = "0" * draw(st.integers(0, 3))
        digits = draw(st.from_regex(r"[0-9]{1,3}", fullmatch=True))
        exponent = f"{marker}{exponent_sign}{zeros}{digits}"
    return f"{sign}{whole}{'.' + fraction if fraction else ''}{exponent}"


@st.composite
def f64_lexemes(draw: st.DrawFn) -> str:
    """A number with long zero runs: in the exponent (up to 60 zeros before its digits) and
    in the fraction (zeros before a last digit), around the f64 range limits."""
    sign = draw(st.sampled_from(("", "-")))
    whole = draw(st.sampled_from(("0", "1", "9", "17976931348623157", "22250738585072014")))
    zeros = "0" * draw(st.integers(0, 40))
    fraction = draw(st.sampled_from(("", "", f"{zeros}1", f"5{zeros}", "0")))
    marker = draw(st.sampled_from(("e", "E")))
    exponent_sign = draw(st.sampled_from(("", "+", "-")))
    exponent_zeros = "0" * draw(st.integers(0, 60))
    digits = draw(
        st.sampled_from(("0", "1", "22", "292", "307", "308", "309", "323", "324", "400"))
    )
    exponent = draw(st.sampled_from(("", f"{marker}{exponent_sign}{exponent_zeros}{digits}")))
    return f"{sign}{whole}{'.' + fraction if fraction else ''}{exponent}"


def _f64_request(lexemes: Sequence[str]) -> dict[str, Any]:
    return {**_request(lexemes), "profile": NumberMode.F64.value}


def _f64_rebuild(trace: Mapping[str, Any], steps: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    return _f64_request([str(step["number"]) for step in steps])


def _request(lexemes: Sequence[str]) -> dict[str, Any]:
    return {"format": "json", "text": "[" + ",".join(lexemes) + "]"}


def _rebuild(trace: Mapping[str, Any], steps: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    return _request([str(step["number"]) for step in steps])


def _steps_of(trace: Mapping[str, Any]) -> Sequence[Mapping[str, Any]]:
    body = str(trace["text"])[1:-1]
    return [{"number": lexeme} for lexeme in body.split(",")] if body else []


NUMBER_AREA = Area(
    name="canonical-numbers",
    op="canonical.input",
    capability="canonical",
    rule="CJ-16",
    description="random number texts (signs, fractions, exponents with leading zeros, E and +, "
    "integers around the u64/i64 range) canonicalize as the reference does (splash-v5)",
    traces=st.lists(number_lexemes(), min_size=1, max_size=8).map(_request),
    rebuild=_rebuild,
    steps_of=_steps_of,
)


F64_NUMBER_AREA = Area(
    name="canonical-numbers-f64",
    op="canonical.input",
    capability="canonical",
    rule="CJ-20",
    description="number texts with long zero runs in exponents and fractions, near the f64 "
    "limits, canonicalize (or overflow) as the reference does under splash-v5-f64",
    traces=st.lists(f64_lexemes(), min_size=1, max_size=6).map(_f64_request),
    rebuild=_f64_rebuild,
    steps_of=_steps_of,
    profile=NumberMode.F64.value,
)
