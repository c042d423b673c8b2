"""Generators and targets for the decoder fuzzing campaign (benchmarks/fuzz_campaign.py) and
its Hypothesis test (tests/hardening/test_fuzz_decoders.py).

Every target takes one generated input and either returns or raises. The only acceptable
refusal is a ``RescindError`` with a code; anything else is *untyped* and is reported with
the input that caused it. Stateful targets also snapshot their object or store before each
call: a definite refusal must leave the snapshot unchanged.

Inputs are generated from a ``random.Random`` only, so a seed reproduces a whole run and
Hypothesis can drive the same generators through ``st.randoms()``.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import re
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import attrs

from rescind.reference.canonical_fast import exact_canonical_input, fast_canonical_input
from rescind.reference.errors import RescindError
from rescind.reference.frames import (
    AuthenticatedFrame,
    PipeBootstrap,
    SessionAuthenticator,
    SessionRole,
)
from rescind.reference.grants import CapabilityGrant, GrantAttenuation
from rescind.reference.host.ledger import WorkflowOperationLedger
from rescind.reference.manifest import ManifestAttenuation, SessionManifest
from rescind.reference.messages import (
    OperationCompensationRequest,
    OperationDispatchRequest,
    OperationReconcileRequest,
    OperationStatus,
)
from rescind.reference.numbers import NumberMode
from rescind.reference.payload import ToolPayload
from rescind.reference.saga.bindings import compensation_order, validate_bindings
from rescind.reference.saga.loading import read_definition, read_lineage, read_workflow
from rescind.reference.saga.planner import plan_compensation
from rescind.reference.storage.authenticated import AuthenticatedStore
from rescind.reference.storage.envelope import open_snapshot, seal_active
from rescind.reference.storage.keyring import Keyring
from rescind.reference.storage.memory import MemoryBackend
from rescind.reference.storage.store import KeyState, Snapshot, StoredRecord
from rescind.reference.storage.tag import RecordKey, StorageKey
from rescind.reference.worker.adapter import AdapterDeclarations
from rescind.reference.worker.journal import WorkerOperationJournal
from rescind.reference.worker.journal_store import AuthenticatedWorkerJournalStore
from rescind.reference.worker.session import WorkerSession
from rescind.reference.worker_message import decode_message_line, encode_message_line, message_json

MAX_SEED_BYTES = 16_384
"""Longer vector texts (megabyte frames) only slow the campaign; size limits have their own
vectors."""

SESSION_KEY = bytes([0x07]) * 32
STORAGE_KEYRING = Keyring.single("storage-v1", StorageKey(bytes([0x1D]) * 32))
RECORD_KEY = RecordKey("worker-journal", "tenant-release")

# -- seeds ----------------------------------------------------------------------------------


def _vector_root() -> Path:
    import importlib.resources

    return Path(str(importlib.resources.files("rescind.vectors")))


@cache
def vector_documents() -> tuple[Mapping[str, Any], ...]:
    root = _vector_root()
    return tuple(
        json.loads(path.read_text(encoding="utf-8"))
        for path in sorted(root.glob("*.json"))
        if path.name != "registry.json"
    )


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _tests(topic: str) -> Iterator[tuple[str, Mapping[str, Any]]]:
    for document in vector_documents():
        if document["topic"] == topic:
            for group in document["testGroups"]:
                for test in group["tests"]:
                    yield group["type"], test


def _small(texts: Iterator[str]) -> tuple[bytes, ...]:
    seen: dict[bytes, None] = {}
    for text in texts:
        data = text.encode("utf-8", "surrogatepass")
        if 0 < len(data) <= MAX_SEED_BYTES:
            seen[data] = None
    return tuple(seen)


@cache
def json_seeds() -> tuple[bytes, ...]:
    """Every vector string that is a JSON container: the cross-pollination pool."""

    def containers() -> Iterator[str]:
        for document in vector_documents():
            for text in _strings(document.get("testGroups")):
                if text[:1] in ("{", "[") and len(text) <= MAX_SEED_BYTES:
                    yield text

    return _small(containers())


def _inputs(topic: str, field: str, group: str | None = None) -> tuple[bytes, ...]:
    return _small(
        test["input"][field]
        for kind, test in _tests(topic)
        if (group is None or kind == group) and isinstance(test["input"].get(field), str)
    )


@cache
def sealed_frames() -> tuple[bytes, ...]:
    """Every decodable message-line vector sealed by a host at sequence 1."""
    frames = []
    for line in message_seeds():
        try:
            message = decode_message_line(line)
            host = SessionAuthenticator(message.session_id, SESSION_KEY, SessionRole.HOST)
            frames.append(host.seal(message).to_json_line().encode("utf-8"))
        except (RescindError, AttributeError):
            continue
    return tuple(frames)


@cache
def message_seeds() -> tuple[bytes, ...]:
    return _inputs("frames", "line", "message-line")


@cache
def envelope_seeds() -> tuple[bytes, ...]:
    sealed = [
        seal_active(STORAGE_KEYRING, RECORD_KEY, revision, payload).encode()
        for revision, payload in (
            (1, b"{}"),
            (2, journal_seeds()[0]),
            (7, b"\xff\x00payload"),
            (1, journal_seeds()[1]),
            (2**64 - 1, b""),
            (3, bytes(range(256))),
            (1, b"x" * 600),
        )
    ]
    vectors = [
        record[0].encode("utf-8")
        for kind, test in _tests("storage")
        if kind == "storage-envelope-open"
        for record in [test["input"].get("record")]
        if isinstance(record, list) and record and isinstance(record[0], str)
    ]
    return tuple(dict.fromkeys([*sealed, *vectors]))


@cache
def journal_seeds() -> tuple[bytes, ...]:
    return _inputs("journal-codec", "text")


@cache
def saga_documents() -> tuple[tuple[str, Any], ...]:
    """(reader, document) pairs from the saga vectors: which loader reads which field."""
    found: list[tuple[str, Any]] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            if "sourceRun" in value:
                found.append(("lineage", value))
            if "bindings" in value and isinstance(value["bindings"], list):
                found.append(("definition", value))
            if "workflow" in value:
                found.append(("workflow", value["workflow"]))
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for topic in ("saga-plans", "saga-bindings", "saga-upstream-tests", "saga-lifecycles"):
        for _, test in _tests(topic):
            walk(test["input"])
    unique = {json.dumps(doc, sort_keys=True): (kind, doc) for kind, doc in found}
    return tuple(unique.values())


@cache
def driver_seeds() -> tuple[bytes, ...]:
    from rescind.conformance.vectors.checks import operation_of

    lines = []
    for document in vector_documents():
        for group in document["testGroups"]:
            for test in group["tests"][:6]:
                op = operation_of(group, test)
                line = json.dumps({"id": 1, "op": op, "args": test["input"]})
                if len(line) <= MAX_SEED_BYTES:
                    lines.append(line.encode("utf-8"))
    lines.append(b'{"id":0,"op":"hello","args":{}}')
    return tuple(lines)


# -- byte-level mutation --------------------------------------------------------------------

HUGE_NUMBERS = (
    b"1" * 5000,
    b"1" * 4301,
    b"9" * 21,
    b"18446744073709551616",
    b"18446744073709551615",
    b"4294967296",
    b"4294967295",
    b"256",
    b"-1",
    b"-0",
    b"0.0",
    b"1e999999",
    b"-1E-999999",
    b"1.7976931348623159e308",
    b"9007199254740993",
    b"0." + b"0" * 400 + b"1",
    b"1" + b"0" * 400 + b".5",
)
BAD_UTF8 = (b"\xff", b"\xc0\x80", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\x80", b"\xe2\x82")
WHITESPACE = (
    b" ",
    b"\t",
    b"\n",
    b"\r",
    b"\x0b",
    b"\x0c",
    b"\xc2\xa0",
    b"\xe2\x80\xa8",
    b"\xef\xbb\xbf",
)
STRING_JUNK = (b"\\ud800", b"\\udc00\\ud800", b"\\u0000", b"\\x41", b"\\", b"\x00", b"\x1f", b'\\"')
TOKENS = (
    b"true",
    b"false",
    b"null",
    b"NaN",
    b"Infinity",
    b"-Infinity",
    b'""',
    b"{}",
    b"[]",
    b"0",
    b'"$serde_json::private::Number"',
    b'{"$serde_json::private::Number":"1"}',
)
_NUMBER = re.compile(rb"-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_STRUCTURE = re.compile(rb"[{}\[\],:]")
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')
_MEMBER = re.compile(rb'"[a-z_]+":(?:"(?:[^"\\]|\\.)*"|-?[0-9]+|true|false|null)')
NEST_DEPTHS = (30, 31, 32, 33, 127, 128, 129, 1000, 20_000)


def _position(rng: random.Random, data: bytes) -> int:
    return rng.randint(0, len(data))


def _pick_match(
    rng: random.Random, pattern: re.Pattern[bytes], data: bytes
) -> re.Match[bytes] | None:
    matches = list(pattern.finditer(data))
    return rng.choice(matches) if matches else None


def _replace(data: bytes, match: re.Match[bytes], new: bytes) -> bytes:
    return data[: match.start()] + new + data[match.end() :]


def _flip(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    if not data:
        return bytes([rng.randrange(256)])
    index = rng.randrange(len(data))
    return data[:index] + bytes([data[index] ^ (1 << rng.randrange(8))]) + data[index + 1 :]


def _set_byte(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    index = _position(rng, data)
    return data[:index] + bytes([rng.randrange(256)]) + data[index + 1 :]


def _insert(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    index = _position(rng, data)
    return data[:index] + rng.randbytes(rng.randint(1, 8)) + data[index:]


def _delete(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    start = _position(rng, data)
    return data[:start] + data[start + rng.randint(1, 16) :]


def _truncate(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    return data[: _position(rng, data)]


def _duplicate(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    start = _position(rng, data)
    end = min(len(data), start + rng.randint(1, 64))
    return data[:end] + data[start:end] + data[end:]


def _splice(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    other = rng.choice(pool)
    return data[: _position(rng, data)] + other[_position(rng, other) :]


def _nest(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    depth = rng.choice(NEST_DEPTHS)
    opener, closer = rng.choice(((b"[", b"]"), (b'{"a":', b"}")))
    if rng.random() < 0.5:
        return opener * depth + data + closer * depth
    index = _position(rng, data)
    return data[:index] + opener * depth + b"1" + closer * depth + data[index:]


def _huge_number(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    match = _pick_match(rng, _NUMBER, data)
    number = rng.choice(HUGE_NUMBERS)
    if match is None:
        index = _position(rng, data)
        return data[:index] + number + data[index:]
    return _replace(data, match, number)


def _bad_utf8(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    match = _pick_match(rng, _STRING, data)
    index = match.start() + 1 if match is not None and rng.random() < 0.8 else _position(rng, data)
    return data[:index] + rng.choice(BAD_UTF8) + data[index:]


def _whitespace(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    match = _pick_match(rng, _STRUCTURE, data)
    index = (
        (match.start() if rng.random() < 0.5 else match.end()) if match else _position(rng, data)
    )
    return data[:index] + rng.choice(WHITESPACE) * rng.randint(1, 3) + data[index:]


def _string_junk(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    match = _pick_match(rng, _STRING, data)
    if match is None:
        return data + rng.choice(STRING_JUNK)
    index = rng.randint(match.start() + 1, match.end() - 1)
    return data[:index] + rng.choice(STRING_JUNK) + data[index:]


def _token(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    match = _pick_match(rng, rng.choice((_NUMBER, _STRING)), data)
    token = rng.choice(TOKENS)
    return _replace(data, match, token) if match else data + token


def _member(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    """Repeat or drop one ``"key":scalar`` member: duplicate and missing fields."""
    match = _pick_match(rng, _MEMBER, data)
    if match is None:
        return data
    if rng.random() < 0.5:
        return data[: match.end()] + b"," + match.group() + data[match.end() :]
    return _replace(data, match, b'"zz_unknown":1')


MUTATORS: tuple[Callable[[random.Random, bytes, Sequence[bytes]], bytes], ...] = (
    _flip,
    _set_byte,
    _insert,
    _delete,
    _truncate,
    _duplicate,
    _splice,
    _nest,
    _huge_number,
    _bad_utf8,
    _whitespace,
    _string_junk,
    _token,
    _member,
)


def random_bytes(rng: random.Random) -> bytes:
    if rng.random() < 0.5:
        return rng.randbytes(rng.randint(0, 96))
    soup = (*TOKENS, b"{", b"}", b"[", b"]", b",", b":", b'"a"', b"1", b" ", *HUGE_NUMBERS[6:])
    return b"".join(rng.choice(soup) for _ in range(rng.randint(1, 24)))


def mutate_bytes(rng: random.Random, pool: Sequence[bytes]) -> bytes:
    """One valid vector text, mutated 1 to 3 times; or, one time in ten, random bytes."""
    if rng.random() < 0.1:
        return random_bytes(rng)
    data = rng.choice(pool)
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        data = rng.choice(MUTATORS)(rng, data, pool)
    return data


# -- tree-level mutation (saga documents are read from parsed JSON) -------------------------

TREE_VALUES: tuple[Any, ...] = (
    None,
    True,
    False,
    0,
    -1,
    1.5,
    2**64,
    10**5000,
    float("inf"),
    float("nan"),
    "",
    "x" * 5000,
    "\ud800",
    "Bad Id",
    "a b",
    [],
    {},
    [None],
    {"": None},
    "${{ inputs.x }}",
    "action:restore",
    "succeeded",
    "failed",
    "COMPLETED",
    "never",
    "always",
)


def _nodes(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    yield path, value
    if len(path) > 40:  # inside an already deep nest: mutating deeper adds nothing
        return
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _nodes(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _nodes(item, (*path, index))


def _copy(value: Any, depth: int = 0) -> Any:
    """A deep copy cut at 200 levels, so grafting a nest into itself stays within the
    interpreter's recursion limit (deeper input is the byte mutators' job)."""
    if depth > 200:
        return None
    if isinstance(value, dict):
        return {key: _copy(item, depth + 1) for key, item in value.items()}
    if isinstance(value, list):
        return [_copy(item, depth + 1) for item in value]
    return value


def mutate_tree(rng: random.Random, document: Any) -> Any:
    root = {"": _copy(document)}
    for _ in range(rng.choice((1, 1, 2, 3))):
        nodes = list(_nodes(root[""], ("",)))
        path, node = rng.choice(nodes)
        parent: Any = root
        for step in path[:-1]:
            parent = parent[step]
        key = path[-1]
        choice = rng.random()
        if choice < 0.45:
            parent[key] = _copy(rng.choice(TREE_VALUES))  # never share a mutable constant
        elif choice < 0.6 and isinstance(parent, dict) and key != "":
            del parent[key]
        elif choice < 0.7 and isinstance(node, dict):
            node[rng.choice(("zzUnknown", "id", "state", "status", "needs", "Bad Key"))] = _copy(
                rng.choice(TREE_VALUES)
            )
        elif choice < 0.8 and isinstance(node, list) and node:
            node.append(_copy(rng.choice(node)))
        elif choice < 0.9:
            nested: Any = node
            for _ in range(rng.choice((2, 40, 200))):
                nested = [nested]
            parent[key] = nested
        else:
            donor = rng.choice(nodes)[1]
            parent[key] = _copy(donor)
    return _copy(root[""])


def dump_tree(document: Any) -> bytes:
    """JSON text of a mutated document; integers past Python's digit limit are written out."""

    def shrink(value: Any) -> Any:
        if isinstance(value, int) and not isinstance(value, bool) and value > 10**4000:
            return "\x00huge"
        if isinstance(value, dict):
            return {key: shrink(item) for key, item in value.items()}
        if isinstance(value, list):
            return [shrink(item) for item in value]
        return value

    text = json.dumps(shrink(document)).replace('"\\u0000huge"', "1" * 5000)
    return text.encode("utf-8", "surrogatepass")


def show(data: Any) -> str:
    """At most 300 characters of an input, whatever it holds."""
    if isinstance(data, tuple) and len(data) == 2 and isinstance(data[0], str):
        return f"({data[0]!r}, {dump_tree(data[1])[:280]!r})"
    try:
        return repr(data)[:300]
    except ValueError:
        return "<input with an integer past the digit limit>"


# -- targets --------------------------------------------------------------------------------


@attrs.frozen
class Finding:
    """One input that broke the rule: an untyped exception or a changed state."""

    target: str
    kind: str  # "untyped", "state_change", "divergence", "bad_reply", "cli"
    detail: str
    data: str  # the input (repr, at most 300 characters)


Outcome = str  # "accepted" or "refused:<code>"


class Target:
    name: str = ""
    share: float = 1.0

    def generate(self, rng: random.Random) -> Any:
        raise NotImplementedError

    def run(self, data: Any) -> tuple[Outcome, list[Finding]]:
        """Call the decoder; classify; check state."""
        try:
            self.call(data)
        except RescindError as error:
            if not error.code:
                return "untyped", [
                    self.finding("untyped", f"{type(error).__name__} without code", data)
                ]
            return f"refused:{error.code}", []
        except Exception as error:  # the thing this campaign hunts for
            return "untyped", [
                self.finding("untyped", f"{type(error).__name__}: {str(error)[:160]}", data)
            ]
        return "accepted", []

    def call(self, data: Any) -> None:
        raise NotImplementedError

    def finding(self, kind: str, detail: str, data: Any) -> Finding:
        return Finding(self.name, kind, detail, show(data))


class BytesTarget(Target):
    def __init__(
        self,
        name: str,
        seeds: Callable[[], Sequence[bytes]],
        call: Callable[[bytes], object],
        share: float = 1.0,
    ) -> None:
        self.name = name
        self._seeds = seeds
        self._call = call
        self.share = share

    @property
    def pool(self) -> Sequence[bytes]:
        return _pool(self.name, self._seeds)

    def generate(self, rng: random.Random) -> bytes:
        pool = self.pool if rng.random() < 0.85 else json_seeds()
        return mutate_bytes(rng, pool)

    def call(self, data: bytes) -> None:
        self._call(data)


_POOLS: dict[str, Sequence[bytes]] = {}


def _pool(name: str, seeds: Callable[[], Sequence[bytes]]) -> Sequence[bytes]:
    pool = _POOLS.get(name)
    if pool is None:
        pool = _POOLS[name] = tuple(seeds()) or json_seeds()
    return pool


def _both_modes(decode: Callable[[bytes, NumberMode], object]) -> Callable[[bytes], object]:
    def call(data: bytes) -> object:
        # The F64 reading is exercised on a fixed share of inputs: the byte itself decides.
        mode = NumberMode.F64 if data[-1:] in (b"}", b"]") and len(data) % 4 == 0 else NumberMode.AP
        return decode(data, mode)

    return call


def _journal(data: bytes, mode: NumberMode) -> None:
    journal = WorkerOperationJournal.from_json(data, mode)
    if WorkerOperationJournal.from_json(journal.to_json(), mode).to_json() != journal.to_json():
        raise AssertionError("journal does not re-decode to itself")


def _ledger(data: bytes) -> None:
    ledger = WorkflowOperationLedger.from_json(data)
    if WorkflowOperationLedger.from_json(ledger.to_json()).to_json() != ledger.to_json():
        raise AssertionError("ledger does not re-decode to itself")


def _message(data: bytes, mode: NumberMode) -> None:
    encode_message_line(decode_message_line(data, mode))


def _frame(data: bytes, mode: NumberMode) -> None:
    AuthenticatedFrame.from_json_line(data, mode).to_json_line()


def _bootstrap(data: bytes) -> None:
    PipeBootstrap.decode(data)


def _grant(data: bytes) -> None:
    CapabilityGrant.from_json(data).to_json()


def _attenuation(data: bytes) -> None:
    GrantAttenuation.from_json(data).to_json()


def _manifest(data: bytes) -> None:
    SessionManifest.from_json(data).to_json()


def _manifest_attenuation(data: bytes) -> None:
    ManifestAttenuation.from_json(data)


_REVISION = re.compile(rb'"revision":([0-9]{1,19})\b')


def _envelope(data: bytes) -> None:
    """Opened at the revision the envelope claims, so a mutation elsewhere reaches the tag."""
    match = _REVISION.search(data)
    revision = min(int(match.group(1)), 2**64 - 1) if match else 1
    open_snapshot(STORAGE_KEYRING, RECORD_KEY, Snapshot(StoredRecord(revision, data), revision))


class CanonicalTarget(Target):
    """The exact parser, plus the fast path: both must give the same bytes or the same code."""

    name = "canonical-input"

    def generate(self, rng: random.Random) -> bytes:
        pool = _pool(self.name, lambda: _inputs("canonical-input", "text"))
        return mutate_bytes(rng, pool if rng.random() < 0.85 else json_seeds())

    def call(self, data: bytes) -> None:
        ToolPayload.json_text(data, NumberMode.F64).canonical_input_bytes()
        with contextlib.suppress(UnicodeDecodeError):
            ToolPayload.text(data.decode("utf-8")).canonical_input_bytes()
        exact_canonical_input(data)

    def run(self, data: Any) -> tuple[Outcome, list[Finding]]:
        outcome, findings = super().run(data)
        fast = _answer(lambda: fast_canonical_input(data))
        exact = _answer(lambda: exact_canonical_input(data))
        if fast != exact:
            findings.append(
                self.finding("divergence", f"fast {fast[:80]!r} != exact {exact[:80]!r}", data)
            )
        return outcome, findings


def _answer(function: Callable[[], bytes]) -> str:
    try:
        return function().hex()
    except RescindError as error:
        return f"error:{error.code}"
    except Exception as error:
        return f"untyped:{type(error).__name__}"


class AuthenticatorTarget(Target):
    """A worker-side authenticator opening mutated sealed frames: a refusal moves no counter;
    an accepted frame must carry the message that was sealed."""

    name = "frames.open"

    def generate(self, rng: random.Random) -> bytes:
        return mutate_bytes(rng, sealed_frames())

    def run(self, data: Any) -> tuple[Outcome, list[Finding]]:
        worker = SessionAuthenticator("session-1", SESSION_KEY, SessionRole.WORKER)
        before = (worker.next_incoming, worker.next_outgoing)
        try:
            message = worker.open_line(data)
        except RescindError as error:
            if (worker.next_incoming, worker.next_outgoing) != before:
                return "refused", [
                    self.finding("state_change", f"counters moved on {error.code}", data)
                ]
            return f"refused:{error.code}", []
        except Exception as error:
            return "untyped", [
                self.finding("untyped", f"{type(error).__name__}: {str(error)[:160]}", data)
            ]
        if message_json(message) not in _sealed_messages():
            return "accepted", [
                self.finding("forged", "a changed frame opened with a new meaning", data)
            ]
        return "accepted", []


@cache
def _sealed_messages() -> frozenset[str]:
    return frozenset(
        message_json(AuthenticatedFrame.from_json_line(frame).message) for frame in sealed_frames()
    )


class StoreTarget(Target):
    """A stored record replaced by mutated envelope bytes; load, fenced and unfenced CAS and
    the journal store's load are refused without touching the backend's state."""

    name = "storage.store"

    def generate(self, rng: random.Random) -> bytes:
        return mutate_bytes(rng, envelope_seeds())

    def run(self, data: Any) -> tuple[Outcome, list[Finding]]:
        backend = MemoryBackend()
        match = _REVISION.search(data)
        revision = min(int(match.group(1)), 2**64 - 1) if match else 1
        backend.inject_state(
            RECORD_KEY.namespace,
            RECORD_KEY.name,
            KeyState(StoredRecord(max(revision, 1), data), 1, 1),
        )
        store = AuthenticatedStore(backend, STORAGE_KEYRING)
        journals = AuthenticatedWorkerJournalStore(store, RECORD_KEY.namespace, RECORD_KEY.name)
        calls: tuple[tuple[str, Callable[[], object]], ...] = (
            ("load", lambda: store.load(RECORD_KEY)),
            ("journal.load", journals.load),
            ("cas", lambda: store.compare_and_swap(RECORD_KEY, revision, b"{}")),
            ("cas_fenced", lambda: store.compare_and_swap_fenced(RECORD_KEY, revision, b"{}", 2)),
        )
        outcomes = []
        findings: list[Finding] = []
        for name, call in calls:
            before = backend.raw_state(RECORD_KEY.namespace, RECORD_KEY.name)
            try:
                call()
                outcomes.append("accepted")
            except RescindError as error:
                outcomes.append(f"refused:{error.code}")
                after = backend.raw_state(RECORD_KEY.namespace, RECORD_KEY.name)
                if name == "cas_fenced":
                    # The fenced write establishes its token before any check, by design
                    # (a newer session's fence must win even if this write is refused).
                    after = attrs.evolve(after, fence=before.fence)
                if error.definite and after != before:
                    findings.append(
                        self.finding(
                            "state_change", f"{name} changed the store on {error.code}", data
                        )
                    )
            except Exception as error:
                findings.append(
                    self.finding(
                        "untyped", f"{name}: {type(error).__name__}: {str(error)[:160]}", data
                    )
                )
        return ("untyped" if findings else min(outcomes)), findings


class _Adapter:
    declarations = AdapterDeclarations()

    def dispatch_operation(self, request: OperationDispatchRequest) -> OperationStatus:
        return OperationStatus.succeeded(ToolPayload.json_text(b'{"total":42}'))

    def compensate_operation(self, request: OperationCompensationRequest) -> OperationStatus:
        return OperationStatus.succeeded(ToolPayload.json_text(b'{"undone":true}'))

    def reconcile_operation(self, request: OperationReconcileRequest) -> OperationStatus:
        return OperationStatus.cancelled()


OPENING = (
    b'{"type":"open_session","manifest":{"protocol_version":5,"session_id":"session-1","grants":'
    b'[{"tool":"math.add","format":"json","max_calls":2,"max_input_bytes":128,"max_output_bytes":128,'
    b'"max_compensations":1,"resources":[{"kind":"network_origin","id":"math-api"}]}]}}'
)


class WorkerSessionTarget(Target):
    """Mutated message lines that still decode are sealed and handed to an open worker
    session: a definite refusal leaves the journal, its revision and the store unchanged."""

    name = "worker.session"

    def generate(self, rng: random.Random) -> bytes:
        return mutate_bytes(rng, message_seeds())

    def run(self, data: Any) -> tuple[Outcome, list[Finding]]:
        try:
            message = decode_message_line(data)
        except RescindError as error:
            return f"refused:{error.code}", []
        except Exception as error:
            return "untyped", [
                self.finding("untyped", f"decode: {type(error).__name__}: {str(error)[:160]}", data)
            ]
        backend = MemoryBackend()
        bridge = AuthenticatedWorkerJournalStore(
            AuthenticatedStore(backend, STORAGE_KEYRING), "worker-journal", "tenant-release"
        )
        host = SessionAuthenticator("session-1", SESSION_KEY, SessionRole.HOST)
        journal, revision = bridge.load()
        session = WorkerSession.open(
            SessionAuthenticator("session-1", SESSION_KEY, SessionRole.WORKER),
            host.seal(decode_message_line(OPENING)),
            {"math.add": _Adapter()},
            journal,
            revision,
            bridge.admission(),
        )
        try:
            frame = host.seal(message)
        except RescindError as error:
            return f"refused:{error.code}", []
        except Exception as error:
            return "untyped", [
                self.finding("untyped", f"seal: {type(error).__name__}: {str(error)[:160]}", data)
            ]

        def state() -> tuple[object, ...]:
            return (
                session.journal.encode_unchecked(),
                session.revision,
                backend.raw_state("worker-journal", "tenant-release"),
            )

        before = state()
        try:
            session.handle(frame, bridge)
        except RescindError as error:
            if error.definite and state() != before:
                return "refused", [
                    self.finding("state_change", f"journal or store changed on {error.code}", data)
                ]
            return f"refused:{error.code}", []
        except Exception as error:
            return "untyped", [
                self.finding("untyped", f"handle: {type(error).__name__}: {str(error)[:160]}", data)
            ]
        return "accepted", []


class SagaTarget(Target):
    """Saga documents (already parsed JSON, as the CLI and the driver hand them over), read
    and then planned or validated."""

    name = "saga.documents"

    def generate(self, rng: random.Random) -> tuple[str, Any]:
        kind, document = rng.choice(saga_documents())
        return kind, mutate_tree(rng, document)

    def call(self, data: tuple[str, Any]) -> None:
        kind, document = data
        if kind == "lineage":
            plan_compensation(*read_lineage(document))
        elif kind == "definition":
            definition = read_definition(document)
            if validate_bindings(definition).valid:
                compensation_order(definition)
        else:
            read_workflow(document)


class DriverTarget(Target):
    """Request lines through the reference driver: one reply line, never an exception."""

    name = "driver.requests"

    def generate(self, rng: random.Random) -> bytes:
        return mutate_bytes(rng, driver_seeds())

    def run(self, data: Any) -> tuple[Outcome, list[Finding]]:
        from rescind.conformance.driver import serve

        text = data.decode("utf-8", "replace").replace("\n", " ").replace("\r", " ") + "\n"
        sink = io.StringIO()
        try:
            with contextlib.redirect_stderr(io.StringIO()):
                serve(io.StringIO(text), sink)
        except Exception as error:
            return "untyped", [
                self.finding("untyped", f"{type(error).__name__}: {str(error)[:160]}", data)
            ]
        lines = sink.getvalue().splitlines()
        if not text.strip():
            return "accepted", [] if not lines else [
                self.finding("bad_reply", "a reply to a blank line", data)
            ]
        if len(lines) != 1:
            return "bad_reply", [self.finding("bad_reply", f"{len(lines)} reply lines", data)]
        reply = json.loads(lines[0])
        keys = set(reply) - {"id"}
        if len(keys) != 1 or not keys <= {"ok", "error", "unsupported"}:
            return "bad_reply", [self.finding("bad_reply", f"reply keys {sorted(reply)}", data)]
        if "error" in reply:
            failure = reply["error"]
            code = failure.get("code") if isinstance(failure, dict) else None
            if not (isinstance(code, str) and code):
                return "bad_reply", [self.finding("bad_reply", "an error without a code", data)]
            return f"refused:{code}", []
        return "accepted", []


CLI_FLAGS = (
    "--json",
    "--output",
    "json",
    "text",
    "--format",
    "xml",
    "--max-input-bytes",
    "-1",
    "0",
    "99999999999999999999",
    "--impl",
    "--timeout",
    "nan",
    "-",
    "--",
    "-h",
    "--select",
    "\udc80",
    "",
)


class CliTarget(Target):
    """``rescind`` subcommands in process on a file holding mutated bytes (fingerprint,
    saga plan|validate, replay) or on mutated argv: exit 0, 1 or 2, and on 2 one line."""

    name = "cli"
    share = 0.15

    def generate(self, rng: random.Random) -> tuple[str, ...] | tuple[tuple[str, ...], bytes]:
        if rng.random() < 0.15:
            words = [
                "fingerprint",
                "saga",
                "plan",
                "validate",
                "replay",
                "diagnose",
                "vectors",
                *CLI_FLAGS,
            ]
            return tuple(rng.choice(words) for _ in range(rng.randint(0, 5)))
        command: tuple[str, ...] = rng.choice(
            (
                ("fingerprint",),
                ("fingerprint", "--format", "text"),
                ("fingerprint", "--output", "json"),
                ("saga", "plan"),
                ("saga", "validate"),
                ("replay",),
            )
        )
        if command[0] == "saga":
            wanted = "lineage" if command[1] == "plan" else "definition"
            document = rng.choice([doc for kind, doc in saga_documents() if kind == wanted])
            text = dump_tree(mutate_tree(rng, document))
            data = mutate_bytes(rng, [text]) if rng.random() < 0.5 else text
        elif command[0] == "replay":
            data = mutate_bytes(rng, driver_seeds())
        else:
            data = mutate_bytes(
                rng, _pool("canonical-input", lambda: _inputs("canonical-input", "text"))
            )
        return command, data

    def run(self, data: Any) -> tuple[Outcome, list[Finding]]:
        with tempfile.TemporaryDirectory(prefix="rescind-fuzz-") as directory:
            return self._run(data, Path(directory))

    def _run(self, data: Any, directory: Path) -> tuple[Outcome, list[Finding]]:
        from rescind.cli import main

        if data and isinstance(data[0], tuple):
            command, payload = data
            path = directory / "input"
            path.write_bytes(payload)
            argv = [*command, str(path)]
        else:
            argv = list(data)
        out, err = io.StringIO(), io.StringIO()
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = main(argv)
        except SystemExit as leave:  # --help and --version exit through argparse
            code = leave.code if isinstance(leave.code, int) else 2
            if code != 0:
                return "untyped", [self.finding("cli", f"SystemExit({leave.code!r})", data)]
        except Exception as error:
            return "untyped", [
                self.finding("untyped", f"{type(error).__name__}: {str(error)[:160]}", data)
            ]
        lines = err.getvalue().splitlines()
        if code not in (0, 1, 2) or "Traceback" in err.getvalue():
            return "untyped", [self.finding("cli", f"exit {code}: {err.getvalue()[:160]!r}", data)]
        if code == 2 and len(lines) != 1 and "-h" not in argv and "usage" not in err.getvalue()[:6]:
            return "untyped", [self.finding("cli", f"exit 2 with {len(lines)} stderr lines", data)]
        return ("accepted" if code == 0 else f"refused:exit_{code}"), []


def targets() -> list[Target]:
    """Every decoder the campaign covers, in a fixed order (the seed schedule depends on it)."""
    return [
        CanonicalTarget(),
        BytesTarget("journal-codec", journal_seeds, _both_modes(_journal)),
        BytesTarget("ledger-codec", lambda: _inputs("ledger-codec", "text"), _ledger),
        BytesTarget("worker-message", message_seeds, _both_modes(_message)),
        BytesTarget("frames.decode", sealed_frames, _both_modes(_frame)),
        AuthenticatorTarget(),
        BytesTarget("frames.bootstrap", _bootstrap_seeds, _bootstrap),
        BytesTarget("grants.grant", lambda: _inputs("grants", "grant"), _grant),
        BytesTarget("grants.attenuation", lambda: _inputs("grants", "attenuation"), _attenuation),
        BytesTarget("grants.manifest", lambda: _inputs("grants", "manifest"), _manifest),
        BytesTarget(
            "grants.manifest-attenuation",
            lambda: _inputs("grants", "attenuation"),
            _manifest_attenuation,
        ),
        BytesTarget("storage.envelope", envelope_seeds, _envelope),
        StoreTarget(),
        WorkerSessionTarget(),
        SagaTarget(),
        DriverTarget(),
        CliTarget(),
    ]


def _bootstrap_seeds() -> tuple[bytes, ...]:
    seeds = [
        PipeBootstrap("session-1", SESSION_KEY).encode() + b"rest",
        PipeBootstrap("s", bytes(range(32))).encode(),
    ]
    for _, test in _tests("frames"):
        for text in _strings(test["input"]):
            if re.fullmatch(r"(?:[0-9a-f]{2})+", text) and text.startswith("53504c50"):
                seeds.append(bytes.fromhex(text))
    return tuple(dict.fromkeys(seeds))
