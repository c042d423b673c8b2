"""The hazard catalogue of ``rescind diagnose``: for each known way JSON implementations
differ (number mode, key order, duplicate keys, escapes, nesting and depth limits, text
normalisation, ...), the candidate readings, what each predicts for a golden vector, and
which vectors (the probes) are sent to tell them apart. ``HAZARDS`` is in decision order.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import attrs

from rescind.conformance.vectors.readings import Refused, Style, canonical_body, payload_bytes
from rescind.reference.errors import RescindError
from rescind.reference.jsonparse import JsonPairs, Node, parse_document
from rescind.reference.numbers import NumberMode

NOT_APPLICABLE = "-"


# ---- predictions ---------------------------------------------------------------------------


@attrs.frozen
class Prediction:
    """``body``: a result with exactly these canonical bytes; ``accepted``: any result;
    ``refused``: an error (with ``code``, or any code when it is ``None``)."""

    outcome: Literal["body", "accepted", "refused"]
    body: bytes = b""
    code: str | None = None


Predictor = Callable[[Mapping[str, Any], Style], Prediction]


@attrs.frozen
class Candidate:
    name: str
    aspects: Mapping[str, str]
    """Aspect -> the value this reading gives it (``NOT_APPLICABLE`` when it has none)."""
    predict: Predictor
    style: Mapping[str, Any] = attrs.field(factory=dict)
    """Changes to the context once this reading is the verdict."""


@attrs.frozen
class Hazard:
    key: str
    aspects: tuple[tuple[str, str], ...]
    """(aspect key, title), in report order."""
    candidates: tuple[Candidate, ...]
    upstream: str
    """The candidate upstream follows."""
    probes: tuple[str, ...] | Callable[[Sequence[str]], tuple[str, ...]]
    """Vector ids, or a function choosing them from every canonical-input id."""


def _styled(name: str, aspects: Mapping[str, str], **changes: Any) -> Candidate:
    def predict(payload: Mapping[str, Any], context: Style) -> Prediction:
        try:
            return Prediction("body", canonical_body(payload, attrs.evolve(context, **changes)))
        except Refused:
            return Prediction("refused")

    return Candidate(name, aspects, predict, changes)


def _fixed(name: str, aspects: Mapping[str, str], prediction: Prediction) -> Candidate:
    return Candidate(name, aspects, lambda payload, context: prediction)


def _nesting(payload: Mapping[str, Any]) -> int:
    """The deepest container nesting in the payload text (strings skipped)."""
    text = payload_bytes(payload).decode("utf-8")
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            escaped = not escaped and char == "\\"
            in_string = escaped or char != '"'
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def _parse_limit(name: str, limit: int | None) -> Candidate:
    # Every nesting probe is deeper than CJ-23's 32, so a payload the parser accepts is
    # refused as too deep: the error code tells which check refused it.
    def predict(payload: Mapping[str, Any], context: Style) -> Prediction:
        too_deep = limit is not None and _nesting(payload) > limit
        return Prediction("refused", code="serialization" if too_deep else "json_payload_too_deep")

    return Candidate(name, {"nesting": name}, predict)


def _value_depth(node: Node, count_scalars: bool) -> int:
    children: Sequence[Node] = ()
    if isinstance(node, JsonPairs):
        children = [value for _, value in node.pairs]
    elif isinstance(node, tuple):
        children = node
    else:
        return 1 if count_scalars else 0
    return 1 + max((_value_depth(child, count_scalars) for child in children), default=0)


def _depth_limit(name: str, count_scalars: bool, limit: int | None) -> Candidate:
    def predict(payload: Mapping[str, Any], context: Style) -> Prediction:
        try:
            node = parse_document(payload_bytes(payload), NumberMode.AP)
        except RescindError:
            return Prediction("refused")
        if limit is not None and _value_depth(node, count_scalars) > limit:
            return Prediction("refused", code="json_payload_too_deep")
        return Prediction("accepted")

    return Candidate(name, {"depth": name}, predict)


def _ids_with_prefix(prefix: str) -> Callable[[Sequence[str]], tuple[str, ...]]:
    return lambda ids: tuple(i for i in ids if i.startswith(prefix))


# ---- the hazards ---------------------------------------------------------------------------


def _number(name: str, mode: str, spelling: str, parse: str, layout: str) -> Candidate:
    aspects = {"number-mode": mode, "number-spelling": spelling, "f64-parse": parse}
    return _styled(name, {**aspects, "f64-layout": layout}, numbers=name)


_NA = NOT_APPLICABLE
_ACCEPTED = Prediction("accepted")
_REFUSED = Prediction("refused")


def _accepts_or_refuses(key: str) -> tuple[Candidate, ...]:
    return (
        _fixed("rejected", {key: "rejected"}, _REFUSED),
        _fixed("accepted", {key: "accepted"}, _ACCEPTED),
    )


HAZARDS: tuple[Hazard, ...] = (
    Hazard(
        "numbers",
        (
            ("number-mode", "number mode"),
            ("number-spelling", "number spelling"),
            ("f64-parse", "f64 parse"),
            ("f64-layout", "f64 layout"),
        ),
        (
            _number("serde-normalized", "lexeme-preserving", "serde-normalized", _NA, _NA),
            _number("as-written", "lexeme-preserving", "as-written", _NA, _NA),
            _number("f64-truncating-zmij", "binary-f64", _NA, "truncating", "zmij"),
            _number("f64-truncating-ryu", "binary-f64", _NA, "truncating", "ryu"),
            _number("f64-rounded-zmij", "binary-f64", _NA, "correctly-rounded", "zmij"),
            _number("f64-rounded-ryu", "binary-f64", _NA, "correctly-rounded", "ryu"),
            _number("f64-ecmascript", "binary-f64", _NA, "correctly-rounded", "ecmascript"),
        ),
        "serde-normalized",
        _ids_with_prefix("canon.number."),
    ),
    Hazard(
        "key-order",
        (("key-order", "object key order"),),
        tuple(
            _styled(order, {"key-order": order}, key_order=order)
            for order in ("code-points", "utf-16", "insertion")
        ),
        "code-points",
        (
            "canon.json.probe.reordered",
            "canon.object.permutation-cab",
            "canon.object.probe.key-order",
            "canon.object.probe.bmp-vs-astral",
            "canon.object.planes",
            "canon.object.astral-vs-private-use",
        ),
    ),
    Hazard(
        "duplicate-keys",
        (("duplicate-keys", "duplicate keys"),),
        tuple(
            _styled(rule, {"duplicate-keys": rule}, duplicates=rule)
            for rule in ("last-wins", "first-wins", "refused")
        ),
        "last-wins",
        (
            "canon.object.probe.duplicate-key",
            "canon.object.probe.duplicate-key-nested",
            "canon.object.duplicate-three",
            "canon.object.duplicate-type-change",
            "canon.object.duplicate-in-array",
        ),
    ),
    Hazard(
        "string-escapes",
        (("string-escapes", "string escapes (output)"),),
        tuple(
            _styled(rule, {"string-escapes": rule}, escapes=rule)
            for rule in (
                "minimal",
                "ascii-only",
                "solidus",
                "uppercase-hex",
                "html-safe",
                "no-short-forms",
            )
        ),
        "minimal",
        (
            "canon.string.probe.controls",
            "canon.string.control-08",
            "canon.string.control-1f",
            "canon.string.solidus-raw",
            "canon.string.probe.non-ascii-raw",
            "canon.string.raw-astral",
            "canon.string.probe.u2028",
            "canon.string.u2029",
            "canon.string.html-raw",
        ),
    ),
    Hazard(
        "invalid-escapes",
        (("invalid-escapes", "invalid escapes (input)"),),
        _accepts_or_refuses("invalid-escapes"),
        "rejected",
        (
            "canon.reject.escape-x",
            "canon.reject.escape-a",
            "canon.reject.escape-quote",
            "canon.reject.escape-upper-u",
            "canon.reject.short-unicode-escape",
            "canon.reject.bad-hex-escape",
        ),
    ),
    Hazard(
        "lone-surrogates",
        (("lone-surrogates", "lone surrogates (input)"),),
        _accepts_or_refuses("lone-surrogates"),
        "rejected",
        (
            "canon.reject.probe.lone-surrogate",
            "canon.reject.lone-low-surrogate",
            "canon.reject.high-then-text",
            "canon.reject.high-then-high",
            "canon.reject.high-then-bmp",
            "canon.reject.reversed-pair",
            "canon.reject.surrogate-in-key",
            "canon.reject.utf8-surrogate",
        ),
    ),
    Hazard(
        "raw-controls",
        (("raw-controls", "raw control characters (input)"),),
        _accepts_or_refuses("raw-controls"),
        "rejected",
        (
            "canon.reject.probe.raw-control",
            "canon.reject.raw-nul",
            "canon.reject.raw-tab",
            "canon.reject.raw-newline",
            "canon.reject.raw-unit-separator",
            "canon.reject.raw-control-in-key",
        ),
    ),
    Hazard(
        "nesting",
        (("nesting", "parse nesting limit"),),
        (
            _parse_limit("limit-127", 127),
            _parse_limit("limit-126", 126),
            _parse_limit("limit-128", 128),
            _parse_limit("no-limit", None),
        ),
        "limit-127",
        _ids_with_prefix("canon.parse.nesting-"),
    ),
    Hazard(
        "depth",
        (("depth", "payload depth limit"),),
        (
            _depth_limit("values-32", True, 32),
            _depth_limit("containers-32", False, 32),
            _depth_limit("no-depth-limit", True, None),
        ),
        "values-32",
        _ids_with_prefix("canon.depth."),
    ),
    Hazard(
        "normalization",
        (("normalization", "Unicode normalization (JSON)"),),
        tuple(
            _styled(form, {"normalization": form}, normalization=form)
            for form in ("none", "nfc", "nfd")
        ),
        "none",
        (
            "canon.string.decomposed-kept",
            "canon.object.normalization-distinct-keys",
            "canon.string.probe.non-ascii-raw",
            "canon.string.escaped-raw-equal",
        ),
    ),
    Hazard(
        "text-payload",
        (("text-payload", "text payload bytes"),),
        tuple(
            _styled(form, {"text-payload": form}, text=form)
            for form in ("exact", "nfc", "nfd", "lf-line-endings")
        ),
        "exact",
        ("canon.text.utf8", "canon.text.decomposed-kept", "canon.text.crlf-kept"),
    ),
    Hazard(
        "byte-order-mark",
        (("byte-order-mark", "byte-order mark"),),
        (
            _fixed("rejected", {"byte-order-mark": "rejected"}, _REFUSED),
            _fixed("skipped", {"byte-order-mark": "skipped"}, Prediction("body", b"{}")),
        ),
        "rejected",
        ("canon.reject.bom",),
    ),
    Hazard(
        "reserved-number-key",
        (("reserved-number-key", "reserved number key"),),
        (
            _styled("read-as-number", {"reserved-number-key": "read-as-number"}),
            _styled(
                "ordinary-key",
                {"reserved-number-key": "ordinary-key"},
                reserved_number_key=False,
            ),
        ),
        "read-as-number",
        ("canon.quirk.probe.reserved-number-key", "canon.quirk.reserved-number-nested-value"),
    ),
)

LABELS: Mapping[str, str] = {
    NOT_APPLICABLE: "not applicable",
    "lexeme-preserving": "lexeme-preserving (numbers kept as text, splash-v5)",
    "binary-f64": "binary f64 (numbers parsed into floats, as splash-v5-f64)",
    "serde-normalized": "serde_json arbitrary_precision (1E2 -> 1e+2, -0 -> 0)",
    "as-written": "exactly as written",
    "truncating": "serde_json's truncating parse (not correctly rounded)",
    "correctly-rounded": "correctly rounded",
    "zmij": "zmij layout (1e+16)",
    "ryu": "ryu layout (1e16)",
    "ecmascript": "ECMAScript layout (JSON.stringify, RFC 8785)",
    "code-points": "by code point (= UTF-8 byte order)",
    "utf-16": "by UTF-16 code unit (JavaScript, RFC 8785)",
    "insertion": "as written (not sorted)",
    "last-wins": "last occurrence wins",
    "first-wins": "first occurrence wins",
    "refused": "rejected",
    "minimal": 'only " \\ and controls, short forms, lowercase \\u00xx',
    "ascii-only": "non-ASCII escaped as \\uXXXX",
    "solidus": "/ escaped as \\/",
    "uppercase-hex": "uppercase \\u00XX",
    "html-safe": "HTML-safe: < > & U+2028 U+2029 escaped",
    "no-short-forms": "every control as \\u00xx (no \\n, \\t, ...)",
    "rejected": "rejected",
    "accepted": "accepted",
    "skipped": "skipped",
    "limit-127": "127: the 128th nested container is refused (serde_json)",
    "limit-126": "126",
    "limit-128": "128",
    "no-limit": "none up to 129",
    "values-32": "32, every value counts (scalars too)",
    "containers-32": "32, containers only",
    "no-depth-limit": "none (depth 33 accepted)",
    "none": "none (code points kept)",
    "nfc": "NFC",
    "nfd": "NFD",
    "exact": "exact bytes",
    "lf-line-endings": "CR LF turned into LF",
    "read-as-number": "read as the number it spells (serde_json arbitrary_precision)",
    "ordinary-key": "an ordinary key",
}
