# ruff: noqa: E501  (the header lines below are kept whole)
"""Vectors for worker messages, authenticated frames and the private-pipe bootstrap
(docs/spec/messages.md WM-n, docs/spec/frames.md FR-n).

The cases are rows of ``conformance/cases/frames.toml``, each with its stated provenance.
Groups: ``message-line`` (decode a WorkerMessage line, re-encode it), ``frame-tag`` (the tag
and the exact text it covers), ``frame-trace`` (seal/open traces run by
``rescind.conformance.interpreters.frame_trace``), ``bootstrap`` (encode and decode the binary
bootstrap). The frames a trace opens were sealed with the reference when the rows were
written, so every tag in an input is either genuine or deliberately broken in the way the
comment says; ``sealed`` makes new ones.
"""

from __future__ import annotations

from rescind.conformance import cases
from rescind.conformance.cases import CaseTable
from rescind.conformance.interpreters.frame_lines import run_bootstrap, run_message, run_tag
from rescind.conformance.interpreters.frame_trace import run_frame_trace
from rescind.conformance.vectors.format import Flag, VectorFile
from rescind.conformance.vectors.sets._tabled import Computation, tabled_groups
from rescind.conformance.vectors.sets._trace_cases import trace_builder
from rescind.reference.frames import SessionRole, compute_tag
from rescind.reference.numbers import NumberMode
from rescind.reference.wirejson import read_document
from rescind.reference.worker_message import message_from_node

TOPIC = "frames"
KEY_07 = "07" * 32


def sealed(
    sequence: int, message: str, sender: str = "host", key: str = KEY_07, session: str = "session-1"
) -> str:
    """A frame whose tag the reference computed: for writing rows and upstream-test ports."""
    mode = NumberMode.AP
    parsed = message_from_node(read_document(message, mode), mode)
    tag = compute_tag(bytes.fromhex(key), SessionRole(sender), sequence, session, parsed)
    return f'{{"sequence":{sequence},"message":{message},"auth_tag":"{tag}"}}'


NOTES = [
    Flag(
        "Boundary",
        "an off-by-one at a numeric limit (u16 max and max + 1) or a key check skipped",
        "a version past u16 read as a version error, or a tag computed under a weak or short key",
    ),
    Flag(
        "UpstreamProbe",
        "divergence from observed upstream behaviour",
        "frames or messages accepted by one side are refused by the other",
    ),
    Flag(
        "UpstreamKnownAnswer",
        "wrong encoding of the authenticated text or the bootstrap",
        "no frame authenticates between implementations",
    ),
    Flag(
        "StrictDecoding",
        "unknown or repeated fields accepted where upstream refuses them",
        "two readers act on different messages in the same bytes",
    ),
    Flag(
        "LenientDecoding",
        "forms upstream accepts are refused",
        "valid peers cannot talk to the implementation",
    ),
    Flag(
        "CheckOrder",
        "checks run in another order",
        "a different error is reported for the same input",
    ),
    Flag(
        "DuplicateKeyLastWins",
        "a repeated payload key resolved first-wins or rejected",
        "the two sides compute different tags and inputs",
    ),
    Flag(
        "PrefixPolicy",
        "the host ledger's cmp- rule applied to protocol messages",
        "valid messages are refused",
    ),
    Flag(
        "OpaqueBody",
        "bodies Rescind does not model re-encoded in another member order",
        "tags over invoke, result, cancel and cancellation_result frames differ",
    ),
    Flag(
        "SizeBound",
        "the 1 MiB bound off by one or measured on another text",
        "valid frames refused or oversized ones parsed",
    ),
    Flag(
        "NumberMode",
        "payload numbers re-encoded in another profile's layout",
        "tags and canonical inputs differ between implementations",
    ),
    Flag(
        "F64Profile",
        "informative splash-v5-f64 profile",
        "only implementations of that profile must match; splash-v5 implementations skip it",
    ),
    Flag(
        "ReserializedMessage",
        "the tag computed over the received bytes instead of the re-encoded message",
        "frames from senders with other spacing or key order fail to authenticate",
    ),
    Flag(
        "Reflection",
        "the opener computes the tag with its own role",
        "a frame can be reflected back to its sender",
    ),
    Flag(
        "Replay",
        "sequence checked with a window or not at all",
        "a captured frame is accepted again",
    ),
    Flag(
        "CounterOnFailure",
        "a counter advanced by a rejected frame",
        "one forged frame desynchronises the session",
    ),
    Flag(
        "SequenceEdge",
        "the u64 maximum used as a sequence",
        "counters wrap or saturate and frames repeat",
    ),
    Flag(
        "LongInteger",
        "an integer field parsed into an unbounded integer, or by a parser with a digit limit, before its range check",
        "a number thousands of digits long raises the parser's own error, or costs quadratic time, instead of the out-of-range decode error",
    ),
]


def build(source: CaseTable | None = None) -> VectorFile:
    return VectorFile(
        topic=TOPIC,
        header=(
            "Worker messages, authenticated frames and the private-pipe bootstrap (docs/spec/messages.md, docs/spec/frames.md).",
            "Keys and bootstrap bytes are hex; a text given as {prefix, repeat, count, suffix} is prefix + repeat*count + suffix.",
            "Tests flagged F64Profile apply to the splash-v5-f64 profile only.",
        ),
        notes=NOTES,
        groups=tabled_groups(
            source or cases.load(TOPIC),
            {
                "message-line": Computation(run_message),
                "frame-tag": Computation(run_tag),
                "frame-trace": trace_builder(run_frame_trace, ("profile", "authenticators")),
                "bootstrap": Computation(run_bootstrap),
            },
        ),
        test_schema={"input": {"type": "object"}, "expected": {"type": "object"}},
    )
