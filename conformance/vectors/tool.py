"""Export and check the golden vectors: freshness, schemas and the published-ID registry.

The registry (``vectors/registry.json``) lists every test ID ever published with a digest of
its *meaning* (input, expected output and result). It only grows: an export that would drop
an ID or change what an ID means is refused, and ``check`` fails on either. A changed
expectation therefore needs a new ID, and downstream expected-failure lists stay valid; the
old ID is then retired (``rescind.conformance.vectors.retired``) and stays in the registry.
"""

from __future__ import annotations

import hashlib
import importlib.resources
import json
import os
import sysconfig
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import jsonschema

from rescind.conformance.comparison import DETAILS_COMPARED, INFORMATIVE_KEYS
from rescind.conformance.provenance import KINDS
from rescind.conformance.vectors import observation
from rescind.conformance.vectors.format import PROFILES, RESULTS, VectorFile, VectorTest, render
from rescind.conformance.vectors.observation import Observation
from rescind.conformance.vectors.retired import Retirement, live_id
from rescind.conformance.vectors.sets.topics import Binding, binding_of, discover
from rescind.conformance.vectors.suite import Suite, shipped

REGISTRY_NAME = "registry.json"


def default_directory() -> Path:
    # Resolved: in a checkout the package reaches vectors/ through src/rescind/vectors, a link
    # that export's no-follow rule would refuse; the folder it names is the real one.
    return Path(str(importlib.resources.files("rescind.vectors"))).resolve()


def inside_installation(directory: Path) -> bool:
    """True when ``directory`` lies in an interpreter's library folders (site-packages)."""
    resolved = directory.resolve()
    if {"site-packages", "dist-packages"} & set(resolved.parts):
        return True
    roots = {sysconfig.get_path(name) for name in ("purelib", "platlib")}
    return any(resolved.is_relative_to(Path(root).resolve()) for root in roots if root)


def meaning(test: VectorTest | Mapping[str, Any]) -> str:
    """Digest of what a test asks and answers. Provenance, profile, comment and flags stay out:
    they describe the evidence and the audience, so better evidence never forces a new ID."""
    body = test.to_json() if isinstance(test, VectorTest) else dict(test)
    core = {key: body[key] for key in ("input", "expected", "result")}
    text = json.dumps(core, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def file_schema(vector_file: VectorFile) -> dict[str, Any]:
    """JSON Schema for one topic: the common envelope plus the topic's input/expected shape."""
    test_properties: dict[str, Any] = {
        "id": {"type": "string", "pattern": r"^[a-z0-9]+(?:[.\-][a-z0-9]+)*$"},
        "rule": {"type": "string", "pattern": r"^[A-Z]{2,4}-[0-9]{1,3}$"},
        "comment": {"type": "string"},
        "flags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
        "input": {"type": "object"},
        "expected": {"type": "object"},
        "result": {"enum": list(RESULTS)},
        "provenance": {
            "type": "object",
            "required": ["kind", "citation"],
            "additionalProperties": False,
            "properties": {
                "kind": {"enum": list(KINDS)},
                "citation": {"type": "string", "minLength": 1},
            },
        },
    }
    required = list(test_properties)
    test_properties["profile"] = {"enum": list(PROFILES)}
    for part in ("input", "expected"):
        if part in vector_file.test_schema:
            test_properties[part] = vector_file.test_schema[part]
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"Rescind golden vectors: {vector_file.topic}",
        "type": "object",
        "required": [
            "suite",
            "suiteVersion",
            "topic",
            "profile",
            "schema",
            "numberOfTests",
            "header",
            "notes",
            "provenanceKinds",
            "informativeKeys",
            "detailsCompared",
            "testGroups",
        ],
        "additionalProperties": False,
        "properties": {
            "suite": {"const": "rescind-vectors"},
            "suiteVersion": {"type": "string"},
            "topic": {"const": vector_file.topic},
            "profile": {"type": "string"},
            "schema": {"const": vector_file.schema_name},
            "numberOfTests": {"type": "integer", "minimum": 0},
            "header": {"type": "array", "items": {"type": "string"}},
            "notes": {
                "type": "object",
                "additionalProperties": {
                    "type": "object",
                    "required": ["bugClass", "effect"],
                    "additionalProperties": False,
                    "properties": {"bugClass": {"type": "string"}, "effect": {"type": "string"}},
                },
            },
            "provenanceKinds": {
                "type": "object",
                "required": list(KINDS),
                "additionalProperties": False,
                "properties": {kind: {"type": "string"} for kind in KINDS},
            },
            "informativeKeys": {"type": "array", "items": {"type": "string"}},
            "detailsCompared": {"type": "string"},
            "testGroups": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["type", "capability", "tests"],
                    "properties": {
                        "type": {"type": "string"},
                        "capability": {"type": "string"},
                        "operation": {"type": "string"},
                        "operationFromInput": {"type": "string"},
                        "traceKind": {"type": "string"},
                        "tests": {
                            "type": "array",
                            "items": {
                                "type": "object",
                                "required": required,
                                "additionalProperties": False,
                                "properties": test_properties,
                            },
                        },
                    },
                },
            },
        },
    }


def _suite(suite: Suite | None, observations: Sequence[Observation] | None) -> Suite:
    """``suite`` (default: the shipped one), with ``observations`` when they are given."""
    if suite is None:
        return shipped(observations)
    if observations is None:
        return suite
    return Suite(suite.topics, suite.retired, tuple(observations), suite.spec)


def observed_files(
    observations: Sequence[Observation] | None = None, suite: Suite | None = None
) -> tuple[list[VectorFile], list[str]]:
    """Every topic's vectors (default: the shipped suite's) with provenance derived from the
    observation files (default: the package's, ``rescind.conformance.vectors.observation``),
    and the problems that forbid exporting them (an upstream difference not listed as a
    finding, ...)."""
    chosen = _suite(suite, observations)
    return observation.derive(discover(chosen.topics), chosen.observed())


def generate(
    files: Iterable[VectorFile] | None = None, suite: Suite | None = None
) -> dict[str, str]:
    """Every generated file, by path relative to the vectors directory (registry excluded);
    ``suite`` (default: the shipped one) declares each file's topic."""
    chosen = _suite(suite, None)
    if files is None:
        files, problems = observed_files(suite=chosen)
        if problems:
            raise ValueError("; ".join(problems))
    out: dict[str, str] = {}
    for vector_file in files:
        binding = chosen.binding_of(vector_file.topic)
        out[f"{vector_file.topic}.json"] = render(self_describing(vector_file.to_json(), binding))
        out[vector_file.schema_name] = render(file_schema(vector_file))
    return out


def self_describing(document: Mapping[str, Any], binding: Binding | None = None) -> dict[str, Any]:
    """``document`` with what a runner needs to send its tests, so that a runner in another
    language needs no copy of the topic declarations (``sets.topics.TOPICS``): the header
    lists the informative keys (never compared), and each test group names its
    ``capability`` and its operation, either ``operation`` (every test of the group) or
    ``operationFromInput`` (each test's operation is ``<capability>.<input[key]>``).
    ``binding``: the topic's (default: its declaration in ``TOPICS``)."""
    if binding is None:
        binding = binding_of(document["topic"])
    head = {key: value for key, value in document.items() if key != "testGroups"}
    head["informativeKeys"] = sorted(INFORMATIVE_KEYS)
    head["detailsCompared"] = DETAILS_COMPARED
    groups = [
        {"type": group["type"], **binding.route(group["type"]).fields(), **group}
        for group in document["testGroups"]
    ]
    return {**head, "testGroups": groups}


def _tests_by_id(generated: Mapping[str, str]) -> dict[str, tuple[str, dict[str, Any]]]:
    found: dict[str, tuple[str, dict[str, Any]]] = {}
    for path, text in generated.items():
        if path.startswith("schema/") or path == REGISTRY_NAME:
            continue
        document = json.loads(text)
        for group in document["testGroups"]:
            for test in group["tests"]:
                if test["id"] in found:
                    raise ValueError(f"test id {test['id']} appears twice")
                found[test["id"]] = (document["topic"], test)
    return found


class RegistryUnreadable(ValueError):
    """``registry.json`` in the target directory is not a registry: it is refused with a
    sentence (nothing is written), never read half-way."""


def _registry_document(directory: Path) -> dict[str, Any]:
    path = directory / REGISTRY_NAME
    if not path.exists():
        return {"ids": {}}
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as error:
        raise RegistryUnreadable(
            f"{path} cannot be read as JSON ({type(error).__name__})"
        ) from None
    if not isinstance(document, dict) or not isinstance(document.get("ids"), dict):
        raise RegistryUnreadable(f"{path} is not a test-id registry: it has no 'ids' object")
    for section in ("ids", "retired"):
        entries = document.get(section, {})
        if not isinstance(entries, dict) or not all(
            isinstance(entry, dict) and all(isinstance(v, str) for v in entry.values())
            for entry in entries.values()
        ):
            raise RegistryUnreadable(f"{path}: '{section}' must map test ids to string fields")
    if not all(isinstance(entry.get("meaning"), str) for entry in document["ids"].values()):
        raise RegistryUnreadable(f"{path}: every entry of 'ids' needs a string 'meaning'")
    return document


def _load_registry(directory: Path) -> dict[str, dict[str, str]]:
    ids: dict[str, dict[str, str]] = _registry_document(directory)["ids"]
    return ids


def _load_retired(directory: Path) -> dict[str, dict[str, str]]:
    retired: dict[str, dict[str, str]] = _registry_document(directory).get("retired", {})
    return retired


def retired_section_problems(
    recorded: Mapping[str, Mapping[str, str]], retired: Mapping[str, Retirement]
) -> list[str]:
    """A retirement the registry already records must stay declared, word for word."""
    problems = []
    for test_id, entry in sorted(recorded.items()):
        if test_id not in retired:
            problems.append(f"retirement of test id {test_id} was withdrawn; it is permanent")
        elif retired[test_id].to_json() != dict(entry):
            problems.append(f"retirement of test id {test_id} was changed; it is permanent")
    return problems


def registry_problems(
    registry: Mapping[str, Mapping[str, str]],
    tests: Mapping[str, tuple[str, dict[str, Any]]],
    retired: Mapping[str, Retirement],
) -> list[str]:
    problems = []
    for test_id, entry in registry.items():
        if test_id in retired:
            continue
        if test_id not in tests:
            problems.append(f"published test id {test_id} disappeared")
        elif meaning(tests[test_id][1]) != entry["meaning"]:
            problems.append(f"published test id {test_id} changed meaning; give it a new id")
    for test_id, retirement in sorted(retired.items()):
        if test_id in tests:
            problems.append(f"retired test id {test_id} is exported again; use a new id")
        # A replacement may itself be retired later (its expectation changed again): the
        # chain must end in an exported id.
        current = live_id(retirement.replaced_by, tuple(retired.values()))
        if current not in tests:
            problems.append(f"{retirement.replaced_by}, which replaces {test_id}, is not exported")
    return problems


def render_registry(
    registry: Mapping[str, Mapping[str, str]],
    tests: Mapping[str, tuple[str, dict[str, Any]]],
    retired: Mapping[str, Retirement],
) -> str:
    merged = {key: dict(value) for key, value in registry.items()}
    for test_id, (topic, test) in tests.items():
        merged.setdefault(test_id, {"topic": topic, "meaning": meaning(test)})
    return render(
        {
            "comment": "Every published test id and a digest of its meaning. Append-only;"
            " a retired id keeps its entry and is listed under retired.",
            "ids": dict(sorted(merged.items())),
            "retired": {key: retired[key].to_json() for key in sorted(retired)},
        }
    )


def _rule_problems(suite: Suite, tests: Mapping[str, tuple[str, dict[str, Any]]]) -> list[str]:
    return suite.rule_problems({test_id: test["rule"] for test_id, (_, test) in tests.items()})


def export(
    directory: Path,
    observations: Sequence[Observation] | None = None,
    suite: Suite | None = None,
) -> list[str]:
    """Write all files of ``suite`` (default: the shipped one); returns the problems that
    made it refuse (nothing written then)."""
    chosen = _suite(suite, observations)
    try:
        files, problems = observed_files(suite=chosen)
        if problems:
            return problems
        generated = generate(files, chosen)
        tests = _tests_by_id(generated)
    except ValueError as refused:
        # a table or a topic the builders refuse (a case table's row, a flag without a
        # note, an id used twice): a sentence naming the file and the row
        return [str(refused)]
    problems = _rule_problems(chosen, tests)
    if problems:
        return problems
    try:
        registry = _load_registry(directory)
    except RegistryUnreadable as error:
        return [str(error)]
    retired = dict(chosen.retired)
    problems = registry_problems(registry, tests, retired)
    problems.extend(retired_section_problems(_load_retired(directory), retired))
    problems[:0] = target_problems(directory, [*generated, REGISTRY_NAME])
    if problems:
        return problems
    (directory / "schema").mkdir(parents=True, exist_ok=True)
    for path, text in generated.items():
        target = directory / path
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            _write_no_follow(target, text)
    _write_no_follow(directory / REGISTRY_NAME, render_registry(registry, tests, retired))
    return []


def target_problems(directory: Path, paths: Sequence[str]) -> list[str]:
    """Why export must not write into ``directory``: it, its ``schema`` folder or a file it
    would write is a symlink (never followed), or it holds files but no ``registry.json``
    (a non-empty directory that is not a vectors directory is never written into)."""
    if directory.is_symlink():
        return [f"{directory} is a symlink; give the real directory"]
    if directory.exists() and not directory.is_dir():
        return [f"{directory} is not a directory"]
    problems = []
    if directory.is_dir() and any(directory.iterdir()):
        registry = directory / REGISTRY_NAME
        if not registry.is_file() or registry.is_symlink():
            problems.append(
                f"{directory} is not empty and holds no {REGISTRY_NAME}: not a vectors "
                "directory (give an empty or a vectors directory)"
            )
    for path in ("schema", *paths):
        if (directory / path).is_symlink():
            problems.append(f"{directory / path} is a symlink; export never follows one")
    return problems


def _write_no_follow(path: Path, text: str) -> None:
    """Write ``path`` without following a symlink put there after the check (O_NOFOLLOW)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW
    with os.fdopen(os.open(path, flags, 0o644), "w", encoding="utf-8") as handle:
        handle.write(text)


def check(
    directory: Path,
    observations: Sequence[Observation] | None = None,
    suite: Suite | None = None,
) -> list[str]:
    """Freshness, schema validity, unique ids, cited rules and registry consistency of
    ``directory`` against ``suite`` (default: the shipped one), and no upstream difference
    that is not a named finding."""
    chosen = _suite(suite, observations)
    try:
        files, problems = observed_files(suite=chosen)
        generated = generate(files, chosen)
    except ValueError as refused:
        return [str(refused)]
    for path, text in sorted(generated.items()):
        target = directory / path
        if not target.exists():
            problems.append(f"{path} is missing; run `rescind vectors export`")
        elif target.read_text(encoding="utf-8") != text:
            problems.append(f"{path} differs from what the reference generates (stale or edited)")
    on_disk = {
        str(path.relative_to(directory))
        for path in list(directory.glob("*.json")) + list(directory.glob("schema/*.json"))
    }
    for extra in sorted(on_disk - set(generated) - {REGISTRY_NAME}):
        problems.append(f"{extra} is not generated by any vector module")
    for path in sorted(generated):
        if path.startswith("schema/") or not (directory / path).exists():
            continue
        document = json.loads((directory / path).read_text(encoding="utf-8"))
        schema_path = directory / document.get("schema", "")
        if not schema_path.is_file():
            problems.append(f"{path}: its schema file is missing")
            continue
        schema = json.loads(schema_path.read_text(encoding="utf-8"))
        for error in jsonschema.Draft202012Validator(schema).iter_errors(document):
            problems.append(f"{path}: schema: {error.message} at {list(error.absolute_path)}")
    try:
        tests = _tests_by_id(generated)
    except ValueError as exc:
        return [*problems, str(exc)]
    problems.extend(_rule_problems(chosen, tests))
    try:
        registry = _load_registry(directory)
    except RegistryUnreadable as error:
        return [*problems, str(error)]
    retired = dict(chosen.retired)
    problems.extend(registry_problems(registry, tests, retired))
    recorded = _load_retired(directory)
    problems.extend(retired_section_problems(recorded, retired))
    for test_id in sorted(set(retired) - set(recorded)):
        problems.append(
            f"retirement of {test_id} is not in the registry; run `rescind vectors export`"
        )
    for test_id in sorted(set(tests) - set(registry)):
        problems.append(f"test id {test_id} is not in the registry; run `rescind vectors export`")
    return problems
