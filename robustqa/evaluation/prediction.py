"""Predicting one set with one model runner: chunk by chunk through the cache, on one or many processes.

Under `torchrun` every process runs the same chunk loop (the runner's collectives need that); only the
main process decides what is left to do (and broadcasts it) and only it appends to the cache. A perturbed
question whose question and context equal its clean question's takes the clean prediction (it would be
the same), so only changed questions reach the model.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from robustqa.evaluation import distributed
from robustqa.evaluation.prediction_cache import PredictionCache
from robustqa.squad import QAExample

DEFAULT_CHUNK = 256


class Runner(Protocol):
    """What prediction needs from a model runner (robustqa.evaluation.inference.QAModelRunner, or a test double)."""

    model_fingerprint: str

    def predict(
        self, examples: Sequence[QAExample], *, on_progress: Callable[[int], None] | None = None
    ) -> Mapping[str, Any]: ...


@dataclass(frozen=True)
class SetPredictions:
    """Texts, null odds and best non-null spans of one set, and how they were obtained.

    `texts` are the SQuAD 2.0 answers ("" to abstain), `best_spans` what SQuAD v1.1 rules answer (None where
    the runner did not report one)."""

    texts: dict[str, str]
    null_odds: dict[str, float]
    predicted: int = 0
    from_cache: int = 0
    reused: int = 0
    best_spans: dict[str, str | None] = field(default_factory=dict)


def _progress_bar(total: int, description: str, enabled: bool) -> Any:
    from tqdm.auto import tqdm

    return tqdm(
        total=total, desc=description, unit="q", file=sys.stderr, disable=not enabled, dynamic_ncols=True, leave=True
    )


def predict_set(
    runner: Runner,
    examples: Sequence[QAExample],
    cache: PredictionCache,
    *,
    chunk_size: int = DEFAULT_CHUNK,
    description: str,
    progress: bool,
) -> SetPredictions:
    """Predict every example not yet in the cache, chunk by chunk, appending each chunk to the cache.

    On processes other than the main one the texts and null odds are empty.
    """
    main = distributed.is_main_process()
    done = cache.load() if main else {}
    todo_ids: list[str] = [ex.id for ex in examples if ex.id not in done] if main else []
    todo_ids = distributed.broadcast_object(todo_ids)
    wanted = set(todo_ids)
    # Chunks exist for resuming; ordering the work by length first keeps each chunk's windows of similar
    # size, so the runner's length-sorted batches pad as little as one global sort would.
    todo = sorted((ex for ex in examples if ex.id in wanted), key=lambda ex: len(ex.context) + len(ex.question))
    bar = _progress_bar(len(todo), description, progress and main and bool(todo))
    try:
        for start in range(0, len(todo), chunk_size):
            chunk = todo[start : start + chunk_size]
            predictions = runner.predict(chunk, on_progress=bar.update)
            if main:
                missing = [ex.id for ex in chunk if ex.id not in predictions]
                if missing:
                    raise RuntimeError(f"the model runner returned no prediction for question {missing[0]}")
                rows = [
                    (
                        ex.id,
                        predictions[ex.id].text,
                        float(predictions[ex.id].null_odds),
                        _best_span(predictions[ex.id]),
                    )
                    for ex in chunk
                ]
                cache.append(rows)
                done.update((pid, (text, odds, span)) for pid, text, odds, span in rows)
    finally:
        bar.close()
    if not main:
        return SetPredictions({}, {}, predicted=len(todo))
    texts = {ex.id: done[ex.id][0] for ex in examples}
    odds = {ex.id: done[ex.id][1] for ex in examples}
    spans = {ex.id: done[ex.id][2] for ex in examples}
    return SetPredictions(texts, odds, predicted=len(todo), from_cache=len(examples) - len(todo), best_spans=spans)


def _best_span(prediction: Any) -> str | None:
    span = getattr(prediction, "best_span", None)
    return None if span is None else str(span)


def with_reused(
    ran: SetPredictions,
    clean: SetPredictions,
    perturbed: Sequence[QAExample],
    source_of: Mapping[str, str],
    changed: Mapping[str, bool],
) -> SetPredictions:
    """The perturbed set's predictions: those of the changed questions as `ran`, the others their clean question's."""
    texts: dict[str, str] = {}
    odds: dict[str, float] = {}
    spans: dict[str, str | None] = {}
    for ex in perturbed:
        origin, key = (ran, ex.id) if changed[ex.id] else (clean, source_of[ex.id])
        texts[ex.id] = origin.texts[key]
        odds[ex.id] = origin.null_odds[key]
        spans[ex.id] = origin.best_spans.get(key)
    reused = sum(1 for ex in perturbed if not changed[ex.id])
    return SetPredictions(texts, odds, ran.predicted, ran.from_cache, reused, spans)
