"""The cases of the ``canonical-input`` topic: inputs only; expectations are computed.

Each case is ``Case(id, rule, text, comment, flags)``. Ids are published: never rename or
reuse one; add a new case instead. Probe cases reproduce rows of upstream's probe output.
"""

from __future__ import annotations

import attrs


@attrs.frozen
class Case:
    id: str
    rule: str
    text: str | None
    comment: str
    flags: tuple[str, ...] = ()
    format: str = "json"
    data_hex: str | None = None
    max_input_bytes: int | None = None
    acceptable: bool = False


def _nest(depth: int, inner: str, opener: str = "[", closer: str = "]") -> str:
    return opener * depth + inner + closer * depth


def _objects(depth: int) -> str:
    text = "{}"
    for _ in range(depth - 1):
        text = '{"a":' + text + "}"
    return text


PROBE = "UpstreamProbe"

TEXT_CASES = [
    Case("text.release", "CJ-26", "release", "upstream probe text payload", (PROBE,), "text"),
    Case("text.empty", "CJ-26", "", "empty text has an all-zero length", (PROBE,), "text"),
    Case("text.utf8", "CJ-26", "h\u00e9llo\n", "length counts UTF-8 bytes", (PROBE,), "text"),
    Case("text.json-looking", "CJ-26", '{"b":1,"a":2}', "text is never parsed", (), "text"),
    Case("text.nul", "CJ-26", "a\u0000b", "NUL is ordinary text", (), "text"),
    Case("text.astral", "CJ-26", "\U0001f600", "4-byte UTF-8 character", (), "text"),
    Case("text.undo", "CJ-27", "undo", "spec known answer", ("KnownAnswer",), "text"),
    Case(
        "text.release-1-2-3",
        "CJ-26",
        "release-1.2.3",
        "host known answer",
        ("KnownAnswer",),
        "text",
    ),
    Case(
        "text.invalid-utf8",
        "CJ-1",
        None,
        "a lone continuation byte is not UTF-8",
        (),
        "text",
        data_hex="61ff62",
    ),
    Case("text.decomposed-kept", "CJ-26", "e\u0301", "no Unicode normalization", (), "text"),
    Case("text.crlf-kept", "CJ-26", "one\r\ntwo\r\n", "line endings kept", (), "text"),
]

# name in the probe output -> (id, rule, comment, flags)
PROBE_JSON = {
    "basic": ("json.probe.basic", "CJ-25", "upstream test payload"),
    "reordered": ("json.probe.reordered", "CJ-13", "keys given in reverse order"),
    "ab": ("json.probe.ab", "CJ-27", "known-answer fingerprint"),
    "ba": ("json.probe.ba", "CJ-13", "same object, other key order"),
    "ws": ("json.probe.whitespace", "CJ-2", "spaces and a line break everywhere"),
    "empty_obj": ("json.probe.empty-object", "CJ-25", "smallest object"),
    "empty_arr": ("json.probe.empty-array", "CJ-25", "smallest array"),
    "arr_scalars": ("json.probe.array-scalars", "CJ-12", "every scalar kind in an array"),
    "f1.0": ("number.probe.one-point-zero", "CJ-16", "fraction kept"),
    "f1.00": ("number.probe.one-point-zero-zero", "CJ-16", "trailing fraction zero kept in AP"),
    "f1": ("number.probe.one", "CJ-17", "plain integer"),
    "e2": ("number.probe.exp-lower", "CJ-16", "unsigned exponent gains +"),
    "E2": ("number.probe.exp-upper", "CJ-16", "E becomes e"),
    "e+2": ("number.probe.exp-plus", "CJ-16", "explicit + kept"),
    "e20": ("number.probe.exp-20", "CJ-20", "scientific in both modes"),
    "e16": ("number.probe.exp-16", "CJ-20", "first scientific exponent in F64"),
    "e15": ("number.probe.exp-15", "CJ-20", "last fixed exponent in F64"),
    "1.5e300": ("number.probe.big-exponent", "CJ-20", "large exponent"),
    "1e-5": ("number.probe.exp-minus-5", "CJ-20", "last fixed negative exponent in F64"),
    "1e-6": ("number.probe.exp-minus-6", "CJ-20", "first scientific negative exponent"),
    "1.5e-7": ("number.probe.upper-negative-exp", "CJ-16", "E- becomes e-"),
    "0.1": ("number.probe.point-one", "CJ-16", "shortest digits"),
    "123.456": ("number.probe.fraction", "CJ-16", "ordinary fraction"),
    "minus0": ("number.probe.minus-zero", "CJ-17", "-0 is the integer 0 in AP, -0.0 in F64"),
    "minus0.0": ("number.probe.minus-zero-point-zero", "CJ-16", "negative zero float"),
    "zero0.0": ("number.probe.zero-point-zero", "CJ-16", "zero float"),
    "u64max": ("number.probe.u64-max", "CJ-17", "largest exact unsigned integer"),
    "u64max+1": ("number.probe.u64-max-plus-one", "CJ-17", "just past u64"),
    "i64min": ("number.probe.i64-min", "CJ-17", "smallest exact signed integer"),
    "i64min-1": ("number.probe.i64-min-minus-one", "CJ-17", "just past i64"),
    "1e23int": ("number.probe.integer-1e23", "CJ-19", "long integer"),
    "2^53+1": ("number.probe.two-53-plus-one", "CJ-17", "exact above 2^53"),
    "2^53+1.0": ("number.probe.two-53-plus-one-float", "CJ-19", "double rounding in F64"),
    "5e-324": ("number.probe.min-subnormal", "CJ-20", "smallest subnormal"),
    "1.7976931348623157e308": ("number.probe.f64-max", "CJ-20", "largest finite f64"),
    "overflow1e400": ("number.probe.overflow-1e400", "CJ-18", "no range check in AP"),
    "NaN": ("reject.probe.nan", "CJ-5", "NaN is not JSON"),
    "ctrl": ("string.probe.controls", "CJ-14", "every escape form"),
    "nonascii_raw": ("string.probe.non-ascii-raw", "CJ-15", "raw UTF-8 input"),
    "nonascii_esc": ("string.probe.non-ascii-escaped", "CJ-15", "escaped input, same bytes"),
    "surrogate_pair": ("string.probe.surrogate-pair", "CJ-8", "pair becomes one character"),
    "lone_surrogate": ("reject.probe.lone-surrogate", "CJ-8", "lone high surrogate"),
    "u2028": ("string.probe.u2028", "CJ-15", "line separator stays raw"),
    "raw_ctrl_in_string": ("reject.probe.raw-control", "CJ-6", "raw control character"),
    "dupkey": ("object.probe.duplicate-key", "CJ-10", "last duplicate wins"),
    "dupkey_nested": ("object.probe.duplicate-key-nested", "CJ-10", "whole value replaced"),
    "key_order": ("object.probe.key-order", "CJ-13", "code point order"),
    "key_bmp_vs_astral": ("object.probe.bmp-vs-astral", "CJ-13", "not UTF-16 order"),
    "key_escaped": ("object.probe.escaped-keys", "CJ-14", "keys are escaped like values"),
    "trailing_comma": ("reject.probe.trailing-comma", "CJ-4", "trailing comma"),
    "leading_zero": ("reject.probe.leading-zero", "CJ-5", "leading zero"),
    "magic_number_key": ("quirk.probe.reserved-number-key", "CJ-11", "reserved key first"),
    "magic_number_key_second": (
        "quirk.probe.reserved-number-key-second",
        "CJ-11",
        "reserved key not first",
    ),
}

_CONTROL_SHORT = {0x08: "b", 0x09: "t", 0x0A: "n", 0x0C: "f", 0x0D: "r"}

ESCAPE_CASES = [
    Case(
        f"string.control-{code:02x}",
        "CJ-14",
        f'["\\u{code:04X}"]',
        f"U+{code:04X} is written "
        + (f"\\{_CONTROL_SHORT[code]}" if code in _CONTROL_SHORT else "as a lowercase \\u00xx"),
    )
    for code in range(0x20)
] + [
    Case("string.quote", "CJ-14", '["a\\"b"]', "quote escaped"),
    Case("string.backslash", "CJ-14", '["a\\\\b"]', "backslash escaped"),
    Case("string.solidus-escaped", "CJ-15", '["a\\/b"]', "\\/ decodes to a raw /"),
    Case("string.solidus-raw", "CJ-15", '["a/b"]', "/ stays raw"),
    Case("string.del", "CJ-15", '["\\u007f"]', "DEL is not escaped"),
    Case(
        "string.del-escapes-around-number-text",
        "CJ-15",
        '["\\u007f1.5\\u007f",2.5]',
        "escaped DELs around number-like text stay a string holding raw DELs, beside a number",
    ),
    Case(
        "string.raw-del-around-number-text",
        "CJ-15",
        '["\x7f1.5\x7f",2.5]',
        "raw DELs around number-like text stay a string, beside a number",
    ),
    Case("string.u2029", "CJ-15", '["\\u2029"]', "paragraph separator stays raw"),
    Case("string.upper-hex-escape", "CJ-7", '["\\u00E9"]', "hex digits in either case"),
    Case("string.bmp-private-use", "CJ-15", '["\\ue000"]', "private use area is raw"),
    Case("string.max-code-point", "CJ-8", '["\\udbff\\udfff"]', "U+10FFFF from a pair"),
    Case("string.raw-astral", "CJ-15", '["\U0001f600"]', "raw 4-byte UTF-8"),
    Case("string.escaped-raw-equal", "CJ-15", '{"\\u0061":"\\u00e9"}', "escaped key and value"),
    Case("string.empty", "CJ-12", '[""]', "empty string"),
    Case("string.tab-in-key", "CJ-14", '{"a\\tb":1}', "control in a key"),
    Case("string.decomposed-kept", "CJ-15", '["e\u0301"]', "no Unicode normalization"),
    Case("string.html-raw", "CJ-15", '["<a>&amp;"]', "written raw; HTML-safe encoders escape"),
]

ORDER_CASES = [
    Case("object.nested-sort", "CJ-13", '{"z":{"b":1,"a":2},"a":[{"d":1,"c":2}]}', "recursive"),
    Case("object.permutation-cab", "CJ-13", '{"c":3,"a":1,"b":2}', "order independent"),
    Case("object.permutation-bca", "CJ-13", '{"b":2,"c":3,"a":1}', "order independent"),
    Case("object.empty-key", "CJ-13", '{"a":1,"":0}', "empty key sorts first"),
    Case("object.prefix-keys", "CJ-13", '{"ab":1,"a":2,"a\\u0000":3}', "prefix before longer"),
    Case("object.case-order", "CJ-13", '{"a":1,"B":2,"_":3,"1":4}', "ASCII byte order"),
    Case(
        "object.planes",
        "CJ-13",
        '{"\\ud800\\udc00":1,"\\uffff":2,"\\u00ff":3,"\\u0100":4,"~":5,"\\ue000":6}',
        "BMP before astral, by code point",
    ),
    Case(
        "object.astral-vs-private-use",
        "CJ-13",
        '{"\\ud83d\\ude00":1,"\\uff5e":2}',
        "UTF-16 order would swap these",
    ),
    Case("array.order-kept", "CJ-12", "[3,1,2]", "arrays are never sorted"),
    Case("array.nested-empty", "CJ-12", "[[],{},[{}]]", "empty containers"),
    Case("object.duplicate-three", "CJ-10", '{"a":1,"b":0,"a":2,"a":3}', "last of three wins"),
    Case(
        "object.duplicate-type-change",
        "CJ-10",
        '{"a":[1,2],"a":"x"}',
        "later value of another type",
    ),
    Case("object.duplicate-in-array", "CJ-10", '[{"k":1,"k":2},{"k":3}]', "per object"),
    Case(
        "object.normalization-distinct-keys",
        "CJ-13",
        '{"\u00e9":1,"e\u0301":2}',
        "two keys only Unicode normalization would merge",
    ),
]

WHITESPACE_CASES = [
    Case("ws.tabs", "CJ-2", '\t{\t"a"\t:\t[\t1\t]\t}\t', "tabs"),
    Case("ws.crlf", "CJ-2", '{\r\n  "a": 1,\r\n  "b": 2\r\n}\r\n', "CRLF lines"),
    Case("ws.leading-trailing", "CJ-2", "   \n[1]\n\n   ", "around the root"),
    Case("ws.inside-empty", "CJ-2", "{ } ", "inside an empty object"),
    Case("ws.array-empty-spaced", "CJ-2", "[ \n ]", "inside an empty array"),
    Case("ws.colon-comma", "CJ-2", '{"a" :1 ,"b": 2}', "around colon and comma"),
]

NUMBER_CASES = [
    Case("number.zero", "CJ-17", "[0]", "zero"),
    Case("number.negative-int", "CJ-17", "[-1]", "negative integer"),
    Case("number.negative-fraction", "CJ-16", "[-1.5]", "negative fraction"),
    Case(
        "number.several-fractions",
        "CJ-16",
        '{"b":[2.5e3,-0.50],"a":1.50}',
        "three fraction or exponent numbers in one payload each keep their text in place",
    ),
    Case("number.exp-zero", "CJ-16", "[1e0]", "zero exponent"),
    Case("number.exp-upper-plus-zero", "CJ-16", "[1E+0]", "E+0"),
    Case("number.exp-minus-zero", "CJ-16", "[1e-0]", "probe: 1e-0", (PROBE,)),
    Case("number.zero-fraction", "CJ-16", "[0.000]", "probe: 0.000", (PROBE,)),
    Case("number.negative-upper-exp", "CJ-16", "[-1E-0]", "probe: -1E-0", (PROBE,)),
    Case("number.zero-exp", "CJ-16", "[0e0]", "probe: 0e0", (PROBE,)),
    Case("number.fraction-trailing-zero", "CJ-16", "[123.4560]", "probe", (PROBE,)),
    Case("number.ten", "CJ-17", "[10]", "probe: 10", (PROBE,)),
    Case("number.minus-ten", "CJ-17", "[-10]", "probe: -10", (PROBE,)),
    Case("number.minus-zero-exp", "CJ-16", "[-0e0]", "negative zero with exponent"),
    Case("number.i64-min-exact", "CJ-17", "[-9223372036854775808]", "i64::MIN"),
    Case("number.u64-above-i64", "CJ-17", "[9223372036854775808]", "fits u64 only"),
    Case("number.long-integer", "CJ-19", "[123456789012345678901234567890]", "30 digits"),
    Case(
        "number.integer-5000-digits",
        "CJ-19",
        "[" + "1" * 5000 + "]",
        "AP keeps a 5,000-digit integer as written; F64 overflows it (past any parser digit limit)",
    ),
    Case(
        "number.negative-integer-5000-digits",
        "CJ-19",
        "[-" + "9" * 5000 + "]",
        "the same for a negative integer",
    ),
    Case(
        "number.long-integer-fraction",
        "CJ-19",
        "[12345678901234567890.5]",
        "integer digits overflow, then a fraction digit still fits the significand",
    ),
    Case(
        "number.fraction-truncated",
        "CJ-19",
        "[1.23456789012345678901234]",
        "fraction digits past u64 are truncated",
    ),
    Case(
        "number.fraction-fills-u64",
        "CJ-19",
        "[1.8446744073709551615]",
        "the last fraction digit makes the significand exactly u64::MAX, so it is kept",
        ("SignificandTruncation",),
    ),
    Case(
        "number.fraction-one-past-u64",
        "CJ-19",
        "[1.8446744073709551616]",
        "the last fraction digit would pass u64::MAX, so it is dropped (truncated, not rounded)",
        ("SignificandTruncation",),
    ),
    Case(
        "number.two-fractions",
        "CJ-16",
        "[1.50,-2.5E1]",
        "exactly two fraction or exponent numbers: one separator between them keeps its text",
    ),
    Case("number.underflow-to-zero", "CJ-19", "[1e-400]", "F64 underflows to 0.0"),
    Case("number.f64-max-exponent", "CJ-20", "[1e308]", "largest power of ten"),
    Case("number.f64-overflow", "CJ-21", "[1e309]", "F64 overflows; AP keeps it"),
    Case("number.huge-exponent", "CJ-18", "[1e99999999999]", "exponent beyond i32"),
    Case("number.huge-negative-exponent", "CJ-19", "[1e-99999999999]", "F64 gives 0.0"),
    Case("number.fixed-boundary", "CJ-20", "[999999999999999.9]", "fixed, 16 digits"),
    Case("number.sci-boundary", "CJ-20", "[9999999999999999.0]", "becomes 1e+16 in F64"),
    Case("number.small-fixed", "CJ-20", "[0.000012345]", "fixed with leading zeros in F64"),
    Case("number.mantissa-many-digits", "CJ-20", "[0.30000000000000004]", "17 digits"),
    Case("number.integer-as-float", "CJ-20", "[100.0]", "integer-valued float"),
    Case("number.one-point-five-e15", "CJ-20", "[1.5e15]", "fixed notation, padded"),
    Case("number.negative-exp-fixed", "CJ-20", "[2.5e-3]", "fixed below one"),
]

# Exponents written with leading zeros, as a class (CJ-5 allows them: the exponent is any run
# of digits). splash-v5 keeps the digits (CJ-16: only `E` and a missing sign change);
# splash-v5-f64 reads the value and writes it afresh (CJ-19, CJ-20).
EXPONENT_LEADING_ZEROS = (
    ("1e05", "1e05"),
    ("1e-007", "1e-minus-007"),
    ("1E-007", "upper-1e-minus-007"),
    ("2.5e+0016", "2-5e-plus-0016"),
    ("-3E00", "minus-3-upper-e00"),
    ("1e-0005", "1e-minus-0005"),
    ("1e-0006", "1e-minus-0006"),
    ("7e000", "7e000"),
    ("0e0000", "0e0000"),
    ("1.5E+015", "1-5-upper-e-plus-015"),
)
NUMBER_CASES += [
    Case(
        f"number.exp-leading-zeros.{label}",
        "CJ-16",
        f"[{text}]",
        f"exponent with leading zeros {text}: kept in splash-v5, read as a value in splash-v5-f64",
    )
    for text, label in EXPONENT_LEADING_ZEROS
]

# Where the f64 layout switches between fixed and exponent notation (CJ-20, from
# rescind.reference.numbers.zmij_text: fixed while the decimal exponent of d.ddd x 10^E is in
# -5..15). Each row sits on one side of a switch point, with one or many significant digits,
# either sign, and values whose shortest digits land exactly on the boundary.
F64_SWITCH_POINTS = (
    ("999999999999999.9", "e14-many-digits"),
    ("1000000000000000.0", "e15-one-digit"),
    ("1234567890123456.0", "e15-many-digits"),
    ("-9999999999999998.0", "e15-negative"),
    ("10000000000000000.0", "e16-one-digit"),
    ("12345678901234567.0", "e16-many-digits"),
    ("-1.5e16", "e16-negative"),
    ("99999999999999999999", "e19-integer-beyond-u64-range"),
    ("0.00001", "e-5-one-digit"),
    ("0.000012345", "e-5-many-digits"),
    ("-0.00009999", "e-5-negative"),
    ("0.000001", "e-6-one-digit"),
    ("0.0000012345", "e-6-many-digits"),
    ("-0.0000099999", "e-6-negative"),
    ("0.0000099999999999999999", "e-6-rounds-to-e-5"),
    ("9.99999999999999999e15", "e15-rounds-to-e16"),
)
NUMBER_CASES += [
    Case(
        f"number.f64-switch.{label}",
        "CJ-20",
        f"[{text}]",
        f"{text} next to the fixed/exponent switch of the f64 layout (exponent -5..15 fixed)",
    )
    for text, label in F64_SWITCH_POINTS
]

REJECT_CASES = [
    Case("reject.infinity", "CJ-5", "[Infinity]", "not JSON"),
    Case("reject.minus-infinity", "CJ-5", "[-Infinity]", "not JSON"),
    Case("reject.nan-bare", "CJ-5", "[NaN]", "not JSON"),
    Case("reject.trailing-comma-array", "CJ-4", "[1,2,]", "trailing comma"),
    Case("reject.trailing-comma-nested", "CJ-4", '{"a":[1,]}', "trailing comma inside"),
    Case("reject.leading-zero-array", "CJ-5", "[01]", "leading zero"),
    Case("reject.negative-leading-zero", "CJ-5", "[-01]", "leading zero after sign"),
    Case("reject.double-zero", "CJ-5", "[00]", "two zeros"),
    Case("reject.plus-sign", "CJ-5", "[+1]", "no + sign"),
    Case("reject.bare-fraction", "CJ-5", "[.5]", "no leading digit"),
    Case("reject.trailing-point", "CJ-5", "[1.]", "no fraction digit"),
    Case("reject.exponent-no-digits", "CJ-5", "[1e]", "empty exponent"),
    Case("reject.exponent-sign-only", "CJ-5", "[1e+]", "empty exponent"),
    Case("reject.minus-only", "CJ-5", "[-]", "sign only"),
    Case("reject.double-minus", "CJ-5", "[--1]", "two signs"),
    Case("reject.hex-number", "CJ-5", "[0x10]", "no hex numbers"),
    Case("reject.point-exponent", "CJ-5", "[1.e5]", "no fraction digit"),
    Case("reject.raw-nul", "CJ-6", '["a\u0000b"]', "raw NUL"),
    Case("reject.raw-tab", "CJ-6", '["a\tb"]', "raw tab"),
    Case("reject.raw-newline", "CJ-6", '["a\nb"]', "raw line feed"),
    Case("reject.raw-unit-separator", "CJ-6", '["a\u001fb"]', "raw U+001F"),
    Case("reject.raw-control-in-key", "CJ-6", '{"a\u0001":1}', "raw control in a key"),
    Case("reject.lone-low-surrogate", "CJ-8", '["\\udc00"]', "lone low surrogate"),
    Case("reject.high-then-text", "CJ-8", '["\\ud800x"]', "high surrogate then text"),
    Case("reject.high-then-high", "CJ-8", '["\\ud800\\ud800"]', "two high surrogates"),
    Case("reject.high-then-bmp", "CJ-8", '["\\ud800\\u0041"]', "high then non-surrogate"),
    Case("reject.reversed-pair", "CJ-8", '["\\ude00\\ud83d"]', "low before high"),
    Case("reject.surrogate-in-key", "CJ-8", '{"\\ud800":1}', "lone surrogate in a key"),
    Case("reject.escape-x", "CJ-7", '["\\x41"]', "no \\x escape"),
    Case("reject.escape-a", "CJ-7", '["\\a"]', "no \\a escape"),
    Case("reject.escape-quote", "CJ-7", '["\\\'"]', "no \\' escape"),
    Case("reject.escape-upper-u", "CJ-7", '["\\U0041"]', "\\U is not an escape"),
    Case("reject.short-unicode-escape", "CJ-7", '["\\u12"]', "three hex digits short"),
    Case("reject.bad-hex-escape", "CJ-7", '["\\u12G4"]', "G is not hex"),
    Case("reject.single-quotes", "CJ-1", "['a']", "single-quoted string"),
    Case("reject.unquoted-key", "CJ-1", "{a:1}", "keys must be strings"),
    Case("reject.number-key", "CJ-1", "{1:1}", "keys must be strings"),
    Case("reject.line-comment", "CJ-1", "[1] // note", "no comments"),
    Case("reject.block-comment", "CJ-1", "[/* note */ 1]", "no comments"),
    Case("reject.trailing-object", "CJ-3", "{}x", "garbage after the root"),
    Case("reject.two-roots", "CJ-3", "{}{}", "two documents"),
    Case("reject.extra-bracket", "CJ-3", "[1,2]]", "unbalanced"),
    Case("reject.empty-document", "CJ-1", "", "no value"),
    Case("reject.whitespace-only", "CJ-1", " \n\t ", "no value"),
    Case("reject.bom", "CJ-2", "\ufeff{}", "a BOM is not whitespace"),
    Case("reject.missing-colon", "CJ-1", '{"a" 1}', "no colon"),
    Case("reject.missing-comma", "CJ-1", "[1 2]", "no comma"),
    Case("reject.missing-value", "CJ-1", '{"a":}', "no value"),
    Case("reject.leading-comma", "CJ-1", "[,1]", "comma first"),
    Case("reject.lone-comma-object", "CJ-1", "{,}", "comma only"),
    Case("reject.double-comma", "CJ-1", '{"a":1,,"b":2}', "two commas"),
    Case("reject.capital-true", "CJ-1", "[True]", "literals are lowercase"),
    Case("reject.truncated-null", "CJ-1", "[nul]", "truncated literal"),
    Case("reject.unterminated-string", "CJ-1", '["abc', "end of input in a string"),
    Case("reject.unterminated-array", "CJ-1", "[1,2", "end of input in an array"),
    Case("reject.unterminated-object", "CJ-1", '{"a":1', "end of input in an object"),
    Case(
        "reject.eof-before-key", "CJ-1", '{"a":1,', "end of input where a key must follow a comma"
    ),
    Case("reject.eof-after-key", "CJ-1", '{"a"', "end of input where a colon must follow a key"),
    Case("reject.invalid-utf8", "CJ-1", None, "0xff is never UTF-8", data_hex="5b22ff225d"),
    Case("reject.overlong-utf8", "CJ-1", None, "overlong encoding of /", data_hex="5b22c0af225d"),
    Case(
        "reject.utf8-surrogate", "CJ-1", None, "UTF-8 encoded surrogate", data_hex="5b22eda080225d"
    ),
    Case("reject.utf16-bom", "CJ-1", None, "UTF-16 text", data_hex="fffe5b005d00"),
]

STRUCTURE_CASES = [
    Case("root.integer", "CJ-22", "42", "scalar root", (PROBE,)),
    Case("root.string", "CJ-22", '"s"', "scalar root", (PROBE,)),
    Case("root.null", "CJ-22", "null", "scalar root", (PROBE,)),
    Case("root.true", "CJ-22", "true", "scalar root", (PROBE,)),
    Case("root.false", "CJ-22", "false", "scalar root"),
    Case("root.float", "CJ-22", "1.5", "scalar root"),
    Case(
        "root.reserved-number",
        "CJ-22",
        '{"$serde_json::private::Number":"1"}',
        "AP reads a number root",
        ("ReservedNumberKey",),
    ),
    Case("depth.arrays-30-object", "CJ-23", _nest(30, "{}"), "31 containers", (PROBE,)),
    Case("depth.arrays-31-object", "CJ-23", _nest(31, "{}"), "32 containers: the limit", (PROBE,)),
    Case("depth.arrays-32-object", "CJ-23", _nest(32, "{}"), "33 containers", (PROBE,)),
    Case("depth.arrays-30-scalar", "CJ-23", _nest(30, "1"), "scalar at depth 31", (PROBE,)),
    Case("depth.arrays-31-scalar", "CJ-23", _nest(31, "1"), "scalar at depth 32", (PROBE,)),
    Case("depth.arrays-32-scalar", "CJ-23", _nest(32, "1"), "scalar at depth 33", (PROBE,)),
    Case("depth.arrays-31-array", "CJ-23", _nest(31, "[]"), "empty array at depth 32", (PROBE,)),
    Case("depth.arrays-32-array", "CJ-23", _nest(32, "[]"), "empty array at depth 33", (PROBE,)),
    Case("depth.objects-32", "CJ-23", _objects(32), "32 nested objects", (PROBE,)),
    Case("depth.objects-33", "CJ-23", _objects(33), "33 nested objects", (PROBE,)),
    Case("depth.object-31-string", "CJ-23", _nest(31, '"x"'), "string counts as a level"),
    Case("depth.wide-shallow", "CJ-23", "[" + ",".join(["[1]"] * 100) + "]", "width is free"),
    Case("parse.nesting-126", "CJ-9", _nest(126, ""), "parses; too deep as a payload", (PROBE,)),
    Case("parse.nesting-127", "CJ-9", _nest(127, ""), "parses; too deep as a payload", (PROBE,)),
    Case("parse.nesting-128", "CJ-9", _nest(128, ""), "recursion limit", (PROBE,)),
    Case("parse.nesting-129", "CJ-9", _nest(129, ""), "recursion limit", (PROBE,)),
    Case("parse.nesting-128-objects", "CJ-9", _objects(128), "objects count too"),
    Case(
        "size.at-limit", "CJ-24", '{"k":"' + "x" * 120 + '"}', "size 128 = max", max_input_bytes=128
    ),
    Case(
        "size.over-limit",
        "CJ-24",
        '{"k":"' + "x" * 121 + '"}',
        "size 129 > max",
        max_input_bytes=128,
    ),
    Case(
        "size.whitespace-not-counted",
        "CJ-24",
        '{ "k" : "' + "x" * 120 + '" }',
        "measured canonically",
        max_input_bytes=128,
    ),
    Case(
        "size.duplicate-not-counted",
        "CJ-24",
        '{"k":"' + "y" * 200 + '","k":"' + "x" * 120 + '"}',
        "only the kept duplicate counts",
        ("DuplicateKeyLastWins",),
        max_input_bytes=128,
    ),
    Case(
        "size.text-at-limit",
        "CJ-24",
        "\u00e9" * 64,
        "64 two-byte characters = 128 bytes",
        (),
        "text",
        max_input_bytes=128,
    ),
    Case(
        "size.text-over-limit",
        "CJ-24",
        "\u00e9" * 64 + "a",
        "129 bytes",
        (),
        "text",
        max_input_bytes=128,
    ),
    Case(
        "size.upstream-test-payload",
        "CJ-24",
        '{"left":20,"right":22}',
        "upstream measures 22",
        max_input_bytes=22,
    ),
    Case(
        "size.escapes-counted-canonically",
        "CJ-24",
        '["\\u0041\\u0001"]',
        "A raw, U+0001 as 6 bytes",
        max_input_bytes=11,
    ),
]

QUIRK_CASES = [
    Case(
        "quirk.reserved-number-escaped-key",
        "CJ-11",
        '[{"\\u0024serde_json::private::Number":"7"}]',
        "key matched after unescaping (from serde source, not probed)",
        ("ReservedNumberKey", "UnprobedReading"),
        acceptable=True,
    ),
    Case(
        "quirk.reserved-number-minus-zero",
        "CJ-11",
        '[{"$serde_json::private::Number":"-0"}]',
        "normalized like any parsed number (not probed)",
        ("ReservedNumberKey", "UnprobedReading"),
        acceptable=True,
    ),
    Case(
        "quirk.reserved-number-exponent",
        "CJ-11",
        '[{"$serde_json::private::Number":"1E5"}]',
        "E becomes e+ (not probed)",
        ("ReservedNumberKey", "UnprobedReading"),
        acceptable=True,
    ),
    Case(
        "quirk.reserved-number-not-number",
        "CJ-11",
        '[{"$serde_json::private::Number":"abc"}]',
        "string is not a number (not probed)",
        ("ReservedNumberKey", "UnprobedReading"),
        acceptable=True,
    ),
    Case(
        "quirk.reserved-number-not-string",
        "CJ-11",
        '[{"$serde_json::private::Number":12}]',
        "value is not a string (not probed)",
        ("ReservedNumberKey", "UnprobedReading"),
        acceptable=True,
    ),
    Case(
        "quirk.reserved-number-then-member",
        "CJ-11",
        '[{"$serde_json::private::Number":"1","a":2}]',
        "a member after the number (not probed)",
        ("ReservedNumberKey", "UnprobedReading"),
        acceptable=True,
    ),
    Case(
        "quirk.reserved-number-nested-value",
        "CJ-11",
        '{"a":[{"$serde_json::private::Number":"0.50"}],"b":1}',
        "inside an array",
        ("ReservedNumberKey",),
    ),
]

PROBE_INPUTS = {
    "basic": '{"left":20,"right":22}',
    "reordered": '{"right":22,"left":20}',
    "ab": '{"a":1,"b":2}',
    "ba": '{"b":2,"a":1}',
    "ws": ' { "b" : [ 1 , 2 ] ,\n "a" : null } ',
    "empty_obj": "{}",
    "empty_arr": "[]",
    "arr_scalars": '[true,false,null,"x",0]',
    "f1.0": '{"a":1.0}',
    "f1.00": '{"a":1.00}',
    "f1": '{"a":1}',
    "e2": '{"a":1e2}',
    "E2": '{"a":1E2}',
    "e+2": '{"a":1e+2}',
    "e20": '{"a":1e20}',
    "e16": '{"a":1e16}',
    "e15": '{"a":1e15}',
    "1.5e300": '{"a":1.5e300}',
    "1e-5": '{"a":1e-5}',
    "1e-6": '{"a":1e-6}',
    "1.5e-7": '{"a":1.5e-7}',
    "0.1": '{"a":0.1}',
    "123.456": '{"a":123.456}',
    "minus0": '{"a":-0}',
    "minus0.0": '{"a":-0.0}',
    "zero0.0": '{"a":0.0}',
    "u64max": '{"a":18446744073709551615}',
    "u64max+1": '{"a":18446744073709551616}',
    "i64min": '{"a":-9223372036854775808}',
    "i64min-1": '{"a":-9223372036854775809}',
    "1e23int": '{"a":100000000000000000000000}',
    "2^53+1": '{"a":9007199254740993}',
    "2^53+1.0": '{"a":9007199254740993.0}',
    "5e-324": '{"a":5e-324}',
    "1.7976931348623157e308": '{"a":1.7976931348623157e308}',
    "overflow1e400": '{"a":1e400}',
    "NaN": '{"a":NaN}',
    "ctrl": '{"s":"\\u0000\\u0001\\u001f\\u007f\\"\\\\\\/\\b\\f\\n\\r\\t"}',
    "nonascii_raw": '{"s":"é中"}',
    "nonascii_esc": '{"s":"\\u00e9\\u4E2D"}',
    "surrogate_pair": '{"s":"\\ud83d\\ude00"}',
    "lone_surrogate": '{"s":"\\ud800"}',
    "u2028": '{"s":"\\u2028"}',
    "raw_ctrl_in_string": '{"s":"a\x01b"}',
    "dupkey": '{"a":1,"a":2}',
    "dupkey_nested": '{"a":{"x":1},"a":{"y":2}}',
    "key_order": '{"b":1,"a":2,"B":3,"é":4,"aa":5,"":6,"a b":7}',
    "key_bmp_vs_astral": '{"\\uffff":1,"\\ud83d\\ude00":2,"\\u00e9":3}',
    "key_escaped": '{"k\\n":1,"k\\"":2}',
    "trailing_comma": '{"a":1,}',
    "leading_zero": '{"a":01}',
    "magic_number_key": '{"x":{"$serde_json::private::Number":"12.50"}}',
    "magic_number_key_second": '{"x":{"a":1,"$serde_json::private::Number":"12.50"}}',
}
