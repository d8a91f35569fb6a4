"""Running the engine in worker processes: fork-safety and the lexicon cache, behind one call.

Why this lives in the engine: with the `fork` start method, workers inherit the parent's memoised tables
(copy-on-write, so they are loaded once) but also NLTK's open WordNet files, whose file offsets parent and
children would share; and what a worker learns on a cold cache must come back to the parent to be saved.
The caller only says what to run (`map_in_workers`) and, when done, `save_cache()`.
"""

from __future__ import annotations

import gc
import multiprocessing
import sys
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import TYPE_CHECKING, Any, TypeVar

from perturbations import store

if TYPE_CHECKING:
    from perturbations.recipes import Recipe

T = TypeVar("T")
R = TypeVar("R")

_WARM_UP_TEXT = "Which old castle did the king build near the wide river?"
_WARM_UP_CONTEXT = "The king built a castle of stone near the river, and his sons ruled the land for a century."

_INHERITED_READERS: list[Any] = []  # set by the parent just before it forks (its heap is then frozen)
_SIZES: dict[str, int] = {}  # table sizes in a worker when it last reported what it learnt


def save_cache() -> bool:
    """Write the lexicon tables this process (and the workers it ran) computed, for the next process.

    Returns whether a file was written; never fails (an unwritable cache folder only means nothing is
    written, and `ROBUSTQA_CACHE=off` writes nothing)."""
    return store.save()


def map_in_workers(
    task: Callable[[T], R],
    items: Sequence[T],
    *,
    workers: int,
    initializer: Callable[..., None] | None = None,
    initargs: tuple[Any, ...] = (),
    warm_up: Sequence[Recipe] = (),
) -> Iterator[R]:
    """`task(item)` for every item, computed in `workers` processes, yielded as they complete.

    `task` and `initializer` must be module-level functions (they are pickled by reference); `initializer`
    runs once in each worker after the engine has made it safe. With the `fork` start method (where the
    platform has it), the parent first loads the lexicon tables and runs each recipe of `warm_up` on a
    short text, so the workers share what that loads instead of each loading it again. Entries a worker
    adds to the tables come back with each result and are kept here (see `save_cache`).
    """
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    forking = context.get_start_method() == "fork"
    if forking:
        store.load()
        for recipe in warm_up:
            recipe.perturb(_WARM_UP_TEXT, seed=0, key="warm-up", wsd_context=_WARM_UP_CONTEXT)
        # Freeze the parent's heap before forking: the workers' garbage collector then never walks (and so
        # never copies) the shared tables. Frozen objects are invisible to gc.get_objects(), so the WordNet
        # readers the workers must detach from their files are listed first.
        _INHERITED_READERS[:] = _wordnet_readers()
        gc.freeze()
    try:
        with ProcessPoolExecutor(
            max_workers=workers, mp_context=context, initializer=_start_worker, initargs=(initializer, initargs)
        ) as pool:
            futures = [pool.submit(_run, task, item) for item in items]
            for future in as_completed(futures):
                result, learnt = future.result()
                store.merge(learnt)
                yield result
    finally:
        if forking:
            gc.unfreeze()
            _INHERITED_READERS.clear()


def _start_worker(initializer: Callable[..., None] | None, initargs: tuple[Any, ...]) -> None:
    _forget_inherited_wordnet_files()
    _SIZES.clear()
    _SIZES.update(store.table_sizes())
    if initializer is not None:
        initializer(*initargs)


def _run(task: Callable[[T], R], item: T) -> tuple[R, dict[str, dict[Any, Any]]]:
    """A task's result, and the lexicon-table entries this worker computed since its last task (so the
    parent can persist what a cold-cache run learnt in its workers)."""
    result = task(item)
    learnt = store.entries_since(_SIZES)
    _SIZES.update(store.table_sizes())
    return result, learnt


def _forget_inherited_wordnet_files() -> None:
    """Make a forked worker open its own WordNet files.

    NLTK's WordNet reader keeps some files open and seeks in them (the data files, `cntlist.rev`,
    `index.sense`); after a fork, parent and children share those file offsets, so concurrent reads
    return the wrong lines (a missing synset, a wrong count). Every reader inherited from the parent,
    whoever created it, drops its handles here and reopens them on its next look-up; what it has
    parsed stays shared.
    """
    for reader in _INHERITED_READERS or _wordnet_readers():
        files = getattr(reader, "_data_file_map", None)
        if isinstance(files, dict):
            files.clear()
        for name in ("_key_count_file", "_key_synset_file"):
            if getattr(reader, name, None) is not None:
                setattr(reader, name, None)


def _wordnet_readers() -> list[Any]:
    """Every NLTK WordNet reader alive in this process, whoever created it."""
    module = sys.modules.get("nltk.corpus.reader.wordnet")
    if module is None:
        return []  # no reader was created
    reader = module.WordNetCorpusReader
    # type(o), not isinstance(o, ...): isinstance reads `__class__`, which some proxies (deprecated
    # torch attributes) answer with a warning
    return [o for o in gc.get_objects() if issubclass(type(o), reader)]
