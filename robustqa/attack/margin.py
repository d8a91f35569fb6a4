"""How firmly the model holds its clean answer: a margin in logits, read from the same windows and the same
candidate spans that decoding uses (`robustqa.evaluation.decode`).

An answer decodes as right when the best candidate span is a gold answer and the null score does not beat
it by more than the threshold; as "no answer" when the null score does. So, per question (spans over all
windows, the null score the minimum over windows, as decoding combines them):

- answerable: margin = min(gold − other, gold − (null − threshold)), where `gold` is the best score of a
  candidate span whose text is a gold answer (SQuAD normalisation) and `other` the best of the rest;
- unanswerable: margin = (null − best span) − threshold, the null odds beyond the threshold.

The answer is right exactly when the margin is positive (up to exact ties), and the margin falls as the
model drifts away from it, so the search ranks edits by how far each lowers it: the "score of the clean
answer" relative to its strongest rival, which (unlike the clean span's own logit) also falls when a rival
rises. Flips themselves are decided by the decoded answer, never by this number alone.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

import numpy as np

from robustqa.evaluation.decode import NO_SPAN_NULL_ODDS
from robustqa.metric import normalize_answer

# Finite stand-in for "no span of that kind" (JSON has no infinity); far beyond any logit.
FAR = NO_SPAN_NULL_ODDS


def gold_set(answers: Sequence[str]) -> frozenset[str]:
    """Normalised gold answers (empty ones dropped, as the official script drops them)."""
    return frozenset(n for n in (normalize_answer(a) for a in answers) if n)


def _window_spans(
    start: np.ndarray, end: np.ndarray, mask: np.ndarray, n_best: int, max_answer_length: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Candidate spans of one window as decoding forms them (top `n_best` starts and ends among context
    tokens, end >= start, at most `max_answer_length` tokens): (starts, ends, scores), best first."""
    length = len(start)
    neg_inf = np.float32(-np.inf)
    s = np.where(mask, start, neg_inf)
    e = np.where(mask, end, neg_inf)
    k = max(1, min(n_best, length))
    top_s = np.argpartition(-s, k - 1)[:k] if k < length else np.arange(length)
    top_e = np.argpartition(-e, k - 1)[:k] if k < length else np.arange(length)
    scores = s[top_s][:, None] + e[top_e][None, :]
    span_len = top_e[None, :] - top_s[:, None] + 1
    valid = (span_len >= 1) & (span_len <= max_answer_length) & np.isfinite(scores)
    rows, cols = np.nonzero(valid)
    values = scores[rows, cols]
    starts, ends = top_s[rows], top_e[cols]
    order = np.lexsort((ends, starts, -values))  # best score first; ties: earlier start, then shorter
    return starts[order], ends[order], values[order]


def question_margin(
    windows: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray, int]],
    context: str,
    golds: Collection[str],
    *,
    n_best: int,
    max_answer_length: int,
    null_threshold: float,
) -> float:
    """The margin of one question from its windows, each (start logits, end logits, token char offsets
    with -1 outside the context, CLS position). `golds` are normalised gold answers, empty when the
    question is unanswerable."""
    if not windows:
        return FAR if not golds else -FAR
    null = min(float(s[cls] + e[cls]) for s, e, _, cls in windows)
    best_gold = best_other = -np.inf
    for start, end, offsets, _cls in windows:
        starts, ends, values = _window_spans(start, end, offsets[:, 0] >= 0, n_best, max_answer_length)
        if not golds:
            if len(values):
                best_other = max(best_other, float(values[0]))
            continue
        found_gold = found_other = False
        for s_idx, e_idx, value in zip(starts, ends, values):
            if found_gold and found_other:
                break
            text = normalize_answer(context[int(offsets[s_idx][0]) : int(offsets[e_idx][1])])
            if text in golds:
                if not found_gold:
                    best_gold, found_gold = max(best_gold, float(value)), True
            elif not found_other:
                best_other, found_other = max(best_other, float(value)), True
    if not golds:
        return FAR if not np.isfinite(best_other) else float(null - best_other - null_threshold)
    if not np.isfinite(best_gold):
        return -FAR
    margin = best_gold - (null - null_threshold)
    if np.isfinite(best_other):
        margin = min(margin, best_gold - best_other)
    return float(margin)
