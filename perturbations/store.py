"""A persistent on-disk cache of the engine's lexicon tables (senses, cntlist counts, Lesk signatures and
log priors, lemmas, inflections, candidate lists).

Why: deriving these tables from WordNet's text files is most of the work of a first build (one SQuAD half
needs thousands of enhanced-Lesk signatures), and every new process, or forked worker, started from nothing.
The tables are a pure function of the WordNet files, the stopword list, lemminflect and the engine's own
constants, so they are stored once under `$ROBUSTQA_CACHE` (default `~/.cache/robustqa`; `off` disables
it) in a file named by a hash of all of those. The cache is never required: a missing, unreadable, corrupt
or stale file is ignored (and rebuilt), a read-only home only means nothing is written. It only ever
memoises pure functions, so results are the same with or without it.
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import os
import pickle
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from perturbations import resources
from perturbations.errors import MissingResourceError

# Bump whenever a memoised function (or what it calls) changes its results, or a table changes layout.
CACHE_FORMAT = 3

_TABLES: dict[str, dict[Any, Any]] = {}
_STATE: dict[str, Any] = {"loaded": False, "size": 0, "path": None, "resources": None}

F = TypeVar("F", bound=Callable[..., Any])


def persistent(name: str) -> Callable[[F], F]:
    """Memoise a pure function of hashable positional arguments in the named persistent table.

    The table dict is bound once, and the file is read into it on the first miss, so a hit costs one
    dict look-up."""

    def decorate(fn: F) -> F:
        memo = _TABLES.setdefault(name, {})

        @functools.wraps(fn)
        def wrapper(*args: Any) -> Any:
            try:
                return memo[args]
            except KeyError:
                pass
            if not _STATE["loaded"]:
                load()
                if args in memo:
                    return memo[args]
            value = fn(*args)
            memo[args] = value
            return value

        def holds(*args: Any) -> bool:
            """Whether the result for `args` is stored (read from disk first if not yet), without computing it."""
            if args not in memo and not _STATE["loaded"]:
                load()
            return args in memo

        wrapper.cache_clear = memo.clear  # type: ignore[attr-defined]
        wrapper.holds = holds  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate


def cache_folder() -> Path | None:
    """Where cache files live, or None when `ROBUSTQA_CACHE=off`."""
    setting = os.environ.get("ROBUSTQA_CACHE", "")
    if setting.lower() in ("off", "0", "none", "false"):
        return None
    return Path(setting) if setting else Path.home() / ".cache" / "robustqa"


def _engine_source_hash() -> str:
    """Hash of the engine's own source files, so an edited engine never reads tables an older one cached
    (bumping CACHE_FORMAT by hand is easy to forget)."""
    digest = hashlib.sha256()
    root = Path(__file__).parent
    for source in _engine_sources():
        digest.update(source.relative_to(root).as_posix().encode("utf-8"))
        digest.update(source.read_bytes())
    return digest.hexdigest()[:16]


def _engine_sources() -> list[Path]:
    """Every source file of the engine, subpackages included (the constraints decide what the cached
    candidate tables hold)."""
    return sorted(Path(__file__).parent.rglob("*.py"))


def _identity() -> str:
    """Hash of what the tables depend on that is cheap to know: engine source (which holds every constant
    of the memoised functions, such as the WSD weights), library versions, and what decides NLTK's search
    path (NLTK_DATA, the home folder, the Python prefix, APPDATA on Windows).

    The data files themselves (path, size, mtime) are checked against the record stored inside the
    file (`resources.unchanged`), which needs no NLTK import; a file whose record fails is rebuilt."""
    import sys
    from importlib.metadata import PackageNotFoundError, version

    versions = []
    for package in ("lemminflect", "nltk", "wordfreq"):
        try:
            versions.append(f"{package}={version(package)}")
        except PackageNotFoundError:
            versions.append(f"{package}=?")
    parts = [
        f"format={CACHE_FORMAT}",
        f"engine={_engine_source_hash()}",
        *versions,
        f"nltk_data={os.environ.get('NLTK_DATA', '')}",
        f"appdata={os.environ.get('APPDATA', '')}",  # part of NLTK's search path on Windows
        f"home={os.path.expanduser('~')}",
        f"prefix={sys.prefix}",
    ]
    return hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()[:24]


def cache_path() -> Path | None:
    folder = cache_folder()
    return None if folder is None else folder / f"lexicon-{_identity()}.pickle"


def load() -> None:
    """Read the cache file into the tables (once per process); anything wrong with it is ignored."""
    if _STATE["loaded"]:
        return
    _STATE["loaded"] = True  # set first: computing the identity may itself call memoised functions
    atexit.register(save)  # forked workers leave through os._exit and never run it
    path = cache_path()
    _STATE["path"] = path
    if path is None:
        return
    try:
        with open(path, "rb") as handle:
            stored = _load_without_gc(handle)
        if not isinstance(stored, dict) or stored.get("format") != CACHE_FORMAT:
            return
        if not resources.unchanged(stored.get("resources")):
            return  # NLTK's files moved or changed: these tables may not hold for them
        _STATE["resources"] = stored["resources"]
        for name, table in stored["tables"].items():
            if isinstance(table, dict):  # tables of modules not imported yet wait here for their decorator
                live = _TABLES.setdefault(name, {})
                if live:  # entries computed before the file was read win
                    table.update(live)
                    live.clear()
                live.update(table)
    except Exception:  # a corrupt, truncated or unreadable cache is rebuilt, never fatal
        return
    _STATE["size"] = size()


def _load_without_gc(handle: Any) -> Any:
    """Unpickle with the cyclic garbage collector paused: the file is a few hundred thousand small tuples
    and sets, and every collection triggered while they are created would walk all of them again. Nothing
    in the file is cyclic garbage."""
    import gc

    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return pickle.load(handle)
    finally:
        if was_enabled:
            gc.enable()


def resources_verified() -> bool:
    """Whether the cache file read by this process vouches that NLTK's data is installed and unchanged
    (so nothing needs NLTK to say so)."""
    load()
    return _STATE.get("resources") is not None


def size() -> int:
    """Number of memoised entries across all tables."""
    return sum(len(t) for t in _TABLES.values())


def tables() -> dict[str, dict[Any, Any]]:
    """The live tables (what forked workers inherit and what `merge` accepts)."""
    return _TABLES


def entries_since(sizes: dict[str, int]) -> dict[str, dict[Any, Any]]:
    """Entries added to each table after `sizes` (from `table_sizes`) were taken: dicts keep insertion order."""
    out: dict[str, dict[Any, Any]] = {}
    for name, table in _TABLES.items():
        start = sizes.get(name, 0)
        if len(table) > start:
            keys = list(table)[start:]
            out[name] = {k: table[k] for k in keys}
    return out


def table_sizes() -> dict[str, int]:
    return {name: len(t) for name, t in _TABLES.items()}


def merge(found: dict[str, dict[Any, Any]]) -> None:
    """Add entries computed elsewhere (a worker process); existing entries win."""
    for name, table in found.items():
        target = _TABLES.get(name)
        if target is not None:
            for key, value in table.items():
                target.setdefault(key, value)


def save() -> bool:
    """Write the tables if they grew since they were read; atomic (temp file, then rename). Returns whether
    a file was written; failures (read-only home, full disk) are silent: the cache is an optimisation."""
    if not _STATE["loaded"] or size() <= _STATE["size"]:
        return False
    path = _STATE["path"]
    if path is None:
        return False
    try:
        record = _STATE.get("resources") or resources.record()
        path.parent.mkdir(parents=True, exist_ok=True)
        tables = {name: dict(t) for name, t in _TABLES.items()}
        payload = {"format": CACHE_FORMAT, "resources": record, "tables": tables}
        fd, tmp = tempfile.mkstemp(prefix=path.name, suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as handle:
                pickle.dump(payload, handle, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except (OSError, MissingResourceError):
        return False
    _STATE["size"] = size()
    return True
