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
A cache that cannot be written is skipped silently (it only saves time). ``--no-cache``
forces a real proof of every check.

**The cache is a file anyone can write** (a CI cache restored from another branch, say), so
an entry is a claim, read as hostile data (docs/bounds.md):

- a path that is not a regular file (a FIFO, a device) is refused without being opened, and
  an entry larger than ``MAX_ENTRY_BYTES`` is not read;
- an entry that does not parse, holds a member of the wrong type (``seconds`` must be a
  finite, non-negative number: NaN is refused), or does not name this check, this digest and
  this z3 and Rescind version is ignored with a warning (``ProofCache.warnings``) and the
  check is proved again;
- only ``proven`` results are served from the cache. A finding is always derived again: its
  counterexample is what the model gives now (its lasso is tried first on the recorded
  schedule, which is fast), never text from the file. Verifying a cached ``proven`` would
  cost the proof itself, so it is trusted only because the digest covers everything a proof
  reads (the model imports nothing outside ``rescind.model``, ``rescind.tables`` and z3:
  an import-linter contract) — and, under ``CI``, only when ``--cache`` asks for it;
- with ``CI`` set in the environment the cache is written but not read unless ``--cache``
  is given (``read=False``).

**Processes.** Checks missing from the cache run in ``jobs`` worker processes (a forkserver
that imports the proof modules once); each worker discovers the checks itself and runs them
by name. A check a worker does not know (a check built in the caller's process, as tests do)
runs in the caller's process.
"""

from __future__ import annotations

import hashlib
import json
import math
import multiprocessing
import os
import platform
import re
import stat
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import Any

import attrs

from rescind import __version__
from rescind.model.core.proof_check import PASSING, Check, CheckResult

FORMAT = 2
"""The layout of a cache entry; a new layout is a new digest."""
MAX_ENTRY_BYTES = 1 << 20
"""A proven entry holds a few notes; anything larger is not read."""
SERVED: frozenset[str] = frozenset({"proven"})
"""Statuses read back from the cache (a finding is always derived again, see above)."""
_SAFE = re.compile(r"[^A-Za-z0-9._@+-]")


def default_cache_dir() -> Path:
    explicit = os.environ.get("RESCIND_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME")
    return (Path(base) if base else Path.home() / ".cache") / "rescind"


def solver_version() -> str:
    import z3

    return str(z3.get_version_string())


def source_digest() -> str:
    """A digest of what a proof result depends on (see the module docstring)."""

    import rescind.model
    import rescind.tables

    digest = hashlib.sha256()
    parts = [f"format {FORMAT}", f"rescind {__version__}", f"z3 {solver_version()}"]
    parts.append(f"python {platform.python_implementation()} {sys.version_info[:2]}")
    for part in parts:
        digest.update(part.encode() + b"\n")
    for package in (rescind.model, rescind.tables):
        folder = Path(package.__file__ or "").parent
        for path in sorted(folder.rglob("*.py")):
            digest.update(f"{package.__name__}/{path.relative_to(folder).as_posix()}\n".encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:32]


class CacheEntryRefused(ValueError):
    """Why one cache entry is not used (the text of its warning)."""


@attrs.frozen
class ProofCache:
    directory: Path
    """``<cache dir>/proofs/<digest>``."""
    read: bool = True
    """False: results are stored but never read back (``CI`` set without ``--cache``)."""
    warnings: list[str] = attrs.field(factory=list, eq=False)
    """One line per entry that was ignored, for stderr and the reports."""

    @classmethod
    def open(cls, root: Path | None = None, *, read: bool = True) -> ProofCache:
        base = default_cache_dir() if root is None else root
        return cls(base / "proofs" / source_digest(), read)

    @property
    def digest(self) -> str:
        return self.directory.name

    def _path(self, name: str) -> Path:
        return self.directory / f"{_SAFE.sub('_', name)}.json"

    def load(self, name: str, *, expected_finding: str = "") -> CheckResult | None:
        """The stored ``proven`` result of check ``name``, or None: absent, not read (see
        ``read``), or refused with a warning (see the module docstring)."""
        if not self.read:
            return None
        path = self._path(name)
        try:
            return self._entry(name, _read_regular(path), expected_finding)
        except FileNotFoundError:
            return None
        except (OSError, CacheEntryRefused) as error:
            reason = error.strerror if isinstance(error, OSError) else str(error)
            self.warnings.append(f"proof cache entry {path.name} ignored: {reason}")
            return None

    def _entry(self, name: str, data: bytes, expected_finding: str) -> CheckResult | None:
        try:
            entry = json.loads(data)
        except (ValueError, RecursionError):
            raise CacheEntryRefused("not JSON") from None
        if not isinstance(entry, dict):
            raise CacheEntryRefused("not a JSON object")
        expected = {
            "format": FORMAT,
            "check": name,
            "digest": self.digest,
            "z3": solver_version(),
            "rescind": __version__,
        }
        for member, value in expected.items():
            if entry.get(member) != value:
                raise CacheEntryRefused(f"'{member}' does not match this model and solver")
        status, seconds = entry.get("status"), entry.get("seconds")
        if status not in PASSING:
            raise CacheEntryRefused("'status' is not a passing status")
        if status not in SERVED:
            return None  # a finding: derived again, never shown from the file
        if expected_finding:
            raise CacheEntryRefused(
                f"'proven' for a check that documents the finding {expected_finding}"
            )
        if not isinstance(seconds, int | float) or isinstance(seconds, bool):
            raise CacheEntryRefused("'seconds' is not a number")
        if not math.isfinite(seconds) or seconds < 0:
            raise CacheEntryRefused("'seconds' is not a finite, non-negative number")
        lines, detail, finding = (
            entry.get("counterexample"),
            entry.get("detail"),
            entry.get("finding"),
        )
        if not isinstance(lines, list) or not all(isinstance(line, str) for line in lines):
            raise CacheEntryRefused("'counterexample' is not a list of strings")
        if not isinstance(detail, str) or not isinstance(finding, str):
            raise CacheEntryRefused("'detail' or 'finding' is not a string")
        if lines or finding:
            raise CacheEntryRefused("a proven result with a counterexample or a finding")
        return CheckResult("proven", float(seconds), (), detail, "")

    def store(self, name: str, result: CheckResult) -> None:
        if result.status not in SERVED:
            return
        entry = {
            "format": FORMAT,
            "check": name,
            "digest": self.digest,
            "z3": solver_version(),
            "rescind": __version__,
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


def _read_regular(path: Path) -> bytes:
    """The bytes of ``path`` if it is a regular file of at most ``MAX_ENTRY_BYTES``. A FIFO or
    a device is refused from its ``stat``, before any ``open`` (opening one can block or act);
    the file is then opened non-blocking and checked again, in case it was swapped."""
    if not stat.S_ISREG(os.stat(path).st_mode):
        raise CacheEntryRefused("not a regular file (refused unopened)")
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    with os.fdopen(descriptor, "rb") as stream:
        status = os.fstat(stream.fileno())
        if not stat.S_ISREG(status.st_mode):
            raise CacheEntryRefused("not a regular file")
        data = stream.read(MAX_ENTRY_BYTES + 1)
    if len(data) > MAX_ENTRY_BYTES:
        raise CacheEntryRefused(f"larger than {MAX_ENTRY_BYTES} bytes")
    return data


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
    profile (its checks share one system and its lassos, see ``rescind.model.progress.proofs``)."""
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
            stored = (
                cache.load(check.name, expected_finding=check.expected_finding)
                if cache is not None
                else None
            )
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

    def abandon(self) -> None:
        """Stop now: proofs still running are ended, not awaited (the run's deadline passed;
        their checks are reported not run). The executor has no public way to end a running
        task, so its worker processes are terminated before it is shut down."""
        if self._pool is not None:
            for process in list(getattr(self._pool, "_processes", {}).values()):
                process.terminate()
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
            self._futures.clear()


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
        self.answered = 0
        self.from_cache = 0

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
            proved = self._batch.result(check.name)
        else:
            proved = ProofBatch([check], cache=self._cache).result(check.name)
        self.answered += 1
        self.from_cache += proved.cached
        return proved

    def abandon(self) -> None:
        """End the background proofs without waiting for them (see ``ProofBatch.abandon``)."""
        if self._batch is not None:
            self._batch.abandon()

    def notes(self) -> list[str]:
        """What every report says about the cache: how many results came from it, whether it
        was read at all, and every entry it ignored."""
        if not self.answered:
            return []
        return cache_notes(self._cache, self.from_cache, self.answered)


def cache_notes(cache: ProofCache | None, from_cache: int, answered: int) -> list[str]:
    if cache is None:
        said = "not used (--no-cache)"
    elif not cache.read:
        said = "not read: CI is set in the environment (--cache reads it)"
    else:
        said = "only proven results are read; findings are derived again"
    lines = [f"proof cache: {from_cache} of {answered} model results read from it; {said}"]
    return lines + (cache.warnings if cache is not None else [])
