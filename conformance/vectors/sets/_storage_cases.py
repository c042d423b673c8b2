"""The ``storage`` topic's tag and envelope-open cases (inputs only; expectations computed).

Ids are published: never rename or reuse one; add a new case instead.
"""

from __future__ import annotations

import json
from typing import Any

from rescind.conformance.interpreters.storage_harness import run_open, run_tag
from rescind.conformance.provenance import Provenance, derived, observed
from rescind.conformance.vectors.format import VectorTest
from rescind.reference.storage.envelope import encode_payload
from rescind.reference.storage.tag import MAX_RECORD_BYTES, MAX_U64, storage_record_tag

K07, K09, K1D = "07" * 32, "09" * 32, "1d" * 32
V1, V2 = "storage-v1", "storage-v2"
LEDGER_NS, LEDGER_NAME = "workflow-ledger", "release-42"
JOURNAL_NS, JOURNAL_NAME = "worker-journal", "tenant-release"
FIRST = b"first payload"
JOURNAL_PAYLOAD = b'{"format_version":2,"scope":"tenant-release","records":[]}'
KEYRING_V1 = [{"key_id": V1, "key_hex": K07}]
MAX = MAX_U64
OVERSIZE = MAX_RECORD_BYTES + 1

# The probe's envelope, transcribed from tests/upstream/out_other.txt.
JOURNAL_ENVELOPE = (
    '{"format_version":1,"key_id":"storage-v1","revision":1,'
    '"payload":"eyJmb3JtYXRfdmVyc2lvbiI6Miwic2NvcGUiOiJ0ZW5hbnQtcmVsZWFzZSIsInJlY29yZHMiOltdfQ",'
    '"auth_tag":"ac29801f8d4eea9d2bfaec4a1e914084fe6e178dad5aeeb459a95ad79f198ef4"}'
)


EVIDENCE: dict[str, Provenance] = {
    "tag.known-answer.worker-journal": observed(
        "out_other.txt", "envelope", "manual storage tag", scope="after `--- AP extra`"
    ),
    "open.known-answer.worker-journal": derived(
        "ST-6", note="opens the envelope of out_other.txt row `envelope`, which upstream sealed"
    ),
}
"""Cases with evidence beyond their rule; every other case is derived from its rule."""


def vector(
    test_id: str, rule: str, comment: str, inp: dict[str, Any], expected: dict[str, Any], flags: Any
) -> VectorTest:
    result = "invalid" if "error" in expected else "valid"
    if "WeakStorageKey" in flags:
        # Upstream's answer (expected) is one conformant reading; refusing the weak key is
        # the other (docs/findings.md F14).
        result = "acceptable"
    provenance = EVIDENCE.get(test_id) or derived(rule)
    return VectorTest(
        test_id, rule, comment, inp, expected, result, tuple(flags), provenance=provenance
    )


# --- tags -------------------------------------------------------------------------------------


def tag(test_id: str, rule: str, comment: str, *flags: str, **changes: Any) -> VectorTest:
    inp: dict[str, Any] = {
        "key_hex": K07,
        "namespace": LEDGER_NS,
        "name": LEDGER_NAME,
        "key_id": V1,
        "revision": 1,
        "payload_hex": FIRST.hex(),
    }
    inp.update(changes)
    if "payload_fill" in changes:
        del inp["payload_hex"]
    return vector(test_id, rule, comment, inp, run_tag(inp), flags)


def tag_tests() -> list[VectorTest]:
    fill = {"byte_hex": "61", "count": 262_144}
    return [
        tag(
            "tag.known-answer.worker-journal",
            "ST-5",
            "upstream probe output, out_other.txt row manual storage tag",
            "KnownAnswer",
            key_hex=K1D,
            namespace=JOURNAL_NS,
            name=JOURNAL_NAME,
            payload_hex=JOURNAL_PAYLOAD.hex(),
        ),
        tag("tag.known-answer.workflow-ledger", "ST-5", "ST-5 recipe, recomputed", "KnownAnswer"),
        tag("tag.bind.namespace", "ST-5", "namespace bound", "Transplant", namespace="workflow-x"),
        tag("tag.bind.name", "ST-5", "name bound", "Transplant", name="release-43"),
        tag("tag.bind.key-id", "ST-5", "key id bound", key_id=V2),
        tag("tag.bind.revision", "ST-5", "revision bound", revision=2),
        tag("tag.bind.payload", "ST-5", "payload bound", payload_hex=b"first payloae".hex()),
        tag("tag.bind.key", "ST-5", "another key", key_hex=K09),
        tag("tag.split.ab-cd", "ST-5", "ab + cd", "LengthPrefixOmitted", namespace="ab", name="cd"),
        tag("tag.split.abc-d", "ST-5", "abc + d", "LengthPrefixOmitted", namespace="abc", name="d"),
        tag("tag.payload.empty", "ST-5", "empty payload", payload_hex=""),
        tag("tag.payload.binary", "ST-5", "bytes 0..255", payload_hex=bytes(range(256)).hex()),
        tag("tag.payload.max", "ST-1", "262,144 bytes", "SizeBound", payload_fill=fill),
        tag("tag.revision.max", "ST-5", "revision 2^64-1", revision=MAX),
        tag("tag.namespace.64-bytes", "ST-2", "longest", "SizeBound", namespace="n" * 64),
        tag("tag.namespace.65-bytes", "ST-2", "too long", "SizeBound", namespace="n" * 65),
        tag("tag.namespace.empty", "ST-2", "empty namespace", namespace=""),
        tag("tag.namespace.uppercase", "ST-2", "not a token", namespace="Workflow-ledger"),
        tag("tag.name.128-bytes", "ST-2", "longest name", "SizeBound", name="r" * 128),
        tag("tag.name.129-bytes", "ST-2", "name too long", "SizeBound", name="r" * 129),
        tag("tag.name.slash", "ST-2", "not a token", name="release/42"),
        tag("tag.namespace-before-name", "ST-2", "both bad", "CheckOrder", namespace="A", name="B"),
        tag("tag.key-id.64-bytes", "ST-3", "longest key id", "SizeBound", key_id="k" * 64),
        tag("tag.key-id.65-bytes", "ST-3", "key id too long", "SizeBound", key_id="k" * 65),
        tag("tag.key-id.colon", "ST-3", "not a token", key_id="storage:v1"),
        tag(
            "tag.key.all-zero-accepted",
            "ST-4",
            "an all-zero key seals, as upstream does; refusing it also conforms",
            "WeakStorageKey",
            key_hex="00" * 32,
        ),
        tag("tag.key.31-bytes", "ST-4", "short key", key_hex="07" * 31),
        # Multi-byte UTF-8 at the token bounds (ST-2, ST-3): upstream's is_valid_token counts
        # bytes and takes only ASCII bytes, so both rows of each pair are refused, the first
        # within the byte bound (the grammar refuses it), the second one byte over it with
        # no more characters than the bound.
        tag(
            "tag.namespace.64-bytes-2byte",
            "ST-2",
            "32 2-byte characters: not a token",
            "ByteLength",
            namespace="\u00e9" * 32,
        ),
        tag(
            "tag.namespace.65-bytes-in-64-chars",
            "ST-2",
            "63 ASCII and one 2-byte character",
            "ByteLength",
            namespace="n" * 63 + "\u00e9",
        ),
        tag(
            "tag.name.128-bytes-3byte",
            "ST-2",
            "42 3-byte characters and 2 ASCII: not a token",
            "ByteLength",
            name="\u4e2d" * 42 + "rr",
        ),
        tag(
            "tag.name.129-bytes-in-127-chars",
            "ST-2",
            "126 ASCII and one 3-byte character",
            "ByteLength",
            name="r" * 126 + "\u4e2d",
        ),
        tag(
            "tag.key-id.64-bytes-4byte",
            "ST-3",
            "16 4-byte characters: not a token",
            "ByteLength",
            key_id="\U0001f600" * 16,
        ),
        tag(
            "tag.key-id.65-bytes-in-62-chars",
            "ST-3",
            "61 ASCII and one 4-byte character",
            "ByteLength",
            key_id="k" * 61 + "\U0001f600",
        ),
    ]


# --- opening ----------------------------------------------------------------------------------

Pairs = list[tuple[str, str]]


def pairs(
    key_hex: str = K07,
    key_id: str = V1,
    namespace: str = LEDGER_NS,
    name: str = LEDGER_NAME,
    revision: int = 1,
    payload: bytes = FIRST,
) -> Pairs:
    """A correctly sealed envelope as (field, raw JSON value) pairs, in writing order."""
    auth = storage_record_tag(bytes.fromhex(key_hex), namespace, name, key_id, revision, payload)
    return [
        ("format_version", "1"),
        ("key_id", json.dumps(key_id)),
        ("revision", str(revision)),
        ("payload", f'"{encode_payload(payload)}"'),
        ("auth_tag", f'"{auth.hex()}"'),
    ]


def text(fields: Pairs) -> str:
    return "{" + ",".join(f'"{name}":{value}' for name, value in fields) + "}"


def ledger(**raw: str) -> list[Any]:
    """The ledger known-answer envelope with some fields' raw JSON replaced."""
    return [text([(name, raw.get(name, value)) for name, value in pairs()])]


def sealed(**options: Any) -> list[Any]:
    return [text(pairs(**options))]


def opening(
    test_id: str, rule: str, comment: str, record: list[Any] | None, *flags: str, **options: Any
) -> VectorTest:
    inp = {
        "keyring": options.get("keyring", KEYRING_V1),
        "active_key_id": options.get("active", V1),
        "namespace": options.get("namespace", LEDGER_NS),
        "name": options.get("name", LEDGER_NAME),
        "backend_revision": None if record is None else options.get("backend_revision", 1),
        "floor": options.get("floor", 1),
        "record": record,
    }
    return vector(test_id, rule, comment, inp, run_open(inp), flags)


def _padded(envelope: str, size: int) -> list[Any]:
    return [envelope, {"repeat": " ", "count": size - len(envelope)}]


def _long_payload(tail: str) -> list[Any]:
    """Payload text of 87,381 x ``YWFh`` (262,143 bytes of ``a``) then ``tail``; sealed tag of
    262,144 ``a`` so that only the payload text decides the outcome."""
    auth = storage_record_tag(bytes.fromhex(K07), LEDGER_NS, LEDGER_NAME, V1, 1, b"a" * 262_144)
    head = '{"format_version":1,"key_id":"storage-v1","revision":1,"payload":"'
    return [head, {"repeat": "YWFh", "count": 87_381}, f'{tail}","auth_tag":"{auth.hex()}"}}']


def _structure_tests() -> list[VectorTest]:
    good = text(pairs())
    tag_raw = pairs()[4][1]
    pretty = " \n" + json.dumps(json.loads(good), indent=2) + "\n\t "
    not_utf8 = [good[: good.index("Zmly")], {"hex": "ff"}, good[good.index('","auth_tag"') :]]
    twice = [*pairs()[:2], ("key_id", '"storage-v1"'), *pairs()[2:]]
    spaces = [{"repeat": " ", "count": OVERSIZE}]
    return [
        opening("open.known-answer.worker-journal", "ST-6", "probe envelope", [JOURNAL_ENVELOPE],
                "KnownAnswer", keyring=[{"key_id": V1, "key_hex": K1D}],
                namespace=JOURNAL_NS, name=JOURNAL_NAME),
        opening("open.known-answer.workflow-ledger", "ST-6", "first payload", ledger(), "KnownAnswer"),
        opening("open.absent", "ST-7", "no record, floor 0", None, floor=0),
        opening("open.absent-above-floor", "ST-7", "record gone", None, "Rollback", floor=2),
        opening("open.backend-revision-zero", "ST-7", "backend revision 0", ledger(),
                backend_revision=0, floor=0),
        opening("open.below-floor", "ST-7", "revision 1, floor 2", ledger(), "Rollback", floor=2),
        opening("open.above-floor", "ST-7", "floor forced to 0", ledger(), floor=0),
        opening("open.rollback-before-size", "ST-7", "pair first", spaces, "CheckOrder", floor=2),
        opening("open.record-too-large", "ST-8", "393,217 spaces", spaces, "SizeBound"),
        opening("open.record-at-bound", "ST-8", "padded to 393,216", _padded(good, OVERSIZE - 1),
                "SizeBound"),
        opening("open.record-over-bound", "ST-8", "padded to 393,217", _padded(good, OVERSIZE),
                "SizeBound"),
        opening("open.not-json", "ST-9", "plain text", ["not json"]),
        opening("open.not-utf8", "ST-9", "0xff in a string", not_utf8),
        opening("open.utf8-bom", "ST-9", "byte order mark", [{"hex": "efbbbf"}, good]),
        opening("open.array-root", "ST-9", "array root", ["[]"]),
        opening("open.unknown-field", "ST-9", "sixth field", [text([*pairs(), ("extra", "0")])]),
        opening("open.missing-field", "ST-9", "no auth_tag", [text(pairs()[:4])]),
        opening("open.duplicate-field", "ST-9", "key_id twice", [text(twice)],
                "DuplicateFieldAccepted"),
        opening("open.fields-any-order", "ST-9", "alphabetical order", [text(sorted(pairs()))],
                "FieldOrderAssumed"),
        opening("open.whitespace-around", "ST-9", "pretty-printed", [pretty]),
        opening("open.trailing-garbage", "ST-9", "second value", [good + " {}"]),
        opening("open.format-2", "ST-10", "format 2", ledger(format_version="2")),
        opening("open.format-0", "ST-10", "format 0", ledger(format_version="0")),
        opening("open.format-256", "ST-9", "not a byte", ledger(format_version="256")),
        opening("open.format-string", "ST-9", "format as text", ledger(format_version='"1"')),
        opening("open.format-before-revision", "ST-10", "format 2, revision 0",
                ledger(format_version="2", revision="0"), "CheckOrder"),
        opening("open.null-key-id", "ST-9", "key_id null", ledger(key_id="null")),
        opening("open.lone-surrogate-before-format", "ST-9", "format 2, lone surrogate",
                ledger(format_version="2", payload='"\\ud800"'), "LoneSurrogate", "CheckOrder"),
        opening("open.tag-65", "ST-14", "65 hex digits", ledger(auth_tag=tag_raw[:-1] + '0"')),
        opening("open.tag-63", "ST-14", "63 hex digits", ledger(auth_tag=tag_raw[:-2] + '"')),
        opening("open.tag-uppercase", "ST-14", "uppercase hex", ledger(auth_tag=tag_raw.upper())),
        opening("open.tag-non-hex", "ST-14", "g", ledger(auth_tag='"' + "g" * 64 + '"')),
    ]  # fmt: skip


def _field_tests() -> list[VectorTest]:
    bad_tag = '"' + "A" * 64 + '"'
    padded = '"Zmlyc3QgcGF5bG9hZA=="'
    last = pairs()[4][1]
    flipped = last[:-2] + ("0" if last[-2] != "0" else "1") + '"'
    plus_slash = pairs(payload=bytes.fromhex("fbff"))
    url_safe = [text([(n, '"-_8"' if n == "payload" else v) for n, v in plus_slash])]
    k64 = "k" * 64
    both = [{"key_id": V1, "key_hex": K07}, {"key_id": V2, "key_hex": K09}]
    return [
        opening("open.revision-zero", "ST-11", "envelope revision 0", ledger(revision="0")),
        opening("open.revision-mismatch", "ST-11", "sealed at 2, backend 1", sealed(revision=2)),
        opening("open.revision-float", "ST-9", "1.0", ledger(revision="1.0"), "IntegerLexeme"),
        opening("open.revision-exponent", "ST-9", "1e0", ledger(revision="1e0"), "IntegerLexeme"),
        opening("open.revision-negative-zero", "ST-9", "-0", ledger(revision="-0"),
                "IntegerLexeme"),
        opening("open.revision-over-u64", "ST-9", "2^64", ledger(revision=str(MAX + 1))),
        opening("open.revision-max", "ST-11", "sealed at 2^64-1", sealed(revision=MAX),
                backend_revision=MAX, floor=MAX),
        opening("open.revision-before-key-id", "ST-11", "mismatch and bad key id",
                ledger(revision="2", key_id='"Storage"'), "CheckOrder"),
        opening("open.key-id-uppercase", "ST-12", "uppercase", ledger(key_id='"Storage-v1"')),
        opening("open.key-id-65-bytes", "ST-12", "65 bytes", ledger(key_id=json.dumps("k" * 65)),
                "SizeBound"),
        opening("open.key-id-empty", "ST-12", "empty", ledger(key_id='""')),
        opening("open.key-id-64-bytes", "ST-12", "64 bytes, known", sealed(key_id=k64),
                "SizeBound", keyring=[{"key_id": k64, "key_hex": K07}], active=k64),
        opening("open.key-id-escaped", "ST-9", "\\u002d escape",
                ledger(key_id='"storage\\u002dv1"'), "JsonStringEscape"),
        opening("open.key-id-before-base64", "ST-12", "bad key id, padded payload",
                ledger(key_id='"Storage"', payload=padded), "CheckOrder"),
        opening("open.payload-padded", "ST-13", "== padding", ledger(payload=padded),
                "NonCanonicalBase64"),
        opening("open.payload-trailing-bits", "ST-13", "last symbol B",
                ledger(payload='"Zmlyc3QgcGF5bG9hZB"'), "NonCanonicalBase64"),
        opening("open.payload-plus-slash", "ST-13", "+ and /", [text(plus_slash)]),
        opening("open.payload-url-safe", "ST-13", "- and _", url_safe, "NonCanonicalBase64"),
        opening("open.payload-whitespace", "ST-13", "inner space",
                ledger(payload='"Zmly c3QgcGF5bG9hZA"'), "NonCanonicalBase64"),
        opening("open.payload-length-1-mod-4", "ST-13", "five symbols",
                ledger(payload='"Zmlyc"'), "NonCanonicalBase64"),
        opening("open.payload-empty", "ST-13", "empty payload", sealed(payload=b"")),
        opening("open.payload-at-bound", "ST-13", "262,144 bytes", _long_payload("YQ"),
                "SizeBound"),
        opening("open.payload-too-large", "ST-13", "262,145 bytes", _long_payload("YWE"),
                "SizeBound"),
        opening("open.payload-decode-before-size", "ST-13", "262,145 bytes, bad last symbol",
                _long_payload("YWF"), "CheckOrder", "NonCanonicalBase64"),
        opening("open.base64-before-tag", "ST-13", "padded payload, uppercase tag",
                ledger(payload=padded, auth_tag=bad_tag), "CheckOrder"),
        opening("open.tag-text-before-keyring", "ST-15", "unknown key id, bad tag text",
                ledger(key_id='"storage-v9"', auth_tag=bad_tag), "CheckOrder"),
        opening("open.unknown-key-id", "ST-15", "sealed by storage-v9",
                sealed(key_hex=K09, key_id="storage-v9")),
        opening("open.transplanted-name", "ST-16", "sealed for release-43",
                sealed(name="release-43"), "Transplant"),
        opening("open.transplanted-namespace", "ST-16", "sealed for worker-journal",
                sealed(namespace=JOURNAL_NS), "Transplant"),
        opening("open.tampered-payload", "ST-16", "payload 'tampered'",
                ledger(payload='"dGFtcGVyZWQ"')),
        opening("open.tampered-tag", "ST-16", "last digit changed", ledger(auth_tag=flipped)),
        opening("open.wrong-key", "ST-16", "same id, other key", ledger(),
                keyring=[{"key_id": V1, "key_hex": K09}]),
        opening("open.key-id-swapped", "ST-16", "relabelled v2", ledger(key_id='"storage-v2"'),
                keyring=both),
        opening("open.edited-revision", "ST-16", "relabelled revision 2 at floor 2",
                ledger(revision="2"), "Rollback", backend_revision=2, floor=2),
        opening("open.read-only-key", "ST-17", "old key kept for reading", ledger(),
                keyring=both, active=V2),
    ]  # fmt: skip


def open_tests() -> list[VectorTest]:
    return _structure_tests() + _field_tests()
