"""Running the model checks for ``rescind prove`` and ``rescind check``: a result cache and
worker processes.

**Cache.** A proven check (or a finding with its lasso) depends only on the model and the
tables it reads, on z3 and on Python. Its result is stored as one JSON file under
``<cache dir>/proofs/<digest>/<check name>.json``, where the digest covers the source bytes of
every module of ``rescind.model`` and ``rescind.tables``, the z3 version, the Python version
and the Rescind version: any edit of the model gives a new digest, so a stale result is never
read. The cache directory is ``$RESCIND_CACHE_DIR``, else ``$XDG_CACHE_HOME/rescind``, else
``~/.cache/rescind``: a user directory, never the installed package. ``violated`` and
``unknown`` results are never stored (an ``unknown`` can be a timeout of a loaded machine).
An entry that cannot be read or does not have the expected shape is ignored and rewritten;
a cache that cannot be written is skipped silently (it only saves time). ``--no-cache``
forces a real proof of every check.

**Processes.** Checks missing from the cache run in ``jobs`` worker processes (a forkserver
that imports the proof modules once); each worker discovers the checks itself and runs them
by name. A check a worker does not know (a check built in the caller's process, as tests do)
runs in the caller's process.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import platform
import re
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import Any

import attrs

from rescind import __version__
from rescind.model.checks import PASSING, Check, CheckResult

FORMAT = 1
"""The layout of a cache entry; a new layout is a new digest."""
_SAFE = re.compile(r"[^A-Za-z0-9._@+-]")


def default_cache_dir() -> Path:
    explicit = os.environ.get("RESCIND_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME")
    return (Path(base) if base else Path.home() / ".cache") / "rescind"


def source_digest() -> str:
    """A digest of what a proof result depends on (see the module docstring)."""
    import z3

    import rescind.model
    import rescind.tables

    digest = hashlib.sha256()
    parts = [f"format {FORMAT}", f"rescind {__version__}", f"z3 {z3.get_version_string()}"]
    parts.append(f"python {platform.python_implementation()} {sys.version_info[:2]}")
    for part in parts:
        digest.update(part.encode() + b"\n")
    for package in (rescind.model, rescind.tables):
        folder = Path(package.__file__ or "").parent
        for path in sorted(folder.rglob("*.py")):
            digest.update(f"{package.__name__}/{path.relative_to(folder).as_posix()}\n".encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:32]


@attrs.frozen
class ProofCache:
    directory: Path
    """``<cache dir>/proofs/<digest>``."""

    @classmethod
    def open(cls, root: Path | None = None) -> ProofCache:
        base = default_cache_dir() if root is None else root
        return cls(base / "proofs" / source_digest())

    def _path(self, name: str) -> Path:
        return self.directory / f"{_SAFE.sub('_', name)}.json"

    def load(self, name: str) -> CheckResult | None:
        """The stored result of check ``name``, or None (absent, unreadable or malformed)."""
        try:
            entry = json.loads(self._path(name).read_text(encoding="utf-8"))
            if entry["check"] != name or entry["status"] not in PASSING:
                return None
            lines = entry["counterexample"]
            if not isinstance(lines, list) or not all(isinstance(x, str) for x in lines):
                return None
            return CheckResult(
                entry["status"],
                float(entry["seconds"]),
                tuple(lines),
                str(entry["detail"]),
                str(entry["finding"]),
            )
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def store(self, name: str, result: CheckResult) -> None:
        if result.status not in PASSING:
            return
        entry = {
            "check": name,
            "status": result.status,
            "seconds": round(result.seconds, 4),
            "counterexample": list(result.counterexample),
            "detail": result.detail,
            "finding": result.finding,
        }
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=self.directory, suffix=".tmp")
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                json.dump(entry, stream)
            os.replace(temporary, self._path(name))
        except OSError:
            return


def run_check(check: Check) -> CheckResult:
    """Run one check; a check that crashes is reported as unknown, never as proven."""
    started = time.perf_counter()
    try:
        return check.run()
    except Exception as error:  # a broken check must not hide the others' results
        return CheckResult(
            "unknown",
            time.perf_counter() - started,
            detail=f"the check raised {type(error).__name__}",
        )


_KNOWN: dict[str, Check] = {}


def _run_by_names(names: Sequence[str]) -> dict[str, CheckResult | None]:
    """In a worker: each named check's result, None for a check this process does not have."""
    if not _KNOWN:
        from rescind.model.catalog import discover_checks  # loads z3: only in proof workers

        _KNOWN.update((check.name, check) for check in discover_checks())
    results: dict[str, CheckResult | None] = {}
    for name in names:
        check = _KNOWN.get(name)
        results[name] = None if check is None else run_check(check)
    return results


def unit_of(check: Check) -> str:
    """Checks that share work run in one process: a group, and for the progress checks the
    profile (its checks share one system and its lassos, see ``rescind.model.progress``)."""
    _, _, profile = check.name.partition("@")
    return f"{check.group}@{profile}"


def available_cores() -> int:
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


@attrs.frozen
class Proved:
    result: CheckResult
    cached: bool
    """True when the result was read from the cache (its seconds are the original proof's)."""


class ProofBatch:
    """The results of ``checks``, computed in the background from the moment it is created."""

    def __init__(self, checks: Sequence[Check], *, cache: ProofCache | None, jobs: int = 1) -> None:
        self._cache = cache
        self._done: dict[str, Proved] = {}
        self._futures: dict[str, Future[dict[str, CheckResult | None]]] = {}
        self._checks = {check.name: check for check in checks}
        missing = []
        for check in checks:
            stored = cache.load(check.name) if cache is not None else None
            if stored is not None:
                self._done[check.name] = Proved(stored, cached=True)
            else:
                missing.append(check)
        self._pool: ProcessPoolExecutor | None = None
        if jobs > 1 and len({unit_of(check) for check in missing}) > 1:
            context = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload(["rescind.model.catalog"])
            units: dict[str, list[str]] = {}
            for check in missing:
                units.setdefault(unit_of(check), []).append(check.name)
            workers = min(jobs, len(units))
            self._pool = ProcessPoolExecutor(max_workers=workers, mp_context=context)
            # The progress units are the longest: started first, they do not finish last.
            for unit in sorted(units, key=lambda u: not u.startswith("progress@")):
                future = self._pool.submit(_run_by_names, units[unit])
                self._futures.update(dict.fromkeys(units[unit], future))

    def result(self, name: str) -> Proved:
        if name not in self._done:
            remote = self._futures.pop(name, None)
            answer = _remote_result(remote, name) if remote is not None else None
            if answer is None:
                answer = run_check(self._checks[name])
            if self._cache is not None:
                self._cache.store(name, answer)
            self._done[name] = Proved(answer, cached=False)
            if not self._futures:
                self.close()
        return self._done[name]

    def close(self) -> None:
        if self._pool is not None:
            for future in self._futures.values():
                future.cancel()
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


def _remote_result(future: Future[dict[str, CheckResult | None]], name: str) -> CheckResult | None:
    try:
        return future.result()[name]
    except Exception:  # a worker that died: run the check here instead
        return None


def run_all(
    checks: Sequence[Check],
    *,
    cache: ProofCache | None,
    jobs: int = 1,
    done: Callable[[Check, Proved], Any] | None = None,
) -> list[tuple[Check, Proved]]:
    """Every check's result, in the order given."""
    batch = ProofBatch(checks, cache=cache, jobs=jobs)
    try:
        results = []
        for check in checks:
            proved = batch.result(check.name)
            if done is not None:
                done(check, proved)
            results.append((check, proved))
        return results
    finally:
        batch.close()


class ProofRunner:
    """The model checks of one ``rescind check`` run. ``start`` begins proving the checks
    chosen (by conformance check id, ``model.<name>``) in the background; a check not started
    that way is proved when it runs, in this process."""

    def __init__(self, cache: ProofCache | None = None, jobs: int = 1) -> None:
        self._cache = cache
        self._jobs = jobs
        self._known: dict[str, Check] = {}
        self._batch: ProofBatch | None = None
        self._started: frozenset[str] = frozenset()

    @property
    def cache(self) -> ProofCache | None:
        """The cache this run reads and fills (``None`` under ``--no-cache``)."""
        return self._cache

    def register(self, check_id: str, check: Check) -> None:
        self._known[check_id] = check

    def start(self, check_ids: Iterable[str]) -> None:
        chosen = [self._known[i] for i in dict.fromkeys(check_ids) if i in self._known]
        if self._batch is not None:
            self._batch.close()
        self._batch = ProofBatch(chosen, cache=self._cache, jobs=self._jobs)
        self._started = frozenset(check.name for check in chosen)

    def result(self, check: Check) -> Proved:
        if self._batch is not None and check.name in self._started:
            return self._batch.result(check.name)
        return ProofBatch([check], cache=self._cache).result(check.name)
