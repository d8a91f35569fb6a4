"""Answering a round of queries: from the cache where it can, else from the model in batched chunks that
are appended to the cache as soon as they are done.

Under a launcher only the main process reads and writes the cache and decides what the model must run; it
broadcasts that list, every process runs the same chunks (the runner deals the batches), and it broadcasts
the answers, so every process sees the same answers in the same order.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from robustqa.attack.query_cache import QueryCache
from robustqa.attack.scorer import Query, Scored, Scorer
from robustqa.evaluation import distributed

DEFAULT_CHUNK = 256


class Oracle:
    """The model behind a cache. `model_queries` counts the queries the model ran, `from_cache` the
    distinct ones served from the cache file written by an earlier, interrupted run."""

    def __init__(
        self, scorer: Scorer, cache: QueryCache, *, chunk_size: int = DEFAULT_CHUNK, progress: bool = False
    ) -> None:
        self.scorer = scorer
        self.cache = cache
        self.chunk_size = chunk_size
        self.progress = progress
        self.main = distributed.is_main_process()
        self.known: dict[tuple[str, str], Scored] = cache.load() if self.main else {}
        self._from_earlier_run = set(self.known)
        self.model_queries = 0
        self.from_cache = 0

    def ask(self, queries: Sequence[Query], *, description: str = "queries") -> list[Scored]:
        """The answers of `queries`, in order (a repeated query is answered once)."""
        todo_keys: list[tuple[str, str]] = []
        if self.main:
            wanted = dict.fromkeys(q.key for q in queries)
            todo_keys = [key for key in wanted if key not in self.known]
            hits = [key for key in wanted if key in self._from_earlier_run]
            self.from_cache += len(hits)
            self._from_earlier_run.difference_update(hits)
        todo_keys = distributed.broadcast_object(todo_keys)
        by_key = {q.key: q for q in queries}
        # chunks of similar length pad little (the runner sorts each chunk's windows by length)
        todo = sorted(
            (by_key[key] for key in todo_keys), key=lambda q: (len(q.example.context) + len(q.question), q.key)
        )
        bar = _progress_bar(len(todo), description, self.progress and self.main and bool(todo))
        try:
            for start in range(0, len(todo), self.chunk_size):
                chunk = todo[start : start + self.chunk_size]
                results = self.scorer.score(chunk, on_progress=bar.update)
                if len(results) != len(chunk):
                    raise RuntimeError(f"the scorer answered {len(results)} of {len(chunk)} queries")
                self.model_queries += len(chunk)
                if self.main:
                    rows = [(q.key, r) for q, r in zip(chunk, results)]
                    self.cache.append(rows)
                    self.known.update(rows)
        finally:
            bar.close()
        answers = [self.known[q.key] for q in queries] if self.main else None
        return distributed.broadcast_object(answers) or []


def _progress_bar(total: int, description: str, enabled: bool) -> Any:
    from tqdm.auto import tqdm

    return tqdm(
        total=total, desc=description, unit="q", file=sys.stderr, disable=not enabled, dynamic_ncols=True, leave=False
    )
