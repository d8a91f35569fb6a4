"""The engine's worker processes: every task runs, the initializer runs first, and what the workers'
lexicon caches learnt comes back to the parent (so a cold-cache run in workers is saved like any other)."""

from __future__ import annotations

import perturbations
from perturbations import lexicon, store

WORDS = ("aardwolves", "quaggas", "xylophones", "okapis")
_STATE: dict[str, str] = {}


def _remember(label: str) -> None:
    _STATE["label"] = label


def _lemma(word: str) -> tuple[str, str | None, str]:
    return word, lexicon.lemma_of(word, "n"), _STATE.get("label", "no initializer")


def test_map_in_workers_runs_every_task_and_brings_back_what_the_workers_learnt() -> None:
    table = store.tables().setdefault("lemma_of", {})
    for word in WORDS:
        table.pop((word, "n"), None)  # not known to the parent when the workers start
    results = list(perturbations.map_in_workers(_lemma, WORDS, workers=2, initializer=_remember, initargs=("set up",)))
    assert sorted(results) == sorted((w, w.rstrip("s").replace("wolve", "wolf"), "set up") for w in WORDS)
    for word, lemma, _ in results:
        assert table[(word, "n")] == lemma  # learnt in a worker, merged here
